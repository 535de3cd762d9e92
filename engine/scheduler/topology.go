package scheduler

import (
	"maps"
	"slices"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/store"
)

// maxCountIndexes bounds the CountQuery indexes kept; past it they are all
// dropped and rebuilt on demand (a learner trying many selectors).
const maxCountIndexes = 512

// topoIndex is the cache's answer to "how many pods matching S are in each
// zone / on each host": per CountQuery the counts per topology domain, kept
// current as pods are added, updated and removed, and the distinct pod
// affinity terms of bound pods with their own per-domain counts. This is
// what makes inter-pod affinity and topology spread cost a slice read per
// node instead of a scan of all pods (kube recomputes them in PreFilter).
// Domains are numbered per topology key, and nodes carry their position in
// the node list (NodeInfo.Index), so a count lookup never hashes a string.
// A change of any node's labels (or a node coming or going) drops it all;
// it is rebuilt lazily from the pods on the next question.
type topoIndex struct {
	c      *cache
	valid  bool
	counts map[string]*countIndex
	// byAnchor files each count query under a label pair that every pod it
	// counts must carry (its anchor, from an equality requirement); a pod
	// change is then checked only against the queries anchored on its own
	// labels, and a new query is built from the pods with its anchor (from
	// byLabel) instead of a scan of every pod. Queries without an anchor
	// (only Exists/NotIn requirements) are in unanchored.
	byAnchor   map[string][]*countIndex
	unanchored []*countIndex
	byLabel    map[string][]*labelGroup // "key=value" -> the groups of bound pods with that label
	terms      map[string]*framework.ExistingTerm
	termLst    []*framework.ExistingTerm // sorted by key, nil when stale
	domains    map[string]*domainIndex
	// groups are the bound pods by their whole set of labels (see
	// labelSetKey): the replicas of a ReplicaSet share theirs, so each
	// pod is filed once, in its group, and each of its label pairs lists
	// the group once, where filing the pod under every pair cost a set
	// entry per pair.
	groups map[string]*labelGroup
}

type countIndex struct {
	q  framework.CountQuery
	dc *framework.DomainCounts
}

// anchorOf is a label pair every pod matching q carries ("app=web"), from
// the first equality requirement of its terms' selectors; "" if none.
func anchorOf(q *framework.CountQuery) string {
	for i := range q.Terms {
		if q.Terms[i].Selector == nil {
			continue
		}
		reqs, _ := q.Terms[i].Selector.Requirements()
		for _, r := range reqs {
			switch op := r.Operator(); {
			case op == selection.Equals || op == selection.DoubleEquals || op == selection.In && r.Values().Len() == 1:
				return r.Key() + "=" + r.Values().List()[0]
			}
		}
	}
	return ""
}

// resetCounts forgets every count query.
func (t *topoIndex) resetCounts() {
	t.counts = map[string]*countIndex{}
	t.byAnchor = map[string][]*countIndex{}
	t.unanchored = nil
}

// labelGroup is the bound pods with one set of labels.
type labelGroup struct{ pods map[*cachedPod]struct{} }

// labelPods files (d=1) or unfiles (d=-1) a bound pod in the group of the
// labels of p, its version before (d=-1) or after (d=1) a change. A pod
// without labels carries no anchor: it is not filed.
func (t *topoIndex) labelPods(cp *cachedPod, p *corev1.Pod, d int) {
	if len(p.Labels) == 0 {
		return
	}
	var buf [256]byte
	key := labelSetKey(buf[:0], p.Labels)
	g := t.groups[string(key)] // a lookup: no allocation
	if d > 0 {
		if g == nil {
			g = &labelGroup{pods: map[*cachedPod]struct{}{}}
			t.groups[string(key)] = g
			// Each pair's list gets g once: the order the pairs are
			// visited in does not matter.
			for k, v := range p.Labels {
				t.byLabel[k+"="+v] = append(t.byLabel[k+"="+v], g)
			}
		}
		g.pods[cp] = struct{}{}
		return
	}
	if g == nil {
		return
	}
	delete(g.pods, cp)
	if len(g.pods) > 0 {
		return
	}
	delete(t.groups, string(key))
	for k, v := range p.Labels {
		gs := t.byLabel[k+"="+v]
		if i := slices.Index(gs, g); i >= 0 {
			gs = slices.Delete(gs, i, i+1)
		}
		if len(gs) == 0 {
			delete(t.byLabel, k+"="+v)
			continue
		}
		t.byLabel[k+"="+v] = gs
	}
}

// labelSetKey appends a label set's key to b: its pairs sorted by key, each
// "key=value" and a NUL (label keys and values have neither = nor NUL).
func labelSetKey(b []byte, labels map[string]string) []byte {
	var arr [8]string
	keys := arr[:0]
	for k := range labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b = append(b, k...)
		b = append(b, '=')
		b = append(b, labels[k]...)
		b = append(b, 0)
	}
	return b
}

// countChange applies one pod's arrival (d=1) or departure (d=-1) on a
// node to the count queries that can count it.
func (t *topoIndex) countChange(p *corev1.Pod, ni *framework.NodeInfo, d int) {
	apply := func(ci *countIndex) {
		if !ci.q.Matches(p) {
			return
		}
		if v, id, ok := t.valueOf(ni, ci.q.TopologyKey); ok {
			ci.dc.Add(id, v, d)
		}
	}
	for k, v := range p.Labels {
		for _, ci := range t.byAnchor[k+"="+v] {
			apply(ci)
		}
	}
	for _, ci := range t.unanchored {
		apply(ci)
	}
}

// domainIndex numbers the values of one node label key.
type domainIndex struct {
	ids     []int32 // NodeInfo.Index -> domain number (-1: no such label)
	values  []string
	byValue map[string]int32
	perNode map[string]int // value -> nodes with it
	n       int            // nodes with the key
}

func newTopoIndex(c *cache) *topoIndex {
	return &topoIndex{c: c}
}

// invalidate forgets everything (node labels changed).
func (t *topoIndex) invalidate() {
	t.valid = false
	t.counts, t.terms, t.termLst, t.domains = nil, nil, nil, nil
	t.byAnchor, t.unanchored, t.byLabel, t.groups = nil, nil, nil, nil
}

func (t *topoIndex) ensure() {
	if t.valid {
		return
	}
	t.c.NodeInfos() // numbers the nodes
	t.valid = true
	t.resetCounts()
	t.terms = map[string]*framework.ExistingTerm{}
	t.termLst = nil
	t.domains = map[string]*domainIndex{}
	t.byLabel = map[string][]*labelGroup{}
	t.groups = map[string]*labelGroup{}
	for _, ni := range t.c.NodeInfos() {
		for _, pi := range ni.Pods {
			t.addTerms(pi.Pod, ni, 1)
			if cp := t.c.pods[pi.Pod.UID]; cp != nil {
				t.labelPods(cp, pi.Pod, 1)
			}
		}
	}
}

func (t *topoIndex) domain(key string) *domainIndex {
	if d := t.domains[key]; d != nil {
		return d
	}
	list := t.c.NodeInfos()
	d := &domainIndex{ids: make([]int32, len(list)), byValue: map[string]int32{}, perNode: map[string]int{}}
	for i, ni := range list {
		v, ok := ni.Node().Labels[key]
		if !ok {
			d.ids[i] = -1
			continue
		}
		id, seen := d.byValue[v]
		if !seen {
			id = int32(len(d.values))
			d.values = append(d.values, v)
			d.byValue[v] = id
		}
		d.ids[i] = id
		d.perNode[v]++
		d.n++
	}
	t.domains[key] = d
	return d
}

// valueOf is the node's value of key and its domain number.
func (t *topoIndex) valueOf(ni *framework.NodeInfo, key string) (string, int32, bool) {
	if ni.Index < 0 {
		return "", -1, false
	}
	d := t.domain(key)
	id := d.ids[ni.Index]
	if id < 0 {
		return "", -1, false
	}
	return d.values[id], id, true
}

// podChanged applies a pod's arrival (old nil), departure (cur nil) or
// update on a node; cp is the pod in the cache.
func (t *topoIndex) podChanged(cp *cachedPod, old, cur *corev1.Pod, ni *framework.NodeInfo) {
	if !t.valid || ni == nil || ni.Node() == nil || ni.Index < 0 {
		return
	}
	if old != nil && cur != nil && sameTopologyFacts(old, cur) {
		return
	}
	if old != nil {
		t.countChange(old, ni, -1)
		t.labelPods(cp, old, -1)
		t.addTerms(old, ni, -1)
	}
	if cur != nil {
		t.countChange(cur, ni, 1)
		t.labelPods(cp, cur, 1)
		t.addTerms(cur, ni, 1)
	}
}

func sameTopologyFacts(a, b *corev1.Pod) bool {
	if (a.DeletionTimestamp == nil) != (b.DeletionTimestamp == nil) || !kinds.SameLabels(a.Labels, b.Labels) {
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

// addTerms adds (d=1) or removes (d=-1) a pod's affinity terms.
func (t *topoIndex) addTerms(p *corev1.Pod, ni *framework.NodeInfo, d int) {
	a := p.Spec.Affinity
	if a == nil || (a.PodAffinity == nil && a.PodAntiAffinity == nil) {
		return
	}
	if pa := a.PodAffinity; pa != nil {
		for i := range pa.RequiredDuringSchedulingIgnoredDuringExecution {
			t.addTerm(framework.RequiredAffinity, 0, p.Namespace, &pa.RequiredDuringSchedulingIgnoredDuringExecution[i], ni, d)
		}
		for i := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
			w := &pa.PreferredDuringSchedulingIgnoredDuringExecution[i]
			t.addTerm(framework.PreferredAffinity, w.Weight, p.Namespace, &w.PodAffinityTerm, ni, d)
		}
	}
	if pa := a.PodAntiAffinity; pa != nil {
		for i := range pa.RequiredDuringSchedulingIgnoredDuringExecution {
			t.addTerm(framework.RequiredAntiAffinity, 0, p.Namespace, &pa.RequiredDuringSchedulingIgnoredDuringExecution[i], ni, d)
		}
		for i := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
			w := &pa.PreferredDuringSchedulingIgnoredDuringExecution[i]
			t.addTerm(framework.PreferredAntiAffinity, w.Weight, p.Namespace, &w.PodAffinityTerm, ni, d)
		}
	}
}

func (t *topoIndex) addTerm(kind framework.TermKind, weight int32, ns string, term *corev1.PodAffinityTerm, ni *framework.NodeInfo, d int) {
	v, id, ok := t.valueOf(ni, term.TopologyKey)
	if !ok {
		return
	}
	var buf [256]byte
	kb := append(buf[:0], byte('0'+kind), '|')
	kb = append(kb, itoa(int(weight))...)
	kb = append(kb, '|')
	kb = append(kb, ns...)
	kb = append(kb, '|')
	kb = framework.PodAffinityTermKey(kb, term)
	et := t.terms[string(kb)] // no allocation for the lookup
	if et == nil {
		if d < 0 {
			return
		}
		sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
		if err != nil {
			return // validation rejects such terms; an unparsable one matches nothing
		}
		dom := t.domain(term.TopologyKey)
		et = &framework.ExistingTerm{Kind: kind, Weight: weight, Namespace: ns, Term: *term.DeepCopy(), Selector: sel,
			Counts: framework.NewIndexedDomainCounts(term.TopologyKey, dom.ids, dom.values, dom.byValue)}
		t.terms[string(kb)] = et
		t.termLst = nil
	}
	et.Counts.Add(id, v, d)
	if et.Counts.Len() == 0 {
		delete(t.terms, string(kb))
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
func (c *cache) TopologyCounts(q *framework.CountQuery) *framework.DomainCounts {
	t := c.topo
	t.ensure()
	if ci := t.counts[q.Key]; ci != nil {
		return ci.dc
	}
	if len(t.counts) >= maxCountIndexes {
		t.resetCounts()
	}
	dom := t.domain(q.TopologyKey)
	ci := &countIndex{q: *q, dc: framework.NewIndexedDomainCounts(q.TopologyKey, dom.ids, dom.values, dom.byValue)}
	ci.q.Terms = append([]framework.PodSelector(nil), q.Terms...)
	count := func(p *corev1.Pod, ni *framework.NodeInfo) {
		if ni.Index < 0 || ni.Node() == nil {
			return
		}
		if id := dom.ids[ni.Index]; id >= 0 && ci.q.Matches(p) {
			ci.dc.Add(id, dom.values[id], 1)
		}
	}
	if anchor := anchorOf(&ci.q); anchor != "" {
		// Only pods carrying the anchor can count: read those, not all.
		// (Counting is a sum, so the set's order does not matter.)
		for _, g := range t.byLabel[anchor] {
			for cp := range g.pods {
				count(cp.info.Pod, cp.ni)
			}
		}
		t.byAnchor[anchor] = append(t.byAnchor[anchor], ci)
	} else {
		for _, ni := range t.c.NodeInfos() {
			for _, pi := range ni.Pods {
				count(pi.Pod, ni)
			}
		}
		t.unanchored = append(t.unanchored, ci)
	}
	t.counts[q.Key] = ci
	return ci.dc
}

// Domains implements framework.ClusterLister.
func (c *cache) Domains(key string) (map[string]int, int) {
	t := c.topo
	t.ensure()
	d := t.domain(key)
	return d.perNode, d.n
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
	// spread caches DefaultSpreadSelector by namespace and controller: every
	// replica of a ReplicaSet asks for the same selector.
	spread map[spreadKey]*spreadEntry
}

// maxSpreadEntries bounds the cached default spread selectors; past it they
// are all dropped (old ReplicaSets' entries go too).
const maxSpreadEntries = 4096

// spreadKey is where a pod's default spread selector is cached: its
// namespace and its controller's kind and name ("" if it has none).
type spreadKey struct{ namespace, kind, name string }

// spreadEntry is a default spread selector with everything it is computed
// from besides the namespace: the pod's labels, the Services (as of the
// latest write to any Service) and the controller's selector (as of the
// latest write to an object of its kind).
type spreadEntry struct {
	labels   map[string]string // a stored pod's labels: read-only
	svcRev   int64
	owner    *metav1.LabelSelector // a stored controller's selector (nil: none)
	ownerRev int64
	sel      labels.Selector
	key      string
}

// Namespaces implements framework.ClusterLister.
func (l *clusterLister) Namespaces() []framework.NamespaceInfo {
	if l.st == nil {
		return nil
	}
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
//
// kube computes it for every pod; here the last result per namespace and
// controller is reused when it was computed from equal labels, no Service
// has been written since, and the controller's selector is equal (or no
// object of its kind has been written since): the same inputs, so the same
// selector.
func (l *clusterLister) DefaultSpreadSelector(pod *corev1.Pod) (labels.Selector, string) {
	owner := metav1.GetControllerOfNoCopy(pod)
	if l.st == nil || len(pod.Labels) == 0 && owner == nil {
		return labels.Everything(), "" // nothing can select it
	}
	k := spreadKey{namespace: pod.Namespace}
	var ownerKind *kinds.Kind
	var ownerRev int64
	if owner != nil {
		k.kind, k.name = owner.Kind, owner.Name
		if ownerKind = controllerKind(owner.Kind); ownerKind != nil {
			ownerRev = l.st.KindRev(ownerKind)
		}
	}
	svcRev := l.st.KindRev(kinds.Service)
	e := l.spread[k]
	if e != nil && (e.svcRev != svcRev || !maps.Equal(e.labels, pod.Labels)) {
		e = nil
	}
	if e != nil && e.ownerRev == ownerRev {
		return e.sel, e.key
	}
	ls := l.controllerSelector(ownerKind, pod.Namespace, owner)
	if e != nil && sameLabelSelector(e.owner, ls) {
		e.ownerRev = ownerRev
		return e.sel, e.key
	}
	sel := l.defaultSpreadSelector(pod, ls)
	if l.spread == nil || len(l.spread) >= maxSpreadEntries {
		l.spread = map[spreadKey]*spreadEntry{}
	}
	e = &spreadEntry{labels: pod.Labels, svcRev: svcRev, owner: ls, ownerRev: ownerRev, sel: sel, key: sel.String()}
	l.spread[k] = e
	return e.sel, e.key
}

// controllerKind is the served kind of a controller whose selector spreads
// its pods (nil for other kinds).
func controllerKind(kind string) *kinds.Kind {
	switch kind {
	case "ReplicaSet":
		return kinds.ReplicaSet
	case "StatefulSet":
		if k, ok := kinds.Lookup("statefulsets"); ok {
			return k
		}
	}
	return nil
}

// controllerSelector is the selector of the pod's controller (nil if it
// has none, or it is not found).
func (l *clusterLister) controllerSelector(k *kinds.Kind, namespace string, owner *metav1.OwnerReference) *metav1.LabelSelector {
	if k == nil {
		return nil
	}
	o, ok := l.st.Lookup(k, namespace, owner.Name)
	if !ok {
		return nil
	}
	switch o := o.(type) {
	case *appsv1.ReplicaSet:
		return o.Spec.Selector
	case *appsv1.StatefulSet:
		return o.Spec.Selector
	}
	return nil
}

// defaultSpreadSelector computes kube's DefaultSelector: the selectors of
// the Services that select the pod, merged, with the requirements of its
// controller's selector ls added.
func (l *clusterLister) defaultSpreadSelector(pod *corev1.Pod, ls *metav1.LabelSelector) labels.Selector {
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
	if ls != nil {
		if other, err := metav1.LabelSelectorAsSelector(ls); err == nil {
			if r, ok := other.Requirements(); ok {
				selector = selector.Add(r...)
			}
		}
	}
	return selector
}

// sameLabelSelector reports whether two label selectors have the same
// fields (nil and empty lists alike, as LabelSelectorAsSelector reads them).
func sameLabelSelector(a, b *metav1.LabelSelector) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || !maps.Equal(a.MatchLabels, b.MatchLabels) || len(a.MatchExpressions) != len(b.MatchExpressions) {
		return false
	}
	for i := range a.MatchExpressions {
		x, y := &a.MatchExpressions[i], &b.MatchExpressions[i]
		if x.Key != y.Key || x.Operator != y.Operator || !slices.Equal(x.Values, y.Values) {
			return false
		}
	}
	return true
}
