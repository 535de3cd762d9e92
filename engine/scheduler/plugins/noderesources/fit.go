package noderesources

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
)

// FitName is the NodeResourcesFit plugin's name.
const FitName = "NodeResourcesFit"

// Reasons, in kube's words. Other resources read "Insufficient <name>".
const (
	ErrReasonTooManyPods                = "Too many pods"
	ErrReasonInsufficientCPU            = "Insufficient cpu"
	ErrReasonInsufficientMemory         = "Insufficient memory"
	ErrReasonInsufficientEphemeralStore = "Insufficient ephemeral-storage"
	// ErrReasonInsufficient starts the reason for any other resource.
	ErrReasonInsufficient = "Insufficient "
)

// Fit checks that a node has room for a pod, and scores nodes by how much
// room they keep (LeastAllocated).
type Fit struct{}

var (
	_ framework.FilterPlugin      = (*Fit)(nil)
	_ framework.ScorePlugin       = (*Fit)(nil)
	_ framework.NodesScorer       = (*Fit)(nil)
	_ framework.EnqueueExtensions = (*Fit)(nil)
)

// Name implements framework.Plugin.
func (*Fit) Name() string { return FitName }

// InsufficientResource describes one resource a node is short of.
type InsufficientResource struct {
	ResourceName corev1.ResourceName
	Reason       string
	Requested    int64
	Used         int64
	Capacity     int64
	// Unresolvable is set when the pod asks for more than the whole node
	// has: no preemption could make room.
	Unresolvable bool
}

// Fits lists what the node lacks to run the pod (nil if it has room),
// following kube's fitsRequest: one more pod must fit under the pod count;
// then, for every resource the pod requests, request <= allocatable minus
// the requests of the pods already there. Limits are never used.
func Fits(pi *framework.PodInfo, ni *framework.NodeInfo) []InsufficientResource {
	var out []InsufficientResource
	req, used, alloc := &pi.Requests, &ni.Requested, &ni.Allocatable
	if len(ni.Pods)+1 > alloc.AllowedPodNumber {
		out = append(out, InsufficientResource{corev1.ResourcePods, ErrReasonTooManyPods, 1, int64(len(ni.Pods)), int64(alloc.AllowedPodNumber), false})
	}
	if req.IsZero() {
		return out
	}
	check := func(name corev1.ResourceName, reason string, r, u, a int64) {
		if r > 0 && r > a-u {
			out = append(out, InsufficientResource{name, reason, r, u, a, r > a})
		}
	}
	check(corev1.ResourceCPU, ErrReasonInsufficientCPU, req.MilliCPU, used.MilliCPU, alloc.MilliCPU)
	check(corev1.ResourceMemory, ErrReasonInsufficientMemory, req.Memory, used.Memory, alloc.Memory)
	check(corev1.ResourceEphemeralStorage, ErrReasonInsufficientEphemeralStore, req.EphemeralStorage, used.EphemeralStorage, alloc.EphemeralStorage)
	for _, s := range req.Scalar {
		check(s.Name, ErrReasonInsufficient+string(s.Name), s.Value, used.ScalarValue(s.Name), alloc.ScalarValue(s.Name))
	}
	return out
}

// The common outcomes are made once: a bit per reason (pods, cpu, memory,
// ephemeral-storage), and whether any is unresolvable, index a status, so
// rejecting thousands of nodes allocates nothing.
const (
	bitPods = 1 << iota
	bitCPU
	bitMemory
	bitEphemeral
	numBits = iota
)

var commonStatuses = func() (out [2][1 << numBits]*framework.Status) {
	reasons := []string{ErrReasonTooManyPods, ErrReasonInsufficientCPU, ErrReasonInsufficientMemory, ErrReasonInsufficientEphemeralStore}
	for mask := 1; mask < 1<<numBits; mask++ {
		var rs []string
		for b, r := range reasons {
			if mask&(1<<b) != 0 {
				rs = append(rs, r)
			}
		}
		out[0][mask] = framework.NewStatus(framework.Unschedulable, rs...)
		out[1][mask] = framework.NewStatus(framework.UnschedulableAndUnresolvable, rs...)
	}
	return out
}()

// Filter implements framework.FilterPlugin. The node is Unschedulable when
// it is short of room (preempting pods might free it), and
// UnschedulableAndUnresolvable when the pod asks for more of a resource
// than the node has in all (k/k 1.3x fit.go).
func (*Fit) Filter(_ *framework.CycleState, pi *framework.PodInfo, ni *framework.NodeInfo) *framework.Status {
	req, used, alloc := &pi.Requests, &ni.Requested, &ni.Allocatable
	mask, unresolvable := 0, 0
	if len(ni.Pods)+1 > alloc.AllowedPodNumber {
		mask |= bitPods
	}
	if req.MilliCPU > 0 && req.MilliCPU > alloc.MilliCPU-used.MilliCPU {
		mask |= bitCPU
		if req.MilliCPU > alloc.MilliCPU {
			unresolvable = 1
		}
	}
	if req.Memory > 0 && req.Memory > alloc.Memory-used.Memory {
		mask |= bitMemory
		if req.Memory > alloc.Memory {
			unresolvable = 1
		}
	}
	if req.EphemeralStorage > 0 && req.EphemeralStorage > alloc.EphemeralStorage-used.EphemeralStorage {
		mask |= bitEphemeral
		if req.EphemeralStorage > alloc.EphemeralStorage {
			unresolvable = 1
		}
	}
	if len(req.Scalar) == 0 {
		if mask == 0 {
			return nil
		}
		return commonStatuses[unresolvable][mask]
	}
	// Extended resources: rare, so build the status from Fits.
	ins := Fits(pi, ni)
	if len(ins) == 0 {
		return nil
	}
	code := framework.Unschedulable
	reasons := make([]string, len(ins))
	for i, r := range ins {
		reasons[i] = r.Reason
		if r.Unresolvable {
			code = framework.UnschedulableAndUnresolvable
		}
	}
	return framework.NewStatus(code, reasons...)
}

// LeastRequestedScore is one resource's LeastAllocated score:
// (allocatable − requested) × 100 / allocatable, 0 if requested exceeds
// allocatable or allocatable is 0 (k/k least_allocated.go).
func LeastRequestedScore(requested, allocatable int64) int64 {
	if allocatable == 0 || requested > allocatable {
		return 0
	}
	return (allocatable - requested) * framework.MaxNodeScore / allocatable
}

// LeastAllocated is the node's score: the weighted mean of cpu's and
// memory's LeastRequestedScore (weights 1 and 1 by default), where requested
// is the node's non-zero requests plus the pod's; resources the node has
// none of are left out.
func LeastAllocated(pi *framework.PodInfo, ni *framework.NodeInfo) int64 {
	var score, weights int64
	if a := ni.Allocatable.MilliCPU; a != 0 {
		score += LeastRequestedScore(ni.NonZeroRequested.MilliCPU+pi.NonZeroMilliCPU, a)
		weights++
	}
	if a := ni.Allocatable.Memory; a != 0 {
		score += LeastRequestedScore(ni.NonZeroRequested.Memory+pi.NonZeroMemory, a)
		weights++
	}
	switch weights { // a constant divisor, so the common case divides by a shift
	case 0:
		return 0
	case 1:
		return score
	}
	return score / 2
}

// Score implements framework.ScorePlugin with the default strategy,
// LeastAllocated: the emptier the node after placing the pod, the better.
func (*Fit) Score(_ *framework.CycleState, pi *framework.PodInfo, ni *framework.NodeInfo) (int64, *framework.Status) {
	return LeastAllocated(pi, ni), nil
}

// ScoreNodes implements framework.NodesScorer: Score on every node.
func (*Fit) ScoreNodes(_ *framework.CycleState, pi *framework.PodInfo, nodes []*framework.NodeInfo, scores []int64) *framework.Status {
	for i, ni := range nodes {
		scores[i] = LeastAllocated(pi, ni)
	}
	return nil
}

// ScoreExtensions implements framework.ScorePlugin: no normalisation, the
// scores are already 0..100.
func (*Fit) ScoreExtensions() framework.ScoreExtensions { return nil }

// EventsToRegister implements framework.EnqueueExtensions: an assigned pod
// deleted (or scaled down) frees room; a node added or given more
// allocatable may have room, if the pod would fit it when empty.
func (*Fit) EventsToRegister() []framework.ClusterEventWithHint {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.AssignedPod, ActionType: framework.Delete | framework.UpdatePodScaleDown}},
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeAllocatable},
			QueueingHintFn: isSchedulableAfterNodeChange},
	}
}

func isSchedulableAfterNodeChange(pod *corev1.Pod, _, newObj any) framework.QueueingHint {
	n, ok := newObj.(*corev1.Node)
	if !ok {
		return framework.QueueSkip
	}
	if len(Fits(framework.NewPodInfo(pod), framework.NewNodeInfo(n))) == 0 {
		return framework.Queue
	}
	return framework.QueueSkip
}
