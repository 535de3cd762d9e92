package schedulinggates

import (
	"fmt"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
)

// Name is the plugin's name.
const Name = "SchedulingGates"

// ErrReason starts the status of a gated pod: "waiting for scheduling
// gates: [example.com/quota]".
const ErrReason = "waiting for scheduling gates"

// SchedulingGates holds gated pods back.
type SchedulingGates struct{}

var (
	_ framework.PreEnqueuePlugin  = (*SchedulingGates)(nil)
	_ framework.EnqueueExtensions = (*SchedulingGates)(nil)
)

// Name implements framework.Plugin.
func (*SchedulingGates) Name() string { return Name }

// Gated reports whether the pod has scheduling gates left.
func Gated(pi *framework.PodInfo) bool { return len(pi.Pod.Spec.SchedulingGates) > 0 }

// PreEnqueue implements framework.PreEnqueuePlugin.
func (*SchedulingGates) PreEnqueue(pi *framework.PodInfo) *framework.Status {
	if !Gated(pi) {
		return nil
	}
	gates := make([]string, len(pi.Pod.Spec.SchedulingGates))
	for i, g := range pi.Pod.Spec.SchedulingGates {
		gates[i] = g.Name
	}
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("%s: %v", ErrReason, gates))
}

// EventsToRegister implements framework.EnqueueExtensions: removing the last
// gate makes the pod eligible.
func (*SchedulingGates) EventsToRegister() []framework.ClusterEventWithHint {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.UnscheduledPod, ActionType: framework.UpdatePodSchedulingGatesEliminated}},
	}
}
