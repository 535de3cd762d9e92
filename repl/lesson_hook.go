package repl

import (
	"io"

	"github.com/kubeloop/kubeloop/engine/trace"
)

// Guide follows a session's commands on behalf of a guided lesson (package
// lessons): after every command the learner runs it checks whether the
// current step is done. The guide lives outside package repl because
// lessons are built from the REPL's language, not part of it.
type Guide interface {
	// AfterCommand is called after every statement the session runs,
	// after its output and any error have been printed; name is the
	// command word and failed says whether it failed.
	AfterCommand(s *Session, name, text string, failed bool)
	// Greet is called once by the interactive REPL after its banner,
	// before the first prompt: the guide shows the lesson's current step.
	Greet(s *Session)
}

// SetGuide installs g (nil removes it); the session calls it after every
// command.
func (s *Session) SetGuide(g Guide) { s.guide = g }

// CurrentGuide is the session's guide, nil outside a guided lesson.
func (s *Session) CurrentGuide() Guide { return s.guide }

// Config returns the configuration the session was made with.
func (s *Session) Config() Config { return s.cfg }

// afterCommand tells the guide, if any, that st ran.
func (s *Session) afterCommand(st *Stmt, failed bool) {
	if s.guide != nil && st != nil {
		s.guide.AfterCommand(s, st.Name, st.Text, failed)
	}
}

// CompileCheck compiles a lesson's check expression in the environment of
// assert, eval and until, so that a lesson with a wrong expression is
// rejected when it is loaded rather than when a learner reaches the step.
func CompileCheck(src string) error {
	_, err := (&Session{}).compileExpr(src)
	return err
}

// CheckExpr evaluates a check expression over the cluster as assert does.
// ok is its truth; when it is not true, detail lists the value of each part
// of the expression (assert's explanation), so that a failing check shows
// what it saw.
func (s *Session) CheckExpr(src string) (ok bool, detail []string, err error) {
	c, err := s.compileExpr(src)
	if err != nil {
		return false, nil, err
	}
	ok, env, err := s.evalBool(c)
	if err != nil || !ok {
		return false, s.explain(c, env), err
	}
	return true, nil, nil
}

// TraceSince returns the trace events with a sequence number of at least
// seq still kept, in order: lessons' trace queries look at what happened
// since a step began.
func (s *Session) TraceSince(seq uint64) []trace.Event {
	t := s.Eng.Trace
	if first := t.FirstSeq(); seq < first {
		seq = first
	}
	var out []trace.Event
	for q := seq; q < t.NextSeq(); q++ {
		if e, ok := t.Get(q); ok {
			out = append(out, e)
		}
	}
	return out
}

// Interact runs the interactive REPL on s, a session already set up (a
// lesson's cluster): line editing, history and completion on in, until the
// learner quits. Its guide, if any, is greeted after the banner.
func (s *Session) Interact(in io.Reader) error {
	return s.interact(in, s.Out, s.Err)
}

// EvalExpr evaluates an expression over the cluster as eval does and
// returns its value (lessons fill names the solution cannot know in
// advance, such as a generated pod name, from it).
func (s *Session) EvalExpr(src string) (any, error) {
	c, err := s.compileExpr(src)
	if err != nil {
		return nil, err
	}
	v, _, err := s.evalExpr(c)
	return v, err
}
