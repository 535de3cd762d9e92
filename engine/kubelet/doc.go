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
// After the start, containers live (the Maintain column): a container's
// process is a workload.Process on virtual time, with its own timer for
// the next thing it does by itself (a shell script waking, an exit, the
// OOM killer, its health endpoint turning). When it exits the kubelet
// restarts it as restartPolicy says, behind the crash-loop back-off of
// doBackOff (10 s doubling to 300 s, first restart at once, reset when an
// exit comes more than 600 s after the back-off's last update), showing
// Waiting CrashLoopBackOff with the kubelet's message, lastState and
// restartCount, and ending the pod Succeeded or Failed under OnFailure and
// Never. Liveness, readiness and startup probes run as the prober's
// workers do (probes.go): on a grid of periodSeconds from when the pod was
// taken on, after initialDelaySeconds, with success and failure thresholds,
// the startup probe gating the others; a liveness or startup failure kills
// the container with the grace period and restarts it, a readiness failure
// flips the container's ready flag and the pod's Ready condition and never
// restarts. Probes that keep succeeding run no timer; only transitions are
// traced (a probe starting to fail, a threshold reached, a kill, a
// restart, a readiness flip), each caused by the step before it, back to
// the container's start or to the learner's kill, break or heal
// (faults.go), so `why` can explain a restart.
//
// A failed node is a Kubelet whose workOne and heartbeat stop (failure.go:
// `node fail` and `node recover`); its probes fire into nothing and its
// restarts wait until it recovers and resyncs its pods.
//
// Simplifications, each stated where it is made: the kubelet retries a pull
// the moment its back-off expires, and restarts a crashed container the
// moment its crash back-off expires (the real one does both on its next
// pod sync, 10 to 15 s jittered after an error, so real gaps are a little
// longer); the node's lease renewal and status loop share one 10 s timer;
// the BackOff event is recorded once per back-off window rather than at
// every sync inside it; a probe's own duration takes no virtual time; init
// containers and resource admission are not simulated yet.
package kubelet
