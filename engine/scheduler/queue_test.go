package scheduler

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/sim"
)

// TestActiveQOrder checks that the activeQ (a FIFO run beside a heap)
// gives out its pods in the order a plain sorted list would, whatever
// mix of in-order and out-of-order arrivals, pops and removals it sees.
func TestActiveQOrder(t *testing.T) {
	less := func(a, b *queued) bool {
		if a.Timestamp != b.Timestamp {
			return a.Timestamp < b.Timestamp
		}
		return a.Seq < b.Seq
	}
	// Each op is a push of a pod at tick at ("+"), a pop ("-"), or a
	// removal of the pod pushed i-th ("x").
	type op struct {
		kind byte
		at   sim.Tick
		i    int
	}
	push := func(at sim.Tick) op { return op{kind: '+', at: at} }
	pop := op{kind: '-'}
	remove := func(i int) op { return op{kind: 'x', i: i} }
	tests := []struct {
		name string
		ops  []op
	}{
		{"in order", []op{push(1), push(2), push(2), pop, push(3), pop, pop, pop}},
		{"out of order", []op{push(5), push(3), push(4), push(1), pop, push(2), pop, pop, pop, pop}},
		{"equal ticks by sequence", []op{push(2), push(2), push(1), push(2), pop, pop, pop, pop}},
		{"remove the run's last, then push before it", []op{push(1), push(5), remove(1), push(3), pop, pop}},
		{"remove the run's first", []op{push(1), push(2), push(3), remove(0), pop, push(0), pop, pop}},
		{"remove from the middle and the heap", []op{push(4), push(5), push(6), push(1), remove(1), remove(3), pop, pop}},
		{"emptied by removals, then used again", []op{push(1), push(2), remove(0), remove(1), push(7), push(3), pop, pop}},
	}
	r := rand.New(rand.NewPCG(1, 2))
	var long []op
	pushed := 0
	for range 20_000 { // enough pops to move the run's head past runCompactAt
		switch n := r.IntN(10); {
		case n < 5:
			long = append(long, push(sim.Tick(pushed/3+r.IntN(8)))) // mostly in order
			pushed++
		case n < 9:
			long = append(long, pop)
		default:
			long = append(long, remove(r.IntN(pushed)))
		}
	}
	tests = append(tests, struct {
		name string
		ops  []op
	}{"random", long})

	for _, tt := range tests {
		a := activeQ{heap: podHeap{less: less}}
		var all, want []*queued // every pod pushed; those queued, sorted
		for n, o := range tt.ops {
			switch o.kind {
			case '+':
				e := &queued{QueuedPodInfo: &framework.QueuedPodInfo{Timestamp: o.at, Seq: uint64(len(all))}}
				all = append(all, e)
				a.push(e)
				i, _ := slices.BinarySearchFunc(want, e, func(x, y *queued) int {
					if less(x, y) {
						return -1
					}
					return 1
				})
				want = slices.Insert(want, i, e)
			case '-':
				if len(want) == 0 {
					continue
				}
				if got := a.pop(); got != want[0] {
					t.Fatalf("%s: op %d: popped seq %d; want %d", tt.name, n, got.Seq, want[0].Seq)
				}
				want = want[1:]
			case 'x':
				e := all[o.i]
				i := slices.Index(want, e)
				if i < 0 {
					continue // gone already
				}
				a.remove(e)
				want = slices.Delete(want, i, i+1)
			}
			if a.len() != len(want) {
				t.Fatalf("%s: op %d: len %d; want %d", tt.name, n, a.len(), len(want))
			}
		}
		for len(want) > 0 {
			if got := a.pop(); got != want[0] {
				t.Fatalf("%s: at the end: popped seq %d; want %d", tt.name, got.Seq, want[0].Seq)
			}
			want = want[1:]
		}
		if a.len() != 0 || a.live != 0 || len(a.run) != 0 {
			t.Errorf("%s: not empty at the end: len %d, run %d", tt.name, a.len(), len(a.run))
		}
	}
}
