package nodename

import (
	"testing"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/scheduler/internal/st"
)

func TestFilter(t *testing.T) {
	n1 := framework.NewNodeInfo(st.MakeNode().Name("n1").Obj())
	tests := []struct {
		pod  string
		want string
	}{
		{"", ""},
		{"n1", ""},
		{"n2", "UnschedulableAndUnresolvable: node(s) didn't match the requested node name"},
	}
	for _, tt := range tests {
		got := (&NodeName{}).Filter(nil, framework.NewPodInfo(st.MakePod().Name("p").Node(tt.pod).Obj()), n1)
		s := ""
		if got != nil {
			s = got.String()
		}
		if s != tt.want {
			t.Errorf("Filter(nodeName %q, n1) = %q; want %q", tt.pod, s, tt.want)
		}
	}
}
