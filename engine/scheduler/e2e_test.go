package scheduler_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeloop/kubeloop/engine"
	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/scheduler/internal/st"
	"github.com/kubeloop/kubeloop/engine/trace"
)

// create makes pods through the API server on behalf of a learner's
// command, as a test stands in for controllers that are not wired here.
func create(t testing.TB, e *engine.Engine, pods ...*corev1.Pod) {
	t.Helper()
	actor := e.Command("create pods")
	for _, p := range pods {
		p.UID = ""
		if _, err := e.API.Create(actor, p); err != nil {
			t.Fatalf("create %s: %v", p.Name, err)
		}
	}
}

func podNode(e *engine.Engine, name string) string {
	o, ok := e.Store.Lookup(kinds.Pod, "default", name)
	if !ok {
		return "<gone>"
	}
	return o.(*corev1.Pod).Spec.NodeName
}

func events(e *engine.Engine, reason string) []*corev1.Event {
	var out []*corev1.Event
	for _, o := range e.Store.List(kinds.Event, "") {
		if ev := o.(*corev1.Event); ev.Reason == reason {
			out = append(out, ev)
		}
	}
	return out
}

func TestSchedulesAndExplains(t *testing.T) {
	e := engine.New(engine.Config{Nodes: engine.DefaultNodes(3)})
	create(t, e, st.MakePod().Name("web").Req("500m", "1Gi").Obj())
	e.Settle()
	node := podNode(e, "web")
	if node == "" {
		t.Fatalf("pod not bound")
	}
	evs := events(e, "Scheduled")
	if len(evs) != 1 || evs[0].Message != "Successfully assigned default/web to "+node || evs[0].Source.Component != "default-scheduler" {
		t.Fatalf("Scheduled events = %+v", evs)
	}
	ds := e.Scheduler().Explain("default", "web")
	if len(ds) != 1 || ds[0].Node != node || len(ds[0].Nodes) != 3 {
		t.Fatalf("Explain = %+v", ds)
	}
	t.Log("\n" + ds[0].Describe())
	var msgs []string
	for _, ev := range e.Trace.All() {
		if ev.Component == "scheduler" {
			msgs = append(msgs, ev.Message)
		}
	}
	t.Log(strings.Join(msgs, "\n"))
}

func TestUnschedulableThenNodeJoins(t *testing.T) {
	e := engine.New(engine.Config{Nodes: engine.DefaultNodes(3)})
	create(t, e, st.MakePod().Name("big").Req("8", "1Gi").Obj())
	e.Settle()
	if n := podNode(e, "big"); n != "" {
		t.Fatalf("big bound to %s", n)
	}
	fs := events(e, "FailedScheduling")
	want := "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
	if len(fs) != 1 || fs[0].Message != want {
		t.Fatalf("FailedScheduling = %+v; want message %q", fs, want)
	}
	e.Advance(6 * 60 * 1000)
	fs = events(e, "FailedScheduling")
	if len(fs) != 1 || fs[0].Count != 2 {
		t.Fatalf("after 6m: %d events, count %d; want one event, count 2", len(fs), fs[0].Count)
	}
	actor := apiserver.Actor{Component: "kubectl"}
	cfg := engine.NodeConfig{Name: "n4", CPU: resource.MustParse("16")}
	_ = actor
	if err := e.AddNode(cfg); err != nil {
		t.Fatal(err)
	}
	e.Settle()
	if n := podNode(e, "big"); n != "" {
		t.Logf("bound at once to %s (backoff already over)", n)
	}
	e.Advance(20 * 1000)
	if n := podNode(e, "big"); n != "n4" {
		t.Fatalf("big on %q; want n4", n)
	}
	for _, ev := range e.Trace.All() {
		if ev.Component == "scheduler" && ev.Column == trace.Schedule {
			t.Logf("%s %s (cause %d)", ev.T, ev.Message, ev.Cause)
		}
	}
	for _, d := range e.Scheduler().Explain("default", "big") {
		t.Log("\n" + d.Describe())
	}
}
