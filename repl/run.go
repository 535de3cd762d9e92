package repl

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/chzyer/readline"
)

// Run is kubeloop: a session on a fresh cluster, driven either by a person
// at a terminal (cfg.Interactive: line editing, history, completion, a
// prompt that shows the virtual time, Ctrl-C to interrupt) or by a script
// read from in. A script stops at its first failed command and Run returns
// that failure (already printed to errOut); the interactive REPL never stops
// on an error and returns nil when the user quits.
func Run(in io.Reader, out, errOut io.Writer, cfg Config) error {
	s := NewSession(out, errOut, cfg)
	if !cfg.Interactive {
		name := cfg.ScriptName
		if name == "" {
			name = "stdin"
		}
		return s.RunScript(name, in)
	}
	return s.interact(in, out, errOut)
}

// RunFiles runs script files in order on one session, as `kubeloop run`
// does, stopping at the first failure.
func RunFiles(out, errOut io.Writer, cfg Config, files ...string) error {
	s := NewSession(out, errOut, cfg)
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			err = fmt.Errorf("error: %w", err)
			fmt.Fprintln(errOut, s.pal.err(err.Error()))
			return err
		}
		err = s.RunScript(name, f)
		f.Close()
		if err != nil || s.quit {
			return err
		}
	}
	return nil
}

// errAbortStmt ends a statement cut short by Ctrl-C at a continuation
// prompt.
var errAbortStmt = errors.New("statement abandoned")

// ContinuationPrompt is shown inside a here-document or after a trailing
// backslash.
const ContinuationPrompt = "> "

// Prompt is the REPL's prompt: the virtual time, as in "kubeloop 1m30s> ".
func (s *Session) Prompt() string {
	p := "kubeloop " + FormatTick(s.Now())
	// In a guided lesson the prompt also says where the learner is.
	if g, ok := s.guide.(interface{ PromptTag() string }); ok {
		if tag := g.PromptTag(); tag != "" {
			p += " " + tag
		}
	}
	return p + "> "
}

// rlLines reads lines from readline, switching prompts.
type rlLines struct {
	rl *readline.Instance
	s  *Session
}

func (r *rlLines) ReadLine(more bool) (string, error) {
	for {
		if more {
			r.rl.SetPrompt(ContinuationPrompt)
		} else {
			r.rl.SetPrompt(r.s.Prompt())
		}
		line, err := r.rl.Readline()
		if errors.Is(err, readline.ErrInterrupt) {
			if more {
				return "", errAbortStmt
			}
			continue // Ctrl-C at the prompt clears the line, as in a shell
		}
		return line, err
	}
}

func (s *Session) interact(in io.Reader, out, errOut io.Writer) error {
	if s.cfg.HistoryFile != "" {
		// The state directory may not exist yet on a fresh machine.
		_ = os.MkdirAll(filepath.Dir(s.cfg.HistoryFile), 0o755)
	}
	rc, ok := in.(io.ReadCloser)
	if !ok {
		rc = io.NopCloser(in)
	}
	rl, err := readline.NewEx(&readline.Config{
		Prompt:            s.Prompt(),
		HistoryFile:       s.cfg.HistoryFile,
		HistoryLimit:      1000,
		HistorySearchFold: true,
		AutoComplete:      completer{s},
		InterruptPrompt:   "^C",
		EOFPrompt:         "",
		Stdin:             rc,
		Stdout:            out,
		Stderr:            errOut,
	})
	if err != nil {
		return err
	}
	defer rl.Close()
	// Commands write to the terminal directly, not through readline's
	// writers: a command runs only after Readline has returned, so there is
	// no line being edited to protect, and readline's writers redraw the
	// prompt when they think it is still reading, which splices a stray
	// prompt into long output such as help.
	s.Out, s.Err = out, errOut

	// While a command runs the terminal is in cooked mode and Ctrl-C is a
	// SIGINT: it asks advance and until to stop at their next chunk. While
	// readline reads, the terminal is raw and Ctrl-C clears the line.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	defer signal.Stop(sig)
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case <-sig:
				s.Interrupt()
			case <-done:
				return
			}
		}
	}()

	fmt.Fprintf(s.Out, "kubeloop %s: a simulated Kubernetes %s cluster of %s, seed %d.\n",
		Version, KubernetesVersion, describeNodes(len(s.nodes)), s.Eng.Seed)
	fmt.Fprintln(s.Out, `Type "help" for the commands, Tab to complete, Ctrl-D to leave.`)
	if s.guide != nil {
		s.guide.Greet(s)
	}
	sc := NewScanner("", &rlLines{rl: rl, s: s})
	for !s.quit {
		st, err := sc.Next()
		switch {
		case err == io.EOF:
			return nil
		case errors.Is(err, errAbortStmt):
			continue
		case err != nil:
			var se *SyntaxError
			if !errors.As(err, &se) {
				return err
			}
			s.printErr(Pos{}, err, nil)
			continue
		}
		s.do(st, false) // an error never ends the session
	}
	return nil
}

// completer adapts Session.Complete to readline.
type completer struct{ s *Session }

func (c completer) Do(line []rune, pos int) ([][]rune, int) {
	cands, word := c.s.Complete(string(line[:pos]))
	out := make([][]rune, 0, len(cands))
	for _, cand := range cands {
		suffix := cand[len(word):]
		if len(cands) == 1 && !endsOpen(cand) {
			suffix += " "
		}
		out = append(out, []rune(suffix))
	}
	return out, len([]rune(word))
}

// endsOpen says whether a completion wants more typed right after it (a
// directory, or "pod/").
func endsOpen(s string) bool { return len(s) > 0 && s[len(s)-1] == '/' }
