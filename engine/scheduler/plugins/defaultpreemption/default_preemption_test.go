package defaultpreemption

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/scheduler/internal/st"
)

func TestPostFilter(t *testing.T) {
	var nodes []*framework.NodeInfo
	for _, n := range []string{"n1", "n2", "n3"} {
		nodes = append(nodes, framework.NewNodeInfo(st.MakeNode().Name(n).Obj()))
	}
	m := framework.NewNodeToStatus()
	m.Set(nodes[0], framework.NewStatus(framework.UnschedulableAndUnresolvable, "node(s) had untolerated taint {k: }"))
	m.Set(nodes[1], framework.NewStatus(framework.Unschedulable, "Insufficient cpu"))
	m.Set(nodes[2], framework.NewStatus(framework.Unschedulable, "Insufficient cpu"))
	pod := framework.NewPodInfo(st.MakePod().Name("p").Obj())
	got := (&DefaultPreemption{}).PostFilter(nil, pod, nodes, m).Message()
	want := "preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."
	if got != want {
		t.Errorf("PostFilter = %q; want %q", got, want)
	}
	never := corev1.PreemptNever
	pod.Pod.Spec.PreemptionPolicy = &never
	if got := (&DefaultPreemption{}).PostFilter(nil, pod, nodes, m).Message(); got != "preemption: not eligible due to preemptionPolicy=Never." {
		t.Errorf("PostFilter(Never) = %q", got)
	}
}
