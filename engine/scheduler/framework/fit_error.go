package framework

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// NodeStatus is one rejected node and the status of the filter that
// rejected it.
type NodeStatus struct {
	Node   *NodeInfo
	Status *Status
}

// NodeToStatus records why nodes were rejected in one attempt: an explicit
// status for every node the filters ran on and rejected, and one status for
// every node they never ran on (kube's framework.NodeToStatus). It is a
// slice, reused from attempt to attempt, rather than a map.
type NodeToStatus struct {
	entries []NodeStatus
	absent  *Status
}

// defaultAbsentStatus is what kube's NewDefaultNodeToStatus gives nodes
// never evaluated.
var defaultAbsentStatus = NewStatus(UnschedulableAndUnresolvable)

// NewNodeToStatus returns an empty record.
func NewNodeToStatus() *NodeToStatus { return &NodeToStatus{absent: defaultAbsentStatus} }

// Reset empties the record, keeping its storage.
func (m *NodeToStatus) Reset() {
	clear(m.entries)
	m.entries = m.entries[:0]
	m.absent = defaultAbsentStatus
}

// Set records node's rejection.
func (m *NodeToStatus) Set(node *NodeInfo, s *Status) {
	m.entries = append(m.entries, NodeStatus{Node: node, Status: s})
}

// Len is the number of nodes with an explicit status.
func (m *NodeToStatus) Len() int { return len(m.entries) }

// Entries are the explicit statuses, in the order the nodes were evaluated.
// The slice is reused by the next attempt: do not keep it.
func (m *NodeToStatus) Entries() []NodeStatus { return m.entries }

// AbsentNodesStatus is the status of every node without an explicit one.
func (m *NodeToStatus) AbsentNodesStatus() *Status { return m.absent }

// SetAbsentNodesStatus sets it.
func (m *NodeToStatus) SetAbsentNodesStatus(s *Status) { m.absent = s }

// Diagnosis is what a failed attempt found out (kube's framework.Diagnosis).
type Diagnosis struct {
	NodeToStatus *NodeToStatus
	// UnschedulablePlugins are the plugins that rejected the pod anywhere.
	UnschedulablePlugins PluginSet
	// PreFilterMsg is set when a PreFilter plugin rejected the pod outright.
	PreFilterMsg string
	// PostFilterMsg is what preemption said ("preemption: ...").
	PostFilterMsg string
}

// NoNodeAvailableMsg starts every FitError.
const NoNodeAvailableMsg = "0/%v nodes are available"

// FitError says why no node could run a pod. Its Error text is the
// message of the FailedScheduling event and of the PodScheduled condition.
type FitError struct {
	NumAllNodes int
	Diagnosis   Diagnosis
}

// Error renders kube's FitError.Error (pkg/scheduler/framework/types.go,
// 1.30+): "0/N nodes are available: " then either the PreFilter message or a
// histogram "<count> <reason>" over the rejected nodes, sorted as strings
// and joined by ", ", each part ending in "."; then the PostFilter message.
// A node rejected for two reasons counts under both.
func (f *FitError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, NoNodeAvailableMsg+":", f.NumAllNodes)
	d := f.Diagnosis
	if d.PreFilterMsg != "" {
		b.WriteString(" " + d.PreFilterMsg + ".")
	} else if hist := f.histogram(); len(hist) > 0 {
		b.WriteString(" " + strings.Join(hist, ", ") + ".")
	}
	if d.PostFilterMsg != "" {
		b.WriteString(" " + d.PostFilterMsg)
	}
	return b.String()
}

func (f *FitError) histogram() []string {
	m := f.Diagnosis.NodeToStatus
	if m == nil {
		return nil
	}
	counts := map[string]int{}
	for _, e := range m.entries {
		for _, r := range e.Status.Reasons() {
			counts[r]++
		}
	}
	if absent := f.NumAllNodes - m.Len(); absent > 0 {
		for _, r := range m.absent.Reasons() {
			counts[r] += absent
		}
	}
	out := make([]string, 0, len(counts))
	for r, n := range counts {
		out = append(out, strconv.Itoa(n)+" "+r)
	}
	sort.Strings(out) // lexicographic, as kube sorts them: "10 x" before "2 y"
	return out
}
