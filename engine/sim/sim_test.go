package sim

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestTickString(t *testing.T) {
	tests := []struct {
		t    Tick
		want string
	}{
		{0, "0.000s"},
		{1500 * Millisecond, "1.500s"},
		{59*Second + 999, "59.999s"},
		{4*Minute + 5*Second, "4m05.000s"},
		{Hour + 2*Minute + 3*Second, "1h02m03.000s"},
		{-2 * Second, "-2.000s"},
	}
	for _, tt := range tests {
		if got := tt.t.String(); got != tt.want {
			t.Errorf("Tick(%d).String() = %q; want %q", int64(tt.t), got, tt.want)
		}
	}
}

func TestTimeRoundTrip(t *testing.T) {
	for _, tk := range []Tick{0, 1, Second, 90 * Minute} {
		if got := FromTime(tk.Time()); got != tk {
			t.Errorf("FromTime(%d.Time()) = %d", tk, got)
		}
	}
}

func TestLoopOrdersByTickThenSequence(t *testing.T) {
	l := NewLoop()
	var got []string
	l.After(2*Second, "c", func() { got = append(got, "c") })
	l.After(Second, "a", func() { got = append(got, "a") })
	l.After(Second, "b", func() {
		got = append(got, "b")
		// A timer set while firing, due now, runs after those already due.
		l.After(0, "b2", func() { got = append(got, "b2") })
	})
	cancelled := l.After(Second, "x", func() { got = append(got, "x") })
	l.Cancel(cancelled)
	l.Cancel(cancelled) // cancelling twice is harmless
	for l.FireNext(10 * Second) {
	}
	want := "a b b2 c"
	if s := join(got); s != want {
		t.Errorf("fired %q; want %q", s, want)
	}
	if l.Now() != 2*Second {
		t.Errorf("Now() = %v; want 2s", l.Now())
	}
}

// TestLoopArmReusesTimer checks that a kept Timer set again after it
// fired or was cancelled fires like a new one, in sequence with At's, and
// that a zero Timer is not pending while a set one is.
func TestLoopArmReusesTimer(t *testing.T) {
	l := NewLoop()
	var got []string
	var kept Timer
	if kept.Pending() {
		t.Fatal("a zero Timer is pending")
	}
	l.Cancel(&kept) // cancelling a zero Timer is harmless
	step := func(name string) func() { return func() { got = append(got, name) } }
	tests := []struct {
		name   string
		arm    func()
		cancel bool
		want   string
	}{
		{"first use", func() { l.Arm(&kept, l.Now()+Second, "k", step("k1")) }, false, "k1"},
		{"after firing, behind an At due then", func() {
			l.At(l.Now()+Second, "a", step("a"))
			l.Arm(&kept, l.Now()+Second, "k", step("k2"))
		}, false, "a k2"},
		{"a past tick runs now", func() { l.Arm(&kept, l.Now()-Second, "k", step("k3")) }, false, "k3"},
		{"after a cancel", func() { l.Arm(&kept, l.Now()+Second, "k", step("never")) }, true, ""},
		{"after a cancel, set again", func() { l.Arm(&kept, l.Now()+2*Second, "k", step("k4")) }, false, "k4"},
	}
	for _, tt := range tests {
		got = nil
		tt.arm()
		if !kept.Pending() {
			t.Fatalf("%s: the armed timer is not pending", tt.name)
		}
		if tt.cancel {
			l.Cancel(&kept)
		}
		for l.FireNext(Hour) {
		}
		if s := join(got); s != tt.want {
			t.Errorf("%s: fired %q; want %q", tt.name, s, tt.want)
		}
		if kept.Pending() || l.Pending() != 0 {
			t.Errorf("%s: a timer is still pending", tt.name)
		}
	}
	l.Arm(&kept, l.Now()+Second, "k", step("k5"))
	defer func() {
		if recover() == nil {
			t.Error("arming a pending timer did not panic")
		}
	}()
	l.Arm(&kept, l.Now()+Second, "k", step("lost"))
}

func TestLoopFireNextRespectsLimit(t *testing.T) {
	l := NewLoop()
	fired := false
	l.After(5*Second, "late", func() { fired = true })
	if l.FireNext(4 * Second) {
		t.Fatal("fired a timer due after the limit")
	}
	l.SetNow(4 * Second)
	if fired || l.Now() != 4*Second {
		t.Fatalf("fired=%v now=%v", fired, l.Now())
	}
	defer func() {
		if recover() == nil {
			t.Error("SetNow past a pending timer did not panic")
		}
	}()
	l.SetNow(6 * Second)
}

func TestRandIsSeededAndDerivedDeterministically(t *testing.T) {
	a, b := NewRand(42), NewRand(42)
	for i := 0; i < 100; i++ {
		if x, y := a.Uint64(), b.Uint64(); x != y {
			t.Fatalf("draw %d: %d != %d", i, x, y)
		}
	}
	ca, cb := NewRand(7).Derive(), NewRand(7).Derive()
	if ca.String("abc", 20) != cb.String("abc", 20) {
		t.Error("derived sources from the same seed differ")
	}
	if NewRand(1).Uint64() == NewRand(2).Uint64() {
		t.Error("different seeds gave the same first draw")
	}
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}

// TestLoopMatchesAModel drives a loop with seeded random timers, cancels
// and firings, and checks every firing against a list kept sorted by
// (tick, sequence): the order the loop promises, whatever its heap does.
func TestLoopMatchesAModel(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 11))
	l := NewLoop()
	type pending struct {
		at   Tick
		seq  int
		wake bool
		tm   *Timer
	}
	var model []pending // sorted by (at, seq)
	var fired []int
	seq := 0
	for step := range 20000 {
		switch op := rnd.IntN(10); {
		case op < 5:
			seq++
			at, id, wake := l.Now()+Tick(rnd.IntN(50)), seq, rnd.IntN(2) == 0
			fn := func() { fired = append(fired, id) }
			var tm *Timer
			if wake {
				tm = l.ArmWake(new(Timer), at, "w", fn)
			} else {
				tm = l.At(at, "t", fn)
			}
			i, _ := slices.BinarySearchFunc(model, pending{at: at, seq: id}, func(a, b pending) int {
				if a.at != b.at {
					return cmp.Compare(a.at, b.at)
				}
				return cmp.Compare(a.seq, b.seq)
			})
			model = slices.Insert(model, i, pending{at, id, wake, tm})
		case op < 7 && len(model) > 0:
			i := rnd.IntN(len(model))
			l.Cancel(model[i].tm)
			l.Cancel(model[i].tm) // a second cancel does nothing
			if model[i].tm.Pending() {
				t.Fatalf("step %d: a cancelled timer is pending", step)
			}
			model = slices.Delete(model, i, i+1)
		default:
			limit := l.Now() + Tick(rnd.IntN(20))
			fired = fired[:0]
			ran := l.FireNext(limit)
			want := len(model) > 0 && model[0].at <= limit
			if ran != want {
				t.Fatalf("step %d: FireNext(%v) ran %v; want %v", step, limit, ran, want)
			}
			if !ran {
				break
			}
			// The earliest timer, and after a wake-up the wake-ups that
			// follow it at the same tick.
			n := 1
			for model[0].wake && n < len(model) && model[n].at == model[0].at && model[n].wake {
				n++
			}
			var want2 []int
			for _, p := range model[:n] {
				want2 = append(want2, p.seq)
				if p.tm.Pending() {
					t.Fatalf("step %d: timer %d fired but is pending", step, p.seq)
				}
			}
			if !slices.Equal(fired, want2) || l.Now() != model[0].at {
				t.Fatalf("step %d: fired %v at %v; want %v at %v", step, fired, l.Now(), want2, model[0].at)
			}
			model = model[n:]
		}
		if l.Pending() != len(model) {
			t.Fatalf("step %d: %d pending; want %d", step, l.Pending(), len(model))
		}
		if next, ok := l.Next(); ok != (len(model) > 0) || ok && next != model[0].at {
			t.Fatalf("step %d: Next() = %v, %v; want the earliest of %d", step, next, ok, len(model))
		}
	}
}

// TestLoopFiresWakeUpsTogether: a run of wake-ups at one tick fires in one
// FireNext, in order; another timer, before or among them, fires alone, and
// so does a wake-up at a later tick.
func TestLoopFiresWakeUpsTogether(t *testing.T) {
	l := NewLoop()
	var got []string
	add := func(at Tick, name string, wake bool) {
		fn := func() { got = append(got, name) }
		if wake {
			l.ArmWake(new(Timer), at, name, fn)
		} else {
			l.At(at, name, fn)
		}
	}
	add(Second, "w1", true)
	add(Second, "w2", true)
	add(Second, "t3", false)
	add(Second, "w4", true)
	add(Second, "w5", true)
	add(2*Second, "w6", true)
	add(Second, "t7", false)
	add(Second, "w8", true)
	var firings []string
	for l.FireNext(Hour) {
		firings = append(firings, strings.Join(got, "+"))
		got = got[:0]
	}
	want := []string{"w1+w2", "t3", "w4+w5", "t7", "w8", "w6"}
	if !slices.Equal(firings, want) {
		t.Errorf("firings %q; want %q", firings, want)
	}
}

// BenchmarkTimers is a busy cluster's timer load: 150,000 pending (a step
// of each pod's), each fired and replaced by one a random few seconds on.
func BenchmarkTimers(b *testing.B) {
	rnd := rand.New(rand.NewPCG(1, 2))
	l := NewLoop()
	var fn func()
	fn = func() { l.After(Tick(rnd.IntN(5000)), "step", fn) }
	for range 150000 {
		l.After(Tick(rnd.IntN(5000)), "step", fn)
	}
	b.ResetTimer()
	for range b.N {
		l.FireNext(l.Now() + Hour)
	}
}
