package repl

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine"
	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/workload"
	"github.com/kubeloop/kubeloop/internal/printers"
)

// Config configures a session. The zero Config is usable: the built-in
// cluster of engine.DefaultClusterSize nodes, engine.DefaultSeed, no colour,
// commands read as a script.
type Config struct {
	// Seed is the root seed (engine.DefaultSeed if 0).
	Seed uint64
	// Nodes is the size of the built-in cluster: engine.DefaultClusterSize
	// if 0, no nodes at all if negative.
	Nodes int
	// Color turns on ANSI colour. Callers decide: off for NO_COLOR,
	// --no-color and output that is not a terminal.
	Color bool
	// Interactive reads commands from a terminal with line editing,
	// history and completion; otherwise the input is a script.
	Interactive bool
	// HistoryFile is where the interactive REPL keeps its history ("" for
	// none).
	HistoryFile string
	// LessonNames are offered by completion after "lesson".
	LessonNames []string
	// ScriptName names stdin in error positions ("stdin" if empty).
	ScriptName string
}

func (c Config) nodes() int {
	if c.Nodes < 0 {
		return 0
	}
	if c.Nodes == 0 {
		return engine.DefaultClusterSize
	}
	return c.Nodes
}

func (c Config) seed() uint64 {
	if c.Seed == 0 {
		return engine.DefaultSeed
	}
	return c.Seed
}

// Session is the state one REPL, script run or lesson works on: a cluster
// and where output goes. Commands write their normal output to Out and
// diagnostics (errors, "No resources found") to Err, as kubectl does.
type Session struct {
	// Eng is the cluster; reset and seed replace it.
	Eng *engine.Engine
	// pushed are the images the learner pushed (images push), kept across
	// reset as a registry outside the cluster would keep them.
	pushed []workload.Image
	// Out receives command output.
	Out io.Writer
	// Err receives errors and diagnostics.
	Err io.Writer
	// Color says whether output may carry ANSI colour.
	Color bool
	// Namespace is the namespace commands act in without -n ("default").
	Namespace string

	cfg   Config
	nodes []engine.NodeConfig // the cluster reset builds
	pal   palette

	// The statement running, and the trace event that records it once it
	// writes (see Actor).
	stmt  *Stmt
	cmd   *Command
	actor *apiserver.Actor

	interrupted atomic.Bool
	quit        bool

	// sumRev is the store revision the last advance or until summarised up
	// to: the next summary also counts what commands in between set off
	// (the pods an apply's ReplicaSet created at that same instant).
	sumRev int64

	// jsonCache keeps the JSON shape of store objects between expression
	// evaluations (objects in the store are immutable).
	jsonCache printers.JSONCache

	// Panics counts internal errors recovered; a test harness fails on any.
	Panics int

	// guide follows the commands of a guided lesson (lesson_hook.go).
	guide Guide
}

// NewSession starts a session on a fresh cluster built from cfg.
func NewSession(out, errOut io.Writer, cfg Config) *Session {
	s := &Session{Out: out, Err: errOut, Color: cfg.Color, Namespace: metav1.NamespaceDefault, cfg: cfg}
	s.pal = newPalette(cfg.Color)
	s.Reset(cfg.seed(), engine.DefaultNodes(cfg.nodes()))
	return s
}

// Reset replaces the cluster with a fresh one built with seed and nodes.
func (s *Session) Reset(seed uint64, nodes []engine.NodeConfig) {
	s.nodes = nodes
	s.Eng = engine.New(engine.Config{Seed: seed, Nodes: nodes})
	// The registry is outside the cluster: what the learner pushed is
	// still there after a reset.
	for _, img := range s.pushed {
		if _, err := s.Eng.Images.Add(img); err != nil {
			panic("repl: re-pushing " + img.Repository + ": " + err.Error())
		}
	}
	s.actor = nil
	s.jsonCache = printers.JSONCache{}
	s.sumRev = s.Eng.Store.Rev()
}

// Now is the cluster's virtual time.
func (s *Session) Now() sim.Tick { return s.Eng.Now() }

// Actor records the running command in the trace, the first time it is
// called for that command, and returns the actor for the requests the
// command makes: everything that follows in the trace can then be traced
// back to the learner's line. Read-only commands never call it, so they
// leave no trace.
func (s *Session) Actor() apiserver.Actor {
	if s.actor == nil {
		text := "(api request)"
		if s.stmt != nil {
			text = s.stmt.Text
		}
		a := s.Eng.Command(text)
		s.actor = &a
	}
	return *s.actor
}

// Parse parses args against the running command's flags (see Flag).
func (s *Session) Parse(args []string) (*Flags, error) {
	var defs []Flag
	if s.cmd != nil {
		defs = s.cmd.Flags
	}
	return ParseFlags(defs, args)
}

// Interrupt asks a long-running command (advance, until) to stop at its
// next chunk; it is safe to call from another goroutine (a signal handler).
func (s *Session) Interrupt() { s.interrupted.Store(true) }

// Interrupted reports whether Interrupt was called during the running
// command. Long commands check it between chunks of virtual time, so the
// cluster is always left at a settled instant.
func (s *Session) Interrupted() bool { return s.interrupted.Load() }

// errInterrupted is returned by a command stopped with Ctrl-C.
var errInterrupted = errors.New("interrupted")

// InternalError is a panic recovered while running a command: a bug in
// kubeloop, reported with the seed that reproduces it.
type InternalError struct {
	Seed  uint64
	Value any
	Where string // file:line of the panic, when known
}

func (e *InternalError) Error() string {
	msg := fmt.Sprintf("internal error (seed=%d): %v", e.Seed, e.Value)
	if e.Where != "" {
		msg += " [at " + e.Where + "]"
	}
	return msg
}

// StmtError is a failed statement: its position and what went wrong.
type StmtError struct {
	Pos  Pos
	Text string // the statement's text
	Err  error
}

func (e *StmtError) Error() string {
	if p := e.Pos.String(); p != "" {
		return p + ": " + e.Err.Error()
	}
	return e.Err.Error()
}

func (e *StmtError) Unwrap() error { return e.Err }

// errUnexpectedSuccess is the failure of a "! " line whose command worked.
var errUnexpectedSuccess = errors.New("unexpected command success (the line starts with \"! \", so the command should have failed)")

// call runs one statement's command, recovering a panic into an
// InternalError, and settles the cluster afterwards.
func (s *Session) call(st *Stmt) (err error) {
	c, ok := lookup(st.Name)
	if !ok {
		return unknownCommand(st.Name)
	}
	s.stmt, s.cmd, s.actor = st, c, nil
	s.interrupted.Store(false)
	defer func() {
		if r := recover(); r != nil {
			s.Panics++
			err = &InternalError{Seed: s.Eng.Seed, Value: r, Where: panicSite()}
		}
		s.stmt, s.cmd, s.actor = nil, nil, nil
	}()
	if st.HasInput && !acceptsInput(c, st.Args) {
		return usagef("%s does not read a here-document (only -f - does)", c.Name)
	}
	err = c.Run(s, st.Args, st.Input)
	// Whatever the command wrote, the control plane reacts within the
	// same instant; no virtual time passes.
	s.Eng.Settle()
	return err
}

// acceptsInput says whether a here-document has a reader: a command that
// takes -f - (apply, create, delete) or a Raw command that wants a body.
func acceptsInput(c *Command, args []string) bool {
	for _, f := range c.Flags {
		if f.Name == "filename" {
			return true
		}
	}
	return c.Raw
}

// panicSite finds the first frame of the panic outside the runtime, as
// "repl/file.go:123", for the bug report.
func panicSite() string {
	pcs := make([]uintptr, 32)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, "runtime.") && f.File != "" {
			// The package directory and file, "repl/get.go": enough to
			// find it, and the same on every machine.
			dir, file := filepath.Split(f.File)
			return fmt.Sprintf("%s:%d", filepath.ToSlash(filepath.Join(filepath.Base(dir), file)), f.Line)
		}
		if !more {
			return ""
		}
	}
}

// do runs one statement and reports how it went: it prints a failure (with
// its position when withPos) to Err and returns it as a *StmtError. A "! "
// statement passes when its command fails (its message is still printed)
// and fails when it succeeds; an internal error always fails.
func (s *Session) do(st *Stmt, withPos bool) (result error) {
	defer func() { s.afterCommand(st, result != nil) }()
	err := s.call(st)
	var ie *InternalError
	switch {
	case st.Negate && err == nil:
		err = errUnexpectedSuccess
	case st.Negate && !errors.As(err, &ie):
		s.printErr(Pos{}, err, st)
		return nil
	case err == nil:
		return nil
	}
	pos := st.Pos
	if !withPos {
		pos = Pos{}
	}
	s.printErr(pos, err, st)
	return &StmtError{Pos: st.Pos, Text: st.Text, Err: err}
}

// printErr prints err as kubectl would (in red when colour is on), prefixed
// with pos, then the usage line for a syntax error.
func (s *Session) printErr(pos Pos, err error, st *Stmt) {
	msg := err.Error()
	if p := pos.String(); p != "" {
		msg = p + ": " + msg
	}
	fmt.Fprintln(s.Err, s.pal.err(msg))
	var u *usageError
	if errors.As(err, &u) && st != nil {
		if c, ok := lookup(st.Name); ok {
			fmt.Fprintln(s.Err, "usage: "+c.Usage)
		}
	}
}

// Exec runs src, one or more statements (a command and its here-document,
// say), as typed at the prompt: failures are printed to Err without a
// position. It stops at the first failure and returns it.
func (s *Session) Exec(src string) error {
	sc := NewScanner("", newReaderLines(strings.NewReader(src)))
	for !s.quit {
		st, err := sc.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			s.printErr(Pos{}, err, nil)
			return err
		}
		if err := s.do(st, false); err != nil {
			return err
		}
	}
	return nil
}

// RunScript runs a script read from r; name is the file name errors cite as
// "name:line: message". It stops at the first failed command or failed
// assert and returns it (already printed to Err).
func (s *Session) RunScript(name string, r io.Reader) error {
	sc := NewScanner(name, newReaderLines(r))
	for !s.quit {
		st, err := sc.Next()
		if err == io.EOF {
			return nil
		}
		var se *SyntaxError
		if errors.As(err, &se) {
			e := &StmtError{Pos: se.Pos, Err: se}
			s.printErr(Pos{}, e, nil)
			return e
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := s.do(st, true); err != nil {
			return err
		}
	}
	return nil
}

// Quit reports whether the session was ended by quit or exit.
func (s *Session) Quit() bool { return s.quit }
