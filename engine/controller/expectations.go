package controller

import "github.com/kubeloop/kubeloop/engine/sim"

// ExpectationsTimeout is how long a controller waits to observe the pods it
// created or deleted before it acts again anyway (controller_utils.go).
const ExpectationsTimeout = 5 * sim.Minute

// expectations remember, per ReplicaSet, the creations and deletions it has
// asked for and not yet seen in its watch (UIDTrackingControllerExpectations):
// until they are observed, the ReplicaSet does not act again, so that a
// stale view never makes it create or delete twice.
type expectations struct {
	loop *sim.Loop
	m    map[string]*expectation
}

type expectation struct {
	add int
	del map[string]struct{} // keys of pods whose deletion is expected
	at  sim.Tick
}

func newExpectations(loop *sim.Loop) *expectations {
	return &expectations{loop: loop, m: map[string]*expectation{}}
}

// Satisfied reports whether key may act: nothing is expected, everything
// expected was observed, or the expectations expired.
func (e *expectations) Satisfied(key string) bool {
	x, ok := e.m[key]
	if !ok {
		return true
	}
	if x.add <= 0 && len(x.del) == 0 {
		return true
	}
	return e.loop.Now()-x.at > ExpectationsTimeout
}

// ExpectCreations records that key is about to create n pods.
func (e *expectations) ExpectCreations(key string, n int) {
	e.m[key] = &expectation{add: n, at: e.loop.Now()}
}

// ExpectDeletions records that key is about to delete these pods.
func (e *expectations) ExpectDeletions(key string, podKeys []string) {
	x := &expectation{del: make(map[string]struct{}, len(podKeys)), at: e.loop.Now()}
	for _, k := range podKeys {
		x.del[k] = struct{}{}
	}
	e.m[key] = x
}

// CreationObserved counts one expected creation as seen.
func (e *expectations) CreationObserved(key string) {
	if x, ok := e.m[key]; ok {
		x.add--
	}
}

// DeletionObserved counts the deletion of podKey as seen.
func (e *expectations) DeletionObserved(key, podKey string) {
	if x, ok := e.m[key]; ok {
		delete(x.del, podKey)
	}
}

// Delete forgets key, whose ReplicaSet is gone.
func (e *expectations) Delete(key string) { delete(e.m, key) }
