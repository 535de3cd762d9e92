package lessons

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeloop/kubeloop/engine"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/trace"
	"github.com/kubeloop/kubeloop/engine/workload"
	"github.com/kubeloop/kubeloop/repl"
)

// Guide follows a learner through one lesson in a session: it shows each
// step, checks after every command whether the step is done, shows the
// explanation when it is, and moves on. The checker uses the same Guide, so
// a lesson's golden transcript is exactly what a learner who types the
// solution sees.
type Guide struct {
	L *Lesson
	// Step is the 0-based index of the current step; len(L.Steps) once the
	// lesson is done.
	Step int

	hints    int    // hints shown for this step
	startSeq uint64 // the first trace event of this step
	// passed records, per step, whether its check passed (false when
	// skipped), for the checker.
	passed []bool
	// onStep is called after the step changes (guided mode saves progress).
	onStep func(g *Guide)
	// quiet suppresses the narrative (replaying to a step).
	quiet bool
	// resumed is set when the learner's progress put them past step 1:
	// Greet says so.
	resumed bool
}

// PromptTag is shown in the REPL's prompt: "[declare 2/4]".
func (g *Guide) PromptTag() string {
	if g.Done() {
		return "[" + g.L.ID + " done]"
	}
	return fmt.Sprintf("[%s %d/%d]", g.L.ID, g.Step+1, len(g.L.Steps))
}

// NewGuide returns a guide at the first step of l.
func NewGuide(l *Lesson) *Guide {
	return &Guide{L: l, passed: make([]bool, len(l.Steps))}
}

// Done reports whether every step is behind the learner.
func (g *Guide) Done() bool { return g.Step >= len(g.L.Steps) }

// Greet shows the lesson's current step (the interactive REPL calls it
// after its banner).
func (g *Guide) Greet(s *repl.Session) {
	if g.resumed {
		fmt.Fprintf(s.Out, "\nResuming lesson %q at step %d of %d: the cluster was rebuilt by replaying the solution of the steps before it.\n",
			g.L.Title, g.Step+1, len(g.L.Steps))
	} else {
		g.intro(s.Out)
	}
	g.show(s.Out)
}

// AfterCommand checks the current step after each command of the learner
// (the lesson command itself is not a step's work).
func (g *Guide) AfterCommand(s *repl.Session, name, text string, failed bool) {
	if name == "lesson" || g.Done() {
		return
	}
	ok, _, _ := g.evaluate(s, text, failed)
	if ok {
		g.pass(s)
	}
}

// evaluate runs the current step's check; detail explains a false check.
func (g *Guide) evaluate(s *repl.Session, text string, failed bool) (ok bool, detail []string, err error) {
	st := g.L.Steps[g.Step]
	switch {
	case st.Check != "":
		return s.CheckExpr(st.Check)
	case st.Trace != nil:
		for _, e := range s.TraceSince(g.startSeq) {
			if st.Trace.matches(e) {
				return true, nil, nil
			}
		}
		return false, []string{"no " + st.Trace.String() + " since the step began"}, nil
	default:
		if !failed && ranMatches(st.Ran, text) {
			return true, nil, nil
		}
		return false, []string{"waiting for a command starting with " + strings.Join(quoteAll(st.Ran), " or ")}, nil
	}
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = "`" + s + "`"
	}
	return out
}

func ranMatches(prefixes []string, text string) bool {
	words := commandWords(text)
	for _, p := range prefixes {
		want := commandWords(p)
		if len(want) == 0 || len(words) < len(want) {
			continue
		}
		last := len(want) - 1
		if slices.Equal(words[:last], want[:last]) && strings.HasPrefix(words[last], want[last]) {
			return true
		}
	}
	return false
}

// commandWords is a command line as ran compares it: its words, less a
// leading "kubectl", its flags (and their values) and any here-document,
// with every kind named as kubectl names it in full, and TYPE/NAME split
// in two. So "kubectl describe -n shop po/web" and "describe pod web"
// read alike, and "why pod/" is a prefix of both "why pod/web" and "why
// pods web".
func commandWords(line string) []string {
	line, _, _ = strings.Cut(line, "\n") // a here-document's body is not part of the command
	words, err := repl.SplitWords(line)
	if err != nil {
		words = strings.Fields(line)
	}
	if len(words) > 0 && words[0] == "kubectl" {
		words = words[1:]
	}
	var out []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		if len(w) > 1 && w[0] == '-' {
			if !strings.Contains(w, "=") && len(out) > 0 && repl.FlagTakesValue(out[0], w) {
				i++ // its value
			}
			continue
		}
		if len(out) == 0 {
			out = append(out, w) // the command: never a kind ("get", "eval")
			continue
		}
		typ, name, slash := strings.Cut(w, "/")
		if k, ok := kinds.Lookup(typ); ok {
			typ = k.Singular
		}
		out = append(out, typ)
		if slash {
			out = append(out, name)
		}
	}
	return out
}

func (q *TraceQuery) matches(e trace.Event) bool {
	if q.Component != "" && e.Component != q.Component && !(q.Component == "kubelet" && strings.HasPrefix(e.Component, "kubelet/")) {
		return false
	}
	if q.Column != "" && !strings.EqualFold(e.Column.String(), q.Column) {
		return false
	}
	if q.Object != "" && !strings.HasPrefix(e.Object, q.Object) {
		return false
	}
	return q.Message == "" || strings.Contains(e.Message, q.Message)
}

// pass shows the explanation and moves to the next step.
func (g *Guide) pass(s *repl.Session) {
	st := g.L.Steps[g.Step]
	g.passed[g.Step] = true
	if !g.quiet {
		fmt.Fprintf(s.Out, "\n✓ Step %d of %d done: %s\n\n%s\n", g.Step+1, len(g.L.Steps), st.Title, wrap(st.Explain))
	}
	g.moveTo(s, g.Step+1)
}

// moveTo makes step i current (len(Steps): the lesson is done) and shows it.
func (g *Guide) moveTo(s *repl.Session, i int) {
	g.Step, g.hints, g.startSeq = i, 0, s.Eng.Trace.NextSeq()
	if g.onStep != nil {
		g.onStep(g)
	}
	if g.quiet {
		return
	}
	if g.Done() {
		fmt.Fprintf(s.Out, "\n★ Lesson %q complete.\nKeep exploring this cluster", g.L.Title)
		if next := nextLesson(g.L); next != nil {
			fmt.Fprintf(s.Out, ", or go on with `lesson start %s`.\n", next.ID)
		} else {
			fmt.Fprintln(s.Out, "; `lesson list` shows the course.")
		}
		return
	}
	g.show(s.Out)
}

func (g *Guide) intro(w io.Writer) {
	fmt.Fprintf(w, "\n=== Lesson: %s (%s) ===\n", g.L.Title, g.L.Length())
	if g.L.Summary != "" {
		fmt.Fprintf(w, "%s\n", wrap(g.L.Summary))
	}
	if len(g.L.Setup.Images) > 0 {
		fmt.Fprintf(w, "The registry now also holds: %s (see `images`).\n", imageNames(g.L.Setup.Images))
	}
	fmt.Fprintln(w, "Type anything to explore; the lesson checks each step after every command.")
	fmt.Fprintln(w, "lesson hint · lesson status · lesson next · lesson back · lesson skip · lesson restart-step · lesson quit")
}

// show prints the current step: its narrative and what to try.
func (g *Guide) show(w io.Writer) {
	if g.Done() {
		fmt.Fprintf(w, "Lesson %q is complete.\n", g.L.Title)
		return
	}
	st := g.L.Steps[g.Step]
	fmt.Fprintf(w, "\n--- Step %d of %d: %s ---\n%s\n", g.Step+1, len(g.L.Steps), st.Title, wrap(st.Text))
	if len(st.Try) > 0 {
		fmt.Fprintln(w, "\nTry:")
		for _, t := range st.Try {
			printCommand(w, t)
		}
	}
	fmt.Fprintln(w)
}

// wrapWidth is where wrap breaks long lines: an 80-column terminal.
const wrapWidth = 80

// wrap trims an author's block of text and breaks lines longer than
// wrapWidth at spaces. Authors usually wrap their own lines (YAML literal
// blocks keep them), and those are left as written; folded text (a ">"
// block, one long line) is wrapped here.
func wrap(s string) string {
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		for len(line) > wrapWidth {
			cut := strings.LastIndex(line[:wrapWidth+1], " ")
			if cut <= 0 {
				break
			}
			out = append(out, line[:cut])
			line = line[cut+1:]
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

func imageNames(imgs []Image) string {
	names := make([]string, len(imgs))
	for i, img := range imgs {
		names[i] = img.Name
	}
	return strings.Join(names, ", ")
}

// nextLesson is the built-in lesson after l, nil after the last (or for a
// lesson not in the course).
func nextLesson(l *Lesson) *Lesson {
	all, _ := Course()
	for i, c := range all {
		if c.ID == l.ID && i+1 < len(all) {
			return all[i+1]
		}
	}
	return nil
}

// printCommand prints a suggested command: one line indented, a
// here-document flush left so that it can be pasted as it is (its EOF must
// start the line).
func printCommand(w io.Writer, c string) {
	c = strings.TrimRight(c, "\n")
	if strings.Contains(c, "\n") {
		fmt.Fprintln(w, c)
		return
	}
	fmt.Fprintf(w, "  %s\n", c)
}

// hint prints the next hint; after the last, what the solution types.
func (g *Guide) hint(s *repl.Session) {
	if g.Done() {
		fmt.Fprintln(s.Out, "The lesson is complete: no more hints.")
		return
	}
	st := g.L.Steps[g.Step]
	if g.hints < len(st.Hints) {
		g.hints++
		fmt.Fprintf(s.Out, "Hint %d of %d: %s\n", g.hints, len(st.Hints), wrap(st.Hints[g.hints-1]))
		return
	}
	cmds := g.L.stepSolution(g.Step)
	if len(cmds) == 0 {
		fmt.Fprintln(s.Out, "No more hints. `lesson skip` moves on without this step.")
		return
	}
	fmt.Fprintln(s.Out, "No more hints. The solution types:")
	for _, c := range cmds {
		printCommand(s.Out, c)
	}
}

// Build builds the lesson's cluster in s: a fresh cluster with the
// lesson's seed and nodes, its images pushed, its manifests applied and its
// setup commands run, all without output. An error is the lesson's fault.
func (l *Lesson) Build(s *repl.Session) error {
	nodes := l.Setup.Nodes
	if nodes == 0 {
		nodes = engine.DefaultClusterSize
	}
	seed := l.Setup.Seed
	if seed == 0 {
		seed = engine.DefaultSeed
	}
	s.Reset(seed, engine.DefaultNodes(nodes))
	for _, img := range l.Setup.Images {
		if _, err := s.Eng.Images.Add(img.workload()); err != nil {
			return fmt.Errorf("%s: setup: image %s: %v", l.File, img.Name, err)
		}
	}
	guide := s.CurrentGuide()
	s.SetGuide(nil)
	defer s.SetGuide(guide)
	for _, m := range l.manifests {
		if err := quietly(s, "apply -f - <<EOF\n"+strings.TrimRight(string(m.data), "\n")+"\nEOF\n"); err != nil {
			return fmt.Errorf("%s: setup: manifest %s: %v", l.File, m.name, err)
		}
	}
	for _, c := range l.Setup.Commands {
		if err := quietly(s, c); err != nil {
			return fmt.Errorf("%s: setup: %s: %v", l.File, firstLine(c), err)
		}
	}
	return nil
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

// quietly runs src with its output discarded and its errors returned.
func quietly(s *repl.Session, src string) error {
	out, errOut := s.Out, s.Err
	var eb bytes.Buffer
	s.Out, s.Err = io.Discard, &eb
	defer func() { s.Out, s.Err = out, errOut }()
	if err := s.Exec(src); err != nil {
		if msg := strings.TrimSpace(eb.String()); msg != "" {
			return errors.New(msg)
		}
		return err
	}
	return nil
}

func (img Image) workload() workload.Image {
	repo, tag := img.Name, "latest"
	if i := strings.LastIndex(img.Name, ":"); i > strings.LastIndex(img.Name, "/") {
		repo, tag = img.Name[:i], img.Name[i+1:]
	}
	w := workload.Image{Repository: repo, Tags: []string{tag}, Ports: img.Ports, Description: img.Description}
	if img.Size != "" {
		q := resource.MustParse(img.Size) // validated at load
		w.SizeBytes = q.Value()
	}
	w.StartupTime = tick(img.Startup)
	if img.ExitAfter != "" {
		w.Behavior.Exits, w.Behavior.ExitAfter, w.Behavior.ExitCode = true, tick(img.ExitAfter), img.ExitCode
	}
	for _, line := range img.Logs {
		w.Logs = append(w.Logs, workload.LogLine{Text: line})
	}
	return w
}

func tick(d string) sim.Tick {
	if d == "" {
		return 0
	}
	dur, _ := repl.ParseDuration(d) // validated at load
	return sim.Tick(dur.Milliseconds())
}

// writeFiles copies the lesson's shipped files into dir (guided mode's
// working directory for the lesson) and returns their paths.
func (l *Lesson) writeFiles(dir string) ([]string, error) {
	var out []string
	for _, f := range l.files {
		p := filepath.Join(dir, filepath.FromSlash(f.name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return out, err
		}
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			return out, err
		}
		out = append(out, p)
	}
	return out, nil
}
