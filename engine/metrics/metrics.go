package metrics

import (
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/store"
	"github.com/kubeloop/kubeloop/engine/workload"
)

// Resolution is metrics-server's default --metric-resolution: how often it
// scrapes the kubelets, and so the window of each sample.
const Resolution = 15 * sim.Second

// NodeOverhead is what a node's system daemons (kubelet, containerd, the
// kernel) use on an idle node, as `kubectl top nodes` shows on a fresh
// kind or kubeadm worker.
var NodeOverhead = workload.Idle{CPUMilli: 60, MemoryBytes: 480 << 20}

// ContainerMetrics is one container's usage (metrics.k8s.io ContainerMetrics).
type ContainerMetrics struct {
	Name        string
	CPUMilli    int64 // usage.cpu, in millicores
	MemoryBytes int64 // usage.memory: the working set, in bytes
}

// PodMetrics is one pod's sample (metrics.k8s.io/v1beta1 PodMetrics).
type PodMetrics struct {
	Namespace, Name string
	// Timestamp is when the sample was taken; Window the interval its CPU
	// rate was computed over.
	Timestamp, Window sim.Tick
	Containers        []ContainerMetrics
}

// CPUMilli is the pod's total CPU usage.
func (p *PodMetrics) CPUMilli() int64 {
	var n int64
	for _, c := range p.Containers {
		n += c.CPUMilli
	}
	return n
}

// MemoryBytes is the pod's total working set.
func (p *PodMetrics) MemoryBytes() int64 {
	var n int64
	for _, c := range p.Containers {
		n += c.MemoryBytes
	}
	return n
}

// NodeMetrics is one node's sample (metrics.k8s.io/v1beta1 NodeMetrics).
type NodeMetrics struct {
	Name              string
	Timestamp, Window sim.Tick
	CPUMilli          int64
	MemoryBytes       int64
}

// Server is the simulated metrics-server. Build it with New; it scrapes on
// its own timer.
type Server struct {
	loop   *sim.Loop
	store  *store.Store
	images *workload.Registry
	loads  *workload.Loads

	scrapes int
	last    sim.Tick
	pods    []PodMetrics  // sorted by namespace, name
	nodes   []NodeMetrics // sorted by name
	idle    map[string]workload.Idle
}

// New builds the metrics-server and schedules its scrapes, the first one
// Resolution from now.
func New(loop *sim.Loop, st *store.Store, images *workload.Registry, loads *workload.Loads) *Server {
	s := &Server{loop: loop, store: st, images: images, loads: loads, idle: map[string]workload.Idle{}}
	loop.After(Resolution, "metrics-server scrape", s.tick)
	return s
}

func (s *Server) tick() {
	s.Scrape()
	s.loop.After(Resolution, "metrics-server scrape", s.tick)
}

// Available reports whether the metrics API has served anything yet: false
// until the first scrape.
func (s *Server) Available() bool { return s.scrapes > 0 }

// LastScrape is the time of the latest scrape (0 before the first).
func (s *Server) LastScrape() sim.Tick { return s.last }

// Pods lists the pods' samples in a namespace ("" for all), sorted by
// namespace and name. The slice is the caller's; do not change the samples.
func (s *Server) Pods(namespace string) []PodMetrics {
	var out []PodMetrics
	for _, p := range s.pods {
		if namespace == "" || p.Namespace == namespace {
			out = append(out, p)
		}
	}
	return out
}

// Pod returns one pod's sample.
func (s *Server) Pod(namespace, name string) (PodMetrics, bool) {
	// s.pods is in the store's key order: by namespace, then name.
	i := sort.Search(len(s.pods), func(i int) bool {
		p := &s.pods[i]
		return p.Namespace > namespace || (p.Namespace == namespace && p.Name >= name)
	})
	if i < len(s.pods) && s.pods[i].Namespace == namespace && s.pods[i].Name == name {
		return s.pods[i], true
	}
	return PodMetrics{}, false
}

// Nodes lists the nodes' samples, sorted by name.
func (s *Server) Nodes() []NodeMetrics { return append([]NodeMetrics(nil), s.nodes...) }

// Node returns one node's sample.
func (s *Server) Node(name string) (NodeMetrics, bool) {
	i := sort.Search(len(s.nodes), func(i int) bool { return s.nodes[i].Name >= name })
	if i < len(s.nodes) && s.nodes[i].Name == name {
		return s.nodes[i], true
	}
	return NodeMetrics{}, false
}

// share is what the pods of one loaded Deployment get.
type share struct {
	cpu, mem int64
}

// Scrape takes a sample of every running pod and every ready node now.
// The timer calls it every Resolution; tests may call it directly.
func (s *Server) Scrape() {
	now := s.loop.Now()
	s.scrapes++
	s.last = now
	all := s.store.List(kinds.Pod, "")
	shares := s.demandShares(all)
	prev := now - Resolution

	// A fresh slice: callers may hold the previous scrape's samples.
	s.pods = make([]PodMetrics, 0, len(s.pods))
	var backing []ContainerMetrics
	nodeUse := map[string]*NodeMetrics{}
	for _, o := range all {
		p := o.(*corev1.Pod)
		if p.Status.Phase != corev1.PodRunning || p.Spec.NodeName == "" {
			continue
		}
		if !runningSince(p, prev) {
			continue
		}
		sh := shares[p.Namespace+"/"+p.Name]
		if cap(backing)-len(backing) < len(p.Spec.Containers) {
			backing = make([]ContainerMetrics, 0, max(256, len(p.Spec.Containers)))
		}
		pm := PodMetrics{Namespace: p.Namespace, Name: p.Name, Timestamp: now, Window: Resolution,
			Containers: backing[len(backing) : len(backing) : len(backing)+len(p.Spec.Containers)]}
		for i, c := range p.Spec.Containers {
			idle := s.idleOf(c.Image)
			var cpuShare, memShare int64
			if i == 0 {
				cpuShare, memShare = sh.cpu, sh.mem
			}
			pm.Containers = append(pm.Containers, ContainerMetrics{Name: c.Name,
				CPUMilli:    workload.Usage(idle.CPUMilli, cpuShare, c.Resources.Limits.Cpu().MilliValue()),
				MemoryBytes: workload.Usage(idle.MemoryBytes, memShare, c.Resources.Limits.Memory().Value()),
			})
		}
		backing = backing[:len(backing)+len(pm.Containers)]
		s.pods = append(s.pods, pm)
		n := nodeUse[p.Spec.NodeName]
		if n == nil {
			n = &NodeMetrics{}
			nodeUse[p.Spec.NodeName] = n
		}
		n.CPUMilli += pm.CPUMilli()
		n.MemoryBytes += pm.MemoryBytes()
	}

	s.nodes = s.nodes[:0]
	for _, o := range s.store.List(kinds.Node, "") {
		nd := o.(*corev1.Node)
		if !nodeReadySince(nd, prev) {
			continue
		}
		nm := NodeMetrics{Name: nd.Name, Timestamp: now, Window: Resolution,
			CPUMilli: NodeOverhead.CPUMilli, MemoryBytes: NodeOverhead.MemoryBytes}
		if u := nodeUse[nd.Name]; u != nil {
			nm.CPUMilli += u.CPUMilli
			nm.MemoryBytes += u.MemoryBytes
		}
		s.nodes = append(s.nodes, nm)
	}
}

// demandShares maps each pod of a loaded Deployment ("ns/name") to its
// share: the Deployment's demand divided among its ready pods. Only ready
// pods get a share, as only they are a Service's endpoints.
func (s *Server) demandShares(all []store.Object) map[string]share {
	out := map[string]share{}
	for _, key := range s.loads.Keys() {
		ns, name := splitKey(key)
		d, _ := s.loads.Get(ns, name)
		o, ok := s.store.Lookup(kinds.Deployment, ns, name)
		if !ok {
			continue
		}
		dep := o.(*appsv1.Deployment)
		sel, err := metav1.LabelSelectorAsSelector(dep.Spec.Selector)
		if err != nil || sel.Empty() {
			continue
		}
		var ready []string
		for _, po := range s.store.List(kinds.Pod, ns) {
			p := po.(*corev1.Pod)
			if p.DeletionTimestamp == nil && sel.Matches(labels.Set(p.Labels)) && podReady(p) {
				ready = append(ready, p.Name)
			}
		}
		addShares(out, ns, ready, d)
	}
	// Load generators: pods running a wget loop against a Service load the
	// Service's ready endpoints.
	gens := map[string]int{} // "ns/service" -> generators
	for _, o := range all {
		p := o.(*corev1.Pod)
		if p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil {
			continue
		}
		for _, c := range p.Spec.Containers {
			if !mentionsHTTP(c.Command) && !mentionsHTTP(c.Args) {
				continue
			}
			host := workload.LoadTarget(append(append([]string(nil), c.Command...), c.Args...))
			if host == "" {
				continue
			}
			if name, ns := workload.ServiceOf(host, p.Namespace); name != "" {
				gens[ns+"/"+name]++
			}
		}
	}
	keys := make([]string, 0, len(gens))
	for k := range gens {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		ns, name := splitKey(key)
		o, ok := s.store.Lookup(kinds.Service, ns, name)
		if !ok {
			continue
		}
		svc := o.(*corev1.Service)
		if len(svc.Spec.Selector) == 0 {
			continue
		}
		sel := labels.SelectorFromSet(svc.Spec.Selector)
		var ready []string
		for _, po := range s.store.List(kinds.Pod, ns) {
			p := po.(*corev1.Pod)
			if p.DeletionTimestamp == nil && sel.Matches(labels.Set(p.Labels)) && podReady(p) {
				ready = append(ready, p.Name)
			}
		}
		addShares(out, ns, ready, workload.Demand{CPUMilli: int64(gens[key]) * workload.LoadGeneratorCPU})
	}
	return out
}

// addShares divides d among the ready pods, on top of what they have.
func addShares(out map[string]share, ns string, ready []string, d workload.Demand) {
	sh := share{cpu: workload.Share(d.CPUMilli, len(ready)), mem: workload.Share(d.MemoryBytes, len(ready))}
	for _, n := range ready {
		cur := out[ns+"/"+n]
		cur.cpu += sh.cpu
		cur.mem += sh.mem
		out[ns+"/"+n] = cur
	}
}

func (s *Server) idleOf(image string) workload.Idle {
	if v, ok := s.idle[image]; ok {
		return v
	}
	var img *workload.Image
	if s.images != nil {
		img, _ = s.images.Lookup(image)
	}
	v := workload.IdleUsage(img)
	s.idle[image] = v
	return v
}

// runningSince reports whether every container of p was running at t.
func runningSince(p *corev1.Pod, t sim.Tick) bool {
	if len(p.Status.ContainerStatuses) < len(p.Spec.Containers) {
		return false
	}
	for _, cs := range p.Status.ContainerStatuses {
		r := cs.State.Running
		if r == nil || sim.FromTime(r.StartedAt.Time) > t {
			return false
		}
	}
	return true
}

func nodeReadySince(n *corev1.Node, t sim.Tick) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue && sim.FromTime(c.LastTransitionTime.Time) <= t
		}
	}
	return false
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func mentionsHTTP(words []string) bool {
	for _, w := range words {
		if strings.Contains(w, "http://") {
			return true
		}
	}
	return false
}

func splitKey(key string) (string, string) {
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			return key[:i], key[i+1:]
		}
	}
	return "", key
}
