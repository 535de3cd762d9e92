package sim

import "container/heap"

// Timer identifies a scheduled callback so that it can be cancelled.
type Timer struct {
	at    Tick
	seq   uint64
	index int // position in the heap; -1 once fired or cancelled
	label string
	fn    func()
}

// At is the tick the timer fires at.
func (t *Timer) At() Tick { return t.at }

// Label says what the timer is for ("kubelet/n1 lease renewal").
func (t *Timer) Label() string { return t.label }

// Pending reports whether the timer has neither fired nor been cancelled.
func (t *Timer) Pending() bool { return t != nil && t.index >= 0 }

// Loop owns virtual time and the timers due in it. Timers due at the same
// tick fire in the order they were set.
type Loop struct {
	now    Tick
	seq    uint64
	timers timerHeap
}

// NewLoop returns a loop at tick 0.
func NewLoop() *Loop { return &Loop{} }

// Now is the current virtual time.
func (l *Loop) Now() Tick { return l.now }

// After schedules fn to run d ticks from now (d < 0 counts as 0).
func (l *Loop) After(d Tick, label string, fn func()) *Timer {
	if d < 0 {
		d = 0
	}
	return l.At(l.now+d, label, fn)
}

// At schedules fn at tick at; a tick in the past runs at the next step.
func (l *Loop) At(at Tick, label string, fn func()) *Timer {
	if at < l.now {
		at = l.now
	}
	l.seq++
	t := &Timer{at: at, seq: l.seq, label: label, fn: fn}
	heap.Push(&l.timers, t)
	return t
}

// Cancel stops a pending timer; cancelling a fired or nil timer does nothing.
func (l *Loop) Cancel(t *Timer) {
	if t.Pending() {
		heap.Remove(&l.timers, t.index)
	}
}

// Next reports when the earliest pending timer is due.
func (l *Loop) Next() (Tick, bool) {
	if len(l.timers) == 0 {
		return 0, false
	}
	return l.timers[0].at, true
}

// Pending is the number of timers waiting to fire.
func (l *Loop) Pending() int { return len(l.timers) }

// FireNext moves time to the earliest timer due at or before limit, runs it,
// and reports whether one ran.
func (l *Loop) FireNext(limit Tick) bool {
	if len(l.timers) == 0 || l.timers[0].at > limit {
		return false
	}
	t := heap.Pop(&l.timers).(*Timer)
	if t.at < l.now {
		panic("sim: timer in the past")
	}
	l.now = t.at
	t.fn()
	return true
}

// SetNow moves time forward to t without firing anything; it panics if that
// would skip a pending timer or go backwards.
func (l *Loop) SetNow(t Tick) {
	if t < l.now {
		panic("sim: time cannot go backwards")
	}
	if n, ok := l.Next(); ok && n < t {
		panic("sim: SetNow would skip a pending timer")
	}
	l.now = t
}

type timerHeap []*Timer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}
func (h *timerHeap) Push(x any) {
	t := x.(*Timer)
	t.index = len(*h)
	*h = append(*h, t)
}
func (h *timerHeap) Pop() any {
	old := *h
	n := len(old)
	t := old[n-1]
	old[n-1] = nil
	t.index = -1
	*h = old[:n-1]
	return t
}
