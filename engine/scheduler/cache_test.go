package scheduler

import (
	"testing"
	"unsafe"
)

// TestCachedPodSize keeps the cache's per-pod record within Go's 48-byte
// size class: every bound pod has one (its Demand is shared).
func TestCachedPodSize(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("sizes are for 64-bit platforms")
	}
	if got := unsafe.Sizeof(cachedPod{}); got > 48 {
		t.Errorf("cachedPod is %d bytes, want at most 48", got)
	}
}
