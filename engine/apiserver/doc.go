// Package apiserver is kubeloop's kube-apiserver: the only component that
// writes to the store. Every request passes the same pipeline as in
// Kubernetes: decode, default, admit, validate, then persist to etcd (the
// store), which is the commit point. Controllers, the scheduler and kubelets
// are clients like the learner is; they differ only in the Actor they pass.
//
// The pipeline, file by file:
//
//   - decode.go: manifests (multi-document YAML or JSON) into the typed
//     k8s.io/api objects, with kubectl's YAML-to-JSON rules and the API
//     server's strict field validation; every error keeps its file, line and
//     field path (errors.go formats them as kubectl does, plus a line of
//     kubeloop's own that points at the field).
//   - unsimulated.go: the one table of fields that are valid Kubernetes but
//     not simulated yet; setting one is accepted and warned about by name.
//   - defaults.go: Kubernetes' defaulting (k/k pkg/apis/*/v1/defaults.go).
//   - admission.go: NamespaceLifecycle, DefaultTolerationSeconds, Priority.
//   - priorityclass.go: PriorityClasses (validation, defaults, the two
//     built-in classes) and the Priority plugin that resolves a pod's class
//     into spec.priority and spec.preemptionPolicy.
//   - validation.go: Kubernetes' validation with its exact messages;
//     validation_fast.go answers "would it find nothing?" without building
//     field paths, so that the valid requests (nearly all) allocate none.
//   - services.go: cluster IP and node port allocation, pod QoS class.
//   - server.go: Create, Update, UpdateStatus, Delete, Bind, RecordEvent;
//     generic.go: what a write keeps of the old version, and whether it
//     changes anything (status_equal.go: the comparisons of the most
//     written kinds, written out instead of by reflection).
//   - event_ttl.go: --event-ttl: Events are written on shared etcd leases
//     and go when their lease expires, an hour (and up to a minute) after
//     their last write.
//   - apply.go: Apply (kubectl's client-side apply, all or nothing per
//     file), Get and Patch for the REPL.
//
// A learner's requests (Actor.Component == Kubectl) are traced in the
// Declare column by the API server itself: one apiserver event and one etcd
// event per object.
package apiserver
