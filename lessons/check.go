package lessons

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/kubeloop/kubeloop/repl"
)

// Result is what checking a lesson found.
type Result struct {
	Lesson *Lesson
	// Transcript is what the solution printed, as a learner who types it
	// sees it, followed by the whole trace.
	Transcript []byte
	// Problems are the reasons the lesson fails, each located.
	Problems Errors
	// perStep are the solution entries run while each step was current.
	perStep [][]string
}

// OK reports whether the lesson passed.
func (r *Result) OK() bool { return len(r.Problems) == 0 }

// Run plays the lesson's solution in guided mode on a fresh cluster and
// records what a learner would see. It finds the problems that do not need
// the golden file: a solution command that fails, a check that is already
// true when its step begins (any command would pass it), and a step whose
// check the solution never satisfies (reported with the values it saw).
func Run(l *Lesson) *Result {
	r := &Result{Lesson: l, perStep: make([][]string, len(l.Steps)+1)}
	var out bytes.Buffer
	s := repl.NewSession(&out, &out, repl.Config{Seed: l.Setup.Seed, Nodes: -1})
	if err := l.Build(s); err != nil {
		r.Problems = append(r.Problems, &Error{File: l.File, Line: l.lines.keys["setup"], Msg: err.Error()})
		return r
	}
	g := NewGuide(l)
	early := func(g *Guide) {
		if g.Done() || l.Steps[g.Step].Ran != nil {
			return
		}
		if ok, _, _ := g.evaluate(s, "", false); ok {
			r.Problems = append(r.Problems, &Error{File: l.File, Line: l.lines.stepLine(g.Step, ""), Step: g.Step + 1,
				Msg: "the check already passes when the step begins, so any command would end the step: " + l.Steps[g.Step].checkText()})
		}
	}
	g.onStep = early
	s.SetGuide(g)
	g.startSeq = s.Eng.Trace.NextSeq()
	early(g)
	g.Greet(s)
	for i, entry := range l.Solution {
		line := 0
		if i < len(l.lines.solution) {
			line = l.lines.solution[i]
		}
		entry, err := expand(s, entry)
		if err != nil {
			r.Problems = append(r.Problems, &Error{File: l.File, Line: line, Msg: err.Error()})
			continue
		}
		r.perStep[g.Step] = append(r.perStep[g.Step], entry)
		failures, err := s.Transcript(l.File, strings.NewReader(ensureNewline(entry)), &out)
		if err != nil || failures > 0 || s.Panics > 0 {
			msg := fmt.Sprintf("solution command %q failed", firstLine(entry))
			if s.Panics > 0 {
				msg += " with an internal error"
			}
			r.Problems = append(r.Problems, &Error{File: l.File, Line: line, Msg: msg})
		}
	}
	if !g.Done() {
		st := l.Steps[g.Step]
		_, detail, err := g.evaluate(s, "", true)
		msg := fmt.Sprintf("%q: the solution ends and the step is not done: %s", st.Title, st.checkText())
		if err != nil {
			msg += "\n  " + err.Error()
		}
		for _, d := range detail {
			msg += "\n  " + d
		}
		r.Problems = append(r.Problems, &Error{File: l.File, Line: l.lines.stepLine(g.Step, st.checkKey()), Step: g.Step + 1, Msg: msg})
	}
	// The golden ends with the whole annotated trace: any change in what
	// the engine does under the lesson shows up in the diff.
	fmt.Fprintln(&out, "\n> trace")
	s.SetGuide(nil)
	_ = s.Exec("trace")
	r.Transcript = out.Bytes()
	return r
}

func ensureNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

func (st *Step) checkText() string {
	switch {
	case st.Check != "":
		return "check " + strings.TrimSpace(st.Check)
	case st.Trace != nil:
		return st.Trace.String()
	}
	return "ran " + strings.Join(quoteAll(st.Ran), " or ")
}

func (st *Step) checkKey() string {
	switch {
	case st.Check != "":
		return "check"
	case st.Trace != nil:
		return "trace"
	}
	return "ran"
}

// stepSolution lists the solution's entries that run during step i (found
// by playing the solution once, silently).
func (l *Lesson) stepSolution(i int) []string {
	l.solOnce.Do(func() { l.perStep = Run(l).perStep })
	if i < len(l.perStep) {
		return l.perStep[i]
	}
	return nil
}

// Check runs the lesson and compares its transcript with the golden file
// in fsys. A missing or different golden is a problem, with a diff.
func Check(l *Lesson, fsys fs.FS) *Result {
	r := Run(l)
	if !r.OK() {
		return r
	}
	want, err := readFile(fsys, l.golden)
	if errors.Is(err, fs.ErrNotExist) {
		r.Problems = append(r.Problems, &Error{File: l.File, Msg: fmt.Sprintf("no golden transcript %s: run `kubeloop lesson record %s` and read it", l.golden, l.File)})
		return r
	}
	if err != nil {
		r.Problems = append(r.Problems, &Error{File: l.File, Msg: err.Error()})
		return r
	}
	if !bytes.Equal(want, r.Transcript) {
		d := diff.Diff(l.golden+" (golden)", want, "transcript (now)", r.Transcript)
		r.Problems = append(r.Problems, &Error{File: l.File, Msg: "the transcript differs from the golden (if the change is intended, read it, then `kubeloop lesson record " + l.File + "`):\n" + string(d)})
	}
	return r
}

// Record runs the lesson and writes its golden transcript beside it (the
// lesson must load from the operating system's files). It refuses when the
// solution does not pass every step: a golden of a broken lesson would only
// hide the break.
func Record(l *Lesson) (*Result, error) {
	r := Run(l)
	if !r.OK() {
		return r, r.Problems
	}
	return r, os.WriteFile(l.golden, r.Transcript, 0o644)
}

// Report writes r's problems (or "ok") for `lesson check`.
func (r *Result) Report(w io.Writer) {
	if r.OK() {
		fmt.Fprintf(w, "ok  %s (%s)\n", r.Lesson.File, r.Lesson.ID)
		return
	}
	fmt.Fprintf(w, "FAIL %s (%s)\n", r.Lesson.File, r.Lesson.ID)
	for _, p := range r.Problems {
		fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(p.Error(), "\n", "\n  "))
	}
}

// expand replaces each {{EXPR}} in a solution command with the value of
// the expression over the cluster at that moment: a solution says
// `why pod/{{name(find(pods, node(#) == ""))}}` rather than a generated
// name that changes whenever the engine draws its random numbers
// differently, so an engine change shows up as a golden diff to review,
// not as a broken solution.
func expand(s *repl.Session, cmd string) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(cmd, "{{")
		if i < 0 {
			b.WriteString(cmd)
			return b.String(), nil
		}
		j := strings.Index(cmd[i:], "}}")
		if j < 0 {
			return "", fmt.Errorf("solution command %q: {{ without }}", firstLine(cmd))
		}
		src := cmd[i+2 : i+j]
		v, err := s.EvalExpr(src)
		if err != nil {
			return "", fmt.Errorf("solution command %q: {{%s}}: %v", firstLine(cmd), src, err)
		}
		if v == nil {
			return "", fmt.Errorf("solution command %q: {{%s}} is nil", firstLine(cmd), src)
		}
		b.WriteString(cmd[:i])
		fmt.Fprint(&b, v)
		cmd = cmd[i+j+2:]
	}
}
