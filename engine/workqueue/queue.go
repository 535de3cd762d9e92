package workqueue

import (
	"github.com/kubeloop/kubeloop/engine/sim"
)

// Queue is a FIFO of keys with client-go's dirty/processing dedup, delayed
// adds and rate-limited requeues, in virtual time.
type Queue struct {
	name string
	loop *sim.Loop

	queue []string // keys ready to be handed out, in order; queue[head:] is live
	head  int
	// dirty holds every key that needs processing, with the trace seq of
	// the event that last caused it; a key is in queue only if it is dirty
	// and not processing.
	dirty      map[string]uint64
	processing map[string]struct{}

	waiting map[string]*sim.Timer // AddAfter: the earliest pending timer per key
	limiter *RateLimiter
}

// New returns an empty queue whose delayed adds run on loop. The name labels
// its timers ("replicaset-controller").
func New(name string, loop *sim.Loop) *Queue {
	return &Queue{
		name:       name,
		loop:       loop,
		dirty:      map[string]uint64{},
		processing: map[string]struct{}{},
		waiting:    map[string]*sim.Timer{},
		limiter:    NewDefaultRateLimiter(loop),
	}
}

// Add marks key as needing processing because of the trace event cause (0
// if unknown). A key already waiting is not queued twice; it keeps its place
// and takes the newer cause.
func (q *Queue) Add(key string, cause uint64) {
	if old, ok := q.dirty[key]; ok {
		if cause != 0 && cause != old { // a write only when the cause is new
			q.dirty[key] = cause
		}
		return
	}
	q.dirty[key] = cause
	if _, busy := q.processing[key]; busy {
		return // Done puts it back
	}
	q.push(key)
}

func (q *Queue) push(key string) {
	switch {
	case q.head > 0 && q.head == len(q.queue):
		q.queue, q.head = q.queue[:0], 0
	case q.head > 1024 && 2*q.head >= len(q.queue):
		// Reclaim the handed-out prefix so a queue that never drains
		// completely does not grow without bound.
		n := copy(q.queue, q.queue[q.head:])
		q.queue, q.head = q.queue[:n], 0
	}
	q.queue = append(q.queue, key)
}

// Len is the number of keys ready to be handed out.
func (q *Queue) Len() int { return len(q.queue) - q.head }

// Get hands out the next key and the cause it was queued for, and marks it
// as processing until Done. ok is false if the queue is empty.
func (q *Queue) Get() (key string, cause uint64, ok bool) {
	if q.Len() == 0 {
		return "", 0, false
	}
	key = q.queue[q.head]
	q.queue[q.head] = ""
	q.head++
	cause = q.dirty[key]
	delete(q.dirty, key)
	q.processing[key] = struct{}{}
	return key, cause, true
}

// Done ends the processing of key; if it was added meanwhile it is queued
// again.
func (q *Queue) Done(key string) {
	if _, ok := q.processing[key]; !ok {
		panic("workqueue " + q.name + ": Done(" + key + ") for a key that is not processing")
	}
	delete(q.processing, key)
	if _, ok := q.dirty[key]; ok {
		q.push(key)
	}
}

// AddAfter adds key after d ticks of virtual time (at once if d <= 0). If
// the key is already waiting to be added earlier, the earlier add stands,
// as in client-go's delaying queue.
func (q *Queue) AddAfter(key string, cause uint64, d sim.Tick) {
	if d <= 0 {
		q.Add(key, cause)
		return
	}
	at := q.loop.Now() + d
	if t, ok := q.waiting[key]; ok && t.Pending() {
		if t.At() <= at {
			return
		}
		q.loop.Cancel(t)
	}
	q.waiting[key] = q.loop.At(at, q.name+" requeue "+key, func() {
		delete(q.waiting, key)
		q.Add(key, cause)
	})
}

// AddRateLimited adds key after the rate limiter's delay for it: the retry
// path after a failed reconcile.
func (q *Queue) AddRateLimited(key string, cause uint64) {
	q.AddAfter(key, cause, q.limiter.When(key))
}

// Forget tells the rate limiter that key succeeded, resetting its backoff.
func (q *Queue) Forget(key string) { q.limiter.Forget(key) }

// NumRequeues is how many times key has failed since it last succeeded.
func (q *Queue) NumRequeues(key string) int { return q.limiter.NumRequeues(key) }

// Waiting is the number of keys with a delayed add pending.
func (q *Queue) Waiting() int {
	n := 0
	for _, t := range q.waiting {
		if t.Pending() {
			n++
		}
	}
	return n
}
