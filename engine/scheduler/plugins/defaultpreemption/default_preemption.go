package defaultpreemption

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
)

// Name is the plugin's name.
const Name = "DefaultPreemption"

// Reasons, in kube's words (pkg/scheduler/framework/preemption).
const (
	// ErrReasonNotHelpful: the node rejected the pod for a reason no
	// eviction can change (UnschedulableAndUnresolvable).
	ErrReasonNotHelpful = "Preemption is not helpful for scheduling"
	// ErrReasonNoVictims: no pod on the node has a lower priority.
	ErrReasonNoVictims = "No preemption victims found for incoming pod"
	// ErrReasonNeverPolicy: the pod's preemptionPolicy is Never.
	ErrReasonNeverPolicy = "not eligible due to preemptionPolicy=Never."
	// Prefix starts the PostFilter message.
	Prefix = "preemption: "
)

// DefaultPreemption explains why preemption cannot place a pod.
type DefaultPreemption struct{}

var _ framework.PostFilterPlugin = (*DefaultPreemption)(nil)

var (
	statusNotHelpful = framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonNotHelpful)
	statusNoVictims  = framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonNoVictims)
)

// Name implements framework.Plugin.
func (*DefaultPreemption) Name() string { return Name }

// HasLowerPriorityPods reports whether any pod on the node has a lower
// priority than p: the potential victims.
func HasLowerPriorityPods(ni *framework.NodeInfo, p int32) bool {
	for _, pi := range ni.Pods {
		if pi.Priority() < p {
			return true
		}
	}
	return false
}

// PostFilter implements framework.PostFilterPlugin. As kube's Evaluator:
// a pod with preemptionPolicy Never is not eligible; nodes whose rejection
// was UnschedulableAndUnresolvable are not helped by preemption; on the
// others, with no lower-priority pod, no victims are found. The result is a
// FitError over all nodes, prefixed "preemption: ".
//
// Victims are not computed yet: until the Placement issue brings
// PriorityClasses, every pod has priority 0, so no pod can preempt another
// and "No preemption victims found" is exactly what kube says. A node that
// does hold lower-priority pods (spec.priority set by hand) is reported the
// same way, which is kubeloop's simplification until then.
func (*DefaultPreemption) PostFilter(_ *framework.CycleState, pi *framework.PodInfo, nodes []*framework.NodeInfo, m *framework.NodeToStatus) *framework.Status {
	if pp := pi.Pod.Spec.PreemptionPolicy; pp != nil && *pp == corev1.PreemptNever {
		return framework.NewStatus(framework.Unschedulable, Prefix+ErrReasonNeverPolicy)
	}
	out := framework.NewNodeToStatus()
	explicit := make(map[*framework.NodeInfo]bool, m.Len())
	for _, e := range m.Entries() {
		explicit[e.Node] = true
		out.Set(e.Node, verdict(e.Status))
	}
	for _, n := range nodes {
		if !explicit[n] {
			out.Set(n, verdict(m.AbsentNodesStatus()))
		}
	}
	fe := &framework.FitError{NumAllNodes: len(nodes), Diagnosis: framework.Diagnosis{NodeToStatus: out}}
	return framework.NewStatus(framework.Unschedulable, Prefix+fe.Error())
}

func verdict(s *framework.Status) *framework.Status {
	if s.Code() == framework.UnschedulableAndUnresolvable {
		return statusNotHelpful
	}
	return statusNoVictims
}
