package scheduler

import (
	"fmt"
	"reflect"
	"testing"
	"unsafe"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/scheduler/internal/st"
)

// TestDecisionRecSize keeps the per-pod record compact: every pod keeps
// one until it is deleted, so at 50,000 pods each byte is 50 kB. 80 bytes
// is a size class of Go's allocator; one more byte costs 16.
func TestDecisionRecSize(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("sizes are for 64-bit platforms")
	}
	if got := unsafe.Sizeof(decisionRec{}); got > 80 {
		t.Errorf("decisionRec is %d bytes, want at most 80: keep rare fields behind failure, derive what can be", got)
	}
}

// TestExplainKeepsLastAttempts checks the store keeps the last
// AttemptsPerPod attempts of a pod, oldest first, each as it was recorded,
// and keeps no failure text for a successful attempt.
func TestExplainKeepsLastAttempts(t *testing.T) {
	s := newBareScheduler(Config{})
	benchNodes(s, 3)
	pod := st.MakePod().Name("p").Req("100m", "500Mi").Obj()
	for i := 1; i <= 5; i++ {
		qp := &framework.QueuedPodInfo{PodInfo: framework.NewPodInfo(pod), Attempts: i}
		a := s.schedulePod(qp)
		if i < 5 {
			a.decision.Message, a.decision.Preemption = "failed", "preempted nothing"
		}
		s.explain.add(pod, a.decision)
	}
	d := s.Explain("default", "p")
	if len(d) != DefaultAttemptsPerPod {
		t.Fatalf("%d decisions kept, want %d", len(d), DefaultAttemptsPerPod)
	}
	for i, want := range []int{3, 4, 5} {
		if d[i].Attempt != want || d[i].Pod != "default/p" || d[i].Evaluated != 3 || len(d[i].Nodes) != 3 {
			t.Errorf("decision %d: attempt %d of %s, %d evaluated, %d node records; want attempt %d of default/p, 3, 3",
				i, d[i].Attempt, d[i].Pod, d[i].Evaluated, len(d[i].Nodes), want)
		}
	}
	if d[0].Message != "failed" || d[0].Preemption != "preempted nothing" || d[2].Message != "" || d[2].Preemption != "" {
		t.Errorf("messages %q %q, %q %q", d[0].Message, d[0].Preemption, d[2].Message, d[2].Preemption)
	}
	if r := s.explain.last["default"]["p"]; r.failure != nil {
		t.Errorf("a successful attempt keeps a failure record")
	}
	s.explain.forget(pod)
	if d := s.Explain("default", "p"); len(d) != 0 {
		t.Errorf("a deleted pod keeps %d decisions", len(d))
	}
}

// TestExplainScoresAcrossRingEnd checks that scores written across the
// end of the score rings read back as written: a scheduler whose rings
// wrap every pod or two explains each latest attempt exactly as one whose
// rings never wrap.
func TestExplainScoresAcrossRingEnd(t *testing.T) {
	small, big := newBareScheduler(Config{NodeRecords: 4}), newBareScheduler(Config{})
	benchNodes(small, 3)
	benchNodes(big, 3)
	for i := 0; i < 12; i++ {
		name := fmt.Sprintf("p%d", i)
		var got, want []Decision
		for _, s := range []*Scheduler{small, big} {
			pod := st.MakePod().Name(name).Req(fmt.Sprintf("%dm", 100+50*i), "500Mi").Obj()
			qp := &framework.QueuedPodInfo{PodInfo: framework.NewPodInfo(pod), Attempts: 1}
			a := s.schedulePod(qp)
			if a.err != nil {
				t.Fatal(a.err)
			}
			s.explain.add(pod, a.decision)
			pod.Spec.NodeName = a.node
			s.cache.AddPod(pod)
			got, want = want, s.Explain("default", name)
		}
		if len(got) != 1 || len(want) != 1 || got[0].Scored != 3 || !reflect.DeepEqual(got[0].Nodes, want[0].Nodes) {
			t.Fatalf("pod %d: rings of 4 node records explain\n%s\nrings that never wrap\n%s", i, got[0].Describe(), want[0].Describe())
		}
	}
	if small.explain.scoreHead <= uint64(len(small.explain.raw)) {
		t.Fatalf("the small rings never wrapped: %d scores in rings of %d", small.explain.scoreHead, len(small.explain.raw))
	}
}

// TestScoresFrom checks that a record's first score position comes back
// from its low 32 bits for every record that can still read its scores:
// those at most 2^32 scores behind the head, across the wraps of the
// 32-bit count.
func TestScoresFrom(t *testing.T) {
	tests := []struct{ head, pos uint64 }{
		{0, 0},
		{1000, 10},
		{1000, 1000},
		{1<<32 - 1, 1<<32 - 5},
		{1 << 32, 1<<32 - 5},   // the head wrapped past the record
		{1<<32 + 7, 1<<32 - 5}, // and on
		{5<<32 + 3, 5<<32 - 1<<31},
		{5<<32 + 3, 4<<32 + 4}, // the furthest behind: 2^32 - 1 scores
	}
	for _, tt := range tests {
		x := &explainStore{scoreHead: tt.head}
		if got := x.scoresFrom(uint32(tt.pos)); got != tt.pos {
			t.Errorf("head %d: position %d comes back as %d", tt.head, tt.pos, got)
		}
	}
}

// TestDecisionRecSkips checks that a record gives back the plugins its
// attempt skipped, whichever filters and score plugins they were (the
// record keeps them by position in the profile, the Decision by index).
func TestDecisionRecSkips(t *testing.T) {
	s := newBareScheduler(Config{})
	prof := s.explain.prof
	var allFilters, allScorers framework.PluginSet
	for _, idx := range prof.filterIdx {
		allFilters = allFilters.With(idx)
	}
	for _, e := range prof.scorers {
		allScorers = allScorers.With(e.Index)
	}
	tests := []struct{ filters, scorers framework.PluginSet }{
		{0, 0},
		{allFilters, allScorers},
		{framework.PluginSet(0).With(prof.filterIdx[0]), framework.PluginSet(0).With(prof.scorers[len(prof.scorers)-1].Index)},
		{framework.PluginSet(0).With(prof.filterIdx[len(prof.filterIdx)-1]), framework.PluginSet(0).With(prof.scorers[0].Index)},
	}
	for _, idx := range prof.filterIdx { // each filter alone
		tests = append(tests, struct{ filters, scorers framework.PluginSet }{framework.PluginSet(0).With(idx), 0})
	}
	for _, tt := range tests {
		d := Decision{prof: prof, skipFilter: tt.filters, skipScore: tt.scorers}
		r := s.explain.compact(&d)
		got := s.explain.decision(podKey{"default", "p"}, &r)
		if got.skipFilter != tt.filters || got.skipScore != tt.scorers {
			t.Errorf("skipped filters %b and scorers %b come back as %b and %b", tt.filters, tt.scorers, got.skipFilter, got.skipScore)
		}
	}
}

// TestExplainFailedAttemptAfterRingsWrap checks that a failed attempt,
// which scores no node, keeps its per-node detail however many scores
// earlier attempts wrote: its first score position is the head when it
// was made, not 0, which once the score rings had wrapped read as
// "no longer kept".
func TestExplainFailedAttemptAfterRingsWrap(t *testing.T) {
	s := newBareScheduler(Config{NodeRecords: 4})
	benchNodes(s, 3)
	for i := 0; s.explain.scoreHead <= uint64(len(s.explain.raw)); i++ {
		pod := st.MakePod().Name(fmt.Sprintf("p%d", i)).Req("100m", "500Mi").Obj()
		a := s.schedulePod(&framework.QueuedPodInfo{PodInfo: framework.NewPodInfo(pod), Attempts: 1})
		if a.err != nil {
			t.Fatal(a.err)
		}
		s.explain.add(pod, a.decision)
	}
	pod := st.MakePod().Name("huge").Req("64", "500Mi").Obj()
	a := s.schedulePod(&framework.QueuedPodInfo{PodInfo: framework.NewPodInfo(pod), Attempts: 1})
	if a.err == nil {
		t.Fatalf("a pod asking for 64 CPUs was placed on %s", a.node)
	}
	s.explain.add(pod, a.decision)
	d := s.Explain("default", "huge")
	if len(d) != 1 || len(d[0].Nodes) != 3 {
		t.Fatalf("the failed attempt explains %d decisions; want 1 with 3 node records:\n%v", len(d), d)
	}
}
