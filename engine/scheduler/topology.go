package scheduler

import (
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/store"
)

// maxCountIndexes bounds the CountQuery indexes kept; past it they are all
// dropped and rebuilt on demand (a learner trying many selectors).
const maxCountIndexes = 512

// topoIndex is the cache's answer to "how many pods matching S are in each
// zone / on each host": per CountQuery a map topology value -> count, kept
// current as pods are added, updated and removed, and the distinct pod
// affinity terms of bound pods with their own per-domain counts. This is
// what makes inter-pod affinity and topology spread cost a map lookup per
// node instead of a scan of all pods (kube recomputes them in PreFilter).
// A change of any node's labels (or a node coming or going) drops it all;
// it is rebuilt lazily from the pods on the next question.
type topoIndex struct {
	c       *cache
	valid   bool
	counts  map[string]*countIndex
	terms   map[string]*framework.ExistingTerm
	termLst []*framework.ExistingTerm // sorted by key, nil when stale
	domains map[string]*domainSet
}

type countIndex struct {
	q      framework.CountQuery
	counts map[string]int
}

type domainSet struct {
	values map[string]int
	n      int
}

func newTopoIndex(c *cache) *topoIndex {
	return &topoIndex{c: c}
}

// invalidate forgets everything (node labels changed).
func (t *topoIndex) invalidate() {
	t.valid = false
	t.counts, t.terms, t.termLst, t.domains = nil, nil, nil, nil
}

func (t *topoIndex) ensure() {
	if t.valid {
		return
	}
	t.valid = true
	t.counts = map[string]*countIndex{}
	t.terms = map[string]*framework.ExistingTerm{}
	t.termLst = nil
	t.domains = map[string]*domainSet{}
	for _, ni := range t.c.nodes {
		if ni.Node() == nil {
			continue
		}
		for _, pi := range ni.Pods {
			t.addTerms(pi.Pod, ni.Node(), 1)
		}
	}
}

// podChanged applies a pod's arrival (old nil), departure (cur nil) or
// update on node.
func (t *topoIndex) podChanged(old, cur *corev1.Pod, node *corev1.Node) {
	if !t.valid || node == nil {
		return
	}
	if old != nil && cur != nil && sameTopologyFacts(old, cur) {
		return
	}
	for _, ci := range t.counts {
		v, ok := node.Labels[ci.q.TopologyKey]
		if !ok {
			continue
		}
		if old != nil && ci.q.Matches(old) {
			ci.add(v, -1)
		}
		if cur != nil && ci.q.Matches(cur) {
			ci.add(v, 1)
		}
	}
	if old != nil {
		t.addTerms(old, node, -1)
	}
	if cur != nil {
		t.addTerms(cur, node, 1)
	}
}

func sameTopologyFacts(a, b *corev1.Pod) bool {
	if (a.DeletionTimestamp == nil) != (b.DeletionTimestamp == nil) || !equality.Semantic.DeepEqual(a.Labels, b.Labels) {
		return false
	}
	if a.Spec.Affinity == b.Spec.Affinity {
		return true
	}
	pa, pb := podAffinityOf(a), podAffinityOf(b)
	return equality.Semantic.DeepEqual(pa, pb)
}

func podAffinityOf(p *corev1.Pod) [2]any {
	a := p.Spec.Affinity
	if a == nil {
		return [2]any{}
	}
	return [2]any{a.PodAffinity, a.PodAntiAffinity}
}

func (ci *countIndex) add(v string, d int) {
	n := ci.counts[v] + d
	if n <= 0 {
		delete(ci.counts, v)
		return
	}
	ci.counts[v] = n
}

// addTerms adds (d=1) or removes (d=-1) a pod's affinity terms.
func (t *topoIndex) addTerms(p *corev1.Pod, node *corev1.Node, d int) {
	a := p.Spec.Affinity
	if a == nil || (a.PodAffinity == nil && a.PodAntiAffinity == nil) {
		return
	}
	if pa := a.PodAffinity; pa != nil {
		for i := range pa.RequiredDuringSchedulingIgnoredDuringExecution {
			t.addTerm(framework.RequiredAffinity, 0, p.Namespace, &pa.RequiredDuringSchedulingIgnoredDuringExecution[i], node, d)
		}
		for i := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
			w := &pa.PreferredDuringSchedulingIgnoredDuringExecution[i]
			t.addTerm(framework.PreferredAffinity, w.Weight, p.Namespace, &w.PodAffinityTerm, node, d)
		}
	}
	if pa := a.PodAntiAffinity; pa != nil {
		for i := range pa.RequiredDuringSchedulingIgnoredDuringExecution {
			t.addTerm(framework.RequiredAntiAffinity, 0, p.Namespace, &pa.RequiredDuringSchedulingIgnoredDuringExecution[i], node, d)
		}
		for i := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
			w := &pa.PreferredDuringSchedulingIgnoredDuringExecution[i]
			t.addTerm(framework.PreferredAntiAffinity, w.Weight, p.Namespace, &w.PodAffinityTerm, node, d)
		}
	}
}

func (t *topoIndex) addTerm(kind framework.TermKind, weight int32, ns string, term *corev1.PodAffinityTerm, node *corev1.Node, d int) {
	v, ok := node.Labels[term.TopologyKey]
	if !ok {
		return
	}
	key := string(rune('0'+kind)) + "|" + itoa(int(weight)) + "|" + ns + "|" + term.String()
	et := t.terms[key]
	if et == nil {
		if d < 0 {
			return
		}
		sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
		if err != nil {
			return // validation rejects such terms; an unparsable one matches nothing
		}
		et = &framework.ExistingTerm{Kind: kind, Weight: weight, Namespace: ns, Term: *term.DeepCopy(), Selector: sel,
			Counts: map[string]int{}}
		t.terms[key] = et
		t.termLst = nil
	}
	n := et.Counts[v] + d
	if n <= 0 {
		delete(et.Counts, v)
	} else {
		et.Counts[v] = n
	}
	if len(et.Counts) == 0 {
		delete(t.terms, key)
		t.termLst = nil
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [12]byte
	i := len(b)
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// TopologyCounts implements framework.ClusterLister.
func (c *cache) TopologyCounts(q *framework.CountQuery) map[string]int {
	t := c.topo
	t.ensure()
	if ci := t.counts[q.Key]; ci != nil {
		return ci.counts
	}
	if len(t.counts) >= maxCountIndexes {
		t.counts = map[string]*countIndex{}
	}
	ci := &countIndex{q: *q, counts: map[string]int{}}
	ci.q.Terms = append([]framework.PodSelector(nil), q.Terms...)
	for _, ni := range c.nodes {
		n := ni.Node()
		if n == nil {
			continue
		}
		v, ok := n.Labels[q.TopologyKey]
		if !ok {
			continue
		}
		for _, pi := range ni.Pods {
			if ci.q.Matches(pi.Pod) {
				ci.counts[v]++
			}
		}
	}
	t.counts[q.Key] = ci
	return ci.counts
}

// Domains implements framework.ClusterLister.
func (c *cache) Domains(key string) (map[string]int, int) {
	t := c.topo
	t.ensure()
	if d := t.domains[key]; d != nil {
		return d.values, d.n
	}
	d := &domainSet{values: map[string]int{}}
	for _, ni := range c.NodeInfos() {
		if v, ok := ni.Node().Labels[key]; ok {
			d.values[v]++
			d.n++
		}
	}
	t.domains[key] = d
	return d.values, d.n
}

// ExistingTerms implements framework.ClusterLister.
func (c *cache) ExistingTerms() []*framework.ExistingTerm {
	t := c.topo
	t.ensure()
	if t.termLst == nil {
		keys := make([]string, 0, len(t.terms))
		for k := range t.terms {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		t.termLst = make([]*framework.ExistingTerm, 0, len(keys))
		for _, k := range keys {
			t.termLst = append(t.termLst, t.terms[k])
		}
	}
	return t.termLst
}

// clusterLister adds what the cache does not hold (namespaces, Services,
// controllers) from the informer store.
type clusterLister struct {
	*cache
	st *store.Store
}

// Namespaces implements framework.ClusterLister.
func (l clusterLister) Namespaces() []framework.NamespaceInfo {
	objs := l.st.List(kinds.Namespace, "")
	out := make([]framework.NamespaceInfo, 0, len(objs))
	for _, o := range objs {
		ns := o.(*corev1.Namespace)
		out = append(out, framework.NamespaceInfo{Name: ns.Name, Labels: ns.Labels})
	}
	return out
}

// DefaultSpreadSelector implements framework.ClusterLister (kube's
// helper.DefaultSelector, for Services and ReplicaSets: kubeloop serves no
// ReplicationControllers, and StatefulSets' selectors are read when served).
func (l clusterLister) DefaultSpreadSelector(pod *corev1.Pod) labels.Selector {
	owner := metav1.GetControllerOfNoCopy(pod)
	if len(pod.Labels) == 0 && owner == nil {
		return labels.Everything() // nothing can select it
	}
	set := labels.Set{}
	if len(pod.Labels) > 0 {
		for _, o := range l.st.List(kinds.Service, pod.Namespace) {
			svc := o.(*corev1.Service)
			if len(svc.Spec.Selector) == 0 {
				continue
			}
			if labels.SelectorFromValidatedSet(svc.Spec.Selector).Matches(labels.Set(pod.Labels)) {
				set = labels.Merge(set, svc.Spec.Selector)
			}
		}
	}
	selector := set.AsSelector()
	if owner == nil {
		return selector
	}
	var ls *metav1.LabelSelector
	switch owner.Kind {
	case "ReplicaSet":
		if o, ok := l.st.Lookup(kinds.ReplicaSet, pod.Namespace, owner.Name); ok {
			ls = o.(*appsv1.ReplicaSet).Spec.Selector
		}
	case "StatefulSet":
		if k, ok := kinds.Lookup("statefulsets"); ok {
			if o, ok := l.st.Lookup(k, pod.Namespace, owner.Name); ok {
				if ss, ok := o.(*appsv1.StatefulSet); ok {
					ls = ss.Spec.Selector
				}
			}
		}
	}
	if ls != nil {
		if other, err := metav1.LabelSelectorAsSelector(ls); err == nil {
			if r, ok := other.Requirements(); ok {
				selector = selector.Add(r...)
			}
		}
	}
	return selector
}
