package store

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// A sealed entry is kept for every write since the last compaction, so its
// size is the store's largest per-write cost: keep it packed.
func TestHentryIs40Bytes(t *testing.T) {
	if got := unsafe.Sizeof(hentry{}); got != 40 {
		t.Errorf("unsafe.Sizeof(hentry{}) = %d; want 40", got)
	}
}

// The fields packed in a sealed entry's bits read back as packed, at
// their extremes too, and setTyped leaves the others alone; a kind beyond
// the 7 bits left to it panics rather than alias another.
func TestHentryBitsReadBack(t *testing.T) {
	for _, tc := range []struct {
		typ        EventType
		statusOnly bool
		kind       uint8
		typed      uint32
	}{
		{Added, false, 0, 0},
		{Modified, true, 1, 1},
		{Deleted, true, 1<<kindBits - 1, spilledRef},
		{Deleted, false, 1<<kindBits - 1, spilledRef - 1},
		{Modified, true, 0, spilledRef},
	} {
		e := hentry{bits: pack(tc.typ, tc.statusOnly, tc.kind, tc.typed)}
		if e.typ() != tc.typ || e.statusOnly() != tc.statusOnly || e.kind() != tc.kind || e.typed() != tc.typed {
			t.Errorf("pack(%v, %v, %d, %d) reads back (%v, %v, %d, %d)", tc.typ, tc.statusOnly, tc.kind, tc.typed,
				e.typ(), e.statusOnly(), e.kind(), e.typed())
		}
		e.setTyped(0)
		if e.typ() != tc.typ || e.statusOnly() != tc.statusOnly || e.kind() != tc.kind || e.typed() != 0 {
			t.Errorf("pack(%v, %v, %d, %d), setTyped(0) reads back (%v, %v, %d, %d)", tc.typ, tc.statusOnly, tc.kind, tc.typed,
				e.typ(), e.statusOnly(), e.kind(), e.typed())
		}
	}
	var h history
	for i := range 1 << kindBits {
		if id := h.kindID(&kinds.Kind{Kind: strconv.Itoa(i)}); int(id) != i {
			t.Fatalf("kind %d has id %d", i, id)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("a kind beyond the bits of a sealed entry got an id")
		}
	}()
	h.kindID(&kinds.Kind{Kind: "one too many"})
}

// A sealed entry keeps its cause in 32 bits; one that does not fit reads
// back as 0 (no cause), never as some other event's number. Unsealed
// history keeps every cause as written.
func TestSealedCauseBeyond32BitsIsNone(t *testing.T) {
	for _, tc := range []struct {
		cause uint64
		want  uint64
	}{
		{0, 0},
		{1, 1},
		{math.MaxUint32, math.MaxUint32},
		{math.MaxUint32 + 1, 0},
		{1 << 40, 0},
		{math.MaxUint64, 0},
	} {
		s := New()
		rev, _ := s.Create(typedPod("a"), tc.cause)
		if _, _, cause, _ := s.LastWrite(kinds.Pod, "default", "a"); cause != tc.cause {
			t.Errorf("cause %d, unsealed: LastWrite cause = %d; want %d", tc.cause, cause, tc.cause)
		}
		s.Seal(rev)
		if _, _, cause, _ := s.LastWrite(kinds.Pod, "default", "a"); cause != tc.want {
			t.Errorf("cause %d, sealed: LastWrite cause = %d; want %d", tc.cause, cause, tc.want)
		}
		if evs, _ := s.Since(rev - 1); len(evs) != 1 || evs[0].Cause != tc.want {
			t.Errorf("cause %d, sealed: Since = %v; want one event with cause %d", tc.cause, evs, tc.want)
		}
	}
}

// Keeping a pair typed is done for nearly every sealed write: in a slot
// freed by an earlier one, it must not allocate.
func TestKeepTypedInAFreeSlotDoesNotAllocate(t *testing.T) {
	var h history
	p := typedPair{obj: typedPod("a")}
	ref := h.keepTyped(2, p) // grows typed: allocates
	h.typed[ref-1], h.free = typedPair{}, append(h.free, ref-1)
	allocs := testing.AllocsPerRun(100, func() {
		ref := h.keepTyped(3, p)
		h.typed[ref-1], h.free = typedPair{}, append(h.free, ref-1)
	})
	if allocs != 0 {
		t.Errorf("keepTyped into a free slot: %.1f allocations; want 0", allocs)
	}
}

// TestTypedVersionsSpillPastTheBound runs one seeded sequence of writes,
// seals and compactions with history.typed bounded at several sizes, down
// to none at all, so that the versions a sealed entry keeps typed go to
// the spill map, and checks that history reads back the same at every
// bound and that neither place keeps a pair no entry uses.
func TestTypedVersionsSpillPastTheBound(t *testing.T) {
	want := historyTranscript(t, typedSlots)
	for _, bound := range []int{0, 1, 7, 100} {
		t.Run(fmt.Sprintf("slots=%d", bound), func(t *testing.T) {
			if got := historyTranscript(t, bound); got != want {
				t.Errorf("history with %d typed slots differs from history with %d:\n%s", bound, typedSlots,
					firstDiff(got, want))
			}
		})
	}
}

// historyTranscript lowers typedSlots to bound, runs the sequence and
// describes everything history holds after each compaction and at the end.
func historyTranscript(t *testing.T, bound int) string {
	t.Helper()
	defer func(was int) { typedSlots = was }(typedSlots)
	typedSlots = bound

	r := rand.New(rand.NewSource(7))
	s := New()
	var out strings.Builder
	describe := func() {
		evs, err := s.Since(s.CompactRev())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "compacted to %d, %d events\n", s.CompactRev(), len(evs))
		for _, ev := range evs {
			obj, _ := json.Marshal(ev.Object)
			old, _ := json.Marshal(ev.Old)
			fmt.Fprintf(&out, "%d %s %s %s cause=%d\n  %s\n  %s\n", ev.Rev, ev.Type, ev.Kind.Resource, ev.Key, ev.Cause, obj, old)
		}
		checkTypedPairs(t, &s.history, bound)
	}
	for i := range 3000 {
		name := "p" + strconv.Itoa(r.Intn(40))
		var err error
		switch cur, ok := s.Lookup(kinds.Pod, "default", name); {
		case !ok:
			_, err = s.Create(typedPod(name), uint64(i))
		case r.Intn(8) == 0:
			_, _, err = s.Delete(kinds.Pod, "default", name, "", uint64(i))
		default:
			next := cur.(*corev1.Pod).DeepCopy()
			switch r.Intn(3) {
			case 0:
				next.Status.Phase = []corev1.PodPhase{corev1.PodPending, corev1.PodRunning}[r.Intn(2)]
			case 1:
				next.Labels = map[string]string{"v": strconv.Itoa(i)}
			case 2:
				next.Spec.NodeName = "n" + strconv.Itoa(r.Intn(5))
			}
			_, err = s.Update(next, uint64(i))
		}
		if err != nil {
			t.Fatal(err)
		}
		if i%7 == 0 { // a Service: never encoded, so both its versions stay typed
			svc := kinds.Service.New().(*corev1.Service)
			svc.Namespace, svc.Name = "default", "svc"+strconv.Itoa(r.Intn(5))
			svc.Labels = map[string]string{"v": strconv.Itoa(i)}
			if _, err := s.Update(svc, uint64(i)); err != nil {
				_, err = s.Create(svc, uint64(i))
				if err != nil {
					t.Fatal(err)
				}
			}
		}
		if r.Intn(10) == 0 {
			s.Seal(s.Rev() - int64(r.Intn(5)))
		}
		if r.Intn(200) == 0 {
			s.Compact(s.Rev() - int64(r.Intn(300)))
			describe()
		}
	}
	s.Seal(s.Rev())
	describe()
	return out.String()
}

// checkTypedPairs checks that every pair history keeps typed, in typed or
// spilled, belongs to exactly one sealed entry, and that typed stays
// within bound.
func checkTypedPairs(t *testing.T, h *history, bound int) {
	t.Helper()
	inSlots, inSpill := 0, 0
	for i := range h.n {
		switch e := h.sealed(i); e.typed() {
		case 0:
		case spilledRef:
			if h.spilled[h.first+int64(i)] == nil {
				t.Fatalf("sealed entry at revision %d is spilled, but the spill map lacks it", h.first+int64(i))
			}
			inSpill++
		default:
			inSlots++
		}
	}
	if len(h.typed) > bound {
		t.Errorf("typed holds %d pairs; the bound is %d", len(h.typed), bound)
	}
	if kept := len(h.typed) - len(h.free); kept != inSlots {
		t.Errorf("typed keeps %d pairs; %d sealed entries use one", kept, inSlots)
	}
	if len(h.spilled) != inSpill {
		t.Errorf("spilled keeps %d pairs; %d sealed entries use one", len(h.spilled), inSpill)
	}
}

// firstDiff is the first line where got and want differ, for a failure
// message shorter than two transcripts.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n got %s\nwant %s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("got %d lines, want %d", len(g), len(w))
}
