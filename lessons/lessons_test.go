package lessons

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// rewrite rewrites the golden transcripts (datadriven's flag name). Read
// every changed line before committing: a golden is only as good as the
// review it got.
var rewrite = flag.Bool("rewrite", false, "rewrite the lessons' golden transcripts")

// TestCourse replays every lesson's solution in guided mode and compares
// the transcript with its golden file, as `kubeloop lesson check` does.
func TestCourse(t *testing.T) {
	begin := time.Now()
	all, err := LoadDir(os.DirFS("."), "course")
	if err != nil {
		t.Fatalf("the course does not load:\n%v", err)
	}
	if len(all) == 0 {
		t.Fatal("no lessons in course/")
	}
	for _, l := range all {
		t.Run(l.ID, func(t *testing.T) {
			if *rewrite {
				if r, err := Record(l); err != nil {
					var b strings.Builder
					r.Report(&b)
					t.Fatal(b.String())
				}
				return
			}
			r := Check(l, os.DirFS("."))
			if !r.OK() {
				var b strings.Builder
				r.Report(&b)
				t.Error(b.String())
			}
		})
	}
	t.Logf("%d lessons checked in %v", len(all), time.Since(begin))
}

// TestEmbedded checks that the binary carries the same course as the
// source tree.
func TestEmbedded(t *testing.T) {
	all, err := Course()
	if err != nil {
		t.Fatal(err)
	}
	disk, _ := filepathGlob("course/*.yaml")
	if len(all) != len(disk) {
		t.Errorf("embedded %d lessons, course/ has %d", len(all), len(disk))
	}
}

func filepathGlob(p string) ([]string, error) { return filepath.Glob(p) }

const good = `id: tiny
title: Tiny
steps:
- title: Make it
  text: make a deployment
  check: count(deployments, .metadata.name == "web") == 1
  explain: done
solution:
- create deployment web --image=nginx:1.27
`

// TestLoadErrors: each broken lesson is reported with its file, line and
// step.
func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"unknown key", strings.Replace(good, "  check:", "  chek: x\n  check:", 1),
			`bad.yaml:6: step 1: unknown key "chek" in a step (known: title, text, try, check, trace, ran, hints, explain)`},
		{"unknown top key", "colour: red\n" + good,
			`bad.yaml:1: unknown key "colour" in the lesson`},
		{"bad expression", strings.Replace(good, `== 1`, `== = 1`, 1),
			`bad.yaml:6: step 1: check count(deployments, .metadata.name == "web") == = 1: `},
		{"unknown name", strings.Replace(good, `count(deployments`, `count(deploymnets`, 1),
			`bad.yaml:6: step 1: check`},
		{"missing manifest", strings.Replace(good, "steps:", "setup:\n  manifests: [app.yaml]\nsteps:", 1),
			`bad.yaml:4: manifest app.yaml: no such file beside the lesson`},
		{"two checks", strings.Replace(good, "  explain:", "  ran: [get]\n  explain:", 1),
			`bad.yaml:4: step 1: a step needs exactly one of check, trace and ran (it has 2)`},
		{"bad column", strings.Replace(good, `  check: count(deployments, .metadata.name == "web") == 1`, "  trace: {column: Later}", 1),
			`bad.yaml:6: step 1: trace column "Later"`},
		{"ran of no command", strings.Replace(good, `  check: count(deployments, .metadata.name == "web") == 1`, "  ran: [kubectl]", 1),
			`step 1: ran entry "kubectl" names no command, so nothing matches it`},
		{"yaml syntax", "id: tiny\ntitle: [x\n", `bad.yaml:`},
		{"no steps", "id: tiny\ntitle: T\nsolution: [get pods]\n", `bad.yaml: a lesson needs at least one step`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{"bad.yaml": {Data: []byte(tc.src)}}
			_, err := Load(fsys, "bad.yaml")
			if err == nil {
				t.Fatalf("Load(%s) = nil error; want %q", tc.name, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Load(%s) error:\n%v\nwant it to contain:\n%s", tc.name, err, tc.want)
			}
		})
	}
}

// TestFailingSolution: a solution that does not pass a check is reported
// with the step, its line, and the values the check saw.
func TestFailingSolution(t *testing.T) {
	src := strings.Replace(good, "--image=nginx:1.27", "--image=nginx:1.27 --replicas=2", 1)
	src = strings.Replace(src, `count(deployments, .metadata.name == "web") == 1`, `find(deployments, .metadata.name == "web").spec.replicas == 3`, 1)
	l, err := Load(fstest.MapFS{"bad.yaml": {Data: []byte(src)}}, "bad.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := Run(l)
	if r.OK() {
		t.Fatal("Run: a solution that leaves the check false passed")
	}
	got := r.Problems.Error()
	for _, want := range []string{"bad.yaml:6: step 1:", `the solution ends and the step is not done`, "spec.replicas", "2"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems:\n%s\nwant %q in them", got, want)
		}
	}
}

// TestEarlyCheck: a check that is already true when its step begins is
// reported (any command would pass the step).
func TestEarlyCheck(t *testing.T) {
	src := strings.Replace(good, `count(deployments, .metadata.name == "web") == 1`, `count(nodes, true) == 3`, 1)
	l, err := Load(fstest.MapFS{"bad.yaml": {Data: []byte(src)}}, "bad.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if r := Run(l); !strings.Contains(r.Problems.Error(), "already passes when the step begins") {
		t.Errorf("problems = %v; want the early check reported", r.Problems)
	}
}

// TestProgress: progress survives a save and load, and a corrupt file is a
// warning and a fresh start, never a crash.
func TestProgress(t *testing.T) {
	dir := t.TempDir()
	ps := &ProgressStore{Path: filepath.Join(dir, "kubeloop", "progress.json")}
	p, warn := ps.Load()
	if warn != "" || len(p.Lessons) != 0 {
		t.Fatalf("Load of a missing file = %v, %q; want empty, no warning", p.Lessons, warn)
	}
	p.Lessons["declare"] = &LessonProgress{Step: 2}
	if err := ps.Save(p); err != nil {
		t.Fatal(err)
	}
	p2, warn := ps.Load()
	if warn != "" || p2.Lessons["declare"] == nil || p2.Lessons["declare"].Step != 2 {
		t.Fatalf("Load after Save = %+v, %q; want declare at step 2", p2.Lessons["declare"], warn)
	}
	entries, _ := os.ReadDir(filepath.Dir(ps.Path))
	if len(entries) != 1 {
		t.Errorf("Save left %d files; want only progress.json (no temporary files)", len(entries))
	}
	for _, corrupt := range []string{"{not json", "", `{"lessons": 3}`, "\x00\x01"} {
		os.WriteFile(ps.Path, []byte(corrupt), 0o644)
		p3, warn := ps.Load()
		if !strings.Contains(warn, "corrupt") || len(p3.Lessons) != 0 {
			t.Errorf("Load(%q) = %v, %q; want a fresh start and a warning", corrupt, p3.Lessons, warn)
		}
		if err := ps.Save(p3); err != nil {
			t.Errorf("Save after a corrupt file: %v", err)
		}
	}
}

// TestTraceCheck: a step with a trace query passes when a matching event
// happens after the step began, and not on events from before it.
func TestTraceCheck(t *testing.T) {
	src := `id: tiny
title: Tiny
steps:
- title: Bind
  text: make a pod that gets bound
  trace: {component: scheduler, column: schedule, object: pod/, message: Bound}
  explain: done
- title: Kubelet
  text: scale up
  trace: {component: kubelet, message: started container}
  explain: done
solution:
- create deployment web --image=nginx:1.27
- scale deployment web --replicas=2
- advance 10s
`
	l, err := Load(fstest.MapFS{"t.yaml": {Data: []byte(src)}}, "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := Run(l)
	if !r.OK() {
		t.Fatalf("trace checks: %v", r.Problems)
	}
	// The kubelet step passed only with advance, not with the scale: the
	// pods' containers start after the image pull.
	if got := l.stepSolution(1); len(got) != 2 || got[1] != "advance 10s" {
		t.Errorf("step 2 ran %q; want the scale and the advance", got)
	}
}
