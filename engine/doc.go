// Package engine is kubeloop's miniature Kubernetes: a store (etcd), an API
// server, a scheduler, controllers and one kubelet per node, wired together
// the way Kubernetes wires them — through the store and nothing else — and
// driven by one single-threaded loop over virtual time.
//
// Everything that happens is a consequence of a write to the store: the
// engine delivers each committed write to every component (a watch), lets
// them work until nothing is left to do at this instant (Settle), then moves
// time to the next timer (an image pull finishing, a probe, a lease renewal)
// and settles again. Kubelets' timers that fall at the same instant fire
// together, and the kubelets work through all they queued before the
// controllers react: nodes act in parallel, and a controller that finds
// several changes to one object waiting handles them in one pass, as
// client-go's work queues do. The same commands with the same seed give the
// same trace, byte for byte.
package engine
