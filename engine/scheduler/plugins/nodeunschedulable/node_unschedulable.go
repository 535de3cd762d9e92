package nodeunschedulable

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
)

// Name is the plugin's name.
const Name = "NodeUnschedulable"

// Reasons, in kube's words.
const (
	// ErrReasonUnschedulable: the node is cordoned.
	ErrReasonUnschedulable = "node(s) were unschedulable"
	// ErrReasonUnknownCondition: the scheduler has no node object.
	ErrReasonUnknownCondition = "node(s) had unknown conditions"
)

// NodeUnschedulable filters out cordoned nodes.
type NodeUnschedulable struct{}

var (
	_ framework.FilterPlugin      = (*NodeUnschedulable)(nil)
	_ framework.EnqueueExtensions = (*NodeUnschedulable)(nil)
)

// Both failures are UnschedulableAndUnresolvable: preempting pods on a
// cordoned node would not let this pod in.
var (
	statusUnschedulable = framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonUnschedulable)
	statusUnknown       = framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonUnknownCondition)
)

var unschedulableTaint = corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}

// Name implements framework.Plugin.
func (*NodeUnschedulable) Name() string { return Name }

// Fits reports whether the node accepts the pod: it is not cordoned, or the
// pod tolerates node.kubernetes.io/unschedulable:NoSchedule.
func Fits(pod *corev1.Pod, node *corev1.Node) bool {
	return !node.Spec.Unschedulable || toleratesUnschedulable(pod)
}

func toleratesUnschedulable(pod *corev1.Pod) bool {
	for i := range pod.Spec.Tolerations {
		if pod.Spec.Tolerations[i].ToleratesTaint(&unschedulableTaint) {
			return true
		}
	}
	return false
}

// Filter implements framework.FilterPlugin.
func (*NodeUnschedulable) Filter(_ *framework.CycleState, pi *framework.PodInfo, ni *framework.NodeInfo) *framework.Status {
	if ni.Node() == nil {
		return statusUnknown
	}
	if ni.Unschedulable() && !toleratesUnschedulable(pi.Pod) {
		return statusUnschedulable
	}
	return nil
}

// EventsToRegister implements framework.EnqueueExtensions: a new node, or an
// uncordon (kube files spec.unschedulable changes under UpdateNodeTaint).
func (*NodeUnschedulable) EventsToRegister() []framework.ClusterEventWithHint {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeTaint},
			QueueingHintFn: isSchedulableAfterNodeChange},
		{Event: framework.ClusterEvent{Resource: framework.UnscheduledPod, ActionType: framework.UpdatePodToleration}},
	}
}

func isSchedulableAfterNodeChange(pod *corev1.Pod, _, newObj any) framework.QueueingHint {
	if n, ok := newObj.(*corev1.Node); ok && Fits(pod, n) {
		return framework.Queue
	}
	return framework.QueueSkip
}
