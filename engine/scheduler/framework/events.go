package framework

import (
	corev1 "k8s.io/api/core/v1"
)

// EventResource is what a cluster event is about.
type EventResource uint8

// The resources kubeloop's scheduler reacts to. Pod, in a plugin's
// registration, matches both AssignedPod (a pod bound to a node) and
// UnscheduledPod (the waiting pod itself changed).
const (
	Pod EventResource = iota + 1
	AssignedPod
	UnscheduledPod
	Node
)

var resourceNames = []string{"", "Pod", "AssignedPod", "UnscheduledPod", "Node"}

func (r EventResource) String() string { return resourceNames[r] }

// ActionType is a bit set of what changed.
type ActionType uint32

// Actions, as in kube's framework.ActionType. The Update* bits say which
// part of the object changed.
const (
	Add ActionType = 1 << iota
	Delete
	UpdateNodeAllocatable
	UpdateNodeLabel
	UpdateNodeTaint
	UpdateNodeCondition
	UpdateNodeAnnotation
	UpdatePodLabel
	UpdatePodScaleDown
	UpdatePodToleration
	UpdatePodSchedulingGatesEliminated

	// Update is any update.
	Update = UpdateNodeAllocatable | UpdateNodeLabel | UpdateNodeTaint | UpdateNodeCondition | UpdateNodeAnnotation |
		UpdatePodLabel | UpdatePodScaleDown | UpdatePodToleration | UpdatePodSchedulingGatesEliminated
	// All is any action.
	All = Add | Delete | Update
)

var actionNames = []string{"Add", "Delete", "UpdateNodeAllocatable", "UpdateNodeLabel", "UpdateNodeTaint",
	"UpdateNodeCondition", "UpdateNodeAnnotation", "UpdatePodLabel", "UpdatePodScaleDown", "UpdatePodToleration",
	"UpdatePodSchedulingGatesEliminated"}

func (a ActionType) String() string {
	switch a {
	case All:
		return "All"
	case Update:
		return "Update"
	}
	s := ""
	for i, n := range actionNames {
		if a&(1<<uint(i)) != 0 {
			if s != "" {
				s += "|"
			}
			s += n
		}
	}
	return s
}

// ClusterEvent is a change in the cluster that may make a waiting pod
// schedulable: "a node was added", "an assigned pod was deleted".
type ClusterEvent struct {
	Resource   EventResource
	ActionType ActionType
}

// Label names the event as kube's metrics do: "NodeAdd", "AssignedPodDelete".
func (e ClusterEvent) Label() string { return e.Resource.String() + e.ActionType.String() }

// Matches reports whether an incoming event is one that a plugin registered
// for (reg).
func (reg ClusterEvent) Matches(in ClusterEvent) bool {
	if reg.ActionType&in.ActionType == 0 {
		return false
	}
	return reg.Resource == in.Resource || reg.Resource == Pod && (in.Resource == AssignedPod || in.Resource == UnscheduledPod)
}

// UnschedulableTimeout is the pseudo-event of the periodic flush that gives
// every pod parked as unschedulable for 5 minutes another try.
var UnschedulableTimeout = ClusterEvent{}

// QueueingHint is a plugin's answer to "could this event make the pod
// schedulable?".
type QueueingHint int

// The two hints.
const (
	// QueueSkip: the event cannot help; the pod stays parked.
	QueueSkip QueueingHint = iota
	// Queue: the event may help; retry the pod (after its backoff).
	Queue
)

// QueueingHintFn decides for one pod and one event. oldObj and newObj are
// the changed object's versions (*corev1.Node or *corev1.Pod; oldObj is nil
// for Add, newObj nil for Delete).
type QueueingHintFn func(pod *corev1.Pod, oldObj, newObj any) QueueingHint

// ClusterEventWithHint is an event a plugin registers for, with an optional
// hint function (nil means always Queue).
type ClusterEventWithHint struct {
	Event          ClusterEvent
	QueueingHintFn QueueingHintFn
}
