package queuesort

import "github.com/kubeloop/kubeloop/engine/scheduler/framework"

// Name is the plugin's name.
const Name = "PrioritySort"

// PrioritySort orders the activeQ by priority, higher first, then by the
// time the pod entered the queue, earlier first.
type PrioritySort struct{}

var _ framework.QueueSortPlugin = (*PrioritySort)(nil)

// Name implements framework.Plugin.
func (*PrioritySort) Name() string { return Name }

// Less implements framework.QueueSortPlugin.
func (*PrioritySort) Less(a, b *framework.QueuedPodInfo) bool { return Less(a, b) }

// Less is kube's PrioritySort.Less, with the queue's arrival sequence as a
// final tie-break: kube's heap leaves equal pods in an unspecified order;
// kubeloop's order must be total to be reproducible.
func Less(a, b *framework.QueuedPodInfo) bool {
	pa, pb := a.Priority(), b.Priority()
	if pa != pb {
		return pa > pb
	}
	if a.Timestamp != b.Timestamp {
		return a.Timestamp < b.Timestamp
	}
	return a.Seq < b.Seq
}
