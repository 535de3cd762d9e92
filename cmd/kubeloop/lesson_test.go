package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLessonSubcommand: `kubeloop lesson` lists, checks (exit status 0 for
// the course, 1 with the file, line and step for a broken lesson) and
// scaffolds.
func TestLessonSubcommand(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	run := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := kubeloop(args, strings.NewReader(""), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	if code, out, _ := run("lesson", "list"); code != 0 || !strings.Contains(out, "declare") || !strings.Contains(out, "not started") {
		t.Errorf("lesson list = %d\n%s", code, out)
	}
	if code, out, errOut := run("lesson", "check"); code != 0 || !strings.Contains(out, "ok  course/01-declare.yaml") {
		t.Errorf("lesson check = %d\n%s%s", code, out, errOut)
	}
	if code, _, _ := run("lesson"); code != exitUsage {
		t.Errorf("lesson without a command = %d; want %d", code, exitUsage)
	}

	dir := t.TempDir()
	file := filepath.Join(dir, "tiny.yaml")
	if code, out, errOut := run("lesson", "new", file); code != 0 {
		t.Fatalf("lesson new = %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := run("lesson", "record", file); code != 0 || !strings.Contains(out, "tiny.golden") {
		t.Fatalf("lesson record = %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := run("lesson", "check", file); code != 0 {
		t.Errorf("lesson check of a recorded scaffold = %d\n%s%s", code, out, errOut)
	}
	// Break the check: the solution makes 2 pods, the check wants 3.
	data, _ := os.ReadFile(file)
	os.WriteFile(file, bytes.Replace(data, []byte(`== 2`), []byte(`== 3`), 1), 0o644)
	code, _, errOut := run("lesson", "check", file)
	if code != exitFailed || !strings.Contains(errOut, "tiny.yaml:") || !strings.Contains(errOut, "step 1:") ||
		!strings.Contains(errOut, `count(pods, .metadata.labels.app == "web") = 2`) {
		t.Errorf("lesson check of a failing lesson = %d\n%s", code, errOut)
	}
	// An unknown key is located by line and step too.
	os.WriteFile(file, bytes.Replace(data, []byte("  hints:"), []byte("  hint:"), 1), 0o644)
	if code, _, errOut := run("lesson", "check", file); code != exitFailed || !strings.Contains(errOut, `unknown key "hint" in a step`) {
		t.Errorf("lesson check with an unknown key = %d\n%s", code, errOut)
	}
}
