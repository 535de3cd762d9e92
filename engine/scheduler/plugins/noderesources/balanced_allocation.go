package noderesources

import (
	"math"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
)

// BalancedAllocationName is the NodeResourcesBalancedAllocation plugin's name.
const BalancedAllocationName = "NodeResourcesBalancedAllocation"

// BalancedAllocation prefers nodes where, after placing the pod, the share
// of cpu requested and the share of memory requested are close.
type BalancedAllocation struct{}

var (
	_ framework.PreScorePlugin = (*BalancedAllocation)(nil)
	_ framework.ScorePlugin    = (*BalancedAllocation)(nil)
	_ framework.NodesScorer    = (*BalancedAllocation)(nil)
)

// Name implements framework.Plugin.
func (*BalancedAllocation) Name() string { return BalancedAllocationName }

// PreScore implements framework.PreScorePlugin: a BestEffort pod (no cpu or
// memory requests) is not scored, so that pods without requests do not all
// pile onto one node (kube issue #129138, 1.33+).
func (*BalancedAllocation) PreScore(_ *framework.CycleState, pi *framework.PodInfo, _ []*framework.NodeInfo) *framework.Status {
	if pi.Requests.MilliCPU == 0 && pi.Requests.Memory == 0 {
		return statusSkip
	}
	return nil
}

// BalancedResourceScore is the score for the given requested and
// allocatable amounts per resource: each fraction requested/allocatable is
// capped at 1; with two resources std = |f1 − f2| / 2, with more the
// population standard deviation; score = int((1 − std) × 100). Resources
// the node has none of are left out (k/k balanced_allocation.go).
func BalancedResourceScore(requested, allocatable []int64) int64 {
	var fractions [8]float64
	n := 0
	var total float64
	for i := range requested {
		if allocatable[i] == 0 || n == len(fractions) {
			continue
		}
		f := float64(requested[i]) / float64(allocatable[i])
		if f > 1 {
			f = 1
		}
		total += f
		fractions[n] = f
		n++
	}
	std := 0.0
	switch {
	case n == 2:
		std = math.Abs((fractions[0] - fractions[1]) / 2)
	case n > 2:
		mean := total / float64(n)
		var sum float64
		for _, f := range fractions[:n] {
			sum += (f - mean) * (f - mean)
		}
		std = math.Sqrt(sum / float64(n))
	}
	return int64((1 - std) * float64(framework.MaxNodeScore))
}

// Score implements framework.ScorePlugin. Unlike LeastAllocated, it uses the
// actual requests (no 100m/200Mi substitution): useRequested in kube.
func (*BalancedAllocation) Score(_ *framework.CycleState, pi *framework.PodInfo, ni *framework.NodeInfo) (int64, *framework.Status) {
	return balancedScore(pi, ni), nil
}

// ScoreNodes implements framework.NodesScorer: Score on every node.
func (*BalancedAllocation) ScoreNodes(_ *framework.CycleState, pi *framework.PodInfo, nodes []*framework.NodeInfo, scores []int64) *framework.Status {
	for i, ni := range nodes {
		scores[i] = balancedScore(pi, ni)
	}
	return nil
}

func balancedScore(pi *framework.PodInfo, ni *framework.NodeInfo) int64 {
	cpu, mem := ni.Allocatable.MilliCPU, ni.Allocatable.Memory
	if cpu == 0 || mem == 0 {
		req := [2]int64{ni.Requested.MilliCPU + pi.Requests.MilliCPU, ni.Requested.Memory + pi.Requests.Memory}
		alloc := [2]int64{cpu, mem}
		return BalancedResourceScore(req[:], alloc[:])
	}
	// The common case, two resources, without the general loop.
	f1 := min(float64(ni.Requested.MilliCPU+pi.Requests.MilliCPU)/float64(cpu), 1)
	f2 := min(float64(ni.Requested.Memory+pi.Requests.Memory)/float64(mem), 1)
	return int64((1 - math.Abs((f1-f2)/2)) * float64(framework.MaxNodeScore))
}

// ScoreExtensions implements framework.ScorePlugin: no normalisation.
func (*BalancedAllocation) ScoreExtensions() framework.ScoreExtensions { return nil }

// statusSkip is made once: every BestEffort pod is skipped.
var statusSkip = framework.NewStatus(framework.Skip)
