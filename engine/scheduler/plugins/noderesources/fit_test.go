package noderesources

import (
	"testing"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/scheduler/internal/st"
)

// node4x32 is scheduler_perf's node: 4 cpus, 32Gi, 110 pods, with the
// given pods bound to it.
func node4x32(pods ...*framework.PodInfo) *framework.NodeInfo {
	ni := framework.NewNodeInfo(st.MakeNode().Name("n1").Obj())
	for _, p := range pods {
		ni.AddPod(p)
	}
	return ni
}

func pod(cpu, mem string) *framework.PodInfo {
	return framework.NewPodInfo(st.MakePod().Name("p").Req(cpu, mem).Obj())
}

func TestFitFilter(t *testing.T) {
	tests := []struct {
		name     string
		pod      *framework.PodInfo
		node     *framework.NodeInfo
		wantCode framework.Code
		wantMsg  string
	}{
		{"fits an empty node", pod("100m", "500Mi"), node4x32(), framework.Success, ""},
		{"exactly full is fine", pod("1", "8Gi"), node4x32(pod("3", "24Gi")), framework.Success, ""},
		{"one millicore too many", pod("1001m", ""), node4x32(pod("3", "")), framework.Unschedulable, "Insufficient cpu"},
		{"cpu and memory", pod("2", "20Gi"), node4x32(pod("3", "16Gi")), framework.Unschedulable, "Insufficient cpu, Insufficient memory"},
		{"more than the node has at all: preemption cannot help", pod("8", ""), node4x32(), framework.UnschedulableAndUnresolvable, "Insufficient cpu"},
		{"no requests fit anywhere with room for a pod", pod("", ""), node4x32(pod("4", "32Gi")), framework.Success, ""},
		{"init containers: the largest counts, not the sum",
			framework.NewPodInfo(st.MakePod().Name("p").Req("1", "").InitReq("3", "", false).InitReq("3", "", false).Obj()),
			node4x32(pod("1", "")), framework.Success, ""},
		{"init container larger than the room left",
			framework.NewPodInfo(st.MakePod().Name("p").Req("1", "").InitReq("3500m", "", false).Obj()),
			node4x32(pod("1", "")), framework.Unschedulable, "Insufficient cpu"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := (&Fit{}).Filter(nil, tt.pod, tt.node)
			if st.Code() != tt.wantCode || st.Message() != tt.wantMsg {
				t.Errorf("Filter = %v; want %v: %q", st, tt.wantCode, tt.wantMsg)
			}
		})
	}
}

func TestFitTooManyPods(t *testing.T) {
	ni := framework.NewNodeInfo(st.MakeNode().Name("n1").Capacity("4", "32Gi", 2).Obj())
	ni.AddPod(pod("", ""))
	ni.AddPod(pod("", ""))
	got := (&Fit{}).Filter(nil, pod("5", ""), ni)
	if got.Code() != framework.UnschedulableAndUnresolvable || got.Message() != "Too many pods, Insufficient cpu" {
		t.Errorf("Filter = %v; want UnschedulableAndUnresolvable: Too many pods, Insufficient cpu", got)
	}
	ins := Fits(pod("5", ""), ni)
	if len(ins) != 2 || ins[0].Reason != ErrReasonTooManyPods || ins[0].Used != 2 || ins[0].Capacity != 2 || !ins[1].Unresolvable {
		t.Errorf("Fits = %+v", ins)
	}
}

// TestLeastAllocated checks k8s-facts §4.4's formula on worked examples: per
// resource (allocatable − requested) × 100 / allocatable, integer division,
// then the mean of cpu and memory.
func TestLeastAllocated(t *testing.T) {
	tests := []struct {
		name string
		pod  *framework.PodInfo
		node *framework.NodeInfo
		want int64
	}{
		// cpu (4000−100)×100/4000 = 97; memory (32768−500)×100/32768 = 98.47 → 98; (97+98)/2 = 97.
		{"100m/500Mi on an empty 4/32Gi node", pod("100m", "500Mi"), node4x32(), 97},
		// No requests count as 100m and 200Mi: 97 and 99 → 98.
		{"no requests: the non-zero defaults", pod("", ""), node4x32(), 98},
		// cpu (4000−4000) → 0; memory (32−24)/32 → 25; 12.
		{"cpu full, memory a quarter free", pod("1", "8Gi"), node4x32(pod("3", "16Gi")), 12},
		// Requested beyond allocatable scores 0, not negative.
		{"over-committed", pod("2", "8Gi"), node4x32(pod("3", "16Gi")), 12},
	}
	for _, tt := range tests {
		if got := st.ScoreEach(t, &Fit{}, nil, tt.pod, []*framework.NodeInfo{tt.node})[0]; got != tt.want {
			t.Errorf("%s: Score = %d; want %d", tt.name, got, tt.want)
		}
	}
}

// TestBalancedAllocation: fractions requested/allocatable (actual requests,
// capped at 1), std = |f1 − f2| / 2, score = int((1 − std) × 100).
func TestBalancedAllocation(t *testing.T) {
	tests := []struct {
		name string
		pod  *framework.PodInfo
		node *framework.NodeInfo
		want int64
	}{
		// 0.025 and 0.0152587890625: std 0.00487 → 99.51 → 99.
		{"100m/500Mi on 4/32Gi", pod("100m", "500Mi"), node4x32(), 99},
		// 0.75 and 0.25: std 0.25 → 75.
		{"3 cpu, 8Gi", pod("1", "4Gi"), node4x32(pod("2", "4Gi")), 75},
		// 5/4 capped to 1, and 0.5: std 0.25 → 75.
		{"over-committed cpu is capped", pod("3", "8Gi"), node4x32(pod("2", "8Gi")), 75},
		{"even", pod("2", "16Gi"), node4x32(), 100},
	}
	for _, tt := range tests {
		if got := st.ScoreEach(t, &BalancedAllocation{}, nil, tt.pod, []*framework.NodeInfo{tt.node})[0]; got != tt.want {
			t.Errorf("%s: Score = %d; want %d", tt.name, got, tt.want)
		}
	}
	if got := BalancedResourceScore([]int64{1, 2, 3}, []int64{4, 4, 4}); got != 79 {
		// fractions .25 .5 .75: population std 0.2041 → 79.58 → 79.
		t.Errorf("BalancedResourceScore(3 resources) = %d; want 79", got)
	}
	state := framework.NewCycleState()
	if st := (&BalancedAllocation{}).PreScore(state, pod("", ""), nil); !st.IsSkip() {
		t.Errorf("PreScore(BestEffort pod) = %v; want Skip", st)
	}
}
