package repl

import (
	"bytes"
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/engine/trace"
)

// withCommand adds c to the table for one test.
func withCommand(t *testing.T, c *Command) {
	t.Helper()
	register(c)
	t.Cleanup(func() {
		for _, n := range append([]string{c.Name}, c.Aliases...) {
			delete(commands, n)
		}
	})
}

func TestPanicIsAnInternalError(t *testing.T) {
	withCommand(t, &Command{Name: "test-panic", Usage: "test-panic", Run: func(*Session, []string, string) error {
		var m map[string]int
		//lint:ignore SA5000 the panic is the point of the test
		m["boom"]++ // a nil-map write: a bug, not bad input
		return nil
	}})
	var out bytes.Buffer
	s := NewSession(&out, &out, Config{Seed: 7})
	err := s.RunScript("p.kl", strings.NewReader("seed\ntest-panic\nseed\n"))
	var ie *InternalError
	if !errors.As(err, &ie) {
		t.Fatalf("RunScript error = %v; want an InternalError", err)
	}
	if s.Panics != 1 {
		t.Errorf("Panics = %d; want 1", s.Panics)
	}
	got := out.String()
	if !strings.HasPrefix(got, "seed 7\np.kl:2: internal error (seed=7): assignment to entry in nil map [at repl/session_test.go:") {
		t.Errorf("output:\n%s", got)
	}
	// "! " does not excuse a panic, and the session goes on after one.
	out.Reset()
	if err := s.Exec("! test-panic"); err == nil {
		t.Errorf("! test-panic passed; an internal error must always fail")
	}
	if err := s.Exec("seed"); err != nil || !strings.HasSuffix(out.String(), "seed 7\n") {
		t.Errorf("after a panic: err %v, output %q", err, out.String())
	}
}

func TestNegation(t *testing.T) {
	var out, errOut bytes.Buffer
	s := NewSession(&out, &errOut, Config{})
	if err := s.Exec("! eval nosuchname"); err != nil {
		t.Errorf("! of a failing command: %v", err)
	}
	if !strings.HasPrefix(errOut.String(), "unknown name nosuchname") {
		t.Errorf("the expected failure's message is still printed; got %q", errOut.String())
	}
	if err := s.Exec("! eval 1"); !errors.Is(err, errUnexpectedSuccess) {
		t.Errorf("! of a succeeding command: error %v; want unexpected success", err)
	}
}

func TestUsageLine(t *testing.T) {
	var out bytes.Buffer
	s := NewSession(&out, &out, Config{})
	_ = s.Exec("advance")
	want := "advance needs one DURATION, such as 30s or 5m\nusage: advance DURATION [-q]\n"
	if out.String() != want {
		t.Errorf("output %q; want %q", out.String(), want)
	}
	out.Reset()
	_ = s.Exec("advance 30")
	want = "time: missing unit in duration \"30\" (did you mean 30s?)\nusage: advance DURATION [-q]\n"
	if out.String() != want {
		t.Errorf("output %q; want %q", out.String(), want)
	}
}

func TestActorRecordsTheCommandOnce(t *testing.T) {
	var out bytes.Buffer
	s := NewSession(&out, &out, Config{})
	var seqs []uint64
	withCommand(t, &Command{Name: "test-write", Usage: "test-write", Run: func(s *Session, _ []string, _ string) error {
		seqs = append(seqs, s.Actor().Cause, s.Actor().Cause)
		return nil
	}})
	before := s.Eng.Trace.NextSeq()
	if err := s.Exec("kubectl test-write   # writes twice"); err != nil {
		t.Fatal(err)
	}
	if len(seqs) != 2 || seqs[0] != seqs[1] || seqs[0] != before {
		t.Fatalf("actor causes %v; want twice %d", seqs, before)
	}
	ev, _ := s.Eng.Trace.Get(seqs[0])
	if ev.Component != "kubectl" || ev.Message != "test-write   # writes twice" || ev.Column != trace.Declare {
		t.Errorf("trace event %+v", ev)
	}
	// Read-only commands leave no trace.
	next := s.Eng.Trace.NextSeq()
	_ = s.Exec("eval len(nodes)")
	if s.Eng.Trace.NextSeq() != next {
		t.Errorf("eval recorded a trace event")
	}
}

func TestColor(t *testing.T) {
	for _, on := range []bool{false, true} {
		var out bytes.Buffer
		s := NewSession(&out, &out, Config{Color: on})
		_ = s.Exec("nosuch")
		hasEsc := strings.Contains(out.String(), "\x1b[")
		if hasEsc != on {
			t.Errorf("Color=%v: output %q", on, out.String())
		}
		if on && !strings.HasPrefix(out.String(), "\x1b[31m") {
			t.Errorf("errors are red; got %q", out.String())
		}
		p := newPalette(on)
		if got := p.column(trace.Run, "x"); (got != "x") != on {
			t.Errorf("Color=%v: column(Run) = %q", on, got)
		}
	}
}

func TestHelpCoversEveryCommand(t *testing.T) {
	var out bytes.Buffer
	s := NewSession(&out, &out, Config{})
	if err := s.Exec("help"); err != nil {
		t.Fatal(err)
	}
	list := out.String()
	for _, c := range Commands() {
		if !strings.Contains(list, "\n  "+c.Name+" ") {
			t.Errorf("help does not list %s", c.Name)
		}
		if c.Example == "" {
			t.Errorf("%s has no Example", c.Name)
		}
		if !strings.HasPrefix(c.Usage, c.Name) {
			t.Errorf("%s: Usage %q does not start with the command's name", c.Name, c.Usage)
		}
		out.Reset()
		if err := s.Exec("help " + c.Name); err != nil || !strings.HasPrefix(out.String(), "usage: "+c.Usage+"\n") {
			t.Errorf("help %s: %v\n%s", c.Name, err, out.String())
		}
	}
}

func TestComplete(t *testing.T) {
	var out bytes.Buffer
	s := NewSession(&out, &out, Config{LessonNames: []string{"basics", "probes"}})
	tests := []struct {
		line string
		want []string
	}{
		{"adv", []string{"advance"}},
		{"kubectl adv", []string{"advance"}},
		{"! adv", []string{"advance"}},
		{"advance --q", []string{"--quiet"}},
		{"advance ", durations},
		{"reset --n", []string{"--nodes"}},
		{"help adv", []string{"advance"}},
		{"node ", []string{"add", "fail", "recover"}},
		{"until x --timeout ", []string{"10m", "1m", "2m", "30s", "5m"}},
		{"nosuch ", nil},
	}
	for _, tt := range tests {
		got, _ := s.Complete(tt.line)
		if strings.Join(got, " ") != strings.Join(sortedCopy(tt.want), " ") {
			t.Errorf("Complete(%q) = %q; want %q", tt.line, got, tt.want)
		}
	}
	// Kinds and object names, when the kubectl commands are there.
	if _, ok := lookup("get"); ok {
		got, _ := s.Complete("get nodes n")
		if strings.Join(got, " ") != "n1 n2 n3" {
			t.Errorf("Complete(get nodes n) = %q; want the node names", got)
		}
		got, _ = s.Complete("get deploy")
		if len(got) == 0 || got[0] != "deploy" {
			t.Errorf("Complete(get deploy) = %q; want kind names", got)
		}
		for _, line := range []string{"describe node n", "describe no/n", "delete nodes n1 n", "get -o wide nodes n"} {
			got, word := s.Complete(line)
			want := []string{"n1", "n2", "n3"}
			if strings.Contains(word, "/") {
				want = []string{"no/n1", "no/n2", "no/n3"}
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("Complete(%q) = %q; want %q", line, got, want)
			}
		}
		got, _ = s.Complete("get pods -o ")
		if strings.Join(got, " ") != "json name wide yaml" {
			t.Errorf("Complete(get pods -o ) = %q", got)
		}
		got, _ = s.Complete("get pods -n ")
		if strings.Join(got, " ") != "default kube-node-lease kube-public kube-system" {
			t.Errorf("Complete(get pods -n ) = %q", got)
		}
	}
}
func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

func TestImages(t *testing.T) {
	var out bytes.Buffer
	s := NewSession(&out, &out, Config{})
	if err := s.Exec("images"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	if !strings.HasPrefix(lines[0], "IMAGE ") || !strings.Contains(out.String(), "\nnginx ") {
		t.Errorf("images:\n%s", out.String())
	}
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "docker.io/") || strings.HasPrefix(l, "library/") {
			t.Errorf("images names Docker Hub images as a learner types them; got %q", l)
		}
	}
}
