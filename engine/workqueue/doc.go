// Package workqueue is a deterministic copy of client-go's controller work
// queue (k8s.io/client-go/util/workqueue), the queue every Kubernetes
// controller reconciles from.
//
// The semantics are client-go's: a key is queued at most once however many
// times it is added while it waits (the "dirty" set); a key being processed
// is not handed out again until Done, and if it was added meanwhile it goes
// back on the queue at Done, so no change is lost and no key is worked on
// twice at once. AddAfter delays an add (client-go's delaying queue) and
// AddRateLimited delays it by the controller rate limiter, which Forget
// resets (client-go's DefaultControllerRateLimiter: 5 ms doubling per
// failure up to 1000 s, and no more than 10 retries per second overall
// with a burst of 100).
//
// What kubeloop adds: there are no worker goroutines and no clock. Delays
// are ticks of virtual time, fired by the engine's sim.Loop; and each key
// remembers the trace sequence number of the event that last caused it to
// be added, so that the reconcile it triggers can name its cause.
package workqueue
