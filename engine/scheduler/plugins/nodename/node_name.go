package nodename

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
)

// Name is the plugin's name.
const Name = "NodeName"

// ErrReason is the reason for a node the pod does not name.
const ErrReason = "node(s) didn't match the requested node name"

// NodeName checks spec.nodeName.
type NodeName struct{}

var (
	_ framework.FilterPlugin      = (*NodeName)(nil)
	_ framework.EnqueueExtensions = (*NodeName)(nil)
)

var statusMismatch = framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReason)

// Name implements framework.Plugin.
func (*NodeName) Name() string { return Name }

// Fits reports whether the pod names no node or names this one.
func Fits(pod *corev1.Pod, nodeName string) bool {
	return pod.Spec.NodeName == "" || pod.Spec.NodeName == nodeName
}

// Filter implements framework.FilterPlugin.
func (*NodeName) Filter(_ *framework.CycleState, pi *framework.PodInfo, ni *framework.NodeInfo) *framework.Status {
	if !Fits(pi.Pod, ni.Name()) {
		return statusMismatch
	}
	return nil
}

// EventsToRegister implements framework.EnqueueExtensions: only a new node
// can be the one named.
func (*NodeName) EventsToRegister() []framework.ClusterEventWithHint {
	return []framework.ClusterEventWithHint{{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add}}}
}
