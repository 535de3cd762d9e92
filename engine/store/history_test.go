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
func TestHentryIs24Bytes(t *testing.T) {
	if got := unsafe.Sizeof(hentry{}); got != 24 {
		t.Errorf("unsafe.Sizeof(hentry{}) = %d; want 24", got)
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

// Keeping a version typed is done for nearly every sealed write: in a
// slot freed by an earlier one, it must not allocate, in one slot or two.
func TestKeepTypedInAFreeSlotDoesNotAllocate(t *testing.T) {
	var h history
	for _, two := range []bool{false, true} {
		p := typedPair{obj: typedPod("a")}
		if two {
			p.old = typedPod("b")
		}
		free := func(ref uint32) {
			if two {
				h.typed[ref-1], h.typed[ref], h.free2 = nil, nil, append(h.free2, ref-1)
			} else {
				h.typed[ref-1], h.free1 = nil, append(h.free1, ref-1)
			}
		}
		free(h.keepTyped(2, two, p)) // grows typed: allocates
		allocs := testing.AllocsPerRun(100, func() { free(h.keepTyped(3, two, p)) })
		if allocs != 0 {
			t.Errorf("keepTyped (two slots %v) into a free slot: %.1f allocations; want 0", two, allocs)
		}
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
			fmt.Fprintf(&out, "%d %s %s %s cause=%d\n  %s\n  %s\n", ev.Rev, ev.Type, ev.Kind.Resource, ev.Key(), ev.Cause, obj, old)
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
			if twoSlots(h.kinds[e.kind()], e.typ()) {
				inSlots++
			}
		}
	}
	if len(h.typed) > bound {
		t.Errorf("typed holds %d slots; the bound is %d", len(h.typed), bound)
	}
	if kept := h.typedSlotsKept(); kept != inSlots {
		t.Errorf("typed keeps %d slots; sealed entries use %d", kept, inSlots)
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

// A sealed entry keeps no key, so history reads it from the versions the
// entry points at: kept typed, encoded whole, as a delta, as a status or a
// spec alone on a base, sharing a pod spec, an Event's kept key, an Event
// that keeps none, a cluster-scoped object, a delete. Every revision
// names its key, once sealed and compacted in part as well, and
// LastWrite finds each deleted object's delete.
func TestSealedEntriesKnowTheirKeys(t *testing.T) {
	s := New()
	want := map[int64]string{}
	write := func(obj Object, rev int64, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		k := kinds.Of(obj)
		want[rev] = k.Key(obj.GetNamespace(), obj.GetName())
	}
	var deleted []Object
	del := func(obj Object) {
		t.Helper()
		k := kinds.Of(obj)
		_, rev, err := s.Delete(k, obj.GetNamespace(), obj.GetName(), "", 1)
		write(obj, rev, err)
		deleted = append(deleted, obj)
	}
	for i := range 6 {
		p := typedPod("web-" + strconv.Itoa(i))
		p.GenerateName = "web-"
		rev, err := s.Create(p, 1)
		write(p, rev, err)
		bound := p.DeepCopy()
		bound.Spec.NodeName = "n1"
		rev, err = s.Update(bound, 1)
		write(bound, rev, err)
		for j := range 3 {
			st := bound.DeepCopy()
			st.Status.Phase = []corev1.PodPhase{corev1.PodPending, corev1.PodRunning, corev1.PodRunning}[j]
			st.Status.PodIP = "10.0.0." + strconv.Itoa(i*3+j)
			rev, err = s.UpdateStatusOnly(st, 1)
			write(st, rev, err)
			bound = st
		}
		if i%2 == 0 {
			del(bound)
		}
		s.Seal(s.Rev() - 1) // leave the last write recent
	}
	n := kinds.Node.New().(*corev1.Node)
	n.Name = "n1"
	rev, err := s.Create(n, 1)
	write(n, rev, err)
	n2 := n.DeepCopy()
	n2.Status.Phase = corev1.NodeRunning
	rev, err = s.UpdateStatusOnly(n2, 1)
	write(n2, rev, err)
	del(n2)

	ev := recorded()
	rev, err = s.Create(ev, 1)
	write(ev, rev, err)
	ev2 := ev.DeepCopy()
	ev2.Count = 2
	rev, err = s.Update(ev2, 1)
	write(ev2, rev, err)
	del(ev2)
	odd := recorded() // a namespace the key cannot hold: the Event keeps no key
	odd.Namespace, odd.InvolvedObject.Namespace = "a/b", "a/b"
	rev, err = s.Create(odd, 1)
	write(odd, rev, err)

	svc := kinds.Service.New().(*corev1.Service) // never encoded: kept typed
	svc.Namespace, svc.Name = "default", "web"
	rev, err = s.Create(svc, 1)
	write(svc, rev, err)
	svc2 := svc.DeepCopy()
	svc2.Labels = map[string]string{"v": "2"}
	rev, err = s.Update(svc2, 1)
	write(svc2, rev, err)
	del(svc2)

	check := func(when string) {
		t.Helper()
		for rev := max(s.CompactRev()+1, 2); rev <= s.Rev(); rev++ { // revision 1 is the store's start
			key, ok := s.KeyAt(rev)
			if !ok || key != want[rev] {
				t.Errorf("%s: KeyAt(%d) = %q, %v; want %q", when, rev, key, ok, want[rev])
			}
		}
		evs, err := s.Since(s.CompactRev())
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range evs {
			if ev.Key() != want[ev.Rev] {
				t.Errorf("%s: Since gives revision %d the key %q; want %q", when, ev.Rev, ev.Key(), want[ev.Rev])
			}
		}
		for _, o := range deleted {
			k := kinds.Of(o)
			rev, typ, _, ok := s.LastWrite(k, o.GetNamespace(), o.GetName())
			if rev <= s.CompactRev() {
				continue
			}
			if !ok || typ != Deleted || want[rev] != k.Key(o.GetNamespace(), o.GetName()) {
				t.Errorf("%s: LastWrite(%s %s) = %d %v %v", when, k.Kind, o.GetName(), rev, typ, ok)
			}
		}
	}
	check("some recent")
	s.Seal(s.Rev())
	check("all sealed")
	s.Compact(s.Rev() / 2)
	check("half compacted")
}

// metaName reads a name and namespace from any metadata's encoding, and
// refuses what does not start with metadata or is cut short.
func TestMetaName(t *testing.T) {
	p := typedPod("web-1")
	p.Labels = map[string]string{"app": "web"}
	p.GenerateName, p.UID = "web-", "u"
	enc, err := p.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	ns, name, ok := metaName(enc)
	if !ok || string(ns) != "default" || string(name) != "web-1" {
		t.Errorf("metaName(pod) = %q, %q, %v", ns, name, ok)
	}
	n := kinds.Node.New().(*corev1.Node)
	n.Name = "n1"
	enc, _ = n.Marshal()
	if ns, name, ok := metaName(enc); !ok || len(ns) != 0 || string(name) != "n1" {
		t.Errorf("metaName(node) = %q, %q, %v", ns, name, ok)
	}
	for _, bad := range [][]byte{nil, {0x12, 0}, {0x0a}, {0x0a, 5, 0x0a}, {0x0a, 2, 0x0a, 9}, {0x0a, 1, 0x07}} {
		if _, _, ok := metaName(bad); ok {
			t.Errorf("metaName(%x) read a name", bad)
		}
	}
}

// typedSlotsKept is the number of slots of typed in use.
func (h *history) typedSlotsKept() int { return len(h.typed) - len(h.free1) - 2*len(h.free2) }
