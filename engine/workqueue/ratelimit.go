package workqueue

import "github.com/kubeloop/kubeloop/engine/sim"

// Client-go's DefaultControllerRateLimiter, in ticks: per-key exponential
// backoff from 5 ms to 1000 s, combined (the larger delay wins) with an
// overall token bucket of 10 retries per second and a burst of 100.
const (
	BaseDelay    = 5 * sim.Millisecond
	MaxDelay     = 1000 * sim.Second
	BucketQPS    = 10
	BucketBurst  = 100
	tokenPeriod  = sim.Second / BucketQPS // ticks per token
	bucketCredit = BucketBurst * tokenPeriod
)

// RateLimiter decides how long a failed key waits before its next try.
type RateLimiter struct {
	loop     *sim.Loop
	failures map[string]int
	// The token bucket holds credit in ticks: one token is tokenPeriod ticks.
	credit sim.Tick
	last   sim.Tick
}

// NewDefaultRateLimiter returns client-go's default controller rate limiter
// on virtual time.
func NewDefaultRateLimiter(loop *sim.Loop) *RateLimiter {
	return &RateLimiter{loop: loop, failures: map[string]int{}, credit: bucketCredit, last: loop.Now()}
}

// When returns the delay before key's next try and counts the failure.
func (r *RateLimiter) When(key string) sim.Tick {
	exp := r.failures[key]
	r.failures[key] = exp + 1
	d := BaseDelay
	for i := 0; i < exp && d < MaxDelay; i++ {
		d *= 2
	}
	d = min(d, MaxDelay)
	return max(d, r.bucket())
}

// bucket reserves one token and returns how long until it is available
// (golang.org/x/time/rate Reserve, as client-go's BucketRateLimiter uses).
func (r *RateLimiter) bucket() sim.Tick {
	now := r.loop.Now()
	r.credit = min(bucketCredit, r.credit+(now-r.last))
	r.last = now
	r.credit -= tokenPeriod
	if r.credit >= 0 {
		return 0
	}
	return -r.credit
}

// Forget resets key's backoff.
func (r *RateLimiter) Forget(key string) { delete(r.failures, key) }

// NumRequeues is the number of failures counted for key.
func (r *RateLimiter) NumRequeues(key string) int { return r.failures[key] }
