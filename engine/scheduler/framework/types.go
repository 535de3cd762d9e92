package framework

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine/sim"
)

// MaxNodeScore is the highest score a score plugin gives a node after
// normalisation; MinNodeScore the lowest.
const (
	MaxNodeScore int64 = 100
	MinNodeScore int64 = 0
)

// PodInfo is a pod with what the scheduler derives from it once per version
// of its spec, instead of once per node: its Demand, and its priority.
type PodInfo struct {
	Pod *corev1.Pod
	// Demand is shared, not owned: pods with equal requests (the replicas
	// of a ReplicaSet) may point to one Demand (see Demands), so it is
	// never changed in place; a new version of the pod's spec gets another.
	*Demand
	// priority is spec.priority (0 when unset), kept here because the
	// activeQ compares it O(log n) times per pop: reading it through Pod
	// would touch a cold Pod object at every step.
	priority int32
}

// Demand is what a pod asks of a node: its requests, as NodeResourcesFit
// checks them, and its non-zero requests, as scoring counts them.
type Demand struct {
	// Requests is what the pod requests (init-container rule, sidecars and
	// overhead included); zero for what it does not request.
	Requests Resource
	// NonZeroMilliCPU and NonZeroMemory are the requests with 100m and 200Mi
	// substituted for each container that requests no cpu or no memory.
	NonZeroMilliCPU int64
	NonZeroMemory   int64
}

// Demands shares Demand values between pods: every bound pod keeps a
// PodInfo for as long as it runs, and the 150 replicas of a ReplicaSet ask
// for the same, so they keep one Demand (64 bytes) instead of 150. The
// zero Demands is ready to use.
type Demands struct {
	byValue map[demandKey]*Demand
}

// demandKey is a Demand without scalar resources, as a map key (Demands
// with scalar resources are not shared: they are rare).
type demandKey struct {
	milliCPU, memory, ephemeralStorage int64
	allowedPodNumber                   int
	nonZeroMilliCPU, nonZeroMemory     int64
}

// maxDemands bounds the Demands kept for sharing; past it they are all
// dropped (the PodInfos that point to them keep theirs).
const maxDemands = 4096

// share returns a Demand equal to d: one already shared, or a copy of d,
// now shared.
func (t *Demands) share(d Demand) *Demand {
	if len(d.Requests.Scalar) > 0 {
		return owned(d)
	}
	r := &d.Requests
	k := demandKey{r.MilliCPU, r.Memory, r.EphemeralStorage, r.AllowedPodNumber, d.NonZeroMilliCPU, d.NonZeroMemory}
	if s := t.byValue[k]; s != nil {
		return s
	}
	if t.byValue == nil || len(t.byValue) >= maxDemands {
		t.byValue = map[demandKey]*Demand{}
	}
	s := owned(d)
	t.byValue[k] = s
	return s
}

// owned is a copy of d on the heap.
func owned(d Demand) *Demand {
	p := new(Demand)
	*p = d
	return p
}

// NewPodInfo computes a pod's derived scheduling data. Build PodInfos with
// it (or Update), not as literals: the derived fields must be filled in.
func NewPodInfo(pod *corev1.Pod) *PodInfo {
	pi := &PodInfo{}
	pi.Update(pod)
	return pi
}

// Update points the PodInfo at a new version of the pod, recomputing what
// depends on its spec, into a Demand of its own.
func (pi *PodInfo) Update(pod *corev1.Pod) { pi.update(pod, nil) }

// Update is PodInfo.Update with the pod's Demand shared through t.
func (t *Demands) Update(pi *PodInfo, pod *corev1.Pod) { pi.update(pod, t) }

// update points the PodInfo at a new version of the pod; shared, if not
// nil, shares the Demand.
//
// Most new versions of a pod are status writes, and a status write keeps
// the stored spec: the new object shares the old one's containers (the
// same backing array), which objects from the store never change in
// place. The Demand is then the one already computed, and is kept
// rather than summed again (see sameRequestSources).
func (pi *PodInfo) update(pod *corev1.Pod, shared *Demands) {
	old := pi.Pod
	pi.Pod = pod
	pi.priority = 0
	if p := pod.Spec.Priority; p != nil {
		pi.priority = *p
	}
	if old != nil && sameRequestSources(old, pod) {
		return
	}
	nz := PodRequests(pod, true)
	d := Demand{Requests: PodRequests(pod, false), NonZeroMilliCPU: nz.MilliCPU, NonZeroMemory: nz.Memory}
	if shared != nil {
		pi.Demand = shared.share(d)
		return
	}
	pi.Demand = owned(d)
}

// Key is the pod's namespace/name.
func (pi *PodInfo) Key() string { return pi.Pod.Namespace + "/" + pi.Pod.Name }

// Priority is the pod's priority (spec.priority, 0 when unset), which
// PrioritySort orders the queue by and preemption compares.
func (pi *PodInfo) Priority() int32 { return pi.priority }

// ImageStateSummary is what the scheduler knows of one image across the
// cluster: its size and how many nodes report having it (node.status.images).
// NodeInfos share one summary per image, so NumNodes is always current.
type ImageStateSummary struct {
	Size     int64
	NumNodes int
}

// NodeInfo is the scheduler's aggregate view of one node: the node object,
// the pods bound to it, and running sums the filters and scores read in
// constant time (kube's framework.NodeInfo).
type NodeInfo struct {
	// The fields every filter and score reads come first, together, so
	// that scanning a node touches as few cache lines as possible: at
	// 15,000 nodes the NodeInfos no longer fit in a core's cache, and the
	// filters read each one fresh.

	// Copies of the node fields every filter reads, kept next to the sums:
	// scanning 5,000 nodes should not touch 5,000 cold Node objects. The
	// node itself is here too: NodeUnschedulable, the first filter, checks
	// it is still there.
	name          string
	node          *corev1.Node
	taints        []corev1.Taint
	unschedulable bool
	// Index is the node's position in the scheduler cache's node list
	// (what DomainCounts are indexed by); -1 when not listed.
	Index int
	// Pods are the pods bound to the node that are not terminal, in the
	// order the scheduler learned of them.
	Pods []*PodInfo
	// Allocatable is node.status.allocatable (pods included).
	Allocatable Resource
	// NonZeroRequested is the sum of the pods' non-zero cpu and memory
	// (only those two: scoring reads nothing else of it).
	NonZeroRequested NonZeroResource
	// Requested is the sum of the pods' requests (NodeResourcesFit's
	// filter reads it only for what the pod requests).
	Requested Resource
	// ImageStates maps every name of every image the node reports to the
	// cluster-wide summary of that image.
	ImageStates map[string]*ImageStateSummary
	// Generation moves on every change.
	Generation int64
}

// NonZeroResource is cpu and memory with the scoring defaults substituted
// for containers that request none (kube keeps them in a Resource).
type NonZeroResource struct {
	MilliCPU int64
	Memory   int64
}

// NewNodeInfo returns an empty NodeInfo for node (which may be nil for a
// node the scheduler knows only from pods bound to it).
func NewNodeInfo(node *corev1.Node) *NodeInfo {
	n := &NodeInfo{Index: -1}
	if node != nil {
		n.SetNode(node)
	}
	return n
}

// Node is the node object (nil if the node was deleted while pods remain).
func (n *NodeInfo) Node() *corev1.Node { return n.node }

// Name is the node's name ("" once the node is deleted).
func (n *NodeInfo) Name() string { return n.name }

// Unschedulable is the node's spec.unschedulable (cordoned).
func (n *NodeInfo) Unschedulable() bool { return n.unschedulable }

// Taints are the node's spec.taints.
func (n *NodeInfo) Taints() []corev1.Taint { return n.taints }

// SetNode points the NodeInfo at a new version of the node.
func (n *NodeInfo) SetNode(node *corev1.Node) {
	n.node = node
	n.name, n.unschedulable, n.taints = node.Name, node.Spec.Unschedulable, node.Spec.Taints
	n.Allocatable = ResourceFromList(node.Status.Allocatable)
	n.Generation++
}

// RemoveNode forgets the node object, keeping the pods still bound to it.
func (n *NodeInfo) RemoveNode() {
	n.node = nil
	n.name, n.unschedulable, n.taints = "", false, nil
	n.Generation++
}

// AddPod accounts a pod bound to the node.
func (n *NodeInfo) AddPod(pi *PodInfo) {
	n.Pods = append(n.Pods, pi)
	n.addDemand(pi.Demand, 1)
	n.Generation++
}

// RemovePod removes a pod added with AddPod (matched by pointer) and reports
// whether it was there.
func (n *NodeInfo) RemovePod(pi *PodInfo) bool {
	for i, p := range n.Pods {
		if p != pi {
			continue
		}
		last := len(n.Pods) - 1
		n.Pods[i] = n.Pods[last]
		n.Pods[last] = nil
		n.Pods = n.Pods[:last]
		n.addDemand(pi.Demand, -1)
		n.Generation++
		return true
	}
	return false
}

// UpdatePod points a PodInfo added with AddPod at a new version of its pod
// (sharing its Demand through shared, if not nil) and reports whether it
// was there. The node ends as RemovePod then AddPod would leave it: the pod
// last in Pods, the order preemption lists victims in. The sums change only
// if the Demand did, which a status write, most writes to a bound pod,
// leaves as it was.
func (n *NodeInfo) UpdatePod(pi *PodInfo, pod *corev1.Pod, shared *Demands) bool {
	last := len(n.Pods) - 1
	for i, p := range n.Pods {
		if p != pi {
			continue
		}
		n.Pods[i], n.Pods[last] = n.Pods[last], pi
		old := pi.Demand
		pi.update(pod, shared)
		if pi.Demand != old {
			n.addDemand(old, -1)
			n.addDemand(pi.Demand, 1)
		}
		n.Generation++
		return true
	}
	return false
}

// addDemand adds (sign 1) or subtracts (sign -1) a pod's demand to the
// node's sums.
func (n *NodeInfo) addDemand(d *Demand, sign int64) {
	n.Requested.addSigned(&d.Requests, sign)
	n.NonZeroRequested.MilliCPU += sign * d.NonZeroMilliCPU
	n.NonZeroRequested.Memory += sign * d.NonZeroMemory
}

// QueuedPodInfo is a pod in the scheduling queue, with what the queue keeps
// about it (kube's framework.QueuedPodInfo).
type QueuedPodInfo struct {
	*PodInfo
	// Timestamp is when the pod was last added or re-added to the queue:
	// the activeQ orders equal priorities by it, and backoff counts from it.
	Timestamp sim.Tick
	// InitialAttemptTimestamp is when the pod was first popped.
	InitialAttemptTimestamp sim.Tick
	// Attempts counts scheduling attempts (incremented when popped).
	Attempts int
	// UnschedulablePlugins are the plugins that rejected the pod in its
	// last attempt: only cluster events those plugins care about move it
	// out of the unschedulable pods.
	UnschedulablePlugins PluginSet
	// Gated is set while a PreEnqueue plugin (SchedulingGates) holds the pod.
	Gated bool
	// Cause is the trace event that led to the pod's next attempt.
	Cause uint64
	// Seq breaks ties in the queue's orderings so that they are total: the
	// same inputs always give the same order.
	Seq uint64
}
