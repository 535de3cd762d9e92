// Package record holds what every kubeloop component's event recorder
// shares with client-go's (tools/record/events_cache.go): the spam
// filter that limits how often one recorder may write about one object.
// The kubelet and the controllers keep its state where they keep the
// rest of what they know of an object.
package record

import "github.com/kubeloop/kubeloop/engine/sim"

// The spam filter's token bucket: client-go's defaultSpamBurst (25) and
// defaultSpamQPS (one token every 300 s).
const (
	SpamBurst    = 25
	SpamInterval = 5 * sim.Minute
)

// Allow is the spam filter for one object: a token bucket of SpamBurst
// tokens, one back every SpamInterval, kept as *tat, the time the bucket
// is full again (a generic cell rate algorithm: one number where
// x/time/rate keeps two; 0 for a full bucket). An Event may go while that
// time is at most SpamBurst-1 tokens' worth ahead, and takes a token.
func Allow(tat *sim.Tick, now sim.Tick) bool {
	t := max(*tat, now)
	if t-now > (SpamBurst-1)*SpamInterval {
		return false
	}
	*tat = t + SpamInterval
	return true
}
