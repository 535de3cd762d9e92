// Package kubelet simulates the node agent of every worker node.
//
// One Manager reactor watches the store. When a Node is added (by
// engine.AddNode or by applying a v1 Node manifest) it starts a Kubelet for
// it; when the Node is deleted it stops it. Pod watch events are dispatched
// to the kubelet of the pod's spec.nodeName only, through a map by node
// name: a kubelet never sees another node's pods, and nothing scans all
// nodes or all pods.
//
// A kubelet does what the real one does, with the real words and numbers:
// it registers its node's status (conditions, addresses, nodeInfo, cached
// images) and renews a Lease in kube-node-lease every 10 s; it takes on pods
// bound to its node, creates their sandbox (which gives the pod its IP),
// pulls images through a per-node cache and a serialized puller, honours
// imagePullPolicy, backs off failed pulls (10 s doubling to 5 min), creates
// and starts containers, and reports phase, conditions and container states
// through the pods/status subresource. When a pod is deleted it stops the
// containers (the image's stop signal, then SIGKILL at the end of the grace
// period), records the terminal phase and removes the pod object.
//
// Containers are simulated by engine/workload: an image says how long its
// process takes to start, what it prints (kept for `logs`) and how it
// stops. Every step is a trace event in the Run column of the node lane,
// caused by the step before it, back to the binding that placed the pod.
// Lease renewals and unchanged status reports are counted, not traced.
//
// Simplifications, each stated where it is made: the kubelet retries a pull
// the moment its back-off expires (the real one retries on its next pod sync,
// 10 to 15 s jittered after an error); the node's lease renewal and status
// loop share one 10 s timer; init containers, probes, restarts and resource
// admission are not simulated yet (the Maintain issue adds probes and
// restarts on top of this package).
//
// Where the Maintain issue plugs in: a container's life is ctr.stage
// (waiting, creating, starting, running, stopping, exited) and a pod does
// one slow step at a time (podState.op), so a crash is a running container
// moving to exited and, by restartPolicy, back to waiting behind a crash
// back-off like ctr.backoff; probes are timers per running container that
// set its readiness, which containerStatus and the Ready condition read; a
// failed node is a Kubelet whose workOne and heartbeat stop (failure.go:
// `node fail` and `node recover`); what a process does comes from
// workload.Behavior.
package kubelet
