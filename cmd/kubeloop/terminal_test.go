package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTerminal drives the real terminal path — readline, the prompt, tab
// completion, history, Ctrl-C, Ctrl-D — in a tmux pane. It reads what the
// pane prints through a FIFO (tmux pipe-pane), so it waits on output, never
// on the clock; the deadline only turns a hang into a failure.
func TestTerminal(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: the real-terminal test of the REPL (completion, history, Ctrl-C) did not run")
	}
	if testing.Short() {
		t.Skip("builds the binary and runs it in tmux; skipped with -short")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "kubeloop")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	state := filepath.Join(dir, "state")
	fifo := filepath.Join(dir, "pane")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}

	// A private tmux server, so that a developer's own sessions are untouched.
	sock := "kubeloop-test-" + strconv.Itoa(os.Getpid())
	tmux := func(args ...string) {
		t.Helper()
		cmd := exec.Command("tmux", append([]string{"-L", sock, "-f", "/dev/null"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	t.Cleanup(func() { exec.Command("tmux", "-L", sock, "kill-server").Run() })

	// The pane waits for a first Enter, so that its output can be piped
	// from the very first byte.
	script := "read ready; exec env TERM=xterm XDG_STATE_HOME=" + state + " NO_COLOR=1 " + bin
	tmux("new-session", "-d", "-s", "t", "-x", "120", "-y", "40", "sh", "-c", script)
	tmux("pipe-pane", "-t", "t", "-o", "cat >> "+fifo)

	chunks := make(chan string)
	go func() {
		defer close(chunks)
		f, err := os.Open(fifo) // blocks until tmux's cat opens it
		if err != nil {
			return
		}
		defer f.Close()
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			if n > 0 {
				chunks <- string(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	ansi := regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\r`)
	var seen strings.Builder
	mark := 0 // output before mark has been matched already
	waitFor := func(want string) {
		t.Helper()
		deadline := time.After(60 * time.Second)
		for {
			text := ansi.ReplaceAllString(seen.String(), "")
			if i := strings.Index(text[min(mark, len(text)):], want); i >= 0 {
				mark += i + len(want)
				return
			}
			select {
			case c, ok := <-chunks:
				if !ok {
					t.Fatalf("the pane closed before printing %q; it printed:\n%s", want, text)
				}
				seen.WriteString(c)
			case <-deadline:
				t.Fatalf("timed out waiting for %q; the pane printed:\n%s", want, text)
			}
		}
	}
	keys := func(k ...string) { t.Helper(); tmux(append([]string{"send-keys", "-t", "t"}, k...)...) }

	keys("Enter")
	waitFor("seed 1.")
	waitFor("kubeloop 0s> ")

	// Tab completes a command name, then the prompt shows the new time.
	keys("adv", "Tab")
	waitFor("advance ")
	keys("30s", "Enter")
	waitFor("0s → 30s")
	waitFor("kubeloop 30s> ")

	// Up recalls the last line from history.
	keys("Up")
	waitFor("advance 30s")
	keys("Enter")
	waitFor("kubeloop 1m> ")

	// Tab completes a flag; an error does not end the session.
	keys("reset --no", "Tab")
	waitFor("reset --nodes ")
	keys("2", "Enter")
	waitFor("cluster reset: 2 nodes (n1, n2), seed 1")
	keys("avance 1m", "Enter")
	waitFor(`did you mean "advance"?`)

	// A here-document typed at the prompt gets a continuation prompt.
	keys("node add n9 <<EOF", "Enter")
	waitFor("\n> ")
	keys("x", "Enter", "EOF", "Enter")
	waitFor("does not read a here-document")

	// Ctrl-C at the prompt clears the line.
	keys("garbage")
	keys("C-c")
	waitFor("kubeloop 0s> ")
	keys("seed", "Enter")
	waitFor("seed 1\n")

	// Ctrl-C interrupts a long advance at a consistent point.
	keys("advance 100000h", "Enter")
	waitFor("advance 100000h\n") // the terminal is back in cooked mode: Ctrl-C is a SIGINT
	keys("C-c")
	waitFor("interrupted at ")
	waitFor("(asked for 100000h)")
	keys("eval len(nodes)", "Enter")
	waitFor("2\n")

	// Ctrl-D leaves; the history file has the lines typed.
	keys("C-d")
	for range chunks {
	}
	hist, err := os.ReadFile(filepath.Join(state, "kubeloop", "history"))
	if err != nil {
		t.Fatalf("history file: %v", err)
	}
	for _, want := range []string{"advance 30s", "reset --nodes 2", "eval len(nodes)"} {
		if !strings.Contains(string(hist), want+"\n") {
			t.Errorf("history file lacks %q:\n%s", want, hist)
		}
	}
}
