package kubelet

import (
	"reflect"
	"testing"
)

// A kubelet keeps a podState for every pod it runs; it is 96 bytes, an
// allocator size class, so that a field more costs 16 bytes a pod (the
// next class is 112): keep a new one with the packed small fields, put
// one that only some pods need in podMore (or one that only a slow step
// needs in slowStep), or drop one that something else already says (the
// retry's time is its timer's, the store key is Kubelet.pods's, the IP
// string is the pod status's).
func TestPodStateIs96Bytes(t *testing.T) {
	if got := reflect.TypeFor[podState]().Size(); got != 96 {
		t.Errorf("a podState is %d bytes; want 96", got)
	}
}

// A kubelet keeps a ctr for every container it runs; it is 96 bytes, an
// allocator size class (the next is 112). What a container needs only once
// something happens to it (a waiting reason, a stop, an exit, probes,
// back-offs) belongs in ctrMore, which a quiet container never makes.
func TestCtrIs96Bytes(t *testing.T) {
	if got := reflect.TypeFor[ctr]().Size(); got != 96 {
		t.Errorf("a ctr is %d bytes; want 96", got)
	}
}
