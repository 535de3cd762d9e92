package repl

import (
	"github.com/fatih/color"

	"github.com/kubeloop/kubeloop/engine/trace"
)

// palette colours output when the session has colour on, and is the
// identity otherwise. Each session owns its colours and sets them on or off
// explicitly, so that fatih/color's global NoColor (decided from the
// process's stdout) never leaks into a test or a script's output.
//
// The trace and kubectl printers use it: s.pal.column(trace.Run, text),
// s.pal.err(msg), s.pal.warn(reason).
type palette struct {
	on                                 bool
	red, yellow, dimC, boldC           *color.Color
	declare, schedule, runC, maintainC *color.Color
}

func newPalette(on bool) palette {
	mk := func(a ...color.Attribute) *color.Color {
		c := color.New(a...)
		if on {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
		return c
	}
	// The four columns get four distinct hues, in reading order, so that a
	// learner can follow a change from Declare to Maintain down the trace.
	return palette{
		on:  on,
		red: mk(color.FgRed), yellow: mk(color.FgYellow),
		dimC: mk(color.Faint), boldC: mk(color.Bold),
		declare: mk(color.FgBlue), schedule: mk(color.FgMagenta),
		runC: mk(color.FgGreen), maintainC: mk(color.FgCyan),
	}
}

func (p palette) paint(c *color.Color, s string) string {
	if !p.on || c == nil || s == "" {
		return s
	}
	return c.Sprint(s)
}

// err colours an error message.
func (p palette) err(s string) string { return p.paint(p.red, s) }

// warn colours a warning (a Warning event, a simplification notice).
func (p palette) warn(s string) string { return p.paint(p.yellow, s) }

// ok colours a success.
// dim colours secondary text (times, sequence numbers).
func (p palette) dim(s string) string { return p.paint(p.dimC, s) }

// bold emphasises a heading.
func (p palette) bold(s string) string { return p.paint(p.boldC, s) }

// column colours text by the column of the classic picture it belongs to.
func (p palette) column(c trace.Column, s string) string {
	switch c {
	case trace.Declare:
		return p.paint(p.declare, s)
	case trace.Schedule:
		return p.paint(p.schedule, s)
	case trace.Run:
		return p.paint(p.runC, s)
	case trace.Maintain:
		return p.paint(p.maintainC, s)
	}
	return s
}
