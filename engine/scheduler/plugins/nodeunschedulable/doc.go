// Package nodeunschedulable is the NodeUnschedulable plugin: a cordoned
// node (spec.unschedulable, what `kubectl cordon` sets) takes no new pods,
// unless the pod tolerates the node.kubernetes.io/unschedulable taint.
package nodeunschedulable
