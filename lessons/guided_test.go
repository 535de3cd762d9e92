package lessons

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/repl"
)

// session runs lines in a fresh REPL session, as a learner would type
// them, and returns what it printed.
func session(t *testing.T, lines ...string) (string, *repl.Session) {
	t.Helper()
	var out bytes.Buffer
	s := repl.NewSession(&out, &out, repl.Config{})
	for _, l := range lines {
		out.WriteString("> " + l + "\n")
		_ = s.Exec(l)
	}
	if s.Panics > 0 {
		t.Fatalf("internal error:\n%s", out.String())
	}
	return out.String(), s
}

func wantIn(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("output lacks %q; output:\n%s", w, got)
		}
	}
}

// TestGuided drives the lesson command as a learner: start, explore, hint,
// next before the step is done, pass a step by typing, back, skip, quit,
// and resume where the progress file says.
func TestGuided(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	out, s := session(t,
		"lesson start declare",
		"get pods", // exploring does not pass the step
		"lesson hint",
		"lesson next",
		"create deployment web --image=nginx:1.27 --replicas=3 --port=80",
		"lesson status",
		"lesson back",
		"lesson skip",
		"lesson skip",
		"lesson quit",
	)
	wantIn(t, out,
		"--- Step 1 of 4: Declare what you want ---",
		"Hint 1 of 2:",
		"step 1 is not done yet",
		"✓ Step 1 of 4 done: Declare what you want",
		"--- Step 2 of 4: Desired is not yet observed ---",
		"Not done yet: check find(deployments",
		"(This step's check already holds",
		"Skipped step 1",
		"Skipped step 2",
		"Left lesson",
	)
	if s.CurrentGuide() != nil {
		t.Error("lesson quit left the guide installed")
	}
	data, err := os.ReadFile(filepath.Join(cfg, "kubeloop", "progress.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"step": 2`) {
		t.Errorf("progress.json = %s; want declare at step index 2", data)
	}
	out, s = session(t, "lesson start declare")
	wantIn(t, out, "Resuming lesson", "--- Step 3 of 4: Find the commit point in the trace ---")
	// The replay rebuilt the cluster of step 3: the Deployment runs.
	if ok, detail, err := s.CheckExpr(`find(deployments, .metadata.name == "web").status.availableReplicas == 3`); !ok || err != nil {
		t.Errorf("resumed cluster: the Deployment is not available: %v %v", detail, err)
	}
	out, _ = session(t, "lesson list")
	wantIn(t, out, "in progress (step 3 of 4)", "not started")
}

// TestGuidedCorruptProgress: a corrupt progress file is a warning and a
// fresh start, never a crash.
func TestGuidedCorruptProgress(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	os.MkdirAll(filepath.Join(cfg, "kubeloop"), 0o755)
	os.WriteFile(filepath.Join(cfg, "kubeloop", "progress.json"), []byte("{\"lessons\": {\"declare\": "), 0o644)
	out, s := session(t, "lesson list", "lesson start declare")
	wantIn(t, out, "warning: lesson progress", "corrupt", "starting afresh", "--- Step 1 of 4")
	if s.CurrentGuide() == nil {
		t.Error("the lesson did not start after a corrupt progress file")
	}
}

// TestRestartStep: restart-step rebuilds the cluster as it was when the
// step began, undoing what the learner did since.
func TestRestartStep(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	out, s := session(t,
		"lesson start scheduling",
		"create deployment other --image=nginx:1.27",
		"lesson restart-step",
	)
	wantIn(t, out, "The cluster is back where step 1 began")
	if ok, _, _ := s.CheckExpr(`count(deployments, true) == 0`); !ok {
		t.Errorf("restart-step kept the learner's deployment:\n%s", out)
	}
}

// TestScaffold: `lesson new` writes a lesson that loads and whose
// solution passes, so an instructor starts from something that works.
func TestScaffold(t *testing.T) {
	dir := t.TempDir()
	file, err := Scaffold(filepath.Join(dir, "07-probes"))
	if err != nil {
		t.Fatal(err)
	}
	l, _, err := Resolve(file)
	if err != nil {
		t.Fatalf("the scaffold does not load: %v", err)
	}
	if l.ID != "probes" {
		t.Errorf("scaffold id = %q; want probes", l.ID)
	}
	if r := Run(l); !r.OK() {
		t.Errorf("the scaffold's solution fails: %v", r.Problems)
	}
	if _, err := Scaffold(file); err == nil {
		t.Error("Scaffold overwrote an existing lesson")
	}
	if _, err := Record(l); err != nil {
		t.Fatal(err)
	}
	if r := Check(l, osFS{}); !r.OK() {
		t.Errorf("check after record: %v", r.Problems)
	}
}
