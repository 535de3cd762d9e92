package kubelet

import (
	"testing"

	"github.com/kubeloop/kubeloop/engine/sim"
)

// The spam filter is client-go's token bucket: 25 Events about an object
// at once, then one each five minutes, and never more than 25 saved up.
func TestAllowEvent(t *testing.T) {
	var p podState
	allowed := func(at sim.Tick, n int) int {
		got := 0
		for range n {
			if p.allowEvent(at) {
				got++
			}
		}
		return got
	}
	steps := []struct {
		at         sim.Tick
		try, allow int
	}{
		{0, 30, 25},                            // the burst
		{sim.Minute, 3, 0},                     // nothing back yet
		{5 * sim.Minute, 3, 1},                 // one token a five minutes
		{10*sim.Minute - 1, 1, 0},              // not a moment early
		{10 * sim.Minute, 1, 1},                //
		{10*sim.Minute + 3*sim.Hour, 40, 25},   // saved up: the burst again, no more
		{10*sim.Minute + 3*sim.Hour + 1, 1, 0}, //
	}
	for _, s := range steps {
		if got := allowed(s.at, s.try); got != s.allow {
			t.Errorf("at %s, %d Events: %d allowed; want %d", s.at, s.try, got, s.allow)
		}
	}
}
