package workqueue

import (
	"testing"

	"github.com/kubeloop/kubeloop/engine/sim"
)

func drain(q *Queue) []string {
	var out []string
	for {
		k, _, ok := q.Get()
		if !ok {
			return out
		}
		out = append(out, k)
		q.Done(k)
	}
}

func TestAddDedupsWhileWaiting(t *testing.T) {
	q := New("test", sim.NewLoop())
	q.Add("a", 1)
	q.Add("b", 2)
	q.Add("a", 3)
	if q.Len() != 2 {
		t.Fatalf("Len = %d; want 2", q.Len())
	}
	k, cause, _ := q.Get()
	if k != "a" || cause != 3 {
		t.Errorf("Get = %q, %d; want \"a\", 3 (FIFO place kept, newest cause)", k, cause)
	}
	q.Done(k)
	if got := drain(q); len(got) != 1 || got[0] != "b" {
		t.Errorf("rest = %v; want [b]", got)
	}
}

func TestZeroCauseKeepsOldCause(t *testing.T) {
	q := New("test", sim.NewLoop())
	q.Add("a", 7)
	q.Add("a", 0)
	if _, cause, _ := q.Get(); cause != 7 {
		t.Errorf("cause = %d; want 7", cause)
	}
}

func TestAddWhileProcessingRequeuesAtDone(t *testing.T) {
	q := New("test", sim.NewLoop())
	q.Add("a", 1)
	k, _, _ := q.Get()
	q.Add("a", 2) // changed while being reconciled
	if q.Len() != 0 {
		t.Fatalf("a processing key must not be handed out twice; Len = %d", q.Len())
	}
	q.Done(k)
	k, cause, ok := q.Get()
	if !ok || k != "a" || cause != 2 {
		t.Errorf("after Done: Get = %q, %d, %v; want \"a\", 2, true", k, cause, ok)
	}
}

func TestDoneWithoutGetPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Done of a key that is not processing did not panic")
		}
	}()
	New("test", sim.NewLoop()).Done("x")
}

func TestAddAfterKeepsEarliest(t *testing.T) {
	loop := sim.NewLoop()
	q := New("test", loop)
	q.AddAfter("a", 1, 100)
	q.AddAfter("a", 2, 300) // later: ignored
	q.AddAfter("b", 3, 300)
	q.AddAfter("b", 4, 50) // earlier: replaces
	if q.Len() != 0 || q.Waiting() != 2 {
		t.Fatalf("Len, Waiting = %d, %d; want 0, 2", q.Len(), q.Waiting())
	}
	for loop.FireNext(1000) {
	}
	k1, c1, _ := q.Get()
	k2, c2, _ := q.Get()
	if k1 != "b" || c1 != 4 || k2 != "a" || c2 != 1 {
		t.Errorf("order = %s(%d), %s(%d); want b(4), a(1)", k1, c1, k2, c2)
	}
	if _, _, ok := q.Get(); ok {
		t.Error("a replaced or ignored timer still added its key")
	}
}

func TestRateLimiterBackoff(t *testing.T) {
	r := NewDefaultRateLimiter(sim.NewLoop())
	want := []sim.Tick{5, 10, 20, 40, 80}
	for i, w := range want {
		if got := r.When("k"); got != w {
			t.Errorf("When #%d = %d; want %d", i+1, got, w)
		}
	}
	if r.NumRequeues("k") != 5 {
		t.Errorf("NumRequeues = %d; want 5", r.NumRequeues("k"))
	}
	r.Forget("k")
	if got := r.When("k"); got != 5 {
		t.Errorf("after Forget: When = %d; want 5", got)
	}
	for i := 0; i < 40; i++ {
		r.When("cap")
	}
	if got := r.When("cap"); got != MaxDelay {
		t.Errorf("capped When = %d; want %d", got, MaxDelay)
	}
}

func TestRateLimiterBucket(t *testing.T) {
	loop := sim.NewLoop()
	r := NewDefaultRateLimiter(loop)
	// 100 distinct keys use the burst; the 101st waits one token (100 ms).
	for i := 0; i < BucketBurst; i++ {
		if d := r.When(string(rune('A' + i))); d != BaseDelay {
			t.Fatalf("burst retry %d delayed %d; want %d", i, d, BaseDelay)
		}
	}
	if d := r.When("late"); d != 100*sim.Millisecond {
		t.Errorf("retry past the burst delayed %d; want 100ms", d)
	}
}

func TestLongQueueReclaimsPrefix(t *testing.T) {
	q := New("test", sim.NewLoop())
	for i := 0; i < 5000; i++ {
		q.Add(string(rune(0x4e00+i)), 0)
		if i%2 == 1 {
			k, _, _ := q.Get()
			q.Done(k)
		}
	}
	if q.Len() != 2500 || len(q.queue) > 4000 {
		t.Errorf("Len = %d, backing = %d; want 2500 live and a reclaimed prefix", q.Len(), len(q.queue))
	}
}
