package repl

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/expr-lang/expr"

	"github.com/kubeloop/kubeloop/engine/sim"
)

// testPod is a pod in its JSON shape, as expressions see it.
const testPod = `{
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "api-1", "namespace": "default", "labels": {"app": "api"},
               "creationTimestamp": "2025-01-01T00:00:30Z"},
  "spec": {"nodeName": "n2"},
  "status": {"phase": "Running",
             "conditions": [{"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": "True"}],
             "containerStatuses": [{"name": "a", "restartCount": 2}, {"name": "b", "restartCount": 1}]}
}`

func TestExprHelpers(t *testing.T) {
	var out bytes.Buffer
	s := NewSession(&out, &out, Config{})
	s.Eng.Advance(90 * sim.Second)
	var pod map[string]any
	if err := json.Unmarshal([]byte(testPod), &pod); err != nil {
		t.Fatal(err)
	}
	bare := map[string]any{"metadata": map[string]any{"name": "bare"}}
	env := map[string]any{"pods": []any{pod, bare}, "now": "2025-01-01T00:01:30Z"}
	tests := []struct{ src, want string }{
		{`ready(pods[0])`, "true"},
		{`ready(pods[1])`, "false"},
		{`phase(pods[0])`, `"Running"`},
		{`phase(pods[1])`, `""`},
		{`restarts(pods[0])`, "3"},
		{`restarts(pods[1])`, "0"},
		{`age(pods[0])`, "60"},
		{`since(now)`, "0"},
		{`duration("5m")`, "300"},
		{`age(pods[0]) < duration("2m")`, "true"},
		{`labels(pods[0]).app`, `"api"`},
		{`labels(pods[1])`, "{}"},
		{`name(pods[0])`, `"api-1"`},
		{`node(pods[0])`, `"n2"`},
		{`count(pods, .status.phase == "Running")`, "1"},
		{`count(pods, .status.phase == "Running" && .metadata.deletionTimestamp == nil)`, "1"},
		{`map(filter(pods, ready(#)), name(#))`, `["api-1"] (1 item)`},
		{`find(pods, .metadata.name == "api-1")`, "pod default/api-1"},
		{`pods`, `[pod default/api-1, {"metadata":{"name":"bare"}}] (2 items)`},
		{`pods[5]`, "nil"},
		{`pods[5].status.phase`, "nil"},
		{`pods[-1].metadata.name`, `"bare"`},
		{`pods[-3]`, "nil"},
		{`pods[0].metadata.labels["app"]`, `"api"`},
		{`pods[1].metadata.labels["app"]`, "nil"},
		{`pods[0].status.conditions[9].type`, "nil"},
		{`filter(pods, .metadata.name == "none")[0].status`, "nil"},
		{`1.5 + 1`, "2.5"},
		{`now`, `"2025-01-01T00:01:30Z"`},
	}
	for _, tt := range tests {
		prog, err := expr.Compile(tt.src, s.exprOptions()...)
		if err != nil {
			t.Errorf("compile %s: %v", tt.src, err)
			continue
		}
		v, err := expr.Run(prog, env)
		if err != nil {
			t.Errorf("run %s: %v", tt.src, err)
			continue
		}
		if got := shortValue(v); got != tt.want {
			t.Errorf("%s = %s; want %s", tt.src, got, tt.want)
		}
	}
}

func TestExprUsesOnlyWhatItNames(t *testing.T) {
	var out bytes.Buffer
	s := NewSession(&out, &out, Config{})
	tests := []struct {
		src   string
		uses  string
		timed bool
	}{
		{`count(pods, .status.phase == "Running") == 3`, "pods", false},
		{`len(nodes) + len(events) > 0`, "nodes events", false},
		{`all(deployments, age(#) > 10)`, "deployments", true},
		{`now > "2025"`, "", true},
		{`1 + 1`, "", false},
		{`let p = pods; len(p)`, "pods", false},
	}
	for _, tt := range tests {
		c, err := s.compileExpr(tt.src)
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		var names []string
		for _, l := range c.uses {
			names = append(names, l.name)
		}
		if got := strings.Join(names, " "); got != tt.uses || c.timeDependent != tt.timed {
			t.Errorf("%s: uses %q, time-dependent %v; want %q, %v", tt.src, got, c.timeDependent, tt.uses, tt.timed)
		}
		env := s.exprEnv(c)
		if len(env) != 1+len(c.uses) {
			t.Errorf("%s: environment has %d names; want now and the %d lists used", tt.src, len(env), len(c.uses))
		}
	}
}

func TestExprErrors(t *testing.T) {
	var out bytes.Buffer
	s := NewSession(&out, &out, Config{})
	tests := []struct{ src, want string }{
		{`count(pods, .status.phase == "Running"`, "unexpected token EOF\n  count(pods, .status.phase == \"Running\"\n  " + strings.Repeat(" ", 37) + "^"}, // expr points at the last token
		{`len(podz)`, "unknown name podz (did you mean pods?)\n  len(podz)\n      ^"},
		{`frobnicate == 1`, "unknown name frobnicate (the lists are pods, nodes, deployments, replicasets, services, endpointslices, hpas, events, namespaces, pdbs, priorityclasses)\n  frobnicate == 1\n  ^"},
	}
	for _, tt := range tests {
		_, err := s.compileExpr(tt.src)
		if err == nil || err.Error() != tt.want {
			t.Errorf("compile %s:\n got %v\nwant %s", tt.src, err, tt.want)
		}
	}
	// expr's own now() would read the wall clock: it is replaced.
	if _, err := s.compileExpr(`now()`); err == nil {
		t.Errorf("now() compiled; the wall-clock builtin must not be reachable")
	}
}

func TestAssertExplains(t *testing.T) {
	var out bytes.Buffer
	s := NewSession(&out, &out, Config{})
	s.Eng.Advance(sim.Minute)
	tests := []struct{ line, want string }{
		{`assert count(nodes, .metadata.name startsWith "n") == 4 && len(pods) == 0`,
			"assertion failed: count(nodes, .metadata.name startsWith \"n\") == 4 && len(pods) == 0\n" +
				"  count(nodes, .metadata.name startsWith \"n\") = 3\n" +
				"  len(pods) = 0\n" +
				"  now = 2025-01-01T00:01:00Z (virtual time 1m, seed 1)\n"},
		{`assert find(deployments, .metadata.name == "api").status.availableReplicas == 3`,
			"assertion failed: find(deployments, .metadata.name == \"api\").status.availableReplicas == 3\n" +
				"  find(deployments, .metadata.name == \"api\") = nil\n" +
				"  find(deployments, .metadata.name == \"api\").status.availableReplicas = nil\n" +
				"  now = 2025-01-01T00:01:00Z (virtual time 1m, seed 1)\n"},
		{`assert pods[0].metadata.name == "x"`,
			"assertion failed: pods[0].metadata.name == \"x\"\n" +
				"  pods[0].metadata.name = nil\n" +
				"  now = 2025-01-01T00:01:00Z (virtual time 1m, seed 1)\n"},
		{`assert len(nodes)`, "len(nodes) is 3, not true or false; compare it with something (== 3, > 0)\n" +
			"  len(nodes) = 3\n  now = 2025-01-01T00:01:00Z (virtual time 1m, seed 1)\n"},
		{`assert !(len(nodes) == 3)`, "assertion failed: !(len(nodes) == 3)\n  len(nodes) = 3\n  now = 2025-01-01T00:01:00Z (virtual time 1m, seed 1)\n"},
	}
	for _, tt := range tests {
		out.Reset()
		if err := s.Exec(tt.line); err == nil {
			t.Errorf("%s passed", tt.line)
		}
		if out.String() != tt.want {
			t.Errorf("%s printed:\n%s\nwant:\n%s", tt.line, out.String(), tt.want)
		}
	}
	out.Reset()
	if err := s.Exec(`assert len(nodes) == 3 && all(nodes, .metadata.labels["kubernetes.io/os"] == "linux")`); err != nil || out.Len() > 0 {
		t.Errorf("a true assert: %v, printed %q", err, out.String())
	}
}

func TestUntil(t *testing.T) {
	var out bytes.Buffer
	s := NewSession(&out, &out, Config{})
	// A condition on time alone holds at the first instant it is checked
	// after 45s: until stops there and does not run on to the timeout.
	if err := s.Exec(`until since("2025-01-01T00:00:00Z") >= 45 --timeout 2m -q`); err != nil {
		t.Fatalf("until: %v\n%s", err, out.String())
	}
	if now := s.Now(); now < 45*sim.Second || now > 2*sim.Minute {
		t.Errorf("until stopped at %s", FormatTick(now))
	}
	// A condition already true takes no time.
	before := s.Now()
	if err := s.Exec(`until len(nodes) == 3`); err != nil || s.Now() != before {
		t.Errorf("until of a true condition: %v, moved time to %s", err, FormatTick(s.Now()))
	}
	// A timeout fails and says what it saw, after exactly the timeout.
	out.Reset()
	before = s.Now()
	err := s.Exec(`until len(nodes) == 4 --timeout 90s`)
	if err == nil || s.Now() != before+90*sim.Second {
		t.Errorf("until timeout: err %v, time %s", err, FormatTick(s.Now()))
	}
	if !strings.Contains(out.String(), "timed out after 1m30s waiting for: len(nodes) == 4\n  len(nodes) = 3\n") {
		t.Errorf("until timeout printed:\n%s", out.String())
	}
}

func TestAdvanceInterrupt(t *testing.T) {
	var out bytes.Buffer
	s := NewSession(&out, &out, Config{})
	n := 0
	withCommand(t, &Command{Name: "test-long", Usage: "test-long", Run: func(s *Session, _ []string, _ string) error {
		// Interrupt after the first chunk, as Ctrl-C from a signal handler would.
		_, err := s.advanceBy(sim.Hour, func() bool {
			if n++; n == 2 {
				s.Interrupt()
			}
			return false
		})
		return err
	}})
	err := s.Exec("test-long")
	if err == nil || !strings.HasPrefix(err.Error(), "interrupted at ") {
		t.Fatalf("error %v; want interrupted", err)
	}
	if now := s.Now(); now%advanceChunk != 0 || now >= sim.Hour {
		t.Errorf("stopped at %s; want a whole chunk before 1h", FormatTick(now))
	}
	// The next command starts uninterrupted.
	if err := s.Exec("advance 30s -q"); err != nil {
		t.Errorf("advance after an interrupt: %v", err)
	}
}

func TestExprTrailingComment(t *testing.T) {
	var out bytes.Buffer
	s := NewSession(&out, &out, Config{})
	for _, line := range []string{
		`assert len(nodes) == 3   # three nodes`,
		`assert count(nodes, # != nil) == 3`,
		`assert count(nodes, # != nil) == 3 # "#" is also the current element`,
		`assert "a # b" == "a # b" # quoted`,
		`until len(nodes) == 3 --timeout 1m  # already true`,
		`until len(nodes) == 3 # no flags`,
	} {
		out.Reset()
		if err := s.Exec(line); err != nil || out.Len() > 0 {
			t.Errorf("%s: %v\n%s", line, err, out.String())
		}
	}
	if err := s.Exec(`assert len(nodes) == 4 # not three`); err == nil {
		t.Errorf("a comment hid a failing assert")
	}
}
