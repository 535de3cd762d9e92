package sim

import (
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
