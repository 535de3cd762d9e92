package repl

// The trace as a learner reads it: one line per event with a fixed field
// order (virtual time, seq, column, component, object, message, cause), the
// Why sentence under it on request, and colour by column. This is a designed
// artefact (STYLE rule 12): no pointers, no dumps, no wall clock.

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/trace"
)

// traceWidth is the width explanations are wrapped to, and the width the
// diagram fits in.
const traceWidth = 100

// trPaint colours text in a column's colour when the session has colour on.
func trPaint(s *Session, col trace.Column, text string) string { return s.pal.column(col, text) }

// trFaint dims text (the Why sentences) when colour is on.
func trFaint(s *Session, text string) string { return s.pal.dim(text) }

// eventObject is how an event's object is shown: "pod/x", with its
// namespace in front when it is not the default one ("kube-system/pod/x").
func eventObject(e trace.Event) string {
	if e.Object == "" {
		return ""
	}
	if e.Namespace != "" && e.Namespace != "default" {
		return e.Namespace + "/" + e.Object
	}
	return e.Object
}

// traceLayout holds the field widths of one listing, so that a block of
// events lines up.
type traceLayout struct {
	time, seq, component, object int
}

// Caps keep one long name from pushing every message off the screen.
const (
	maxComponentWidth = 24
	maxObjectWidth    = 40
)

func layoutFor(evs []trace.Event) traceLayout {
	var l traceLayout
	for _, e := range evs {
		l.time = max(l.time, len(e.T.String()))
		l.seq = max(l.seq, len(seqRef(e.Seq)))
		l.component = max(l.component, utf8.RuneCountInString(e.Component))
		l.object = max(l.object, utf8.RuneCountInString(eventObject(e)))
	}
	l.component = min(l.component, maxComponentWidth)
	l.object = min(l.object, maxObjectWidth)
	return l
}

func seqRef(seq uint64) string { return "#" + strconv.FormatUint(seq, 10) }

// trPad left-aligns s in n runes (never cutting it).
func trPad(s string, n int) string {
	if d := n - utf8.RuneCountInString(s); d > 0 {
		return s + strings.Repeat(" ", d)
	}
	return s
}

// trPadLeft right-aligns s in n runes.
func trPadLeft(s string, n int) string {
	if d := n - utf8.RuneCountInString(s); d > 0 {
		return strings.Repeat(" ", d) + s
	}
	return s
}

// describeEvent is the one-line form of an event:
//
//	12.000s  #41  Maintain  replicaset-controller  replicaset/api-7d9f8c6b5  Created pod: api-7d9f8c6b5-x2k4q  ← #40
func describeEvent(s *Session, e trace.Event, l traceLayout) string {
	var b strings.Builder
	b.WriteString(trPadLeft(e.T.String(), l.time))
	b.WriteString("  ")
	b.WriteString(trPad(seqRef(e.Seq), l.seq))
	b.WriteString("  ")
	b.WriteString(trPaint(s, e.Column, trPad(e.Column.String(), len("Maintain"))))
	b.WriteString("  ")
	b.WriteString(trPad(e.Component, l.component))
	b.WriteString("  ")
	if l.object > 0 {
		b.WriteString(trPad(eventObject(e), l.object))
		b.WriteString("  ")
	}
	b.WriteString(e.Message)
	if e.Cause != 0 {
		b.WriteString("  ← ")
		b.WriteString(seqRef(e.Cause))
	}
	return strings.TrimRight(b.String(), " ")
}

// whyIndent is where the Why sentence starts under an event line: under
// the seq field, so the time column stays clean.
func whyIndent(l traceLayout) int { return l.time + 2 }

// describeWhy is the Why sentence under an event, wrapped to traceWidth:
// "why: ..." indented under the event.
func describeWhy(s *Session, e trace.Event, indent int) []string {
	if e.Why == "" {
		return nil
	}
	lines := trWrap("why: "+e.Why, traceWidth-indent)
	prefix := strings.Repeat(" ", indent)
	for i, ln := range lines {
		if i > 0 {
			ln = "     " + ln // under the text, past "why: "
		}
		lines[i] = prefix + trFaint(s, ln)
	}
	return lines
}

// trWrapWords breaks text into lines of at most width runes at spaces; a
// single longer word stays whole.
func trWrap(text string, width int) []string {
	if width < 20 {
		width = 20
	}
	var lines []string
	var cur strings.Builder
	n := 0
	for _, w := range strings.Fields(text) {
		wl := utf8.RuneCountInString(w)
		if n > 0 && n+1+wl > width {
			lines = append(lines, cur.String())
			cur.Reset()
			n = 0
		}
		if n > 0 {
			cur.WriteByte(' ')
			n++
		}
		cur.WriteString(w)
		n += wl
	}
	if n > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

// trTruncate cuts s to n runes, marking the cut with "…".
func trTruncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 1 {
		return "…"
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// traceFilter selects events for trace, diagram and why.
type traceFilter struct {
	component string       // "scheduler"; "kubelet" matches every kubelet/<node>
	column    trace.Column // 0: any
	lane      trace.Lane   // 0: any
	object    string       // "pod/x", normalised
	namespace string       // with object: only that namespace's
	since     sim.Tick     // >0: only events at or after now-since
	last      int          // >0: only the last N matching events
}

func (f traceFilter) match(e trace.Event) bool {
	if f.component != "" && !strings.EqualFold(e.Component, f.component) &&
		!strings.HasPrefix(strings.ToLower(e.Component), strings.ToLower(f.component)+"/") {
		return false
	}
	if f.column != 0 && e.Column != f.column {
		return false
	}
	if f.lane != 0 && e.Lane != f.lane {
		return false
	}
	if f.object != "" {
		if e.Object != f.object {
			return false
		}
		if f.namespace != "" && e.Namespace != "" && e.Namespace != f.namespace {
			return false
		}
	}
	return true
}

// selectEvents applies f to the kept trace, oldest first.
func selectEvents(tr *trace.Trace, now sim.Tick, f traceFilter) []trace.Event {
	var evs []trace.Event
	if f.since > 0 {
		evs = eventsSince(tr, now-f.since)
	} else {
		evs = tr.All()
	}
	out := evs[:0]
	for _, e := range evs {
		if f.match(e) {
			out = append(out, e)
		}
	}
	if f.last > 0 && len(out) > f.last {
		out = out[len(out)-f.last:]
	}
	return out
}

// eventsSince returns the kept events at or after virtual time t, found by
// binary search on sequence numbers (time never goes backwards in the trace).
func eventsSince(tr *trace.Trace, t sim.Tick) []trace.Event {
	lo, hi := tr.FirstSeq(), tr.NextSeq()
	for lo < hi {
		mid := lo + (hi-lo)/2
		e, _ := tr.Get(mid)
		if e.T < t {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return tr.Since(lo)
}

// parseObjectRef normalises "deploy/api" to the trace's "deployment/api".
func parseObjectRef(ref string) (string, *kinds.Kind, string, error) {
	kind, name, ok := strings.Cut(ref, "/")
	if !ok || kind == "" || name == "" {
		return "", nil, "", kerrorf("%q is not in KIND/NAME form (for example pod/api-7d9f8c6b5-x2k4q)", ref)
	}
	k, err := lookupKind(kind)
	if err != nil {
		return "", nil, "", err
	}
	return k.Singular + "/" + name, k, name, nil
}

// parseVirtualDuration reads "30s", "5m", "1h30m" or "90" (seconds) as a
// span of virtual time.
func parseVirtualDuration(s string) (sim.Tick, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n >= 0 {
		return sim.Seconds(n), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, kerrorf("invalid duration %q: use a number with a unit, such as 30s, 5m or 1h", s)
	}
	return sim.FromDuration(d), nil
}

// lastCommandSeq is the sequence number of the learner's most recent
// command still in the trace (0 if none): where "what just happened" starts.
func lastCommandSeq(tr *trace.Trace) uint64 {
	for seq := tr.NextSeq() - 1; seq >= tr.FirstSeq() && seq > 0; seq-- {
		e, _ := tr.Get(seq)
		if e.Component == "kubectl" && e.Cause == 0 {
			return seq
		}
	}
	return 0
}

// trPlural is "1 pod", "3 pods" for simple English nouns.
func trPlural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// firstKeptTime is the virtual time of the oldest event still in the trace.
func firstKeptTime(tr *trace.Trace) sim.Tick {
	e, ok := tr.Get(tr.FirstSeq())
	if !ok {
		return 0
	}
	return e.T
}
