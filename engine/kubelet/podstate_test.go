package kubelet

import (
	"reflect"
	"testing"
)

// A kubelet keeps a podState for every pod it runs; it is 176 bytes, an
// allocator size class, so that a field more costs 16 bytes a pod (the
// next class is 192): keep a new one in the packed tail, or drop one that
// something else already says (the retry's time is its timer's).
func TestPodStateIs176Bytes(t *testing.T) {
	if got := reflect.TypeFor[podState]().Size(); got != 176 {
		t.Errorf("a podState is %d bytes; want 176", got)
	}
}
