package scheduler

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/kubeloop/kubeloop/engine/component"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/store"
)

// Names the scheduler goes by: its trace component, and the name pods ask
// for (spec.schedulerName) and Events carry as their source.
const (
	Component     = "scheduler"
	SchedulerName = corev1.DefaultSchedulerName // "default-scheduler"
)

// Config tunes the scheduler; the zero Config is kube-scheduler's defaults.
type Config struct {
	// PercentageOfNodesToScore: 0 is adaptive (50 − nodes/125, at least 5).
	PercentageOfNodesToScore int32
	// Backoff and parking times; 0 means kube's default.
	PodInitialBackoff, PodMaxBackoff, PodMaxInUnschedulablePods sim.Tick
	// Plugins is the profile; nil means DefaultPlugins().
	Plugins []framework.PluginConfig
	// AttemptsPerPod and NodeRecords bound the explanations (0: defaults).
	AttemptsPerPod, NodeRecords int
}

// Scheduler is kubeloop's kube-scheduler: a reactor that watches pods and
// nodes, keeps its own NodeInfo cache and scheduling queue, and in each Work
// call tries one pod: filter, score, bind.
type Scheduler struct {
	env     component.Env
	cfg     Config
	fw      *framework.Framework
	prof    *profileInfo
	cache   *cache
	queue   *schedulingQueue
	explain *explainStore
	lister  *clusterLister

	// nominated are the waiting pods preemption nominated to a node.
	nominated *nominator
	// events records the scheduler's Events (see events.go).
	events *eventRecorder

	// nextStartNodeIndex rotates the filter scan's start (kube's
	// sched.nextStartNodeIndex), so every node gets its turn.
	nextStartNodeIndex int

	scratch cycleScratch
	// bindWhys are the Whys of binds, by node number (see bindWhy).
	bindWhys []string
}

var _ component.Reactor = (*Scheduler)(nil)

// New builds a scheduler.
func New(env component.Env, cfg Config) *Scheduler {
	if cfg.PodInitialBackoff == 0 {
		cfg.PodInitialBackoff = DefaultPodInitialBackoff
	}
	if cfg.PodMaxBackoff == 0 {
		cfg.PodMaxBackoff = DefaultPodMaxBackoff
	}
	if cfg.PodMaxInUnschedulablePods == 0 {
		cfg.PodMaxInUnschedulablePods = DefaultPodMaxInUnschedulablePodsPeriod
	}
	if cfg.Plugins == nil {
		cfg.Plugins = DefaultPlugins()
	}
	if cfg.PercentageOfNodesToScore < 0 || cfg.PercentageOfNodesToScore > 100 {
		// kube-scheduler's configuration validation rejects it too (and an
		// explanation keeps the percentage in a byte).
		panic("scheduler: percentageOfNodesToScore must be between 0 and 100")
	}
	if cfg.AttemptsPerPod == 0 {
		cfg.AttemptsPerPod = DefaultAttemptsPerPod
	}
	if cfg.NodeRecords == 0 {
		cfg.NodeRecords = DefaultNodeRecords
	}
	if cfg.NodeRecords > maxNodeRecords {
		panic("scheduler: more node records than an explanation can address")
	}
	fw := framework.New(cfg.Plugins)
	if len(fw.ScorePlugins()) > MaxScorePlugins {
		panic("scheduler: more score plugins than a NodeRecord holds")
	}
	prof := &profileInfo{scorers: fw.ScorePlugins()}
	prof.filters, prof.filterIdx = fw.FilterPlugins()
	if len(prof.filters) > MaxFilterPlugins {
		panic("scheduler: more filter plugins than a decision record holds")
	}
	for i, idx := range prof.filterIdx {
		prof.filterPos[idx] = int8(i)
	}
	s := &Scheduler{env: env, cfg: cfg, fw: fw, prof: prof, cache: newCache(),
		explain: newExplainStore(prof, cfg.NodeRecords, cfg.AttemptsPerPod)}
	s.lister = &clusterLister{cache: s.cache, st: env.Store}
	s.queue = newSchedulingQueue(fw, env.Loop, &s.cache.demands, cfg.PodInitialBackoff, cfg.PodMaxBackoff, cfg.PodMaxInUnschedulablePods)
	s.scratch.state = framework.NewCycleState()
	s.scratch.statuses = framework.NewNodeToStatus()
	s.events = newEventRecorder(s)
	s.wirePreemption()
	return s
}

// Name implements component.Reactor.
func (s *Scheduler) Name() string { return Component }

// Framework is the scheduler's profile runtime.
func (s *Scheduler) Framework() *framework.Framework { return s.fw }

// Explain returns the recorded attempts to schedule a pod, oldest first (at
// most the last 3), for `why pod/X`. Per-node tables are filled in while
// still kept.
func (s *Scheduler) Explain(namespace, pod string) []Decision {
	return s.explain.explain(podKey{namespace, pod}, s.accountedDecision(namespace, pod))
}

// accountedDecision is the latest decision of a pod the cache accounts,
// which the cache keeps (see cachedPod.last); nil if none.
func (s *Scheduler) accountedDecision(namespace, name string) *decisionRec {
	if s.env.Store == nil {
		return nil
	}
	o, ok := s.env.Store.Lookup(kinds.Pod, namespace, name)
	if !ok {
		return nil
	}
	if cp := s.cache.pods[o.(*corev1.Pod).UID]; cp != nil {
		return cp.last
	}
	return nil
}

// Queued reports how many pods wait in the activeQ, the backoffQ and among
// the unschedulable (or gated) pods.
func (s *Scheduler) Queued() (active, backoff, unschedulable int) { return s.queue.Counts() }

// NodeInfo returns the scheduler's view of a node (nil if unknown), for
// explanations and tests. It is the live cache: do not modify it.
func (s *Scheduler) NodeInfo(name string) *framework.NodeInfo { return s.cache.NodeInfo(name) }

// responsible reports whether this scheduler should place the pod: unbound,
// asking for default-scheduler, and not being deleted. An empty
// schedulerName counts as default-scheduler (the API server defaults it).
func responsible(p *corev1.Pod) bool {
	return p.Spec.NodeName == "" && p.DeletionTimestamp == nil &&
		(p.Spec.SchedulerName == "" || p.Spec.SchedulerName == SchedulerName) && !terminal(p)
}

// terminal pods hold no resources: kube-scheduler's pod informer excludes
// Succeeded and Failed pods (a field selector), so for the cache a pod that
// finishes is a pod deleted.
func terminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

func assigned(p *corev1.Pod) bool { return p != nil && p.Spec.NodeName != "" && !terminal(p) }

// Observe implements component.Reactor: it only updates the cache and the
// queue; all writes happen in Work.
func (s *Scheduler) Observe(ev store.Event) {
	switch ev.Kind {
	case kinds.Pod:
		s.observePod(ev)
	case kinds.Node:
		s.observeNode(ev)
	}
}

func (s *Scheduler) observePod(ev store.Event) {
	cur := ev.Object.(*corev1.Pod)
	var old *corev1.Pod
	if ev.Old != nil {
		old = ev.Old.(*corev1.Pod)
	}
	s.nominated.observe(ev)
	if ev.Type == store.Deleted {
		s.queue.Delete(cur.UID)
		s.explain.forget(cur)
		if s.cache.RemovePod(cur) != nil { // its decision goes with it
			s.queue.OnEvent(framework.ClusterEvent{Resource: framework.AssignedPod, ActionType: framework.Delete}, cur, nil, ev.Cause)
		}
		return
	}
	// The cache: pods bound to nodes.
	switch wasAssigned, isAssigned := assigned(old), assigned(cur); {
	case isAssigned && !wasAssigned:
		if cp := s.cache.AddPod(cur); cp != nil {
			cp.last = s.explain.take(cur)
		}
		s.queue.OnEvent(framework.ClusterEvent{Resource: framework.AssignedPod, ActionType: framework.Add}, nil, cur, ev.Cause)
	case isAssigned && wasAssigned:
		if s.cache.UpdatePod(cur) {
			s.queue.OnEvent(framework.ClusterEvent{Resource: framework.AssignedPod, ActionType: framework.UpdatePodScaleDown}, old, cur, ev.Cause)
		}
		if !kinds.SameLabels(old.Labels, cur.Labels) {
			s.queue.OnEvent(framework.ClusterEvent{Resource: framework.AssignedPod, ActionType: framework.UpdatePodLabel}, old, cur, ev.Cause)
		}
		// Not in the queue: the version that first showed the pod bound
		// took it out (below), and a bound pod never comes back (its
		// nodeName cannot be unset, and only unbound pods are queued).
		// Most writes to a pod are status writes to a bound pod, which
		// then cost no lookup in the queue.
		return
	case wasAssigned && !isAssigned:
		if cp := s.cache.RemovePod(cur); cp != nil {
			s.explain.restore(cur, cp.last) // a finished pod is still explained
			s.queue.OnEvent(framework.ClusterEvent{Resource: framework.AssignedPod, ActionType: framework.Delete}, old, nil, ev.Cause)
		}
	}
	// The queue: pods waiting for this scheduler.
	switch {
	case responsible(cur) && old != nil && s.queue.Has(cur.UID):
		s.queue.Update(old, cur, ev.Cause)
	case responsible(cur):
		s.queue.Add(cur, ev.Cause)
	default:
		s.queue.Delete(cur.UID) // bound, being deleted, finished, or not ours
	}
}

func (s *Scheduler) observeNode(ev store.Event) {
	n := ev.Object.(*corev1.Node)
	switch ev.Type {
	case store.Added:
		s.cache.AddNode(n)
		s.queue.OnEvent(framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add}, nil, n, ev.Cause)
	case store.Modified:
		old := ev.Old.(*corev1.Node)
		s.cache.UpdateNode(old, n)
		if a := nodeChange(old, n); a != 0 {
			s.queue.OnEvent(framework.ClusterEvent{Resource: framework.Node, ActionType: a}, old, n, ev.Cause)
		}
	case store.Deleted:
		s.cache.RemoveNode(n)
		s.queue.OnEvent(framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Delete}, n, nil, ev.Cause)
	}
}

// nodeChange says which scheduling-relevant parts of a node changed (kube's
// nodeSchedulingPropertiesChange); heartbeats and image lists are not among
// them. A cordon or uncordon counts as a taint change, as in kube.
func nodeChange(old, n *corev1.Node) framework.ActionType {
	var a framework.ActionType
	// Every heartbeat of every node comes here: maps.Equal and
	// sameResourceList say what equality.Semantic.DeepEqual says of these
	// maps (nil and empty alike), without reflection.
	if !sameResourceList(old.Status.Allocatable, n.Status.Allocatable) {
		a |= framework.UpdateNodeAllocatable
	}
	if !maps.Equal(old.Labels, n.Labels) {
		a |= framework.UpdateNodeLabel
	}
	if old.Spec.Unschedulable != n.Spec.Unschedulable || !equality.Semantic.DeepEqual(old.Spec.Taints, n.Spec.Taints) {
		a |= framework.UpdateNodeTaint
	}
	if !maps.Equal(old.Annotations, n.Annotations) {
		a |= framework.UpdateNodeAnnotation
	}
	if conditionsChanged(old.Status.Conditions, n.Status.Conditions) {
		a |= framework.UpdateNodeCondition
	}
	return a
}

// sameResourceList reports whether two resource lists have the same
// resources in the same quantities (compared by value, as
// equality.Semantic compares quantities).
func sameResourceList(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for name, qa := range a {
		if qb, ok := b[name]; !ok || qa.Cmp(qb) != 0 {
			return false
		}
	}
	return true
}

// conditionsChanged compares node conditions ignoring heartbeat times.
func conditionsChanged(a, b []corev1.NodeCondition) bool {
	if len(a) != len(b) {
		return true
	}
	for i := range a {
		if a[i].Type != b[i].Type || a[i].Status != b[i].Status || a[i].Reason != b[i].Reason || a[i].Message != b[i].Message {
			return true
		}
	}
	return false
}

// Work implements component.Reactor: it tries the next pod of the activeQ,
// if any.
func (s *Scheduler) Work() bool {
	if s.events.work() {
		return true
	}
	qp := s.queue.Pop()
	if qp == nil {
		return false
	}
	s.scheduleOne(qp)
	return true
}
