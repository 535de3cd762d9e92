package lessons

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kubeloop/kubeloop/repl"
)

func init() {
	repl.Register(&repl.Command{
		Name:  "lesson",
		Usage: "lesson [list | start NAME | status | hint | next | back | skip | restart-step | quit]",
		Short: "follow a guided lesson: narrative, a suggested command, a check after every command",
		Long: `lesson starts and drives a guided lesson. A lesson builds its own cluster,
shows a step, and checks after each command you type whether the step is
done; you may type anything in between (exploring is allowed). When the
check passes it explains what happened and the next step begins. Progress
is saved under your config directory and resumes.

  lesson list            the course, with each lesson's length and your progress
  lesson start NAME      start (or resume) a lesson; it replaces the cluster
  lesson                 show the current step again (also: lesson status)
  lesson hint            the next hint; after the last, what the solution types
  lesson next            go on, if the current step's check passes now
  lesson back            go back a step (its check is looked at again after your next command)
  lesson skip            go on without passing the check
  lesson restart-step    rebuild the cluster as it was when this step began
  lesson quit            leave guided mode (progress is kept; the cluster stays)`,
		Example: "lesson list\nlesson start declare\nlesson hint",
		Group:   repl.GroupSession,
		Complete: func(s *repl.Session, args []string, word string) []string {
			var cands []string
			switch {
			case len(args) == 0:
				cands = []string{"list", "start", "status", "hint", "next", "back", "skip", "restart-step", "quit"}
			case len(args) == 1 && args[0] == "start":
				cands = Names()
			}
			var out []string
			for _, c := range cands {
				if strings.HasPrefix(c, word) {
					out = append(out, c)
				}
			}
			return out
		},
		Run: runLesson,
	})
}

// guided is a Guide in the REPL, with the learner's progress.
type guided struct {
	*Guide
	store *ProgressStore
	prog  *Progress
	warn  io.Writer
}

func (g *guided) save() {
	lp := &LessonProgress{Step: g.Step, Done: g.Done()}
	if prev := g.prog.Lessons[g.L.ID]; prev != nil && prev.Done {
		lp.Done = true // going through a finished lesson again keeps it done
	}
	g.prog.Lessons[g.L.ID] = lp
	if err := g.store.Save(g.prog); err != nil {
		fmt.Fprintf(g.warn, "warning: cannot save lesson progress: %v\n", err)
	}
}

func runLesson(s *repl.Session, args []string, _ string) error {
	sub := "status"
	if len(args) > 0 {
		sub = args[0]
	}
	if sub == "list" {
		return list(s.Out, s.Err)
	}
	if sub == "start" {
		if len(args) != 2 {
			return fmt.Errorf("usage: lesson start NAME (lesson list shows the names)")
		}
		g, err := start(s, args[1], s.Out, s.Err)
		if err != nil {
			return err
		}
		fmt.Fprintln(s.Out, "The lesson built its own cluster; the one you had is gone.")
		g.Greet(s)
		return nil
	}
	if len(args) > 1 {
		return fmt.Errorf("lesson %s takes no arguments", sub)
	}
	g, _ := s.CurrentGuide().(*guided)
	if g == nil {
		return fmt.Errorf("no lesson is running: lesson list shows the course, lesson start NAME starts one")
	}
	switch sub {
	case "status":
		fmt.Fprintf(s.Out, "Lesson %q, step %d of %d.\n", g.L.Title, min(g.Step+1, len(g.L.Steps)), len(g.L.Steps))
		g.show(s.Out)
		if !g.Done() && g.L.Steps[g.Step].Ran != nil {
			fmt.Fprintf(s.Out, "Not done yet: waiting for you to run %s.\n", strings.Join(quoteAll(g.L.Steps[g.Step].Ran), " or "))
		} else if !g.Done() {
			if ok, detail, err := g.evaluate(s, "", true); !ok {
				fmt.Fprintf(s.Out, "Not done yet: %s\n", g.L.Steps[g.Step].checkText())
				if err != nil {
					fmt.Fprintf(s.Out, "  %v\n", err)
				}
				for _, d := range detail {
					fmt.Fprintf(s.Out, "  %s\n", d)
				}
			}
		}
	case "hint":
		g.hint(s)
	case "next":
		if g.Done() {
			fmt.Fprintln(s.Out, "The lesson is complete.")
			return nil
		}
		ok, detail, _ := g.evaluate(s, "", true)
		if !ok && g.L.Steps[g.Step].Ran == nil {
			msg := fmt.Sprintf("step %d is not done yet (%s)", g.Step+1, g.L.Steps[g.Step].checkText())
			for _, d := range detail {
				msg += "\n  " + d
			}
			return fmt.Errorf("%s\nlesson hint helps; lesson skip moves on anyway", msg)
		}
		if !ok {
			return fmt.Errorf("step %d is not done yet: %s; lesson skip moves on anyway", g.Step+1, g.L.Steps[g.Step].checkText())
		}
		g.pass(s)
	case "back":
		if g.Step == 0 {
			return fmt.Errorf("this is the first step")
		}
		g.moveTo(s, g.Step-1)
		if ok, _, _ := g.evaluate(s, "", true); ok && g.L.Steps[g.Step].Ran == nil {
			fmt.Fprintln(s.Out, "(This step's check already holds: your next command, or lesson next, moves on.)")
		}
	case "skip":
		if g.Done() {
			fmt.Fprintln(s.Out, "The lesson is complete.")
			return nil
		}
		fmt.Fprintf(s.Out, "Skipped step %d: %s\n", g.Step+1, g.L.Steps[g.Step].Title)
		g.moveTo(s, g.Step+1)
	case "restart-step":
		step := min(g.Step, len(g.L.Steps)-1)
		if err := replayTo(s, g.L, step); err != nil {
			return err
		}
		fmt.Fprintf(s.Out, "The cluster is back where step %d began (virtual time %s).\n", step+1, repl.FormatTick(s.Now()))
		s.SetGuide(g)
		g.moveTo(s, step)
	case "quit":
		g.save()
		s.SetGuide(nil)
		fmt.Fprintf(s.Out, "Left lesson %q at step %d; lesson start %s resumes it. The cluster stays as it is.\n",
			g.L.Title, min(g.Step+1, len(g.L.Steps)), g.L.ID)
	default:
		return fmt.Errorf("unknown lesson command %q: want list, start, status, hint, next, back, skip, restart-step or quit", sub)
	}
	return nil
}

// start replaces the session's cluster with the lesson's and installs its
// guide, resuming at the step the learner's progress records (the cluster
// is rebuilt by replaying the solution up to that step).
func start(s *repl.Session, name string, out, errOut io.Writer) (*guided, error) {
	l, err := Find(name)
	if err != nil {
		return nil, err
	}
	store := &ProgressStore{Path: DefaultProgressPath()}
	prog, warning := store.Load()
	if warning != "" {
		fmt.Fprintln(errOut, warning)
	}
	step := 0
	if lp := prog.Lessons[l.ID]; lp != nil && !lp.Done && lp.Step > 0 && lp.Step < len(l.Steps) {
		step = lp.Step
	}
	s.SetGuide(nil)
	if err := replayTo(s, l, step); err != nil {
		return nil, err
	}
	g := &guided{Guide: NewGuide(l), store: store, prog: prog, warn: errOut}
	g.Step, g.startSeq, g.resumed = step, s.Eng.Trace.NextSeq(), step > 0
	g.onStep = func(*Guide) { g.save() }
	g.save()
	s.SetGuide(g)
	if len(l.files) > 0 {
		dir := filepath.Join(os.TempDir(), "kubeloop-lessons", l.ID)
		paths, err := l.writeFiles(dir)
		if err != nil {
			fmt.Fprintf(errOut, "warning: cannot write the lesson's files: %v\n", err)
		}
		fmt.Fprintf(out, "This lesson's files are in %s:\n", dir)
		for _, p := range paths {
			fmt.Fprintf(out, "  %s\n", p)
		}
	}
	return g, nil
}

// replayTo rebuilds the lesson's cluster as it was when step began: the
// setup, then the solution's commands up to that step, silently.
func replayTo(s *repl.Session, l *Lesson, step int) error {
	prev := s.CurrentGuide()
	defer s.SetGuide(prev)
	s.SetGuide(nil)
	if err := l.Build(s); err != nil {
		return err
	}
	g := NewGuide(l)
	g.quiet = true
	g.startSeq = s.Eng.Trace.NextSeq()
	s.SetGuide(g)
	for _, entry := range l.Solution {
		if g.Step >= step {
			break
		}
		entry, err := expand(s, entry)
		if err != nil {
			return fmt.Errorf("%s: replaying the solution: %v", l.File, err)
		}
		if err := quietly(s, entry); err != nil {
			return fmt.Errorf("%s: replaying the solution: %v", l.File, err)
		}
	}
	return nil
}

func list(out, errOut io.Writer) error {
	all, err := Course()
	prog, warning := (&ProgressStore{Path: DefaultProgressPath()}).Load()
	if warning != "" {
		fmt.Fprintln(errOut, warning)
	}
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tLESSON\tTITLE\tLENGTH\tSTATE")
	for i, l := range all {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", i+1, l.ID, l.Title, l.Length(), prog.State(l))
	}
	tw.Flush()
	if err != nil {
		return fmt.Errorf("some lessons do not load:\n%v", err)
	}
	return nil
}

// Main is `kubeloop lesson ...`: list, start NAME, check [FILE|NAME...],
// record FILE and new NAME. It returns the exit status.
func Main(args []string, cfg repl.Config, stdin io.Reader, stdout, stderr io.Writer) int {
	usage := "usage: kubeloop lesson list | start NAME | check [FILE|NAME...] | record FILE... | new NAME"
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	switch args[0] {
	case "list":
		if err := list(stdout, stderr); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		return 0
	case "start":
		if len(args) != 2 {
			fmt.Fprintln(stderr, "usage: kubeloop lesson start NAME")
			return 2
		}
		cfg.LessonNames = Names()
		s := repl.NewSession(stdout, stderr, repl.Config{Seed: cfg.Seed, Nodes: -1, Color: cfg.Color,
			Interactive: cfg.Interactive, HistoryFile: cfg.HistoryFile, LessonNames: cfg.LessonNames})
		g, err := start(s, args[1], stdout, stderr)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		if cfg.Interactive {
			if err := s.Interact(stdin); err != nil {
				fmt.Fprintln(stderr, err)
				return 1
			}
			return 0
		}
		g.Greet(s)
		if err := s.RunScript("stdin", stdin); err != nil {
			return 1
		}
		return 0
	case "check":
		return checkMain(args[1:], stdout, stderr)
	case "record":
		if len(args) < 2 {
			fmt.Fprintln(stderr, "usage: kubeloop lesson record FILE...")
			return 2
		}
		status := 0
		for _, a := range args[1:] {
			l, _, err := Resolve(a)
			if err != nil {
				fmt.Fprintln(stderr, err)
				status = 1
				continue
			}
			if !fileExists(l.File) {
				fmt.Fprintf(stderr, "%s: record writes the golden beside a lesson file: give its path\n", a)
				status = 1
				continue
			}
			r, err := Record(l)
			if err != nil {
				r.Report(stderr)
				status = 1
				continue
			}
			fmt.Fprintf(stdout, "wrote %s (%d lines): read it before sharing the lesson\n", l.golden, strings.Count(string(r.Transcript), "\n"))
		}
		return status
	case "new":
		if len(args) != 2 {
			fmt.Fprintln(stderr, "usage: kubeloop lesson new NAME")
			return 2
		}
		file, err := Scaffold(args[1])
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		fmt.Fprintf(stdout, "wrote %s: fill it in, then kubeloop lesson check %s and kubeloop lesson record %s\n", file, file, file)
		return 0
	}
	fmt.Fprintf(stderr, "kubeloop lesson: unknown command %q\n%s\n", args[0], usage)
	return 2
}

func checkMain(args []string, stdout, stderr io.Writer) int {
	begin := time.Now()
	var results []*Result
	status := 0
	if len(args) == 0 {
		all, err := Course()
		if err != nil {
			fmt.Fprintln(stderr, err)
			status = 1
		}
		for _, l := range all {
			results = append(results, Check(l, courseFS))
		}
	}
	for _, a := range args {
		l, fsys, err := Resolve(a)
		if err != nil {
			fmt.Fprintln(stderr, err)
			status = 1
			continue
		}
		results = append(results, Check(l, fsys))
	}
	for _, r := range results {
		if r.OK() {
			r.Report(stdout)
		} else {
			r.Report(stderr)
			status = 1
		}
	}
	fmt.Fprintf(stdout, "%d lessons checked in %.2fs\n", len(results), time.Since(begin).Seconds())
	return status
}
