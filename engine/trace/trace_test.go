package trace

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"unsafe"

	"github.com/kubeloop/kubeloop/engine/sim"
)

func TestRingKeepsTheNewestAndChainsCauses(t *testing.T) {
	l := sim.NewLoop()
	tr := New(l, 3)
	a := tr.Record(Event{Component: "kubectl", Message: "apply"})
	b := tr.Record(Event{Component: "apiserver", Cause: a})
	c := tr.Record(Event{Component: "deployment-controller", Cause: b})
	if got := tr.Chain(c); len(got) != 3 || got[2].Seq != a {
		t.Fatalf("Chain(%d) = %+v; want 3 events back to %d", c, got, a)
	}
	d := tr.Record(Event{Component: "replicaset-controller", Cause: c})
	if tr.Len() != 3 || tr.FirstSeq() != b || tr.Dropped() != 1 {
		t.Fatalf("Len=%d FirstSeq=%d Dropped=%d; want 3, %d, 1", tr.Len(), tr.FirstSeq(), tr.Dropped(), b)
	}
	if _, ok := tr.Get(a); ok {
		t.Error("dropped event still readable")
	}
	if got := tr.Chain(d); len(got) != 3 {
		t.Errorf("Chain stops at the ring's edge: got %d events; want 3", len(got))
	}
	all := tr.All()
	if len(all) != 3 || all[0].Seq != b || all[2].Seq != d {
		t.Errorf("All() = %+v", all)
	}
}

func TestJSONShapeIsTheContract(t *testing.T) {
	l := sim.NewLoop()
	l.After(1500*sim.Millisecond, "", func() {})
	l.FireNext(sim.Hour)
	tr := New(l, 0)
	seq := tr.Record(Event{Component: "scheduler", Lane: ControlPlane, Column: Schedule, Object: "pod/a", Message: "bound", Cause: 0})
	e, _ := tr.Get(seq)
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"t":1.5,"seq":1,"component":"scheduler","column":"Schedule","lane":"control-plane","object":"pod/a","message":"bound","cause":0}`
	if string(b) != want {
		t.Errorf("json:\n got %s\nwant %s", b, want)
	}
}

func TestParseColumn(t *testing.T) {
	for _, s := range []string{"declare", "Schedule", "RUN", "maintain"} {
		if _, ok := ParseColumn(s); !ok {
			t.Errorf("ParseColumn(%q) failed", s)
		}
	}
	if _, ok := ParseColumn("observe"); ok {
		t.Error("ParseColumn(observe) succeeded")
	}
}

// TestRingAcrossChunks fills a ring bigger than one chunk, wraps it, and
// reads every kept event back by sequence number.
func TestRingAcrossChunks(t *testing.T) {
	const capacity = 3*(1<<chunkBits) + 5
	tr := New(sim.NewLoop(), capacity)
	total := capacity + 1<<chunkBits + 7
	for i := 1; i <= total; i++ {
		tr.Record(Event{Message: strconv.Itoa(i)})
	}
	if tr.Len() != capacity || tr.FirstSeq() != uint64(total-capacity+1) {
		t.Fatalf("len %d first %d; want %d, %d", tr.Len(), tr.FirstSeq(), capacity, total-capacity+1)
	}
	for seq := tr.FirstSeq(); seq < tr.NextSeq(); seq++ {
		if e, ok := tr.Get(seq); !ok || e.Message != strconv.FormatUint(seq, 10) || e.Seq != seq {
			t.Fatalf("Get(%d) = %+v, %v", seq, e, ok)
		}
	}
	all := tr.All()
	if len(all) != capacity || all[0].Seq != tr.FirstSeq() || all[len(all)-1].Seq != tr.NextSeq()-1 {
		t.Fatalf("All: %d events from %d to %d", len(all), all[0].Seq, all[len(all)-1].Seq)
	}
}

// TestSlotsGiveBackEveryField records events that differ in every field,
// among them revisions and causes a slot cannot hold, into a ring small
// enough to wrap, amends and stamps some of them after the wrap, and
// reads each kept one back whole.
func TestSlotsGiveBackEveryField(t *testing.T) {
	l := sim.NewLoop()
	const capacity = 7
	tr := New(l, capacity)
	// Start late enough that a cause can be more than 2^32 events back.
	const first = 1<<33 + 1
	tr.nextSeq = first
	event := func(i int) Event {
		seq := uint64(first + i)
		return Event{
			Component: []string{"apiserver", "kubelet/n1", "scheduler", ""}[i%4],
			Lane:      Lane(i % 3), Column: Column(i % 5),
			Namespace: []string{"default", "", "kube-system"}[i%3],
			Object:    "pod/p" + strconv.Itoa(i), Message: "step " + strconv.Itoa(i),
			Cause: []uint64{0, seq - 1, seq - 3, 1, seq, seq + 2}[i%6],
			Rev:   []int64{0, 5, -2, 1 << 40, spilled32 - 1, spilled32, 1 << 31}[i%7],
			Why:   []string{"why a", "why b"}[i%2],
		}
	}
	var want []Event
	for i := range 16 {
		l.After(sim.Tick(i+1)*sim.Millisecond, "", func() {})
		l.FireNext(sim.Hour)
		e := event(i)
		e.Seq, e.T = tr.Record(event(i)), l.Now()
		want = append(want, e)
	}
	want = want[len(want)-capacity:]
	// Amend and SetRev change a kept event after the ring wrapped, with
	// revisions a slot holds and ones it does not; on an event that has
	// left the ring they do nothing.
	tr.Amend(want[0].Seq, "pod/renamed", "")
	want[0].Object = "pod/renamed"
	tr.Amend(want[2].Seq, "", "amended")
	want[2].Message = "amended"
	tr.SetRev(want[4].Seq, 99)
	want[4].Rev = 99
	tr.SetRev(want[5].Seq, 1<<40)
	want[5].Rev = 1 << 40
	tr.SetRev(want[6].Seq, -2)
	tr.SetRev(want[6].Seq, 7)
	want[6].Rev = 7
	tr.Amend(want[0].Seq-1, "pod/gone", "gone")
	tr.SetRev(want[0].Seq-1, 1)

	for _, w := range want {
		if got, ok := tr.Get(w.Seq); !ok || got != w {
			t.Errorf("Get(%d) = %+v, %v\n want %+v", w.Seq, got, ok, w)
		}
	}
	if got := tr.All(); !slices.Equal(got, want) {
		t.Errorf("All() = %+v\n want %+v", got, want)
	}
	if got := tr.Since(want[3].Seq); !slices.Equal(got, want[3:]) {
		t.Errorf("Since(%d) = %+v\n want %+v", want[3].Seq, got, want[3:])
	}
	if len(tr.spilled) > capacity {
		t.Errorf("%d spilled events kept for a ring of %d", len(tr.spilled), capacity)
	}
}

// TestNamesNumberInFirstSeenOrder looks strings up in a names table,
// among them different strings of the same length, which share a hint.
func TestNamesNumberInFirstSeenOrder(t *testing.T) {
	var n names
	for _, c := range []struct {
		s    string
		want uint16
	}{
		{"scheduler", 0}, {"apiserver", 1}, {"scheduler", 0}, {"", 2},
		{"apiserver", 1}, {"kubelet/n1", 3}, {"", 2}, {"scheduler", 0},
		{"kubelet/n2", 4}, {"kubelet/n1", 3},
	} {
		if got := n.id(c.s); got != c.want || n.name(got, "") != c.s {
			t.Errorf("id(%q) = %d (named %q); want %d", c.s, got, n.name(got, ""), c.want)
		}
	}
}

// TestFullNamesTableSpills fills the table of components, then records
// events that name new components: they read back whole, and the spilled
// names leave with their events.
func TestFullNamesTableSpills(t *testing.T) {
	const capacity = 3
	tr := New(sim.NewLoop(), capacity)
	for i := range maxNames {
		tr.Record(Event{Component: "c" + strconv.Itoa(i), Why: "why"})
	}
	// "c0" still has its number; "new-1" and "new-2" find no room.
	seqs := []uint64{
		tr.Record(Event{Component: "new-1", Namespace: "ns", Why: "why"}),
		tr.Record(Event{Component: "c0", Namespace: "ns", Why: "why"}),
		tr.Record(Event{Component: "new-2", Namespace: "ns", Why: "why"}),
	}
	for i, want := range []string{"new-1", "c0", "new-2"} {
		if e, ok := tr.Get(seqs[i]); !ok || e.Component != want || e.Namespace != "ns" || e.Why != "why" {
			t.Errorf("Get(%d) = %+v, %v; want component %q", seqs[i], e, ok, want)
		}
	}
	if len(tr.spilled) != 2 {
		t.Errorf("%d spilled events; want 2", len(tr.spilled))
	}
	for range capacity {
		tr.Record(Event{Component: "c1"})
	}
	if len(tr.spilled) != 0 {
		t.Errorf("%d spilled events after they left the ring; want 0", len(tr.spilled))
	}
}

// TestRecordFromIsRecord records the same steps through Record and
// through a Source numbered ahead (also once the table is full, when the
// Source's name spills): they read back the same.
func TestRecordFromIsRecord(t *testing.T) {
	steps := []Event{
		{Component: "kubelet/n1", Lane: NodeLane, Column: Run, Namespace: "default", Object: "pod/web-1", Message: "Started", Why: "w"},
		{Component: "kubelet/n1", Lane: NodeLane, Column: Maintain, Object: "pod/web-1", Message: "probe", Cause: 1, Rev: 7},
	}
	plain, from := New(sim.NewLoop(), 8), New(sim.NewLoop(), 8)
	src := from.Source("kubelet/n1")
	for _, e := range steps {
		plain.Record(e)
		c := e
		c.Component = "ignored: the Source names the component"
		from.RecordFrom(src, c)
	}
	if got, want := from.All(), plain.All(); !slices.Equal(got, want) {
		t.Errorf("RecordFrom gave %+v; Record %+v", got, want)
	}

	full := New(sim.NewLoop(), 2)
	for i := range maxNames {
		full.Source("c" + strconv.Itoa(i))
	}
	late := full.Source("kubelet/late")
	seq := full.RecordFrom(late, Event{Message: "m"})
	if e, ok := full.Get(seq); !ok || e.Component != "kubelet/late" {
		t.Errorf("a Source of a full table records %+v, %v; want component kubelet/late", e, ok)
	}

	defer func() {
		if recover() == nil {
			t.Error("RecordFrom with another trace's Source did not panic")
		}
	}()
	plain.RecordFrom(src, Event{})
}

// TestSlotSize keeps the ring's slot at 56 bytes: a large cluster keeps
// DefaultCapacity of them.
func TestSlotSize(t *testing.T) {
	if n := unsafe.Sizeof(slot{}); n > 56 {
		t.Errorf("a slot takes %d bytes; want at most 56", n)
	}
}

// BenchmarkRecord records events like a large cluster's into a full ring.
func BenchmarkRecord(b *testing.B) {
	tr := New(sim.NewLoop(), 1<<chunkBits)
	comps := make([]string, 64)
	for i := range comps {
		comps[i] = "kubelet/node-" + strconv.Itoa(i)
	}
	const why = "The kubelet watches for pods bound to its node and starts them; the API server's watch is how it hears."
	for i := 0; b.Loop(); i++ {
		tr.Record(Event{Component: comps[i%len(comps)], Lane: NodeLane, Column: Run, Namespace: "default",
			Object: "replicaset/app-0001-65c884867b", Message: "Updated status: 150 replicas, 150 fully labeled, 120 ready, 118 available (observedGeneration 1)", Cause: uint64(i), Why: why})
	}
}

// The names of 5,000 kubelets, as long as one another, spread over the
// hint slots about as a random hash spreads them (3,744 slots expected),
// and a name's slot depends on its first and last bytes.
func TestHintSlotSpreadsNames(t *testing.T) {
	slots := map[int]bool{}
	for i := range 5000 {
		slots[hintSlot(fmt.Sprintf("kubelet/node-%04d", i))] = true
	}
	if len(slots) < 3500 {
		t.Errorf("5,000 kubelets' names take %d hint slots; want at least 3,500", len(slots))
	}
	if hintSlot("a") == hintSlot("b") || hintSlot("x-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-y") == hintSlot("x-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-z") ||
		hintSlot("x-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-y") == hintSlot("z-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-y") {
		t.Error("names that differ in their last byte share a hint slot")
	}
}
