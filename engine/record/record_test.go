package record

import (
	"testing"

	"github.com/kubeloop/kubeloop/engine/sim"
)

// TestAllow: 25 Events at once, then one every five minutes; a quiet
// stretch gives the tokens back, never more than 25.
func TestAllow(t *testing.T) {
	var tat sim.Tick
	count := func(at sim.Tick, n int) int {
		ok := 0
		for range n {
			if Allow(&tat, at) {
				ok++
			}
		}
		return ok
	}
	for _, c := range []struct {
		at      sim.Tick
		n, want int
	}{
		{0, 30, 25},
		{4 * sim.Minute, 2, 0},
		{5 * sim.Minute, 2, 1},
		{10 * sim.Minute, 3, 1},
		{10*sim.Minute + 3*SpamInterval, 5, 3},
		{10 * sim.Hour, 40, 25},
	} {
		if got := count(c.at, c.n); got != c.want {
			t.Errorf("at %s, %d Events: %d allowed; want %d", c.at, c.n, got, c.want)
		}
	}
}
