package controller

import (
	"fmt"
	"sort"
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/component"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/store"
	"github.com/kubeloop/kubeloop/engine/trace"
)

// NodeLifecycleControllerName is the node lifecycle controller's name in
// the trace; NodeControllerSource is the source of its Events, as
// kube-controller-manager names it.
const (
	NodeLifecycleControllerName = "node-lifecycle-controller"
	NodeControllerSource        = "node-controller"
)

// Numbers of the node lifecycle controller (kube-controller-manager flags,
// k8s-facts §6).
const (
	// NodeMonitorPeriod is --node-monitor-period: how often node health is checked.
	NodeMonitorPeriod = 5 * sim.Second
	// NodeMonitorGracePeriod is --node-monitor-grace-period (50 s since 1.32).
	NodeMonitorGracePeriod = 50 * sim.Second
	// NodeStartupGracePeriod is --node-startup-grace-period: the grace of a
	// node that never posted status.
	NodeStartupGracePeriod = sim.Minute
	// NodeEvictionPeriod is how often the NoExecute tainting pass runs
	// (scheduler.NodeEvictionPeriod, 100 ms).
	NodeEvictionPeriod = 100 * sim.Millisecond
	// NodeEvictionRate is --node-eviction-rate, nodes per second per zone.
	NodeEvictionRate = 0.1
	// SecondaryNodeEvictionRate is --secondary-node-eviction-rate, for an
	// unhealthy zone of a large cluster.
	SecondaryNodeEvictionRate = 0.01
	// UnhealthyZoneThreshold is --unhealthy-zone-threshold.
	UnhealthyZoneThreshold = 0.55
	// LargeClusterSizeThreshold is --large-cluster-size-threshold.
	LargeClusterSizeThreshold = 50
)

// The taints the node lifecycle controller manages (kubernetes/api
// well_known_taints.go) and the conditions they mirror.
var (
	// UnreachableTaintTemplate is the NoExecute taint of a silent node.
	UnreachableTaintTemplate = corev1.Taint{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute}
	// NotReadyTaintTemplate is the NoExecute taint of a node whose kubelet reports Ready=False.
	NotReadyTaintTemplate = corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute}
)

// nodeConditionTaints maps a node condition and status to the NoSchedule
// taint that mirrors it (nodeConditionToTaintKeyStatusMap).
var nodeConditionTaints = map[corev1.NodeConditionType]map[corev1.ConditionStatus]string{
	corev1.NodeReady:              {corev1.ConditionFalse: corev1.TaintNodeNotReady, corev1.ConditionUnknown: corev1.TaintNodeUnreachable},
	corev1.NodeMemoryPressure:     {corev1.ConditionTrue: corev1.TaintNodeMemoryPressure},
	corev1.NodeDiskPressure:       {corev1.ConditionTrue: corev1.TaintNodeDiskPressure},
	corev1.NodeNetworkUnavailable: {corev1.ConditionTrue: corev1.TaintNodeNetworkUnavailable},
	corev1.NodePIDPressure:        {corev1.ConditionTrue: corev1.TaintNodePIDPressure},
}

// conditionTaintKeys are the NoSchedule taint keys the controller owns.
var conditionTaintKeys = map[string]bool{
	corev1.TaintNodeNotReady: true, corev1.TaintNodeUnreachable: true, corev1.TaintNodeMemoryPressure: true,
	corev1.TaintNodeDiskPressure: true, corev1.TaintNodeNetworkUnavailable: true, corev1.TaintNodePIDPressure: true,
	corev1.TaintNodeUnschedulable: true,
}

const (
	whyNodeUnknown = "Only the kubelet can vouch for its node; after --node-monitor-grace-period (50 s) without a Lease " +
		"renewal or a status post, the control plane stops trusting the last report and says it does not know."
	whyPodsNotReady = "Pods on a node nobody can reach may be gone; marking them not Ready takes them out of every " +
		"Service's endpoints at once, long before they are evicted."
	whyNoScheduleTaint = "The node lifecycle controller mirrors node conditions and spec.unschedulable as NoSchedule " +
		"taints, so the scheduler's taint filter keeps new pods off the node."
	whyNoExecuteTaint = "A NoExecute taint asks the taint-eviction controller to remove the node's pods once their " +
		"tolerations run out; the taints are added at most --node-eviction-rate nodes per second per zone."
	whyUntaint    = "The node reports Ready again, so the taints that kept pods off it and evicted them are removed."
	whyDisruption = "When every node looks unhealthy the likelier fault is the control plane's own network, so the " +
		"node lifecycle controller stops evicting rather than empty the cluster."
)

// zoneState is a zone's health as the node lifecycle controller judges it.
type zoneState string

const (
	stateInitial           zoneState = "Initial"
	stateNormal            zoneState = "Normal"
	stateFullDisruption    zoneState = "FullDisruption"
	statePartialDisruption zoneState = "PartialDisruption"
)

// ComputeZoneState is the node lifecycle controller's zone health rule:
// no Ready node at all is FullDisruption; more than two not-Ready nodes
// making at least --unhealthy-zone-threshold of the zone is
// PartialDisruption; anything else is Normal. It returns the number of
// not-Ready nodes too. A nil condition counts as not Ready.
func ComputeZoneState(ready []*corev1.NodeCondition) (int, string) {
	readyNodes, notReady := 0, 0
	for _, c := range ready {
		if c != nil && c.Status == corev1.ConditionTrue {
			readyNodes++
		} else {
			notReady++
		}
	}
	switch {
	case readyNodes == 0 && notReady > 0:
		return notReady, string(stateFullDisruption)
	case notReady > 2 && float64(notReady)/float64(notReady+readyNodes) >= UnhealthyZoneThreshold:
		return notReady, string(statePartialDisruption)
	}
	return notReady, string(stateNormal)
}

// nodeHealth is what the controller remembers of a node between passes
// (nodeHealthData): the Ready condition and Lease it last saw, and when it
// last saw either change (probe), on its own clock.
type nodeHealth struct {
	hasReady        bool
	readyHeartbeat  metav1.Time
	readyTransition metav1.Time
	hasLease        bool
	leaseRenew      metav1.MicroTime
	probe           sim.Tick
	// unknownSeq is the trace step that set the node's conditions to
	// Unknown (or 0): the NoExecute taint and the evictions follow from it.
	unknownSeq uint64
}

// zoneTainter is one zone's rate-limited NoExecute tainting queue
// (RateLimitedTimedQueue with a token bucket of burst 1).
type zoneTainter struct {
	name   string // the zone label, for the trace
	queue  []string
	queued map[string]uint64 // node → cause
	qps    float64
	tokens float64
	refill sim.Tick
}

func (z *zoneTainter) add(node string, cause uint64) bool {
	if _, ok := z.queued[node]; ok {
		return false
	}
	z.queued[node] = cause
	z.queue = append(z.queue, node)
	return true
}

func (z *zoneTainter) remove(node string) {
	if _, ok := z.queued[node]; !ok {
		return
	}
	delete(z.queued, node)
	for i, n := range z.queue {
		if n == node {
			z.queue = append(z.queue[:i:i], z.queue[i+1:]...)
			return
		}
	}
}

// take refills the bucket up to now and takes a token if there is one.
func (z *zoneTainter) take(now sim.Tick) bool {
	if z.qps <= 0 {
		return false // a stopped zone: client-go's never-accepting limiter
	}
	z.refillTo(now)
	if z.tokens >= 1 {
		z.tokens--
		return true
	}
	return false
}

func (z *zoneTainter) refillTo(now sim.Tick) {
	if now > z.refill {
		z.tokens += z.qps * float64(now-z.refill) / float64(sim.Second)
		if z.tokens > 1 {
			z.tokens = 1
		}
	}
	z.refill = now
}

// nextToken is when the bucket next holds a token (-1: never, rate 0).
func (z *zoneTainter) nextToken(now sim.Tick) sim.Tick {
	if z.tokens >= 1 {
		return now
	}
	if z.qps <= 0 {
		return -1
	}
	need := (1 - z.tokens) / z.qps * float64(sim.Second)
	return now + sim.Tick(need+0.999999)
}

// NodeLifecycleController watches node heartbeats (Lease renewals and node
// status) and acts on silence, as kube-controller-manager's
// node-lifecycle-controller does (pkg/controller/nodelifecycle):
//
//   - every NodeMonitorPeriod it checks each node; one whose kubelet has
//     been silent for longer than NodeMonitorGracePeriod gets its Ready,
//     MemoryPressure, DiskPressure and PIDPressure conditions set to
//     Unknown (NodeStatusUnknown, "Kubelet stopped posting node status."),
//     the NodeNotReady event, and its pods marked Ready=False;
//   - on every node change it mirrors the conditions and spec.unschedulable
//     as NoSchedule taints (not-ready, unreachable, memory-pressure, ...,
//     unschedulable), as TaintNodesByCondition does;
//   - a node found not Ready at a check is queued for the NoExecute
//     unreachable (or not-ready) taint, added by a pass every 100 ms at no
//     more than NodeEvictionRate nodes per second per zone (a token bucket
//     of burst 1, slowed or stopped in disrupted zones as kube does, and
//     stopped everywhere when every zone is fully disrupted);
//   - a node found Ready again loses its NoExecute taints at the next check.
//
// Because a check sees the not-Ready state only on the pass after the one
// that set it (processTaintBaseEviction reads the condition as it was
// before the pass), the NoExecute taint comes one NodeMonitorPeriod and
// 100 ms after the Unknown status, as in Kubernetes.
type NodeLifecycleController struct {
	worker // the NoSchedule tainting pass, keyed by node name

	health     map[string]*nodeHealth
	known      map[string]string // node name → zone key
	zones      map[string]*zoneTainter
	zoneStates map[string]zoneState

	// readyCause is the step that last made each node's Ready condition
	// True (its kubelet's status post): untainting follows from it.
	readyCause map[string]uint64

	passDue      bool
	monitorTimer *sim.Timer
	tainterDue   bool
	tainterTimer *sim.Timer
}

var _ component.Reactor = (*NodeLifecycleController)(nil)

// NewNodeLifecycleController builds the controller; its first health check
// runs one NodeMonitorPeriod in and then every NodeMonitorPeriod.
func NewNodeLifecycleController(env component.Env) *NodeLifecycleController {
	EnsureIndexes(env.Store)
	ensurePodNodeIndex(env.Store)
	c := &NodeLifecycleController{worker: newWorker(NodeLifecycleControllerName, env, 1),
		health: map[string]*nodeHealth{}, known: map[string]string{}, zones: map[string]*zoneTainter{},
		zoneStates: map[string]zoneState{}, readyCause: map[string]uint64{}}
	c.reconcile = c.doNoScheduleTaintingPass
	// The first check is one period in: at time 0 the kubelets of the
	// built-in nodes have not posted status yet, and a check then would
	// find every zone without a Ready node.
	c.monitorTimer = env.Loop.After(NodeMonitorPeriod, monitorLabel, c.monitorDue)
	return c
}

// PodNodeIndex files pods by spec.nodeName (the kubelet adds the same
// index under the same name).
const PodNodeIndex = "spec.nodeName"

func ensurePodNodeIndex(st *store.Store) {
	if !st.HasIndex(kinds.Pod, PodNodeIndex) {
		var last oneValue
		st.AddIndex(kinds.Pod, PodNodeIndex, func(o store.Object) []string {
			if n := o.(*corev1.Pod).Spec.NodeName; n != "" {
				return last.list(n)
			}
			return nil
		})
	}
}

const monitorLabel = "node-lifecycle-controller health check"

func (c *NodeLifecycleController) monitorDue() { c.passDue = true }

// Observe queues a changed node for the NoSchedule tainting pass. Leases
// and node status are read at each health check, not on every event.
func (c *NodeLifecycleController) Observe(ev store.Event) {
	if ev.Kind != kinds.Node || ev.Type == store.Deleted {
		return
	}
	n := ev.Object.(*corev1.Node)
	if cur := nodeCondition(&n.Status, corev1.NodeReady); cur != nil && cur.Status == corev1.ConditionTrue {
		var was *corev1.NodeCondition
		if ev.Old != nil {
			was = nodeCondition(&ev.Old.(*corev1.Node).Status, corev1.NodeReady)
		}
		if was == nil || was.Status != corev1.ConditionTrue {
			c.readyCause[n.Name] = ev.Cause
		}
	}
	c.queue.Add(n.Name, ev.Cause)
}

// Work runs a due health check, then a due NoExecute tainting pass, then
// one NoSchedule tainting pass.
func (c *NodeLifecycleController) Work() bool {
	switch {
	case c.passDue:
		c.passDue = false
		c.monitorNodeHealth()
		c.monitorTimer = c.env.Loop.After(NodeMonitorPeriod, monitorLabel, c.monitorDue)
		return true
	case c.tainterDue:
		c.tainterDue = false
		c.doNoExecuteTaintingPass()
		return true
	}
	return c.worker.Work()
}

func nodeCondition(st *corev1.NodeStatus, t corev1.NodeConditionType) *corev1.NodeCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == t {
			return &st.Conditions[i]
		}
	}
	return nil
}

// zoneKey is nodetopology.GetZoneKey: region and zone labels, "" if none.
func zoneKey(n *corev1.Node) string {
	region, zone := n.Labels[corev1.LabelTopologyRegion], n.Labels[corev1.LabelTopologyZone]
	if region == "" && zone == "" {
		return ""
	}
	return region + ":\x00:" + zone
}

func zoneName(n *corev1.Node) string {
	if z := n.Labels[corev1.LabelTopologyZone]; z != "" {
		return "zone " + z
	}
	return "the unnamed zone"
}

func (c *NodeLifecycleController) monitorNodeHealth() {
	st := c.env.Store
	objs := st.List(kinds.Node, "")
	nodes := make([]*corev1.Node, len(objs))
	seen := make(map[string]bool, len(objs))
	for i, o := range objs {
		nodes[i] = o.(*corev1.Node)
		seen[nodes[i].Name] = true
	}
	for _, n := range nodes {
		if _, ok := c.known[n.Name]; ok {
			continue
		}
		// RegisteredNode: the controller starts watching this node.
		z := zoneKey(n)
		c.known[n.Name] = z
		if c.zones[z] == nil {
			c.zones[z] = &zoneTainter{name: zoneName(n), queued: map[string]uint64{}, qps: NodeEvictionRate,
				tokens: 1, refill: c.env.Loop.Now()}
			c.zoneStates[z] = stateInitial
		}
		c.env.API.RecordEvent(c.actor(0), corev1.EventSource{Component: NodeControllerSource}, n, corev1.EventTypeNormal, "RegisteredNode",
			fmt.Sprintf("Node %s event: Registered Node %s in Controller", n.Name, n.Name))
	}
	gone := make([]string, 0)
	for name := range c.known {
		if !seen[name] {
			gone = append(gone, name)
		}
	}
	sort.Strings(gone)
	for _, name := range gone {
		if z := c.zones[c.known[name]]; z != nil {
			z.remove(name)
		}
		delete(c.known, name)
		delete(c.health, name)
		delete(c.readyCause, name)
	}

	zoneConds := map[string][]*corev1.NodeCondition{}
	for _, n := range nodes {
		observed, current, node := c.tryUpdateNodeHealth(n)
		if _, excluded := node.Labels["node.kubernetes.io/exclude-disruption"]; !excluded {
			zoneConds[c.known[n.Name]] = append(zoneConds[c.known[n.Name]], current)
		}
		if current == nil {
			continue
		}
		c.processTaintBaseEviction(node, observed)
		if current.Status != corev1.ConditionTrue && observed.Status == corev1.ConditionTrue {
			seq := c.health[n.Name].unknownSeq
			c.event(seq, NodeControllerSource, node, corev1.EventTypeNormal, "NodeNotReady",
				fmt.Sprintf("Node %s status is now: NodeNotReady", node.Name))
			c.markPodsNotReady(node, seq)
		}
	}
	c.handleDisruption(zoneConds, nodes)
	c.armTainter()
}

// tryUpdateNodeHealth is kube's: it notes a changed Ready heartbeat or a
// renewed Lease as a probe at this instant, and once the last probe is
// more than the grace period old it sets the node's conditions to
// Unknown. It returns the Ready condition as it was before the check, as
// it is after, and the node as it is now.
func (c *NodeLifecycleController) tryUpdateNodeHealth(node *corev1.Node) (corev1.NodeCondition, *corev1.NodeCondition, *corev1.Node) {
	now := c.env.Loop.Now()
	h := c.health[node.Name]
	grace := NodeMonitorGracePeriod
	var observed corev1.NodeCondition
	current := nodeCondition(&node.Status, corev1.NodeReady)
	if current == nil {
		observed = corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionUnknown,
			LastHeartbeatTime: node.CreationTimestamp, LastTransitionTime: node.CreationTimestamp}
		grace = NodeStartupGracePeriod
		if h == nil {
			h = &nodeHealth{probe: sim.FromTime(node.CreationTimestamp.Time)}
		}
	} else {
		observed = *current
	}
	switch {
	case h == nil:
		h = &nodeHealth{probe: now}
	case !h.hasReady && current != nil, h.hasReady && current == nil:
		h = &nodeHealth{probe: now}
	case h.hasReady && current != nil && !h.readyHeartbeat.Equal(&current.LastHeartbeatTime):
		h.probe = now
	}
	if current != nil {
		h.hasReady, h.readyHeartbeat, h.readyTransition = true, current.LastHeartbeatTime, current.LastTransitionTime
	}
	if o, ok := c.env.Store.Lookup(kinds.Lease, corev1.NamespaceNodeLease, node.Name); ok {
		lease := o.(*coordinationv1.Lease)
		if rt := lease.Spec.RenewTime; rt != nil && (!h.hasLease || h.leaseRenew.Before(rt)) {
			h.hasLease, h.leaseRenew = true, *rt
			h.probe = now
		}
	}
	c.health[node.Name] = h
	if now <= h.probe+grace {
		return observed, current, node
	}

	upd := node.DeepCopy()
	ts := metav1.NewTime(now.Time())
	var changed []string
	for _, t := range []corev1.NodeConditionType{corev1.NodeReady, corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure} {
		cond := nodeCondition(&upd.Status, t)
		if cond == nil {
			upd.Status.Conditions = append(upd.Status.Conditions, corev1.NodeCondition{Type: t, Status: corev1.ConditionUnknown,
				Reason: "NodeStatusNeverUpdated", Message: "Kubelet never posted node status.",
				LastHeartbeatTime: node.CreationTimestamp, LastTransitionTime: ts})
			changed = append(changed, string(t))
		} else if cond.Status != corev1.ConditionUnknown {
			cond.Status, cond.Reason, cond.Message, cond.LastTransitionTime =
				corev1.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status.", ts
			changed = append(changed, string(t))
		}
	}
	cur := nodeCondition(&upd.Status, corev1.NodeReady)
	if cur.Status == observed.Status && cur.Reason == observed.Reason && len(changed) == 0 {
		return observed, current, node
	}
	c.cause = c.lastKubeletStep(node.Name)
	msg := fmt.Sprintf("node %s has neither renewed its Lease nor posted status for %s (grace period %s): "+
		"%s set to Unknown (%s: %s)", node.Name, (now - h.probe).Duration(), grace.Duration(),
		joinAnd(changed), cur.Reason, cur.Message)
	seq := c.record(trace.Maintain, "", "node/"+node.Name, msg, whyNodeUnknown)
	c.cause = 0
	stored, err := c.env.API.UpdateStatus(c.actor(seq), upd)
	if err != nil {
		return observed, current, node
	}
	h.unknownSeq = seq
	n := stored.(*corev1.Node)
	h.readyHeartbeat = nodeCondition(&n.Status, corev1.NodeReady).LastHeartbeatTime
	return observed, nodeCondition(&n.Status, corev1.NodeReady), n
}

// lastKubeletStep is the latest trace step of the node's kubelet (its
// failure, as a rule): the controller only sees silence, but the trace
// ties the silence to what caused it. The search is bounded, and made only
// when a node changes state.
func (c *NodeLifecycleController) lastKubeletStep(node string) uint64 {
	comp := "kubelet/" + node
	tr := c.env.Trace
	first := tr.FirstSeq()
	for seq, n := tr.NextSeq()-1, 0; seq >= first && seq > 0 && n < 200_000; seq, n = seq-1, n+1 {
		if e, ok := tr.Get(seq); ok && e.Component == comp {
			return seq
		}
	}
	return 0
}

func joinAnd(xs []string) string {
	switch len(xs) {
	case 0:
		return "nothing"
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

// markPodsNotReady sets Ready=False on every pod of the node
// (MarkPodsNotReady), with a NodeNotReady warning event on each.
func (c *NodeLifecycleController) markPodsNotReady(node *corev1.Node, cause uint64) {
	pods := c.env.Store.ByIndex(kinds.Pod, PodNodeIndex, node.Name)
	sort.Slice(pods, func(i, j int) bool { return Key(pods[i]) < Key(pods[j]) })
	now := c.now()
	for _, o := range pods {
		p := o.(*corev1.Pod)
		cond := podReadyCondition(p)
		if cond == nil || cond.Status == corev1.ConditionFalse {
			continue
		}
		upd := p.DeepCopy()
		rc := podReadyCondition(upd)
		rc.Status, rc.LastTransitionTime = corev1.ConditionFalse, now
		c.cause = cause
		seq := c.record(trace.Maintain, p.Namespace, "pod/"+p.Name,
			fmt.Sprintf("marked pod %s not Ready: its node %s is not ready", p.Name, node.Name), whyPodsNotReady)
		c.cause = 0
		if _, err := c.env.API.UpdateStatus(c.actor(seq), upd); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			panic("node-lifecycle-controller: marking pod not ready: " + err.Error())
		}
		c.event(seq, NodeControllerSource, upd, corev1.EventTypeWarning, "NodeNotReady", "Node is not ready")
	}
}

func hasTaint(taints []corev1.Taint, t corev1.Taint) bool {
	for i := range taints {
		if taints[i].Key == t.Key && taints[i].Effect == t.Effect {
			return true
		}
	}
	return false
}

// processTaintBaseEviction acts on the Ready condition as it was before
// this check: not Ready queues the node for the NoExecute taint (or swaps
// unreachable and not-ready at once), Ready removes them.
func (c *NodeLifecycleController) processTaintBaseEviction(node *corev1.Node, observed corev1.NodeCondition) {
	h := c.health[node.Name]
	switch observed.Status {
	case corev1.ConditionFalse, corev1.ConditionUnknown:
		add, opposite := NotReadyTaintTemplate, UnreachableTaintTemplate
		if observed.Status == corev1.ConditionUnknown {
			add, opposite = UnreachableTaintTemplate, NotReadyTaintTemplate
		}
		if hasTaint(node.Spec.Taints, opposite) {
			c.swapTaints(node, h.unknownSeq, []corev1.Taint{add}, []corev1.Taint{opposite},
				fmt.Sprintf("node %s is now %s", node.Name, readyWord(observed.Status)), whyNoExecuteTaint)
			return
		}
		if !hasTaint(node.Spec.Taints, add) {
			c.zones[c.known[node.Name]].add(node.Name, h.unknownSeq)
		}
	case corev1.ConditionTrue:
		c.markNodeAsReachable(node, 0)
	}
}

func readyWord(s corev1.ConditionStatus) string {
	switch s {
	case corev1.ConditionUnknown:
		return "unreachable (Ready Unknown)"
	case corev1.ConditionFalse:
		return "not ready (Ready False)"
	}
	return "Ready"
}

// markNodeAsReachable removes the NoExecute unreachable and not-ready
// taints and takes the node off its zone's tainting queue.
func (c *NodeLifecycleController) markNodeAsReachable(node *corev1.Node, cause uint64) {
	if z := c.zones[c.known[node.Name]]; z != nil {
		z.remove(node.Name)
	}
	var del []corev1.Taint
	for _, t := range []corev1.Taint{UnreachableTaintTemplate, NotReadyTaintTemplate} {
		if hasTaint(node.Spec.Taints, t) {
			del = append(del, t)
		}
	}
	if len(del) == 0 {
		return
	}
	if cause == 0 {
		cause = c.readyCause[node.Name]
	}
	c.swapTaints(node, cause, nil, del, fmt.Sprintf("node %s is Ready again", node.Name), whyUntaint)
}

// swapTaints adds and removes taints on the node's latest version
// (SwapNodeControllerTaint), stamping timeAdded on the added ones.
func (c *NodeLifecycleController) swapTaints(node *corev1.Node, cause uint64, add, del []corev1.Taint, reason, why string) bool {
	o, ok := c.env.Store.Lookup(kinds.Node, "", node.Name)
	if !ok {
		return false
	}
	upd := o.(*corev1.Node).DeepCopy()
	now := c.now()
	var kept []corev1.Taint
	for _, t := range upd.Spec.Taints {
		if !hasTaint(del, t) && !hasTaint(add, t) {
			kept = append(kept, t)
		}
	}
	var parts []string
	for _, t := range add {
		t.TimeAdded = &now
		kept = append(kept, t)
		parts = append(parts, "tainted node "+node.Name+" with "+TaintString(t))
	}
	for _, t := range del {
		if hasTaint(upd.Spec.Taints, t) {
			parts = append(parts, "removed taint "+TaintString(t))
		}
	}
	if len(parts) == 0 {
		return true
	}
	upd.Spec.Taints = kept
	c.cause = cause
	seq := c.record(trace.Maintain, "", "node/"+node.Name, strings.Join(parts, "; ")+": "+reason, why)
	c.cause = 0
	_, err := c.env.API.Update(c.actor(seq), upd)
	return err == nil
}

// TaintString is kubectl's form of a taint: key[=value]:Effect.
func TaintString(t corev1.Taint) string {
	s := t.Key
	if t.Value != "" {
		s += "=" + t.Value
	}
	return s + ":" + string(t.Effect)
}

// doNoScheduleTaintingPass mirrors the node's conditions and
// spec.unschedulable as NoSchedule taints (TaintNodesByCondition).
func (c *NodeLifecycleController) doNoScheduleTaintingPass(name string) (Result, error) {
	o, ok := c.env.Store.Lookup(kinds.Node, "", name)
	if !ok {
		return Result{}, nil
	}
	node := o.(*corev1.Node)
	var want []corev1.Taint
	var reasons []string
	for _, cond := range node.Status.Conditions {
		if key, ok := nodeConditionTaints[cond.Type][cond.Status]; ok {
			want = append(want, corev1.Taint{Key: key, Effect: corev1.TaintEffectNoSchedule})
			reasons = append(reasons, fmt.Sprintf("%s is %s", cond.Type, cond.Status))
		}
	}
	if node.Spec.Unschedulable {
		want = append(want, corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule})
		reasons = append(reasons, "the node is cordoned (spec.unschedulable)")
	}
	var have []corev1.Taint
	for _, t := range node.Spec.Taints {
		if t.Effect == corev1.TaintEffectNoSchedule && conditionTaintKeys[t.Key] {
			have = append(have, t)
		}
	}
	var add, del []corev1.Taint
	for _, t := range want {
		if !hasTaint(have, t) {
			add = append(add, t)
		}
	}
	for _, t := range have {
		if !hasTaint(want, t) {
			del = append(del, t)
		}
	}
	if len(add) == 0 && len(del) == 0 {
		return Result{}, nil
	}
	reason := "no node condition calls for it any more"
	if len(reasons) > 0 {
		reason = strings.Join(reasons, ", ")
	}
	c.swapTaints(node, c.cause, add, del, reason, whyNoScheduleTaint)
	return Result{}, nil
}

// armTainter schedules the NoExecute tainting pass on the 100 ms grid when
// a zone has queued nodes and a token to spend, or will have one.
func (c *NodeLifecycleController) armTainter() {
	now := c.env.Loop.Now()
	next := sim.Tick(-1)
	for _, z := range c.sortedZones() {
		if len(z.queue) == 0 {
			continue
		}
		z.refillTo(now)
		at := z.nextToken(now)
		if at < 0 {
			continue
		}
		if next < 0 || at < next {
			next = at
		}
	}
	if next < 0 {
		return
	}
	// The pass runs every NodeEvictionPeriod: the first tick after now.
	at := (next/NodeEvictionPeriod + 1) * NodeEvictionPeriod
	if next%NodeEvictionPeriod == 0 && next > now {
		at = next
	}
	if c.tainterTimer.Pending() {
		if c.tainterTimer.At() <= at {
			return
		}
		c.env.Loop.Cancel(c.tainterTimer)
	}
	c.tainterTimer = c.env.Loop.At(at, "node-lifecycle-controller NoExecute tainting pass", func() { c.tainterDue = true })
}

func (c *NodeLifecycleController) sortedZones() []*zoneTainter {
	keys := make([]string, 0, len(c.zones))
	for k := range c.zones {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]*zoneTainter, len(keys))
	for i, k := range keys {
		out[i] = c.zones[k]
	}
	return out
}

// doNoExecuteTaintingPass taints queued nodes, a token per node per zone.
func (c *NodeLifecycleController) doNoExecuteTaintingPass() {
	now := c.env.Loop.Now()
	for _, z := range c.sortedZones() {
		for len(z.queue) > 0 {
			name := z.queue[0]
			o, ok := c.env.Store.Lookup(kinds.Node, "", name)
			if !ok {
				z.remove(name)
				continue
			}
			node := o.(*corev1.Node)
			cond := nodeCondition(&node.Status, corev1.NodeReady)
			if cond == nil || cond.Status == corev1.ConditionTrue {
				z.remove(name) // Ready again: no taint
				continue
			}
			if !z.take(now) {
				break
			}
			cause := z.queued[name]
			z.remove(name)
			add, opposite := UnreachableTaintTemplate, NotReadyTaintTemplate
			if cond.Status == corev1.ConditionFalse {
				add, opposite = NotReadyTaintTemplate, UnreachableTaintTemplate
			}
			rate := fmt.Sprintf("%s evicts at %g node/s", z.name, z.qps)
			c.swapTaints(node, cause, []corev1.Taint{add}, []corev1.Taint{opposite},
				fmt.Sprintf("node %s is %s; %s", name, readyWord(cond.Status), rate), whyNoExecuteTaint)
		}
	}
	c.armTainter()
}

// handleDisruption recomputes each zone's state and its tainting rate; if
// every zone is fully disrupted it stops all tainting and untaints every
// node (kube's "master disruption mode").
func (c *NodeLifecycleController) handleDisruption(zoneConds map[string][]*corev1.NodeCondition, nodes []*corev1.Node) {
	keys := make([]string, 0, len(zoneConds))
	for k := range zoneConds {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	newStates := map[string]zoneState{}
	allFull := len(keys) > 0
	for _, k := range keys {
		_, s := ComputeZoneState(zoneConds[k])
		newStates[k] = zoneState(s)
		if zoneState(s) != stateFullDisruption {
			allFull = false
		}
	}
	allWasFull := true
	for k, s := range c.zoneStates {
		if _, ok := zoneConds[k]; !ok {
			continue
		}
		if s != stateFullDisruption {
			allWasFull = false
		}
	}
	if allFull && allWasFull {
		return
	}
	if allFull {
		c.cause = 0
		c.record(trace.Maintain, "", "", "every node is not Ready: entering master disruption mode; "+
			"no NoExecute taints until some node is Ready again", whyDisruption)
		for _, n := range nodes {
			c.markNodeAsReachable(n, 0)
		}
		for _, k := range keys {
			c.zones[k].qps = 0
			c.zoneStates[k] = stateFullDisruption
		}
		return
	}
	if allWasFull && len(c.zoneStates) > 0 && c.anyState(stateFullDisruption) {
		c.record(trace.Maintain, "", "", "some nodes are Ready again: leaving master disruption mode", whyDisruption)
		now := c.env.Loop.Now()
		for _, n := range nodes {
			if h := c.health[n.Name]; h != nil {
				h.probe = now
			}
		}
	}
	for _, k := range keys {
		if c.zoneStates[k] == newStates[k] && !allWasFull {
			continue
		}
		c.zones[k].qps = c.zoneRate(len(zoneConds[k]), newStates[k])
		c.zoneStates[k] = newStates[k]
	}
}

func (c *NodeLifecycleController) anyState(s zoneState) bool {
	for _, v := range c.zoneStates {
		if v == s {
			return true
		}
	}
	return false
}

// zoneRate is setLimiterInZone: the healthy rate for a normal or fully
// disrupted zone, the secondary rate (large clusters) or none for a
// partially disrupted one.
func (c *NodeLifecycleController) zoneRate(size int, s zoneState) float64 {
	if s == statePartialDisruption {
		if size > LargeClusterSizeThreshold {
			return SecondaryNodeEvictionRate
		}
		return 0
	}
	return NodeEvictionRate
}
