package scheduler_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/scheduler/internal/st"
	"github.com/kubeloop/kubeloop/engine/trace"
)

// TestEngineSchedules runs the scheduler inside the whole engine (whatever
// else engine.New wires): a pod created through the API server is bound,
// with kube's Scheduled event, a Schedule-column trace and an explanation.
func TestEngineSchedules(t *testing.T) {
	e := engine.New(engine.Config{Nodes: engine.DefaultNodes(3)})
	actor := e.Command("create pod web")
	p := st.MakePod().Name("web").Req("500m", "1Gi").Obj()
	p.UID = ""
	if _, err := e.API.Create(actor, p); err != nil {
		t.Fatal(err)
	}
	e.Settle()
	o, _ := e.Store.Lookup(kinds.Pod, "default", "web")
	node := o.(*corev1.Pod).Spec.NodeName
	if node == "" {
		t.Fatal("pod not bound")
	}
	var scheduled []*corev1.Event
	for _, o := range e.Store.List(kinds.Event, "") {
		if ev := o.(*corev1.Event); ev.Reason == "Scheduled" {
			scheduled = append(scheduled, ev)
		}
	}
	if len(scheduled) != 1 || scheduled[0].Message != "Successfully assigned default/web to "+node ||
		scheduled[0].ReportingController != "default-scheduler" || scheduled[0].Type != corev1.EventTypeNormal {
		t.Errorf("Scheduled events = %+v", scheduled)
	}
	ds := e.Scheduler().Explain("default", "web")
	if len(ds) != 1 || ds[0].Node != node || len(ds[0].Nodes) != 3 {
		t.Fatalf("Explain = %+v", ds)
	}
	var bound *trace.Event
	for _, ev := range e.Trace.All() {
		if ev.Component == "scheduler" && ev.Message == "Bound pod/web to "+node+" ("+ds[0].Rank()+")" {
			bound = &ev
		}
	}
	if bound == nil || bound.Column != trace.Schedule || bound.Lane != trace.ControlPlane || bound.Rev == 0 {
		t.Fatalf("no Bound trace event with a revision: %+v", bound)
	}
	// The chain leads back to the learner's command.
	chain := e.Trace.Chain(bound.Seq)
	if last := chain[len(chain)-1]; last.Component != "kubectl" || last.Message != "create pod web" {
		t.Errorf("chain ends at %+v; want the kubectl command", last)
	}
	if o, _ := e.Store.Lookup(kinds.Pod, "default", "web"); o.GetResourceVersion() == "" {
		t.Error("no resourceVersion")
	}
}
