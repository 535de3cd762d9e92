package trace

import (
	"encoding/json"
	"strconv"
	"testing"

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
