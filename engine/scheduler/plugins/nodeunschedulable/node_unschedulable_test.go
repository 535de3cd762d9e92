package nodeunschedulable

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/scheduler/internal/st"
)

func TestFilter(t *testing.T) {
	cordoned := st.MakeNode().Name("n").Unschedulable().Obj()
	tests := []struct {
		name string
		pod  *corev1.Pod
		node *corev1.Node
		want *framework.Status
	}{
		{"schedulable", st.MakePod().Name("p").Obj(), st.MakeNode().Name("n").Obj(), nil},
		{"cordoned", st.MakePod().Name("p").Obj(), cordoned,
			framework.NewStatus(framework.UnschedulableAndUnresolvable, "node(s) were unschedulable")},
		{"tolerates the unschedulable taint", st.MakePod().Name("p").
			Toleration(corev1.TaintNodeUnschedulable, corev1.TolerationOpExists, "", corev1.TaintEffectNoSchedule).Obj(), cordoned, nil},
	}
	for _, tt := range tests {
		got := (&NodeUnschedulable{}).Filter(nil, framework.NewPodInfo(tt.pod), framework.NewNodeInfo(tt.node))
		if got.Code() != tt.want.Code() || got.Message() != tt.want.Message() {
			t.Errorf("%s: Filter = %v; want %v", tt.name, got, tt.want)
		}
	}
}
