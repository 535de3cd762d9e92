package repl

// why answers "why is this object the way it is?" by following the trace's
// causes back from the object's latest step to the command the learner
// typed, and telling that chain as a story, oldest first, with the reason
// Kubernetes takes each step.

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/scheduler"
	"github.com/kubeloop/kubeloop/engine/trace"
	"github.com/kubeloop/kubeloop/internal/printers"
)

func init() {
	register(&Command{
		Name:  "why",
		Usage: "why KIND/NAME [-n NAMESPACE]",
		Short: "follow the causes of an object's latest step back to your command",
		Long: `why takes an object, finds the latest step in the trace that touched it, and
follows that step's causes back, one by one, to the command you typed. It
prints the chain oldest first, as a story, with the reason Kubernetes takes
each step. For a pod it adds where the scheduler put it and why, or why it
is still Pending.

The trace is bounded: in a long session the first steps of a chain may have
left it, and why says so.`,
		Example: "why pod/api-7d9f8c6b5-x2k4q\nwhy deploy/api",
		Group:   GroupPlayground,
		Flags:   []Flag{FlagNamespace},
		Run:     runWhy,
	})
}

func runWhy(s *Session, args []string, _ string) error {
	f, err := s.Parse(args)
	if err != nil {
		return err
	}
	var ref string
	switch len(f.Args) {
	case 1:
		ref = f.Args[0]
	case 2: // "why pod x", as kubectl's "get pod x"
		ref = f.Args[0] + "/" + f.Args[1]
	default:
		return usagef("why needs one object, as KIND/NAME (for example why pod/api-7d9f8c6b5-x2k4q)")
	}
	objRef, k, name, err := parseObjectRef(ref)
	if err != nil {
		return err
	}
	ns := ""
	if k.Namespaced {
		ns = namespaceFlag(s, f)
	}
	obj, exists := s.Eng.Store.Lookup(k, ns, name)
	seq := latestStepAbout(s, k, ns, name, objRef)
	if seq == 0 && !exists {
		return kubectlError(notFound(k, name))
	}

	var b strings.Builder
	b.WriteString(whyHeadline(s, k, ns, name, obj, exists))
	if rev, ok := s.Eng.Store.ModRev(k, ns, name); seq == 0 && ok && rev <= s.Eng.BootRev {
		b.WriteString("It has not changed since the cluster started: the API server wrote it at start-up, before the\n" +
			"trace's first step, as kube-apiserver creates the default namespaces, the system PriorityClasses and\n" +
			"the kubernetes Service itself.\n")
		fmt.Fprint(s.Out, b.String())
		return nil
	}
	if seq == 0 {
		tr := s.Eng.Trace
		fmt.Fprintf(&b, "No step about it is left in the trace, which keeps the last %d steps (%d have left it).\n",
			tr.Len(), tr.Dropped())
		fmt.Fprint(s.Out, b.String())
		return nil
	}
	chain := s.Eng.Trace.Chain(seq)
	// Chain is newest first; a story is told oldest first.
	for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
		chain[i], chain[j] = chain[j], chain[i]
	}
	oldest := chain[0]
	b.WriteString("\n")
	switch {
	case oldest.Cause != 0:
		fmt.Fprintf(&b, "How it got here (oldest first). The chain starts before %s, whose cause (%s) has left the trace,\n"+
			"which keeps the last %d steps:\n\n", seqRef(oldest.Seq), seqRef(oldest.Cause), s.Eng.Trace.Len())
	case oldest.Component == "kubectl":
		b.WriteString("How it got here, from your command (oldest first):\n\n")
	default:
		b.WriteString("How it got here (oldest first):\n\n")
	}
	width := len(fmt.Sprint(len(chain))) + 2 // "12. "
	for i, e := range chain {
		writeStep(s, &b, i+1, width, e)
	}
	if p, ok := obj.(*corev1.Pod); ok && exists {
		b.WriteString(podPlacement(s, p))
	}
	if exists {
		b.WriteString(autoscalingWhy(s, obj)) // kubectl_autoscale.go
	}
	fmt.Fprint(s.Out, b.String())
	return nil
}

// latestStepAbout finds the newest trace step about an object: a step that
// names it, or the step that caused the newest write to it still in the
// store's history. It returns 0 if none is left.
func latestStepAbout(s *Session, k *kinds.Kind, ns, name, objRef string) uint64 {
	tr := s.Eng.Trace
	var best uint64
	for seq := tr.NextSeq() - 1; seq >= tr.FirstSeq() && seq > 0; seq-- {
		e, _ := tr.Get(seq)
		if e.Object == objRef && (ns == "" || e.Namespace == "" || e.Namespace == ns) {
			best = seq
			break
		}
	}
	if _, _, c, ok := s.Eng.Store.LastWrite(k, ns, name); ok && c > best {
		if _, ok := tr.Get(c); ok {
			best = c
		}
	}
	return best
}

// whyHeadline says what the object is now, in one sentence.
func whyHeadline(s *Session, k *kinds.Kind, ns, name string, obj kinds.Object, exists bool) string {
	who := k.Singular + "/" + name
	if ns != "" {
		who += " (namespace " + ns + ")"
	}
	who = s.pal.bold(who)
	if !exists {
		return who + " no longer exists; this is what happened to it.\n"
	}
	if obj.GetDeletionTimestamp() != nil {
		return who + " is being deleted (it has a deletionTimestamp).\n"
	}
	switch o := obj.(type) {
	case *corev1.Pod:
		phase := printers.PodStatus(o) // what get pods' STATUS column says
		if o.Spec.NodeName == "" {
			return fmt.Sprintf("%s is %s: no node has been chosen for it yet.\n", who, phase)
		}
		return fmt.Sprintf("%s is %s on node %s.\n", who, phase, o.Spec.NodeName)
	case *corev1.Node:
		if o.Spec.Unschedulable {
			return who + " is cordoned: the scheduler places no new pods on it.\n"
		}
	}
	return who + " exists.\n"
}

// writeStep tells one step: who did what, when, and why Kubernetes does it.
func writeStep(s *Session, b *strings.Builder, n, width int, e trace.Event) {
	var text string
	switch {
	case e.Component == "kubectl" && e.Cause == 0:
		text = fmt.Sprintf("You ran `%s`", e.Message)
	case e.Object != "":
		text = fmt.Sprintf("%s, on %s: %s", e.Component, eventObject(e), e.Message)
	default:
		text = fmt.Sprintf("%s: %s", e.Component, e.Message)
	}
	text = strings.TrimSuffix(text, ".")
	where := fmt.Sprintf("(%s, %s, %s)", e.T, seqRef(e.Seq), e.Column)
	indent := strings.Repeat(" ", width)
	lines := trWrap(text+" "+where, traceWidth-width)
	for i, ln := range lines {
		if i == 0 {
			b.WriteString(trPadLeft(fmt.Sprintf("%d. ", n), width))
		} else {
			b.WriteString(indent)
		}
		// Colour the column word of the last line's "(..., Column)".
		if i == len(lines)-1 {
			if j := strings.LastIndex(ln, e.Column.String()+")"); j >= 0 {
				ln = ln[:j] + trPaint(s, e.Column, e.Column.String()) + ln[j+len(e.Column.String()):]
			}
		}
		b.WriteString(ln + "\n")
	}
	for _, ln := range trWrap(e.Why, traceWidth-width) {
		b.WriteString(indent + trFaint(s, ln) + "\n")
	}
}

// podPlacement explains where a pod is, or why it is not anywhere yet:
// the scheduler's own record of its decision (nodes × filters, nodes ×
// scores, the chosen node), or, for a Pending pod, which filter rejected
// which node in its latest attempt.
func podPlacement(s *Session, p *corev1.Pod) string {
	var b strings.Builder
	b.WriteString("\n")
	var decisions []scheduler.Decision
	if sch := s.Eng.Scheduler(); sch != nil {
		decisions = sch.Explain(p.Namespace, p.Name)
	}
	if p.Spec.NodeName == "" {
		b.WriteString("Why it is Pending: ")
		if c := podCondition(p, corev1.PodScheduled); c != nil && c.Status == corev1.ConditionFalse {
			fmt.Fprintf(&b, "the scheduler could not place it (%s).\n", c.Reason)
			for _, ln := range trWrap(c.Message, traceWidth-2) {
				b.WriteString("  " + ln + "\n")
			}
		} else {
			b.WriteString("the scheduler has not placed it yet.\n")
		}
		if n := len(decisions); n > 0 {
			d := decisions[n-1]
			fmt.Fprintf(&b, "\nThe scheduler's latest attempt (%s so far; kubeloop keeps the last %d):\n",
				trPlural(d.Attempt, "attempt"), scheduler.DefaultAttemptsPerPod)
			b.WriteString(decisionText(d))
		}
		return b.String()
	}
	fmt.Fprintf(&b, "Where it runs: the scheduler bound it to node %s.\n", p.Spec.NodeName)
	var chose *scheduler.Decision
	for i := len(decisions) - 1; i >= 0; i-- {
		if decisions[i].Node == p.Spec.NodeName {
			chose = &decisions[i]
			break
		}
	}
	if chose != nil {
		b.WriteString("\nHow the scheduler chose it:\n")
		b.WriteString(decisionText(*chose))
	} else {
		b.WriteString("The scheduler kept no record of choosing it (a pod created with spec.nodeName set skips the scheduler).\n")
	}
	if p.Status.Phase == corev1.PodPending {
		for _, cs := range p.Status.ContainerStatuses {
			if w := cs.State.Waiting; w != nil && w.Reason != "" {
				fmt.Fprintf(&b, "\nWhy it is Pending: container %s is waiting (%s)", cs.Name, w.Reason)
				if w.Message != "" {
					b.WriteString(": " + w.Message)
				}
				b.WriteString(".\n")
			}
		}
	}
	return b.String()
}

// whyMaxNodeRows bounds the rows of why's filter and score tables: in a
// cluster of a thousand nodes the scheduler evaluates hundreds.
const whyMaxNodeRows = 10

// decisionText is the scheduler's account of one attempt, indented by two,
// its tables cut to whyMaxNodeRows nodes: the chosen one, one node per
// distinct rejection, then the best scores, in the order they were
// evaluated.
func decisionText(d scheduler.Decision) string {
	shown := len(d.Nodes)
	if len(d.Nodes) > whyMaxNodeRows {
		d.Nodes = pickNodeRows(d, whyMaxNodeRows)
	}
	var b strings.Builder
	for i, ln := range strings.Split(strings.TrimRight(d.Describe(), "\n"), "\n") {
		if i > 0 {
			b.WriteString("  " + ln + "\n") // the tables: not wrapped, to keep their columns
			continue
		}
		// The headline carries the scheduler's whole FitError: wrap it.
		for j, w := range trWrap(ln, traceWidth-4) {
			if j == 0 {
				b.WriteString("  " + w + "\n")
			} else {
				b.WriteString("    " + w + "\n")
			}
		}
	}
	if shown > len(d.Nodes) {
		fmt.Fprintf(&b, "    (%d of the %d nodes evaluated are shown: the chosen one, one per kind of rejection, then the best scores)\n",
			len(d.Nodes), shown)
	}
	return b.String()
}

// pickNodeRows chooses at most n of a decision's node records, keeping
// their evaluation order.
func pickNodeRows(d scheduler.Decision, n int) []scheduler.NodeRecord {
	keep := make([]bool, len(d.Nodes))
	count := 0
	take := func(i int) {
		if !keep[i] && count < n {
			keep[i] = true
			count++
		}
	}
	for i, r := range d.Nodes {
		if r.Node == d.Node {
			take(i)
		}
	}
	seen := map[string]bool{}
	for i, r := range d.Nodes {
		if r.Filter >= 0 && r.Status != nil {
			key := fmt.Sprint(r.Filter) + "\x00" + r.Status.Message()
			if !seen[key] {
				seen[key] = true
				take(i)
			}
		}
	}
	total := func(r scheduler.NodeRecord) int64 {
		var t int64
		for i, sc := range d.Scorers {
			if !sc.Skipped {
				t += int64(r.Score[i]) * sc.Weight
			}
		}
		return t
	}
	order := make([]int, 0, len(d.Nodes))
	for i, r := range d.Nodes {
		if r.Scored {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return total(d.Nodes[order[a]]) > total(d.Nodes[order[b]]) })
	for _, i := range order {
		take(i)
	}
	for i := range d.Nodes {
		take(i)
	}
	out := make([]scheduler.NodeRecord, 0, count)
	for i, r := range d.Nodes {
		if keep[i] {
			out = append(out, r)
		}
	}
	return out
}

func podCondition(p *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == t {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}
