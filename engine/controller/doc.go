// Package controller is kubeloop's kube-controller-manager at teaching size:
// the Deployment, ReplicaSet and EndpointSlice controllers and the garbage
// collector, each a Reconcile(key) function over a deterministic work queue
// (sample-controller's shape; STYLE.md rule 7), reading the store as its
// informer cache and writing only through the API server.
//
// Each controller is a component.Reactor. Observe only notes work: it maps a
// watch event to the keys it concerns (the owner of a changed pod, found
// through its ownerReferences; the Services selecting it) and queues them
// with the event's cause. Work pops up to as many keys as
// kube-controller-manager runs workers for that controller
// (--concurrent-deployment-syncs=5 and so on) and reconciles each, with client-go's retry and backoff on
// error. Lookups go through store indexes (pods by owner UID, orphans by
// namespace, pods by label) and never scan every pod.
//
// The algorithms follow kube-controller-manager 1.34 (pkg/controller's
// deployment, replicaset, endpointslice and garbagecollector), with the
// numbers, reasons and messages of k8s-facts.md §2.1, §3 and §10. Where this
// package simplifies, the comment at the spot says so. The main ones:
//
//   - The store is the informer cache and is never stale, so a controller
//     reads what it just wrote. Kube's Deployment controller writes status
//     twice per sync with one stale copy, hits a Conflict and retries a few
//     milliseconds later; this one carries the resourceVersion forward and
//     reaches the same state without the retry.
//   - Worker goroutines become "pop up to N keys per Work", N being kube's
//     worker count; a slow-start batch's creations run in order, not in
//     parallel. Expectations still gate every ReplicaSet sync.
//   - The EndpointSlice controller keeps each endpoint in the slice that has
//     it and fills slices in name order up to 100 endpoints, without kube's
//     packing heuristics; it reuses a slice it would delete for one it would
//     create, as kube does. IPv4 only; no topology hints; no
//     last-change-trigger-time annotation.
//   - Related pods for the scale-down rank are found by controller, not by
//     each ReplicaSet's selector.
//   - Pod templates are hashed exactly as kube does, but in the watch's
//     protobuf form (see ComputeHash).
//   - The ReplicaSet controller keeps each ReplicaSet's pod counts as a
//     running tally from the watch (replicaset_tally.go) and recounts its
//     pods, as kube does on every sync, only when the tally cannot answer:
//     pods to create, delete, adopt or release, a changed spec, or
//     minReadySeconds. The counts are the same; tests check it after
//     every sync.
//   - Where kube deep-copies to stay clear of its cache, the Deployment
//     and ReplicaSet controllers share what they never change in place:
//     a sync's working copy is shallow, a new condition list or
//     annotation map replaces the old one rather than editing it, and a
//     ReplicaSet's new pods share its template's labels, annotations and
//     controller reference, and one copy of its spec a sync. Tests check
//     that a sync leaves the stored Deployment as it was, and that a pod's
//     create leaves the pods before it as they were (VerifyTallies).
//
// # Node failure, taint-based eviction and disruption budgets
//
// The node lifecycle controller (nodelifecycle.go) checks every node each
// --node-monitor-period (5 s): a Lease renewal or a changed Ready
// heartbeat seen at a check is a probe, and a node without one for more
// than --node-monitor-grace-period (50 s; 1 m before its first status)
// gets Ready, MemoryPressure, DiskPressure and PIDPressure Unknown
// (NodeStatusUnknown), the NodeNotReady event, and its pods marked
// Ready=False. Conditions and spec.unschedulable are mirrored as NoSchedule
// taints on every node change (TaintNodesByCondition, so cordon adds
// node.kubernetes.io/unschedulable:NoSchedule). The NoExecute unreachable
// or not-ready taint is queued at the check after the one that saw the
// node not Ready (kube reads the condition as it was before the check) and
// added by a pass on a 100 ms grid, through a per-zone token bucket of
// --node-eviction-rate 0.1 node/s, burst 1; a partially disrupted zone
// (more than 2 and at least 55% not Ready) is slowed to 0.01 node/s above
// 50 nodes and stopped below, and when every zone has no Ready node the
// controller stops tainting and lifts the NoExecute taints ("master
// disruption mode"). So a silent node's pods with the default 300 s
// toleration are deleted 50 s + up to 5 s + 5 s + 0.1 s + 300 s after its
// last heartbeat, about six minutes. The taint-eviction controller
// (tainteviction.go) deletes the pods a NoExecute taint does not tolerate,
// at once or when the shortest matching tolerationSeconds runs out, with
// the DisruptionTarget condition (DeletionByTaintManager) and the
// TaintManagerEviction events. The disruption controller (disruption.go)
// computes PodDisruptionBudget status for the Eviction API.
//
// Simplifications: the controllers see the store, not a lagging informer;
// the silence a node lifecycle step reports is traced back to the node's
// last kubelet step (its failure), which the real controller cannot know;
// PodGC, the out-of-service taint and the deletion of pods bound to a
// not-Ready node after the fact (processPod) are not modelled; the
// disruption controller knows ReplicaSets and Deployments as scale
// controllers (no StatefulSets, ReplicationControllers or custom scales).
//
// # The HorizontalPodAutoscaler controller
//
// hpa.go is kube-controller-manager's podautoscaler for autoscaling/v2
// Resource and ContainerResource metrics (Utilization and AverageValue), reading the
// metrics-server of engine/metrics. Each HPA is synced every 15 s, the first
// time 15 s after it appears (kube's HPA queue has a fixed 15 s rate limit).
// hpa_calc.go holds the arithmetic as pure functions: the replica
// calculator (0.1 tolerance, integer utilization, missing pods at 100% or
// 0%, unready pods within the 5 m CPU initialization period or 30 s
// readiness delay), the default normalisation (5 m downscale
// stabilization, scale-up at most max(2 × current, 4) per sync, min/max)
// and behavior's stabilization windows and rate-limit policies. Every sync
// that changes something records one Maintain trace event with the
// arithmetic in words; HPAController.Explain returns the latest sync's
// reasoning for `why hpa/X`. Only Deployments are scaled (anything else is
// FailedGetScale, saying so); ContainerResource metrics are supported, and
// Pods, Object and External metrics are reported as not simulated.
//
// # Adding controllers
//
// A new controller (node lifecycle, HPA, PodDisruptionBudget, ...) is a
// file here with a type embedding worker, an Observe that maps events to
// keys, and a Reconcile(key) (Result, error); it returns RequeueAfter for
// timed checks (as the Deployment controller does for progressDeadlineSeconds)
// and is added to controllerReactors in engine/wire_controllers.go, at the
// end of the list so that existing random sources keep their seeds. Pods
// a node lifecycle controller evicts are deleted through the API server like
// any other; the ReplicaSet controller replaces them in Maintain, because
// the generation they belonged to was already carried out. Rollout pause,
// resume and undo need nothing more here: pause is spec.paused (honoured
// by the Deployment controller, with the DeploymentPaused/Resumed
// conditions), and undo is kubectl rewriting the template, which makes the
// old ReplicaSet the new one again with the next revision.
//
// # Rollouts, checked
//
// The Deployment controller's status steps say where a rollout under way
// stands (its new ReplicaSet, and what holds it back: new pods not yet
// available and what they wait on, the replicas + maxSurge ceiling, the
// replicas - maxUnavailable floor, a pause), which is what `why
// deployment/X` tells. testdata/cluster holds whole-cluster timelines
// (TestRolloutCluster, driven through the REPL) and TestRollingUpdateBounds
// a table of sizes and strategies; both check the ceiling, the floor and
// Recreate's no-overlap after every settled instant.
//
// # Which column a controller's step goes in
//
// The trace's columns read left to right: Declare, Schedule, Run, Maintain.
// A controller's step is in Declare when it carries NEW desired state down
// the chain, and in Maintain when it corrects drift between desired and
// observed state:
//
//   - Declare: the Deployment controller creating the ReplicaSet for a new
//     pod template, scaling the new ReplicaSet up, or applying a change of
//     spec.replicas; the ReplicaSet controller creating or deleting pods for
//     a spec it has not yet carried out, when that spec change itself was a
//     Declare step (so a learner's `scale` flows down in Declare); the
//     EndpointSlice controller creating the first slice of a new Service.
//   - Run: the EndpointSlice controller listing a pod that got an IP, and
//     above all the moment a pod becomes a ready endpoint of a Service,
//     which is the moment traffic can reach it.
//   - Maintain: everything that restores observed state to a spec already
//     carried out, or reports it: replacing a deleted or failed pod,
//     scaling down an old ReplicaSet during a rollout, cleaning up old
//     ReplicaSets beyond revisionHistoryLimit, taking a pod out of a
//     Service's ready endpoints, every status write, and all garbage
//     collection.
//
// The rule for the ReplicaSet controller is mechanical: it remembers the
// trace event that last changed each ReplicaSet's spec, and while it is
// carrying out that generation its pod creations and deletions take that
// event's column (Declare if the change was a Declare step, Maintain if it
// was, say, a rollout scaling down an old ReplicaSet); once the generation
// is carried out, any further difference is drift and goes in Maintain.
package controller
