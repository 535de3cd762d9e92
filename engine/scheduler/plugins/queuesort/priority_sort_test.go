package queuesort

import (
	"testing"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/scheduler/internal/st"
	"github.com/kubeloop/kubeloop/engine/sim"
)

func TestLess(t *testing.T) {
	q := func(prio int32, ts sim.Tick, seq uint64) *framework.QueuedPodInfo {
		return &framework.QueuedPodInfo{PodInfo: framework.NewPodInfo(st.MakePod().Name("p").Priority(prio).Obj()), Timestamp: ts, Seq: seq}
	}
	tests := []struct {
		name string
		a, b *framework.QueuedPodInfo
		want bool
	}{
		{"higher priority first", q(10, 5, 2), q(0, 1, 1), true},
		{"lower priority later", q(0, 1, 1), q(10, 5, 2), false},
		{"equal priority: earlier first", q(0, 1, 2), q(0, 2, 1), true},
		{"equal everything: arrival order", q(0, 1, 1), q(0, 1, 2), true},
	}
	for _, tt := range tests {
		if got := Less(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: Less = %v; want %v", tt.name, got, tt.want)
		}
	}
}
