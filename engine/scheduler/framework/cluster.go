package framework

import (
	"iter"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// PodSelector picks pods by namespace and labels, as a pod affinity term
// or a topology spread constraint does.
type PodSelector struct {
	// AllNamespaces: any namespace (a namespaceSelector of {}).
	AllNamespaces bool
	// Namespaces are the namespaces matched when AllNamespaces is false.
	Namespaces map[string]struct{}
	// Selector matches the pods' labels.
	Selector labels.Selector
}

// Matches reports whether the pod is in one of the namespaces and carries
// matching labels (kube's PodMatchesTermsNamespaceAndSelector).
func (s *PodSelector) Matches(pod *corev1.Pod) bool {
	if !s.AllNamespaces {
		if _, ok := s.Namespaces[pod.Namespace]; !ok {
			return false
		}
	}
	return s.Selector.Matches(labels.Set(pod.Labels))
}

// CountQuery asks the cluster how many bound pods match, per value of a
// topology key on their nodes. The cache keeps each query it is asked for
// and updates it as pods come and go, so asking again is a map lookup.
type CountQuery struct {
	// Key identifies the query (selectors, namespaces, flags and topology
	// key): equal keys must mean equal queries.
	Key string
	// Terms: a pod counts only if it matches every one.
	Terms []PodSelector
	// TopologyKey is the node label the counts are grouped by; pods on
	// nodes without it are not counted.
	TopologyKey string
	// SkipTerminating leaves out pods being deleted (topology spread does,
	// inter-pod affinity does not).
	SkipTerminating bool
}

// Matches reports whether a pod counts for the query.
func (q *CountQuery) Matches(pod *corev1.Pod) bool {
	if q.SkipTerminating && pod.DeletionTimestamp != nil {
		return false
	}
	for i := range q.Terms {
		if !q.Terms[i].Matches(pod) {
			return false
		}
	}
	return true
}

// TermKind says which of a pod's four kinds of pod (anti-)affinity terms a
// term is.
type TermKind uint8

// The kinds of inter-pod terms.
const (
	RequiredAffinity TermKind = iota
	RequiredAntiAffinity
	PreferredAffinity
	PreferredAntiAffinity
)

// ExistingTerm is one distinct pod (anti-)affinity term carried by bound
// pods, with how many of them carry it per value of its topology key (the
// cache groups identical terms of pods in one namespace, so a Deployment's
// thousand replicas make one ExistingTerm).
type ExistingTerm struct {
	Kind TermKind
	// Weight is the preferred term's weight (0 for required terms).
	Weight int32
	// Namespace is the carrying pods' namespace (the term's default).
	Namespace string
	Term      corev1.PodAffinityTerm
	// Selector is Term.LabelSelector parsed.
	Selector labels.Selector
	// Counts are the carrying pods per value of the term's topology key.
	// Read-only.
	Counts *DomainCounts
}

// NamespaceInfo is a namespace's name and labels, for namespaceSelector.
type NamespaceInfo struct {
	Name   string
	Labels map[string]string
}

// ClusterLister is what plugins may ask of the scheduler's cache beyond the
// node being filtered (kube's SharedLister): all nodes, per-topology pod
// counts, existing pods' affinity terms, namespaces, and the selector of
// the Services and controllers a pod belongs to. Everything returned is
// live and read-only.
type ClusterLister interface {
	// NodeInfos lists every node, in node-tree order.
	NodeInfos() []*NodeInfo
	// TopologyCounts answers a CountQuery: matching pods per value of its
	// topology key.
	TopologyCounts(q *CountQuery) *DomainCounts
	// Domains maps each value of a node label key to the number of nodes
	// carrying it, and says how many nodes carry the key at all.
	Domains(topologyKey string) (values map[string]int, nodesWithKey int)
	// ExistingTerms lists the distinct terms of bound pods' pod affinity
	// and anti-affinity.
	ExistingTerms() []*ExistingTerm
	// Namespaces lists the namespaces, by name.
	Namespaces() []NamespaceInfo
	// DefaultSpreadSelector is kube's helper.DefaultSelector: the merged
	// selectors of the Services selecting the pod and of its controlling
	// ReplicaSet, ReplicationController or StatefulSet (empty if none).
	// Key is the selector's String(): selectors that print alike select
	// alike (a CountQuery's Key relies on it too), so a plugin may cache
	// what it builds from the selector under its Key.
	DefaultSpreadSelector(pod *corev1.Pod) (sel labels.Selector, key string)
}

// DomainCounts are pod counts per domain (value) of one topology key. The
// scheduler's cache keeps them by domain number only, so that a filter's
// question "how many in this node's domain?" costs two slice reads instead
// of two map lookups on string keys, and a pod's arrival one slice write;
// other counts are kept in a map by value.
type DomainCounts struct {
	// Key is the topology key.
	Key string
	// byValue maps a value to its count (values with no pods are absent);
	// nil when the counts are kept by domain number.
	byValue map[string]int
	ids     []int32          // NodeInfo.Index -> domain number, -1 without the key; nil: use labels
	values  []string         // domain number -> value
	idOf    map[string]int32 // value -> domain number
	byID    []int32          // domain number -> count
	nonZero int              // domains with pods, by number
}

// NewDomainCounts returns counts kept by value (values with no pods
// absent), looked up through node labels.
func NewDomainCounts(key string, byValue map[string]int) *DomainCounts {
	return &DomainCounts{Key: key, byValue: byValue}
}

// NewIndexedDomainCounts returns empty counts kept by domain number: ids
// maps a NodeInfo.Index to its domain's number (-1 for nodes without the
// key), values names each number, and idOf numbers each value. The three
// are shared, not copied.
func NewIndexedDomainCounts(key string, ids []int32, values []string, idOf map[string]int32) *DomainCounts {
	return &DomainCounts{Key: key, ids: ids, values: values, idOf: idOf, byID: make([]int32, len(values))}
}

// Add changes the count of the domain numbered id (named value) by d.
func (c *DomainCounts) Add(id int32, value string, d int) {
	if c.byID == nil {
		if n := c.byValue[value] + d; n <= 0 {
			delete(c.byValue, value)
		} else {
			c.byValue[value] = n
		}
		return
	}
	was := c.byID[id]
	n := int32(max(int(was)+d, 0))
	c.byID[id] = n
	switch {
	case was == 0 && n > 0:
		c.nonZero++
	case was > 0 && n == 0:
		c.nonZero--
	}
}

// Count returns the count of the domain named value.
func (c *DomainCounts) Count(value string) int {
	if c.byID == nil {
		return c.byValue[value]
	}
	if id, ok := c.idOf[value]; ok {
		return int(c.byID[id])
	}
	return 0
}

// Len is how many domains have pods.
func (c *DomainCounts) Len() int {
	if c.byID == nil {
		return len(c.byValue)
	}
	return c.nonZero
}

// All yields each domain with pods and its count: by domain number, or
// in map order for counts kept by value, so callers must not depend on
// the order (they sum, take a minimum, or sort).
func (c *DomainCounts) All() iter.Seq2[string, int] {
	return func(yield func(string, int) bool) {
		if c.byID == nil {
			for v, n := range c.byValue {
				if !yield(v, n) {
					return
				}
			}
			return
		}
		for id, n := range c.byID {
			if n > 0 && !yield(c.values[id], int(n)) {
				return
			}
		}
	}
}

// ForNode returns the count in the node's domain, and false if the node
// lacks the key. It is called per node per constraint, and is written to
// stay within the inliner's budget (hence ni.node, not ni.Node()).
func (c *DomainCounts) ForNode(ni *NodeInfo) (int, bool) {
	if uint(ni.Index) < uint(len(c.ids)) { // numbered (without ids, none is)
		if id := c.ids[ni.Index]; id >= 0 {
			return int(c.byID[id]), true
		}
		return 0, false
	}
	v, ok := ni.node.Labels[c.Key]
	if !ok {
		return 0, false
	}
	if id, ok := c.idOf[v]; ok {
		return int(c.byID[id]), true
	}
	return c.byValue[v], true
}

// DomainOf returns the number of the node's domain (-1 if the node lacks
// the key); numbered is false when these counts are not kept by domain
// number (ask the node's labels instead).
func (c *DomainCounts) DomainOf(ni *NodeInfo) (id int32, numbered bool) {
	if c.ids == nil || ni.Index < 0 || ni.Index >= len(c.ids) {
		return -1, false
	}
	return c.ids[ni.Index], true
}

// NumDomains is how many domain numbers there are (0 when not numbered).
func (c *DomainCounts) NumDomains() int { return len(c.byID) }

// LabelSelectorKey writes a label selector as a canonical string (sorted
// matchLabels, then matchExpressions in order), cheaper than parsing it and
// printing the result; nil and {} differ.
func LabelSelectorKey(b []byte, ls *metav1.LabelSelector) []byte {
	if ls == nil {
		return append(b, '~')
	}
	b = append(b, '{')
	if len(ls.MatchLabels) > 0 {
		keys := make([]string, 0, len(ls.MatchLabels))
		for k := range ls.MatchLabels {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			b = append(b, k...)
			b = append(b, '=')
			b = append(b, ls.MatchLabels[k]...)
			b = append(b, ',')
		}
	}
	for _, e := range ls.MatchExpressions {
		b = append(b, e.Key...)
		b = append(b, ' ')
		b = append(b, e.Operator...)
		for _, v := range e.Values {
			b = append(b, ' ')
			b = append(b, v...)
		}
		b = append(b, ';')
	}
	return append(b, '}')
}

// PodAffinityTermKey is a canonical string for a term: topology key,
// namespaces, namespaceSelector and labelSelector.
func PodAffinityTermKey(b []byte, t *corev1.PodAffinityTerm) []byte {
	b = append(b, t.TopologyKey...)
	b = append(b, '|')
	for _, ns := range t.Namespaces {
		b = append(b, ns...)
		b = append(b, ',')
	}
	b = append(b, '|')
	b = LabelSelectorKey(b, t.NamespaceSelector)
	b = append(b, '|')
	return LabelSelectorKey(b, t.LabelSelector)
}
