// Package engine is kubeloop's miniature Kubernetes: a store (etcd), an API
// server, a scheduler, controllers and one kubelet per node, wired together
// the way Kubernetes wires them — through the store and nothing else — and
// driven by one single-threaded loop over virtual time.
//
// Everything that happens is a consequence of a write to the store: the
// engine delivers each committed write to every component (a watch), lets
// them work until nothing is left to do at this instant (Settle), then moves
// time to the next timer (an image pull finishing, a probe, a lease renewal)
// and settles again. The same commands with the same seed give the same
// trace, byte for byte.
package engine
