// Package controller is kubeloop's kube-controller-manager at teaching size:
// the Deployment, ReplicaSet and EndpointSlice controllers and the garbage
// collector, each a Reconcile(key) function over a deterministic work queue
// (sample-controller's shape; STYLE.md rule 7), reading the store as its
// informer cache and writing only through the API server.
//
// Each controller is a component.Reactor. Observe only notes work: it maps a
// watch event to the keys it concerns (the owner of a changed pod, found
// through its ownerReferences; the Services selecting it) and queues them
// with the event's cause. Work pops up to as many keys as kube-controller-
// manager runs workers for that controller (--concurrent-deployment-syncs=5
// and so on) and reconciles each, with client-go's retry and backoff on
// error. Lookups go through store indexes (pods by owner UID, orphans by
// namespace, pods by label) and never scan every pod.
//
// The algorithms follow kube-controller-manager 1.34 (pkg/controller/
// deployment, replicaset, endpointslice, garbagecollector), with the
// numbers, reasons and messages of k8s-facts.md §2.1, §3 and §10. Where this
// package simplifies, the comment at the spot says so.
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
