package repl

// diagram lays the recent trace out as the classic picture of Kubernetes:
// four columns read left to right (Declare, Schedule, Run, Maintain), the
// control plane on top and the nodes below. Each cell lists the components
// that acted there, numbered in the order they first acted, with counts of
// what they did.

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kubeloop/kubeloop/engine/trace"
)

// Cell geometry: four cells of diagramCell runes between five borders fit
// in traceWidth (4*23+5 = 97).
const (
	diagramCell    = 23
	diagramText    = diagramCell - 2 // one space of padding on each side
	diagramSummary = 3               // summary lines per component, then "+N more"
)

var diagramFlags = []Flag{flagTraceSince, flagTraceLast}

func init() {
	register(&Command{
		Name:  "diagram",
		Usage: "diagram [--since DURATION | --last N]",
		Short: "draw the recent trace as the four-column picture of Kubernetes",
		Long: `diagram draws what the cluster did as the well-known picture of Kubernetes:
four columns read left to right (Declare, Schedule, Run, Maintain), the
control plane on top and the worker nodes below. Each cell lists the
components that acted there, numbered in the order they first acted, and
counts what they did.

Without flags it draws everything since your last command that changed
the cluster; --since DURATION draws the last stretch of virtual time, and
--last N the last N steps.`,
		Example: "diagram\ndiagram --since 1m",
		Group:   GroupPlayground,
		Flags:   diagramFlags,
		Run:     runDiagram,
	})
}

func runDiagram(s *Session, args []string, _ string) error {
	f, err := s.Parse(args)
	if err != nil {
		return err
	}
	if len(f.Args) > 0 {
		return usagef("diagram takes no arguments, only flags")
	}
	tf, err := parseTraceFilter(s, f, diagramFlags)
	if err != nil {
		return err
	}
	tr := s.Eng.Trace
	var evs []trace.Event
	if tf.since == 0 && tf.last == 0 {
		evs = tr.Since(lastCommandSeq(tr))
	} else {
		evs = selectEvents(tr, s.Eng.Now(), tf)
	}
	if len(evs) == 0 {
		fmt.Fprintln(s.Err, "Nothing has happened yet: the trace is empty. Apply a manifest and try again.")
		return nil
	}
	fmt.Fprint(s.Out, renderDiagram(s, evs))
	return nil
}

// diagramActor is one component's activity in one cell.
type diagramActor struct {
	name    string // "scheduler"; "kubelet" for every kubelet/<node>
	order   int    // 1 for the first component to act in the picture
	nodes   []string
	steps   int
	sums    []string // summaries, in order of first appearance
	counts  map[string]int
	command bool // the learner's own commands: show them verbatim
}

type diagramCellKey struct {
	lane   trace.Lane
	column trace.Column
}

// renderDiagram builds the picture for evs (oldest first).
func renderDiagram(s *Session, evs []trace.Event) string {
	cells := map[diagramCellKey][]*diagramActor{}
	byKey := map[string]*diagramActor{}
	order := map[string]int{} // component group -> order number
	var orderNames []string
	for _, e := range evs {
		group, node, _ := strings.Cut(e.Component, "/")
		if _, ok := order[group]; !ok {
			orderNames = append(orderNames, group)
			order[group] = len(orderNames)
		}
		ck := diagramCellKey{e.Lane, e.Column}
		key := fmt.Sprintf("%d/%d/%s", e.Lane, e.Column, group)
		a := byKey[key]
		if a == nil {
			a = &diagramActor{name: group, order: order[group], counts: map[string]int{},
				command: e.Component == "kubectl" && e.Cause == 0}
			byKey[key] = a
			cells[ck] = append(cells[ck], a)
		}
		a.steps++
		if node != "" && !slices.Contains(a.nodes, node) {
			a.nodes = append(a.nodes, node)
		}
		sum := summarize(e)
		if a.counts[sum] == 0 {
			a.sums = append(a.sums, sum)
		}
		a.counts[sum]++
	}

	var b strings.Builder
	first, last := evs[0], evs[len(evs)-1]
	span := fmt.Sprintf("%s to %s, steps %s to %s", first.T, last.T, seqRef(first.Seq), seqRef(last.Seq))
	title := "What happened (" + span + "):"
	if first.Component == "kubectl" && first.Cause == 0 {
		title = fmt.Sprintf("What followed `%s` (%s):", first.Message, span)
	}
	for _, ln := range trWrap(title, traceWidth) {
		b.WriteString(ln + "\n")
	}
	b.WriteString("\n")

	// Column headings, centred over their cells.
	var head strings.Builder
	head.WriteString(" ")
	for i, c := range trace.Columns {
		name := c.String()
		left := (diagramCell - len(name)) / 2
		head.WriteString(strings.Repeat(" ", left) + trPaint(s, c, name))
		if i < len(trace.Columns)-1 {
			head.WriteString(strings.Repeat(" ", diagramCell-left-len(name)+1))
		}
	}
	b.WriteString(head.String() + "\n")

	lanes := []struct {
		lane  trace.Lane
		label string
		open  [3]string // left, join, right
	}{
		{trace.ControlPlane, "control plane", [3]string{"┌", "┬", "┐"}},
		{trace.NodeLane, "nodes", [3]string{"├", "┼", "┤"}},
	}
	for _, ln := range lanes {
		b.WriteString(trBorder(ln.open, " "+ln.label+" "))
		cols := make([][]string, len(trace.Columns))
		height := 1
		for i, c := range trace.Columns {
			cols[i] = cellLines(cells[diagramCellKey{ln.lane, c}])
			height = max(height, len(cols[i]))
		}
		for row := 0; row < height; row++ {
			b.WriteString("│")
			for i, c := range trace.Columns {
				text := ""
				if row < len(cols[i]) {
					text = cols[i][row]
				}
				b.WriteString(" " + trPaint(s, c, trPad(text, diagramText)) + " │")
			}
			b.WriteString("\n")
		}
	}
	b.WriteString(trBorder([3]string{"└", "┴", "┘"}, ""))

	// The order in which components first acted: the arrows of the picture.
	var steps []string
	for i, n := range orderNames {
		steps = append(steps, fmt.Sprintf("%d %s", i+1, n))
	}
	flow := trWrap("Order: "+strings.Join(steps, " → "), traceWidth)
	for i, ln := range flow {
		if i > 0 {
			ln = "       " + ln
		}
		b.WriteString(ln + "\n")
	}
	return b.String()
}

// trBorder draws a horizontal rule of the grid with an optional label in its
// first cell.
func trBorder(glyphs [3]string, label string) string {
	var b strings.Builder
	b.WriteString(glyphs[0])
	for i := range trace.Columns {
		if i > 0 {
			b.WriteString(glyphs[1])
		}
		cell := ""
		if i == 0 && label != "" {
			cell = "─" + trTruncate(label, diagramCell-1)
		}
		b.WriteString(cell + strings.Repeat("─", diagramCell-utf8.RuneCountInString(cell)))
	}
	b.WriteString(glyphs[2] + "\n")
	return b.String()
}

// cellLines is the text of one cell: each component with its order number,
// then what it did.
func cellLines(actors []*diagramActor) []string {
	var out []string
	for _, a := range actors {
		head := fmt.Sprintf("%d %s", a.order, a.name)
		switch {
		case len(a.nodes) == 1:
			head += " on " + a.nodes[0]
		case len(a.nodes) > 1:
			head += fmt.Sprintf(" ×%d nodes", len(a.nodes))
		}
		out = append(out, trTruncate(head, diagramText))
		shown := a.sums
		if len(shown) > diagramSummary {
			shown = shown[:diagramSummary-1]
		}
		for _, sum := range shown {
			line := sum
			if n := a.counts[sum]; n > 1 || !a.command {
				line = fmt.Sprintf("%d× %s", n, sum)
			}
			out = append(out, "  "+trTruncate(line, diagramText-2))
		}
		if rest := len(a.sums) - len(shown); rest > 0 {
			more := 0
			for _, sum := range a.sums[len(shown):] {
				more += a.counts[sum]
			}
			out = append(out, "  "+trTruncate(fmt.Sprintf("+%s of %d kinds", trPlural(more, "step"), rest), diagramText-2))
		}
	}
	return out
}

// summarize shortens an event's message to what it did, without the names
// that make every message unique: "Created pod: api-7d9f8-x2k4q" becomes
// "Created pod", "Scaled up replica set api-7d9f8 from 0 to 3" becomes
// "Scaled up replica set". The learner's own commands stay whole.
func summarize(e trace.Event) string {
	if e.Component == "kubectl" && e.Cause == 0 {
		return e.Message
	}
	var words []string
	for _, w := range strings.Fields(e.Message) {
		stop := strings.HasSuffix(w, ":")
		w = strings.TrimSuffix(w, ":")
		if isNameLike(w, e.Object) {
			break
		}
		words = append(words, w)
		if stop || len(words) == 4 {
			break
		}
	}
	if len(words) == 0 {
		return trTruncate(e.Message, diagramText-5)
	}
	return strings.Join(words, " ")
}

// isNameLike reports whether a word of a message names something (an
// object, a node, an image, a number) rather than saying what happened.
func isNameLike(w, object string) bool {
	if w == "" {
		return true
	}
	if _, name, ok := strings.Cut(object, "/"); ok && strings.Contains(w, name) {
		return true
	}
	for _, r := range w {
		if unicode.IsDigit(r) || strings.ContainsRune(`/"'()[]{}=<>`, r) {
			return true
		}
	}
	return false
}
