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
