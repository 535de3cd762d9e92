package scheduler

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/scheduler/internal/st"
)

// TestCycleAllocations guards the hot loop: a scheduling cycle over 2,000
// nodes (500 evaluated and scored) allocates a few objects per pod, never
// per node, and the per-node explanation records cost nothing beyond the
// bounded ring.
func TestCycleAllocations(t *testing.T) {
	s := newBareScheduler(Config{})
	benchNodes(s, 2000)
	pod := st.MakePod().Name("p").Req("100m", "500Mi").Obj()
	qp := &framework.QueuedPodInfo{PodInfo: framework.NewPodInfo(pod), Attempts: 1}
	s.schedulePod(qp) // warm the scratch buffers
	allocs := testing.AllocsPerRun(20, func() {
		if a := s.schedulePod(qp); a.err != nil {
			t.Fatal(a.err)
		}
	})
	t.Logf("successful cycle: %.0f allocations", allocs)
	if allocs > 4 {
		t.Errorf("a cycle over 500 nodes allocates %.0f objects; want at most 4 (none per node)", allocs)
	}
	d := s.explain.explain(podKey{"default", "p"}, nil)
	if len(d) != 0 {
		t.Errorf("schedulePod alone recorded %d decisions", len(d))
	}
	// A failing cycle allocates per rejected node only what the FitError
	// message needs (its histogram), not per-node records.
	big := &framework.QueuedPodInfo{PodInfo: framework.NewPodInfo(st.MakePod().Name("big").Req("3", "").
		NodeSelector(corev1.LabelHostname, "nowhere").Obj()), Attempts: 1}
	s.schedulePod(big)
	allocs = testing.AllocsPerRun(5, func() { s.schedulePod(big) })
	if allocs > 40 {
		t.Errorf("a failing cycle over 2,000 nodes allocates %.0f objects; want a bounded few", allocs)
	}
	t.Logf("failing cycle: %.0f allocations", allocs)
}

// TestQueueShrinksWhenEmpty checks that a queue emptied after a burst
// makes its tables anew, and works on as before.
func TestQueueShrinksWhenEmpty(t *testing.T) {
	s := newBareScheduler(Config{})
	q := s.queue
	for i := 0; i <= shrinkPeak; i++ {
		p := st.MakePod().Name(fmt.Sprintf("p%d", i)).Obj()
		p.UID = types.UID(p.Name)
		q.Add(p, 0)
	}
	if q.peak != shrinkPeak+1 {
		t.Fatalf("peak %d, want %d", q.peak, shrinkPeak+1)
	}
	for i := 0; i <= shrinkPeak; i++ {
		if qp := q.Pop(); qp == nil || qp.Pod.Name != fmt.Sprintf("p%d", i) {
			t.Fatalf("pop %d: %v", i, qp)
		}
	}
	if q.peak != 0 || q.active.heap.items != nil || q.active.run != nil || len(q.pods) != 0 {
		t.Errorf("after the burst: peak %d, active %v %v, %d pods", q.peak, q.active.heap.items, q.active.run, len(q.pods))
	}
	p := st.MakePod().Name("late").Obj()
	q.Add(p, 0)
	if qp := q.Pop(); qp == nil || qp.Pod != p || q.Pop() != nil {
		t.Errorf("the queue does not work after shrinking")
	}
}
