package kubelet

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/component"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/store"
	"github.com/kubeloop/kubeloop/engine/workload"
)

// PodNodeIndex is the store index of pods by spec.nodeName, the kubelet's
// field selector: a kubelet lists only its own node's pods.
const PodNodeIndex = "spec.nodeName"

// Manager is the reactor that runs every node's kubelet. It starts a
// Kubelet when a Node is added and stops it when the Node is deleted, and
// hands each pod event to the kubelet of that pod's node, and to no other.
type Manager struct {
	env    component.Env
	cfg    Config
	images *workload.Registry

	kubelets map[string]*Kubelet // by node name
	dirty    fifo[*Kubelet]      // kubelets with queued work, in the order it was queued
	indexes  nodeIndexes
	echoes   []echo // the kubelets' pod status writes not yet seen back (Observe)

	// Shared by every kubelet (shared.go).
	refs        map[string]*imageRef
	msgs        map[msgKey]string
	pulled      map[pulledKey]pulled
	strs        map[string]string
	shared      map[[2]string]*ctrShared // by container name and image
	conds       [recentConds][]corev1.PodCondition
	condPrints  [recentConds]uint64 // condsPrint of each of conds
	condsNext   int
	scratch     corev1.Pod  // the body of a pod status write, reused
	nodeScratch corev1.Node // the body of a node status write, reused
	condBuf     []corev1.PodCondition
	statusBuf   []corev1.ContainerStatus
	msgBuf      []byte // a trace message being built

	lastTime      *metav1.Time // timeAt's latest value
	lastTimeAt    sim.Tick
	lastRunning   *corev1.ContainerStateRunning // runningSince's latest value
	lastRunningAt sim.Tick
}

var _ component.Reactor = (*Manager)(nil)

// NewManager builds the kubelet manager. It files pods by node name in the
// store (PodNodeIndex) so that a starting kubelet finds its pods without a
// scan. Env.Images is the registry the nodes pull from; a nil one means the
// built-in catalogue.
func NewManager(env component.Env, cfg Config) *Manager {
	images := env.Images
	if images == nil {
		images = workload.DefaultRegistry()
	}
	if !env.Store.HasIndex(kinds.Pod, PodNodeIndex) {
		env.Store.AddIndex(kinds.Pod, PodNodeIndex, func(o store.Object) []string {
			if n := o.(*corev1.Pod).Spec.NodeName; n != "" {
				return []string{n}
			}
			return nil
		})
	}
	return &Manager{env: env, cfg: cfg, images: images, kubelets: map[string]*Kubelet{},
		refs: map[string]*imageRef{}, msgs: map[msgKey]string{}, pulled: map[pulledKey]pulled{}, strs: map[string]string{},
		shared: map[[2]string]*ctrShared{}}
}

// Name is the reactor's name; each kubelet traces as "kubelet/<node>".
func (m *Manager) Name() string { return "kubelet" }

// Config is the configuration the kubelets run with.
func (m *Manager) Config() Config { return m.cfg }

// Observe routes a watch event: nodes start and stop kubelets, pods go to
// their node's kubelet. Everything else is ignored at the cost of one
// comparison, since lease renewals alone are hundreds of events per second
// in a large cluster.
func (m *Manager) Observe(ev store.Event) {
	switch ev.Kind {
	case kinds.Pod:
		pod := ev.Object.(*corev1.Pod)
		if pod.Spec.NodeName == "" {
			return
		}
		if ev.Type == store.Modified && m.echoed(pod) {
			return
		}
		if k := m.kubelets[pod.Spec.NodeName]; k != nil {
			k.observePod(ev, pod)
		}
	case kinds.Node:
		m.observeNode(ev)
	}
}

func (m *Manager) observeNode(ev store.Event) {
	name := ev.Object.GetName()
	switch ev.Type {
	case store.Added:
		if m.kubelets[name] != nil {
			return
		}
		k := newKubelet(m, name, ev.Cause)
		m.kubelets[name] = k
		m.markDirty(k)
	case store.Deleted:
		if k := m.kubelets[name]; k != nil {
			k.stop()
			delete(m.kubelets, name)
			m.indexes.release(k.index)
		}
	}
}

// echo is a kubelet's own pod status write, which comes back as a watch
// event. Most pod events a kubelet sees are these, and one tells it
// nothing: it already holds the object it wrote.
type echo struct {
	pod *corev1.Pod // the stored object the write returned
	k   *Kubelet
	p   *podState
}

// echoed takes the watch event of pod if it is the echo of a kubelet's
// status write that the kubelet still holds (p.pod): as observePod would,
// it counts it and does nothing else, but without finding the node's
// kubelet and the pod's podState by name, two lookups in maps far too big
// to stay in the cache. Anything else takes the usual way.
func (m *Manager) echoed(pod *corev1.Pod) bool {
	for i := range m.echoes {
		e := &m.echoes[i]
		if e.pod != pod {
			continue
		}
		k, p := e.k, e.p
		*e = echo{}
		if p.pod != pod || k.stopped || p.forgotten {
			return false
		}
		k.stats.PodEvents++
		return true
	}
	return false
}

func (m *Manager) markDirty(k *Kubelet) {
	if !k.inDirty {
		k.inDirty = true
		m.dirty.push(k)
	}
}

// Parallel marks the kubelets as many nodes at work at once: the engine
// lets them work through everything due before the control plane reacts
// (component.Parallel).
func (m *Manager) Parallel() {}

// Work does one step of one kubelet's queued work. Kubelets take turns, in
// the order their work was queued, so that pods on different nodes progress
// side by side as they would in a real cluster.
func (m *Manager) Work() bool {
	// The engine delivers every write before it asks for work, so an echo
	// not seen by now is of a write that changed nothing and will not
	// come. (Were one dropped early, its event would only take the usual
	// way.)
	if len(m.echoes) > 0 {
		clear(m.echoes)
		m.echoes = m.echoes[:0]
	}
	for m.dirty.len() > 0 {
		k := m.dirty.pop()
		k.inDirty = false
		if k.stopped || !k.hasWork() {
			continue
		}
		k.workOne()
		if k.hasWork() {
			m.markDirty(k)
		}
		return true
	}
	return false
}

// Kubelet returns the kubelet of a node.
func (m *Manager) Kubelet(node string) (*Kubelet, bool) {
	k, ok := m.kubelets[node]
	return k, ok
}

// Nodes lists the nodes that have a running kubelet, sorted.
func (m *Manager) Nodes() []string {
	out := make([]string, 0, len(m.kubelets))
	for n := range m.kubelets {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Stats sums every kubelet's counters.
func (m *Manager) Stats() Stats {
	var s Stats
	for _, k := range m.kubelets {
		s.add(k.stats)
	}
	return s
}

// Stats counts what a kubelet did, including the work that is deliberately
// left out of the trace.
type Stats struct {
	PodEvents     int // pod watch events dispatched to this kubelet
	PodSyncs      int // pod syncs run
	LeaseRenewals int // node Lease renewals (not traced)
	StatusReports int // unchanged node status re-posted (not traced)
	StatusUpdates int // node status posted because it changed (traced)
	ImagePulls    int // pulls finished, successful or not
	Probes        int // probes run (not traced unless their result changes something)
}

func (s *Stats) add(o Stats) {
	s.PodEvents += o.PodEvents
	s.PodSyncs += o.PodSyncs
	s.LeaseRenewals += o.LeaseRenewals
	s.StatusReports += o.StatusReports
	s.StatusUpdates += o.StatusUpdates
	s.ImagePulls += o.ImagePulls
	s.Probes += o.Probes
}

// fifo is a queue that reuses its backing array: the kubelets' queues are
// pushed and popped hundreds of times per virtual second, and a slice
// resliced from the front would be reallocated over and over.
type fifo[T any] struct {
	items []T
	head  int
}

func (q *fifo[T]) len() int { return len(q.items) - q.head }

// push appends x. A full array whose front half pop has emptied is
// compacted rather than grown: a queue that is never empty for long (the
// Manager's dirty kubelets, a node's pods in a rollout) would otherwise
// grow by everything ever pushed, and keep that array.
func (q *fifo[T]) push(x T) {
	if len(q.items) == cap(q.items) && q.head > 0 && q.head >= len(q.items)/2 {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:]) // the moved items' old places
		q.items, q.head = q.items[:n], 0
	}
	q.items = append(q.items, x)
}

func (q *fifo[T]) pop() T {
	var zero T
	x := q.items[q.head]
	q.items[q.head] = zero
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
		if cap(q.items) > fifoKeep {
			q.items = nil
		}
	}
	return x
}

// fifoKeep is the largest array an emptied fifo keeps. A node's queues
// are pushed a few at a time once its pods run, and then reuse theirs;
// what a burst (a rollout's pods and their pulls) grew one to is given
// back: 5,000 nodes would otherwise keep two such arrays each.
const fifoKeep = 16

func (q *fifo[T]) clear() {
	clear(q.items)
	q.items, q.head = q.items[:0], 0
}
