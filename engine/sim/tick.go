package sim

import (
	"fmt"
	"time"
)

// Tick is a point in virtual time, in milliseconds since the cluster started.
// Durations in the engine are Ticks too; name their unit in the identifier
// when it is not obvious (backoffTicksMax).
type Tick int64

// Units of virtual time.
const (
	Millisecond Tick = 1
	Second           = 1000 * Millisecond
	Minute           = 60 * Second
	Hour             = 60 * Minute
)

// Epoch is the wall-clock instant that virtual tick 0 stands for in objects
// (creationTimestamp, lastTransitionTime): a fixed date, never the real clock,
// so that `get -o json` is byte-identical from run to run.
var Epoch = time.Date(2025, time.January, 1, 0, 0, 0, 0, time.UTC)

// Time converts a tick to the timestamp objects carry.
func (t Tick) Time() time.Time { return Epoch.Add(time.Duration(t) * time.Millisecond) }

// FromTime converts an object's timestamp back to a tick.
func FromTime(tm time.Time) Tick { return Tick(tm.Sub(Epoch) / time.Millisecond) }

// Duration converts a tick count to a time.Duration.
func (t Tick) Duration() time.Duration { return time.Duration(t) * time.Millisecond }

// FromDuration converts a time.Duration to ticks (rounded down to the millisecond).
func FromDuration(d time.Duration) Tick { return Tick(d / time.Millisecond) }

// Seconds converts whole seconds to ticks.
func Seconds(s int64) Tick { return Tick(s) * Second }

// String prints a tick as the time since start the way traces show it:
// "12.345s", "4m05.000s", "1h02m03.000s".
func (t Tick) String() string {
	neg := ""
	if t < 0 {
		neg, t = "-", -t
	}
	ms := int64(t % Second)
	s := int64(t / Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%s%d.%03ds", neg, s, ms)
	case s < 3600:
		return fmt.Sprintf("%s%dm%02d.%03ds", neg, s/60, s%60, ms)
	default:
		return fmt.Sprintf("%s%dh%02dm%02d.%03ds", neg, s/3600, (s/60)%60, s%60, ms)
	}
}
