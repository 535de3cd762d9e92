package sim

// Timer identifies a scheduled callback so that it can be cancelled.
type Timer struct {
	at    Tick
	seq   uint64
	index int // position in the heap; -1 once fired or cancelled
	label string
	fn    func()
	wake  bool // see ArmWake
}

// At is the tick the timer fires at.
func (t *Timer) At() Tick { return t.at }

// Label says what the timer is for ("kubelet/n1 lease renewal").
func (t *Timer) Label() string { return t.label }

// Pending reports whether the timer has neither fired nor been cancelled.
// A zero Timer (one that Arm has yet to set) is not pending.
func (t *Timer) Pending() bool { return t != nil && t.index >= 0 && t.fn != nil }

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
	return l.Arm(new(Timer), at, label, fn)
}

// Arm schedules fn at tick at on t, a Timer the caller keeps (a field of
// its own struct) and that is not pending; it returns t. A caller that
// sets its timers one after another, never two at once (a kubelet pod's
// steps), reuses one Timer where At would allocate one a step. It panics
// if t is pending: its callback would be lost.
func (l *Loop) Arm(t *Timer, at Tick, label string, fn func()) *Timer {
	if t.Pending() {
		panic("sim: arming a pending timer")
	}
	if at < l.now {
		at = l.now
	}
	l.seq++
	*t = Timer{at: at, seq: l.seq, label: label, fn: fn}
	l.timers.push(t)
	return t
}

// ArmWake is Arm for a wake-up: a callback that only queues work for its
// component (a kubelet's pod that is due for its next step), so that what
// it does is the same whether or not other work ran before it in its tick:
// it reads nothing that another callback or a component's work could
// change, but for its component's queue. A run of wake-ups due at one tick
// fires at once (see FireNext): what they queue is then worked through
// together, as the kubelets of many nodes would work at the same moment.
func (l *Loop) ArmWake(t *Timer, at Tick, label string, fn func()) *Timer {
	l.Arm(t, at, label, fn)
	t.wake = true
	return t
}

// Cancel stops a pending timer; cancelling a fired or nil timer does nothing.
func (l *Loop) Cancel(t *Timer) {
	if t.Pending() {
		l.timers.remove(t.index)
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
// and reports whether one ran. If it is a wake-up (ArmWake), every wake-up
// that follows it at the same tick runs too, up to the first other timer:
// wake-ups only queue work, so firing them together changes no callback's
// view of the cluster, and the next timer of another kind still fires
// after everything they queued has been done.
func (l *Loop) FireNext(limit Tick) bool {
	if len(l.timers) == 0 || l.timers[0].at > limit {
		return false
	}
	t := l.timers.remove(0)
	if t.at < l.now {
		panic("sim: timer in the past")
	}
	l.now = t.at
	t.fn()
	for t.wake && len(l.timers) > 0 && l.timers[0].at == l.now && l.timers[0].t.wake {
		t = l.timers.remove(0)
		t.fn()
	}
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

// timerHeap is a 4-ary min-heap of the pending timers by (tick, sequence).
// A busy cluster has a timer pending for most of its pods (a kubelet step,
// a pull), so the heap is large and its timers cold: each slot keeps its
// timer's tick and sequence beside the pointer, so that sifting compares
// without reading the timers, and four children a node halve the levels a
// sift walks (each level's children share a cache line or two).
type timerHeap []heapSlot

type heapSlot struct {
	at  Tick
	seq uint64
	t   *Timer
}

func (a *heapSlot) before(b *heapSlot) bool {
	return a.at < b.at || a.at == b.at && a.seq < b.seq
}

func (h *timerHeap) push(t *Timer) {
	*h = append(*h, heapSlot{at: t.at, seq: t.seq, t: t})
	h.up(len(*h) - 1)
}

// remove takes out the timer at position i and returns it.
func (h *timerHeap) remove(i int) *Timer {
	s := *h
	t := s[i].t
	last := len(s) - 1
	if i != last {
		s[i] = s[last]
		s[i].t.index = i
	}
	s[last] = heapSlot{}
	*h = s[:last]
	if i != last {
		if !h.down(i) {
			h.up(i)
		}
	}
	t.index = -1
	return t
}

// up moves the slot at i towards the root until its parent is before it.
func (h timerHeap) up(i int) {
	s := h[i]
	for i > 0 {
		p := (i - 1) / 4
		if !s.before(&h[p]) {
			break
		}
		h[i] = h[p]
		h[i].t.index = i
		i = p
	}
	h[i] = s
	s.t.index = i
}

// down moves the slot at i towards the leaves until it is before its
// children, and reports whether it moved.
func (h timerHeap) down(i int) bool {
	s := h[i]
	start, n := i, len(h)
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c // the earliest child
		for j := c + 1; j < c+4 && j < n; j++ {
			if h[j].before(&h[m]) {
				m = j
			}
		}
		if !h[m].before(&s) {
			break
		}
		h[i] = h[m]
		h[i].t.index = i
		i = m
	}
	h[i] = s
	s.t.index = i
	return i > start
}
