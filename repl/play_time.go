package repl

import (
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/store"
)

// advanceChunk is how far virtual time moves between two checks for Ctrl-C
// and two reads of the store's history. It must stay well under the API
// server's etcd compaction interval (5 minutes), so that history read at
// the end of a chunk has not been compacted yet.
const advanceChunk = 10 * sim.Second

// untilTimeStep is how often until re-evaluates an expression that depends
// on the clock (now, age, since) when nothing it reads was written.
const untilTimeStep = sim.Second

// maxSummaryWarnings bounds the events an advance summary lists.
const maxSummaryWarnings = 8

var flagTimeout = Flag{Name: "timeout", Value: "DURATION", Default: "5m",
	Usage: "give up after this much virtual time", Values: []string{"30s", "1m", "2m", "5m", "10m"}}

func init() {
	register(&Command{
		Name:  "advance",
		Usage: "advance DURATION [-q]",
		Short: "move virtual time forward, and summarise what happened",
		Long: `advance moves the cluster's virtual clock forward by DURATION (Go's syntax,
as kubectl's --timeout: 30s, 5m, 1h, 1h30m, 500ms). Every timer due on the way
fires (kubelets starting containers, probes, back-offs, controllers'
resyncs, node heartbeats), and the control plane settles after each.

Then it prints what happened in that time: pods created, scheduled, started,
ready, restarted, deleted, nodes that changed readiness, and the Warning
events, as ` + "`kubectl get events`" + ` shows them. -q prints nothing.

Ctrl-C stops a long advance at the last whole chunk of time; the cluster is
left consistent and the prompt shows where time stopped.`,
		Example: "advance 30s\nadvance 5m -q",
		Group:   GroupPlayground,
		Flags:   []Flag{FlagQuiet},
		Run:     runAdvance,
	})
	register(&Command{
		Name:  "until",
		Usage: "until EXPR [--timeout DURATION] [-q]",
		Short: "advance time until an expression over the cluster is true",
		Long: `until advances virtual time until EXPR (an expression, as for assert) holds,
checking after every instant at which anything happened. It fails, printing
the expression and the values it saw, if EXPR is still false after --timeout
(default 5m) of virtual time. Like advance it then summarises what happened.`,
		Example: `until count(pods, .status.phase == "Running") == 3 --timeout 2m`,
		Group:   GroupPlayground,
		Raw:     true,
		Flags:   []Flag{flagTimeout, FlagQuiet},
		Run:     runUntil,
	})
}

func runAdvance(s *Session, args []string, _ string) error {
	f, err := s.Parse(args)
	if err != nil {
		return err
	}
	if len(f.Args) != 1 {
		return usagef("advance needs one DURATION, such as 30s or 5m")
	}
	d, err := ParseDuration(f.Args[0])
	if err != nil {
		return usageErr(err)
	}
	from := s.Now()
	sum, err := s.advanceBy(sim.FromDuration(d), nil)
	if !f.Bool("quiet") {
		s.printSummary(from, sum)
	}
	return err
}

// runUntil takes its flags from the end of the line: the expression is
// everything before them (it may itself contain "--", as in "x -- y").
func runUntil(s *Session, args []string, _ string) error {
	if len(args) == 0 {
		return usagef("until needs an expression")
	}
	raw := args[0]
	if cuts := commentCuts(raw); len(cuts) > 0 {
		// A trailing "# comment" after the flags: flags come last, so a
		// comment can only be what follows a "#" after the last flag.
		if _, fw := splitTrailingFlags(strings.TrimSpace(raw[:cuts[len(cuts)-1]]), s.cmd.Flags); len(fw) > 0 {
			raw = strings.TrimSpace(raw[:cuts[len(cuts)-1]])
		}
	}
	src, flagWords := splitTrailingFlags(raw, s.cmd.Flags)
	f, err := s.Parse(flagWords)
	if err != nil {
		return err
	}
	timeout, err := f.Duration("timeout")
	if err != nil {
		return err
	}
	c, err := s.compileExpr(src)
	if err != nil {
		return err
	}
	// Evaluate only when the answer could have changed: after a write to a
	// kind the expression reads, or, for expressions about time, once the
	// clock has moved on by untilTimeStep. At 1,000 nodes most writes are
	// node heartbeats and leases, which an expression over pods ignores.
	lastRev, lastTick, last := int64(-1), sim.Tick(-1), false
	var evalErr error
	cond := func() bool {
		if evalErr != nil {
			return true
		}
		rev, now := s.Eng.Store.Rev(), s.Now()
		changed := lastRev < 0 || (rev != lastRev && s.touched(c, lastRev)) ||
			(c.timeDependent && now-lastTick >= untilTimeStep)
		lastRev = rev // writes up to rev are accounted for, read or not
		if !changed {
			return last
		}
		lastTick = now
		last, _, evalErr = s.evalBool(c)
		return last || evalErr != nil
	}
	from := s.Now()
	sum, err := s.advanceBy(sim.FromDuration(timeout), cond)
	if !f.Bool("quiet") {
		s.printSummary(from, sum)
	}
	switch {
	case evalErr != nil:
		return evalErr
	case err != nil:
		return err
	case !sum.met:
		_, env, _ := s.evalBool(c)
		lines := append([]string{fmt.Sprintf("timed out after %s waiting for: %s", timeout, c.src)}, s.explain(c, env)...)
		return errors.New(strings.Join(lines, "\n"))
	}
	return nil
}

// touched reports whether a write after rev changed an object of a kind c
// reads: the store keeps each kind's latest revision, so no history is read.
func (s *Session) touched(c *compiledExpr, rev int64) bool {
	for _, l := range c.uses {
		if s.Eng.Store.KindRev(l.kind) > rev {
			return true
		}
	}
	return false
}

// splitTrailingFlags separates flags written after a raw expression:
// "count(pods) == 3 --timeout 2m -q" gives the expression and the flag
// words. Only the command's own flags are recognised, so an expression is
// never cut at a word that merely starts with a dash.
func splitTrailingFlags(raw string, defs []Flag) (string, []string) {
	fields := strings.Fields(raw)
	isFlag := func(w string) (*Flag, bool) {
		hasVal := strings.Contains(w, "=")
		for i := range defs {
			d := &defs[i]
			if w == "--"+d.Name || (d.Short != "" && w == "-"+d.Short) ||
				(hasVal && (strings.HasPrefix(w, "--"+d.Name+"=") || (d.Short != "" && strings.HasPrefix(w, "-"+d.Short+"=")))) {
				return d, hasVal
			}
		}
		return nil, false
	}
	n := len(fields)
	for n > 0 {
		if d, hasVal := isFlag(fields[n-1]); d != nil && (d.IsBool() || hasVal) {
			n--
			continue
		}
		if n >= 2 {
			if d, hasVal := isFlag(fields[n-2]); d != nil && !d.IsBool() && !hasVal {
				n -= 2
				continue
			}
		}
		break
	}
	if n == len(fields) {
		return raw, nil
	}
	// Cut raw after the n-th field, keeping the expression's own spacing.
	rest := raw
	for i := 0; i < n; i++ {
		rest = strings.TrimLeft(rest, " \t")
		rest = rest[len(fields[i]):]
	}
	return strings.TrimSpace(raw[:len(raw)-len(rest)]), fields[n:]
}

// summary is what happened while time moved.
type summary struct {
	created, scheduled, started, ready, restarted, deleted, failed int
	nodeChanges                                                    []string
	warnings                                                       map[string]*warning
	warningOrder                                                   []string
	met                                                            bool // until's condition held
	partial                                                        bool // history was compacted under us
}

// warning is an event worth a line in a summary: a Warning, or one of the
// notableNormal events.
type warning struct {
	typ, reason, object, message string
	count                        int
}

// notableNormal are the Normal events a summary lists besides warnings:
// the ones that say the desired state changed (a rollout or autoscaler
// resizing), not the routine steps the counts already cover.
var notableNormal = map[string]bool{
	"ScalingReplicaSet": true, // deployment controller
	"SuccessfulRescale": true, // horizontal pod autoscaler
}

// advanceBy moves time forward by d in chunks, stopping early when cond
// (if any) holds or Ctrl-C is pressed, and summarises the store's history.
func (s *Session) advanceBy(d sim.Tick, cond func() bool) (*summary, error) {
	sum := &summary{warnings: map[string]*warning{}}
	end := s.Now() + d
	s.Eng.Settle()
	// Count from the last summary, so that what the commands since then set
	// off at their own instant is reported too.
	rev := s.sumRev
	defer func() { s.sumRev = s.Eng.Store.Rev() }()
	if cond != nil && cond() {
		sum.met = true
		s.summarise(sum, rev)
		return sum, nil
	}
	for s.Now() < end {
		next := min(s.Now()+advanceChunk, end)
		if cond != nil {
			sum.met = s.Eng.AdvanceUntil(cond, next-s.Now())
		} else {
			s.Eng.AdvanceTo(next)
		}
		s.summarise(sum, rev)
		rev = s.Eng.Store.Rev()
		if sum.met {
			return sum, nil
		}
		if s.Interrupted() && s.Now() < end {
			return sum, fmt.Errorf("%w at %s (asked for %s)", errInterrupted, FormatTick(s.Now()), FormatTick(end))
		}
	}
	return sum, nil
}

// summarise adds the writes after rev to sum.
func (s *Session) summarise(sum *summary, rev int64) {
	evs, err := s.Eng.Store.SinceOf(rev, kinds.Pod, kinds.Node, kinds.Event)
	if err != nil {
		sum.partial = true
		return
	}
	for _, ev := range evs {
		switch ev.Kind {
		case kinds.Pod:
			summarisePod(sum, ev)
		case kinds.Node:
			if ev.Type == store.Modified {
				was, is := nodeReady(ev.Old.(*corev1.Node)), nodeReady(ev.Object.(*corev1.Node))
				if was != is {
					sum.nodeChanges = append(sum.nodeChanges, fmt.Sprintf("node/%s %s", ev.Object.GetName(), is))
				}
			}
		case kinds.Event:
			if ev.Type == store.Deleted {
				continue
			}
			e := ev.Object.(*corev1.Event)
			if e.Type != corev1.EventTypeWarning && !notableNormal[e.Reason] {
				continue
			}
			ref := strings.ToLower(e.InvolvedObject.Kind) + "/" + e.InvolvedObject.Name
			key := e.Reason + "\x00" + ref + "\x00" + e.Message
			w := sum.warnings[key]
			if w == nil {
				w = &warning{typ: e.Type, reason: e.Reason, object: ref, message: e.Message}
				sum.warnings[key] = w
				sum.warningOrder = append(sum.warningOrder, key)
			}
			// An event updated in place (its count or series grew) is as
			// many more occurrences.
			if ev.Type == store.Added {
				w.count += int(occurrences(e))
			} else if old, ok := ev.Old.(*corev1.Event); ok && occurrences(e) > occurrences(old) {
				w.count += int(occurrences(e) - occurrences(old))
			}
		}
	}
}

// occurrences is how many times an Event says it happened: its count
// (core/v1), its series' count (events.k8s.io/v1, the scheduler's), or
// once.
func occurrences(e *corev1.Event) int32 {
	if e.Series != nil {
		return e.Series.Count
	}
	return max(e.Count, 1)
}

func summarisePod(sum *summary, ev store.Event) {
	p := ev.Object.(*corev1.Pod)
	switch ev.Type {
	case store.Added:
		sum.created++
		return
	case store.Deleted:
		sum.deleted++
		return
	}
	old := ev.Old.(*corev1.Pod)
	if old.Spec.NodeName == "" && p.Spec.NodeName != "" {
		sum.scheduled++
	}
	if old.Status.Phase != corev1.PodRunning && p.Status.Phase == corev1.PodRunning {
		sum.started++
	}
	if old.Status.Phase != corev1.PodFailed && p.Status.Phase == corev1.PodFailed {
		sum.failed++
	}
	if !podReady(old) && podReady(p) {
		sum.ready++
	}
	if r := podRestarts(p) - podRestarts(old); r > 0 {
		sum.restarted += r
	}
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func podRestarts(p *corev1.Pod) int {
	n := 0
	for _, c := range p.Status.ContainerStatuses {
		n += int(c.RestartCount)
	}
	for _, c := range p.Status.InitContainerStatuses {
		n += int(c.RestartCount)
	}
	return n
}

func nodeReady(n *corev1.Node) string {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			if c.Status == corev1.ConditionTrue {
				return "Ready"
			}
			return "NotReady"
		}
	}
	return "Unknown"
}

// printSummary prints one line of counts, then the nodes that changed and
// the warnings, e.g.
//
//	0s → 1m: 3 pods created, 3 scheduled, 3 started, 3 ready
//	Warning  BackOff  pod/api-5d8f7-x2k4q  Back-off restarting failed container api ... (x3)
func (s *Session) printSummary(from sim.Tick, sum *summary) {
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	pods := "pods"
	if sum.created == 1 {
		pods = "pod"
	}
	add(sum.created, pods+" created")
	add(sum.scheduled, "scheduled")
	add(sum.started, "started")
	add(sum.ready, "ready")
	add(sum.restarted, "restarted")
	add(sum.failed, "failed")
	add(sum.deleted, "deleted")
	if len(parts) > 0 && sum.created == 0 {
		parts[0] = "pods: " + parts[0]
	}
	if len(parts) == 0 && len(sum.nodeChanges) == 0 && len(sum.warningOrder) == 0 && from == s.Now() {
		return // until found its condition true at once: nothing to tell
	}
	line := fmt.Sprintf("%s → %s: ", FormatTick(from), FormatTick(s.Now()))
	if len(parts) == 0 {
		line += "no pod changes"
	} else {
		line += strings.Join(parts, ", ")
	}
	if sum.partial {
		line += " (part of the history was compacted; counts are incomplete)"
	}
	fmt.Fprintln(s.Out, s.pal.dim(line))
	for _, n := range sum.nodeChanges {
		if strings.HasSuffix(n, " Ready") {
			fmt.Fprintln(s.Out, n)
		} else {
			fmt.Fprintln(s.Out, s.pal.warn(n))
		}
	}
	keys := sum.warningOrder // in order of first occurrence
	for i, k := range keys {
		if i == maxSummaryWarnings {
			fmt.Fprintf(s.Out, "... and %d more (get events)\n", len(keys)-maxSummaryWarnings)
			break
		}
		w := sum.warnings[k]
		msg := w.message
		if w.count > 1 {
			msg += fmt.Sprintf(" (x%d)", w.count)
		}
		typ := w.typ
		if typ == corev1.EventTypeWarning {
			typ = s.pal.warn(typ)
		}
		fmt.Fprintf(s.Out, "%s  %s  %s  %s\n", typ, w.reason, w.object, msg)
	}
}
