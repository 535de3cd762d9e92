package kubelet

import (
	"fmt"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/record"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/trace"
	"github.com/kubeloop/kubeloop/engine/workload"
)

// NodeLeaseNamespace is where kubelets keep their heartbeat Leases.
const NodeLeaseNamespace = "kube-node-lease"

// KubeletPort is the kubelet's API port, reported in status.daemonEndpoints.
const KubeletPort = 10250

// Kubelet is one node's agent.
type Kubelet struct {
	m    *Manager
	name string       // the node's name
	src  trace.Source // "kubelet/<node>", as the trace names (and numbers) it
	rand *sim.Rand

	index   int // the node's IPAM index: its pod CIDR and its address
	nodeIP  string
	hostIPs []corev1.HostIP // status.hostIPs of its pods, shared by all of them
	podCIDR string
	net     *podNetwork

	startCause uint64
	started    bool
	stopped    bool
	startedAt  sim.Tick

	pods        []podEntry // by the hash of the pod's namespace and name (podAt)
	queue       fifo[*podState]
	startQueued bool
	hbQueued    bool
	inDirty     bool

	images *imageStore
	puller puller

	nodeStatusChanged bool   // something status.images (or a condition) shows changed
	nodeStatusCause   uint64 // the step that changed it
	lastReport        sim.Tick
	nextStatusCheck   sim.Tick
	nodeInfo          corev1.NodeSystemInfo
	hbTimer           *sim.Timer
	hbFn              func()

	// Timer labels, built once: a label per firing would allocate.
	hbLabel, opLabel, pullLabel, retryLabel string
	procLabel, probeLabel                   string

	stats Stats

	held map[heldKey]*heldEvent // the Events the spam filter held back, by pod (podEvent)

	failure // node fail / node recover (failure.go)
}

func newKubelet(m *Manager, name string, cause uint64) *Kubelet {
	k := &Kubelet{m: m, name: name, src: m.env.Trace.Source("kubelet/" + name), startCause: cause, startQueued: true,
		images: newImageStore(), index: -1}
	k.puller.k = k
	comp := k.src.Name()
	k.hbLabel = comp + " lease renewal and node status"
	k.opLabel = comp + " pod step"
	k.pullLabel = comp + " image pull"
	k.retryLabel = comp + " pod resync"
	k.procLabel = comp + " container process"
	k.probeLabel = comp + " probe"
	k.hbFn = func() {
		k.hbQueued = true
		k.m.markDirty(k)
	}
	return k
}

// Name is the node's name.
func (k *Kubelet) Name() string { return k.name }

// Stats are the kubelet's counters.
func (k *Kubelet) Stats() Stats { return k.stats }

// PodCIDR is the range the node's pod IPs come from ("" before start).
func (k *Kubelet) PodCIDR() string { return k.podCIDR }

// HasImage reports whether the node has an image, by reference as
// containerd looks it up (a tag counts only if pulled under that name).
func (k *Kubelet) HasImage(image string) bool {
	ref, err := workload.ParseReference(image)
	return err == nil && k.images.lookup(ref) != nil
}

func (k *Kubelet) now() sim.Tick { return k.m.env.Loop.Now() }

func (k *Kubelet) hasWork() bool {
	return !k.failed && (k.startQueued || k.hbQueued || k.queue.len() > 0)
}

func (k *Kubelet) workOne() {
	switch {
	case k.startQueued:
		k.startQueued = false
		k.start()
	case !k.started:
		// The node object vanished before its kubelet could start.
		k.queue.clear()
	case k.hbQueued:
		k.hbQueued = false
		k.heartbeat()
	default:
		p := k.queue.pop()
		p.queued = false
		k.stats.PodSyncs++
		k.syncPod(p)
	}
}

func (k *Kubelet) enqueue(p *podState) {
	if !p.queued {
		p.queued = true
		k.queue.push(p)
	}
	k.m.markDirty(k)
}

// record adds a kubelet step to the trace and returns its sequence number.
func (k *Kubelet) record(namespace, object string, cause uint64, message, why string) uint64 {
	return k.m.env.Trace.RecordFrom(k.src, trace.Event{Lane: trace.NodeLane, Column: trace.Run,
		Namespace: namespace, Object: object, Message: message, Cause: cause, Why: why})
}

func (k *Kubelet) actor(cause uint64) apiserver.Actor {
	return apiserver.Actor{Component: k.src.Name(), Cause: cause}
}

// source is what the kubelet's Events name as their source: kubelet, on
// its node (kubelet's event recorder: EventSource{Component: "kubelet",
// Host: nodeName}).
func (k *Kubelet) source() corev1.EventSource {
	return corev1.EventSource{Component: "kubelet", Host: k.name}
}

// event records an Event about the kubelet's node. Those it records at
// its start cannot repeat an earlier one: a restarted kubelet's event
// correlator starts empty, as its process does. (They are a handful, far
// under the spam filter's 25, which the kubelet applies to pods only.)
func (k *Kubelet) event(cause uint64, obj kinds.Object, eventType, reason, message string) {
	k.m.env.API.RecordEvent(k.actor(cause), k.source(), obj, eventType, reason, message)
}

// podEvent records an Event about p's pod through client-go's event
// correlator, as every kubelet Event goes.
//
// An Event that repeats one already recorded (the same reason and message
// about the same pod, from this kubelet) bumps that Event's count and last
// timestamp instead of making another, so that `describe pod` reads
// "(x5 over 4m)". Finding the earlier one costs an index over every
// Event, so the kubelet asks only once the pod has had an Event of that
// reason: the first of a reason cannot repeat one.
//
// The correlator's spam filter lets a recorder write 25 times about one
// object, then once every five minutes (allowEvent). An occurrence it
// holds back is still counted, and the next write of that Event carries
// the count: so a pod that keeps failing has Events whose counts catch up
// in steps and whose last-seen times lag.
//
// Modelled differently: client-go keeps both in LRU caches of 4,096 keys
// per recorder, so a repeat after 4,096 other Events makes a new Event and
// a held-back count can be forgotten; kubeloop finds the earlier Event in
// etcd, and keeps what it held back until the pod goes.
func (k *Kubelet) podEvent(p *podState, c *ctr, cause uint64, eventType, reason, message string) {
	now, key := k.now(), heldKey{p, k.fieldPath(c), eventType, reason, message}
	if !p.allowEvent(now) {
		k.holdBack(p, key, now)
		return
	}
	o := apiserver.Occurrence{FieldPath: key.fieldPath, Correlate: true}
	if n, first, ok := k.heldBack(p, key); ok {
		o.Count, o.First = n+1, first
	} else if bit := podEventBit(reason); bit != 0 && p.recorded&bit == 0 {
		o.Correlate = false
	}
	p.recorded |= podEventBit(reason)
	k.m.env.API.RecordEventWith(k.actor(cause), k.source(), p.pod, eventType, reason, message, o)
}

// fieldPath is what a kubelet's Event about container c names as the
// part of its pod it is about (ctrShared.fieldPath); "" for an Event about
// the pod itself (c nil).
func (k *Kubelet) fieldPath(c *ctr) string {
	if c == nil {
		return ""
	}
	return c.shared.fieldPath
}

// heldEvent counts the occurrences of one Event that the spam filter held
// back.
type heldEvent struct {
	n     int32
	first sim.Tick
}

// heldKey names an Event held back for a pod: what client-go's
// correlator keys its cache by (getEventKey), but the recorder, and with
// the pod's record standing for its name (a pod keeps one while it is on
// the node).
type heldKey struct {
	pod                                   *podState
	fieldPath, eventType, reason, message string
}

// holdBack counts an occurrence the spam filter dropped.
func (k *Kubelet) holdBack(p *podState, key heldKey, now sim.Tick) {
	if k.held == nil {
		k.held = map[heldKey]*heldEvent{}
	}
	if h := k.held[key]; h != nil {
		h.n++
		return
	}
	k.held[key] = &heldEvent{n: 1, first: now}
	p.recorded |= holdingBit
}

// holdingBit, in podState.recorded, says the spam filter has held back an
// Event about the pod (Kubelet.held).
const holdingBit = 1 << 15

// heldBack takes the count of occurrences held back of an Event.
func (k *Kubelet) heldBack(p *podState, key heldKey) (int32, sim.Tick, bool) {
	if p.recorded&holdingBit == 0 {
		return 0, 0, false
	}
	h := k.held[key]
	if h == nil {
		return 0, 0, false
	}
	delete(k.held, key)
	return h.n, h.first, true
}

// forgetHeld drops what was held back for a pod that is gone (its Events
// are moot), so that the map does not keep it.
func (k *Kubelet) forgetHeld(p *podState) {
	if p.recorded&holdingBit == 0 {
		return
	}
	for key := range k.held {
		if key.pod == p {
			delete(k.held, key)
		}
	}
}

// allowEvent is the spam filter of p's pod (see record.Allow).
func (p *podState) allowEvent(now sim.Tick) bool { return record.Allow(&p.spamTAT, now) }

// podEventBit is the bit of podState.recorded for an Event reason the
// kubelet records about pods; 0 for one without (always correlated).
func podEventBit(reason string) uint16 {
	for i, r := range podEventReasons {
		if r == reason {
			return 1 << i
		}
	}
	return 0
}

// Reasons take the bits below holdingBit.
var _ [15 - len(podEventReasons)]struct{}

var podEventReasons = [...]string{"Pulling", "Pulled", "Created", "Started", "Killing", "BackOff", "Unhealthy", "Failed",
	"FailedCreatePodSandBox", "InspectFailed", ReasonErrImageNeverPull}

// start is the kubelet's first start on its node: the node gets its pod
// CIDR and default labels, the kubelet posts node status and creates its
// Lease, and it takes on the pods already bound to the node.
func (k *Kubelet) start() {
	m := k.m
	obj, ok := m.env.Store.Lookup(kinds.Node, "", k.name)
	if !ok {
		return
	}
	node := obj.(*corev1.Node)
	now := k.now()
	k.started, k.startedAt = true, now
	k.rand = m.env.Rand.Derive()
	k.index = m.indexes.allocate()
	k.nodeIP = nodeInternalIP(k.index)
	k.hostIPs = []corev1.HostIP{{IP: k.nodeIP}}
	k.nodeInfo = corev1.NodeSystemInfo{
		MachineID:               fmt.Sprintf("%016x%016x", k.rand.Uint64(), k.rand.Uint64()),
		SystemUUID:              k.uuid(),
		BootID:                  k.uuid(),
		KernelVersion:           m.cfg.KernelVersion,
		OSImage:                 m.cfg.OSImage,
		ContainerRuntimeVersion: m.cfg.ContainerRuntimeVersion,
		KubeletVersion:          m.cfg.KubeletVersion,
		OperatingSystem:         labelOr(node, corev1.LabelOSStable, "linux"),
		Architecture:            labelOr(node, corev1.LabelArchStable, "amd64"),
	}
	for _, image := range m.cfg.PreloadedImages {
		if ref, err := workload.ParseReference(image); err == nil {
			if img, err := m.images.Resolve(ref); err == nil {
				k.images.add(ref, img)
			}
		}
	}

	// The node IPAM controller (kube-controller-manager) gives the node its
	// pod CIDR; a Node applied with spec.podCIDR keeps its own.
	k.podCIDR = node.Spec.PodCIDR
	if k.podCIDR != "" {
		if n, err := newPodNetwork(k.podCIDR); err == nil {
			k.net = n
		}
	}
	if k.net == nil {
		k.podCIDR = nodePodCIDR(k.index)
		k.net, _ = newPodNetwork(k.podCIDR)
		seq := m.env.Trace.Record(trace.Event{Component: "node-ipam-controller", Lane: trace.ControlPlane,
			Column: trace.Maintain, Object: "node/" + k.name, Cause: k.startCause,
			Message: fmt.Sprintf("allocated pod CIDR %s to node %s", k.podCIDR, k.name), Why: whyIPAM})
		upd := node.DeepCopy()
		upd.Spec.PodCIDR = k.podCIDR
		upd.Spec.PodCIDRs = []string{k.podCIDR}
		if stored, err := m.env.API.Update(apiserver.Actor{Component: "node-ipam-controller", Cause: seq}, upd); err == nil {
			node = stored.(*corev1.Node)
		}
	}

	seq := k.record("", "node/"+k.name, k.startCause, fmt.Sprintf("kubelet %s started on node %s (%s, %s)",
		m.cfg.KubeletVersion, k.name, m.cfg.ContainerRuntimeVersion, m.cfg.OSImage), whyStart)
	k.event(seq, node, corev1.EventTypeNormal, "Starting", "Starting kubelet.")
	k.event(seq, node, corev1.EventTypeNormal, "NodeAllocatableEnforced", "Updated Node Allocatable limit across pods")

	// A kubelet labels its own node; a Node applied without these labels
	// gets them now.
	if missing := missingDefaultLabels(node, k.nodeInfo); len(missing) > 0 {
		lseq := k.record("", "node/"+k.name, seq, "labelled node "+k.name+" with "+joinLabels(missing), whyLabels)
		upd := node.DeepCopy()
		if upd.Labels == nil {
			upd.Labels = map[string]string{}
		}
		for _, l := range missing {
			upd.Labels[l.key] = l.value
		}
		if stored, err := m.env.API.Update(k.actor(lseq), upd); err == nil {
			node = stored.(*corev1.Node)
		}
	}

	k.postNodeStatus(node, seq, true)

	lseq := k.record(NodeLeaseNamespace, "lease/"+k.name, seq, fmt.Sprintf(
		"created Lease %s/%s: the node's heartbeat, renewed every %s, valid for %ds",
		NodeLeaseNamespace, k.name, m.cfg.LeaseRenewInterval.Duration(), m.cfg.NodeLeaseDurationSeconds), whyLease)
	k.createLease(node, lseq)
	k.nextStatusCheck = now + m.cfg.NodeStatusUpdateFrequency
	k.armHeartbeat()

	// Pods bound before the kubelet started (or while it was away).
	for _, o := range m.env.Store.ByIndex(kinds.Pod, PodNodeIndex, k.name) {
		pod := o.(*corev1.Pod)
		if i, found := k.podAt(pod.Namespace, pod.Name); !found {
			k.addPod(i, pod, seq)
		}
	}
}

func (k *Kubelet) uuid() string {
	hi, lo := k.rand.Uint64(), k.rand.Uint64()
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", hi>>32, (hi>>16)&0xffff, hi&0xffff, lo>>48, lo&0xffffffffffff)
}

func labelOr(node *corev1.Node, key, def string) string {
	if v := node.Labels[key]; v != "" {
		return v
	}
	return def
}

type label struct{ key, value string }

func missingDefaultLabels(node *corev1.Node, info corev1.NodeSystemInfo) []label {
	var out []label
	for _, l := range []label{
		{corev1.LabelHostname, node.Name},
		{corev1.LabelOSStable, info.OperatingSystem},
		{corev1.LabelArchStable, info.Architecture},
	} {
		if _, ok := node.Labels[l.key]; !ok {
			out = append(out, l)
		}
	}
	return out
}

func joinLabels(ls []label) string {
	s := ""
	for i, l := range ls {
		if i > 0 {
			s += ", "
		}
		s += l.key + "=" + l.value
	}
	return s
}

// stop is the kubelet going away with its node: no more heartbeats, and
// its timers are cancelled. The pods bound to the node stay in the API.
func (k *Kubelet) stop() {
	k.stopped = true
	loop := k.m.env.Loop
	loop.Cancel(k.hbTimer)
	for _, e := range k.pods {
		p := e.p
		loop.Cancel(p.timer())
		loop.Cancel(p.peek().retry)
		for i := range p.ctrs {
			c := &p.ctrs[i]
			k.stopContainerTimers(c)
		}
	}
	k.queue.clear()
}

// nodeStatus computes status as the kubelet's setters do.
func (k *Kubelet) nodeStatus(node *corev1.Node) corev1.NodeStatus {
	now := metav1.NewTime(k.now().Time())
	since := metav1.NewTime(k.conditionsSince().Time())
	// The stored node's lists are read-only and are what the kubelet reports
	// again, so the new status shares them rather than copying them at every
	// post; only the configured default is copied, so that no stored object
	// aliases the configuration.
	capacity := node.Status.Capacity
	if len(capacity) == 0 {
		capacity = k.m.cfg.DefaultCapacity.DeepCopy()
	}
	allocatable := node.Status.Allocatable
	if len(allocatable) == 0 {
		allocatable = capacity
	}
	cond := func(t corev1.NodeConditionType, s corev1.ConditionStatus, reason, msg string) corev1.NodeCondition {
		return corev1.NodeCondition{Type: t, Status: s, LastHeartbeatTime: now, LastTransitionTime: since,
			Reason: reason, Message: msg}
	}
	return corev1.NodeStatus{
		Capacity:    capacity,
		Allocatable: allocatable,
		Conditions: []corev1.NodeCondition{
			cond(corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
			cond(corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
			cond(corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
			cond(corev1.NodeReady, corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status"),
		},
		Addresses: []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: k.nodeIP},
			{Type: corev1.NodeHostName, Address: k.name},
		},
		DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: KubeletPort}},
		NodeInfo:        k.nodeInfo,
		Images:          k.images.nodeStatusImages(k.m.cfg.MaxImagesInNodeStatus),
	}
}

// postNodeStatus writes node status. first is the registration: its
// conditions are new, which the kubelet announces with events.
func (k *Kubelet) postNodeStatus(node *corev1.Node, cause uint64, first bool) {
	m := k.m
	st := k.nodeStatus(node)
	var seq uint64
	switch {
	case first:
		seq = k.record("", "node/"+k.name, cause, "node status: Ready (kubelet is posting ready status); "+
			"MemoryPressure, DiskPressure and PIDPressure False; InternalIP "+k.nodeIP, whyNodeStatus)
	case k.nodeStatusChanged:
		seq = k.record("", "node/"+k.name, cause, fmt.Sprintf("node status: %d images on the node", len(st.Images)), whyNodeImages)
		k.stats.StatusUpdates++
	default:
		k.stats.StatusReports++ // an unchanged report is a heartbeat: counted, not traced
	}
	k.nodeStatusChanged = false
	k.lastReport = k.now()
	// As with pod status (writeStatus), the API server keeps nothing of
	// the body but its status, so one body serves every node's write.
	upd := &m.nodeScratch
	upd.Name, upd.UID, upd.Status = node.Name, node.UID, st
	_, err := m.env.API.UpdateStatus(k.actor(seq), upd)
	*upd = corev1.Node{}
	if err != nil && !apierrors.IsNotFound(err) {
		panic("kubelet: posting node status: " + err.Error())
	}
	if first {
		for _, e := range []string{"NodeHasSufficientMemory", "NodeHasNoDiskPressure", "NodeHasSufficientPID"} {
			k.event(seq, node, corev1.EventTypeNormal, e, "Node "+k.name+" status is now: "+e)
		}
		k.event(seq, node, corev1.EventTypeNormal, "NodeReady", "Node "+k.name+" status is now: NodeReady")
	}
}

func (k *Kubelet) createLease(node *corev1.Node, cause uint64) {
	holder := k.name
	duration := k.m.cfg.NodeLeaseDurationSeconds
	renew := metav1.NewMicroTime(k.now().Time())
	lease := &coordinationv1.Lease{
		TypeMeta: metav1.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"},
		ObjectMeta: metav1.ObjectMeta{Name: k.name, Namespace: NodeLeaseNamespace,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: node.Name, UID: node.UID}}},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &duration, RenewTime: &renew},
	}
	if _, err := k.m.env.API.Create(k.actor(cause), lease); err != nil && !apierrors.IsAlreadyExists(err) {
		panic("kubelet: creating node lease: " + err.Error())
	}
}

// armHeartbeat sets the timer of the next Lease renewal and status check,
// a wake-up: it only queues the heartbeat, which the kubelet does in its
// turn (sim.Loop.ArmWake).
func (k *Kubelet) armHeartbeat() {
	k.hbTimer = k.m.env.Loop.ArmWake(new(sim.Timer), k.now()+k.m.cfg.LeaseRenewInterval, k.hbLabel, k.hbFn)
}

// heartbeat renews the node Lease and, every nodeStatusUpdateFrequency,
// posts node status if it changed or if nodeStatusReportFrequency passed
// since the last post. Both loops run every 10 s in the kubelet; here they
// share one timer. This runs hundreds of times per virtual second in a
// large cluster, so it allocates little and traces nothing routine.
func (k *Kubelet) heartbeat() {
	m := k.m
	now := k.now()
	k.armHeartbeat()

	obj, ok := m.env.Store.Lookup(kinds.Lease, NodeLeaseNamespace, k.name)
	nodeObj, nodeOK := m.env.Store.Lookup(kinds.Node, "", k.name)
	if !nodeOK {
		return
	}
	node := nodeObj.(*corev1.Node)
	if !ok {
		seq := k.record(NodeLeaseNamespace, "lease/"+k.name, k.startCause, "node Lease was missing; created it again", whyLease)
		k.createLease(node, seq)
	} else {
		cur := obj.(*coordinationv1.Lease)
		renewed := *cur // shallow: only RenewTime changes, the rest is shared read-only
		t := metav1.NewMicroTime(now.Time())
		renewed.Spec.RenewTime = &t
		if _, err := m.env.API.Update(k.actor(0), &renewed); err != nil && !apierrors.IsNotFound(err) {
			panic("kubelet: renewing node lease: " + err.Error())
		}
		k.stats.LeaseRenewals++
	}

	if now < k.nextStatusCheck {
		return
	}
	k.nextStatusCheck = now + m.cfg.NodeStatusUpdateFrequency
	if k.nodeStatusChanged || now-k.lastReport >= m.cfg.NodeStatusReportFrequency {
		k.postNodeStatus(node, k.nodeStatusCause, false)
	}
}
