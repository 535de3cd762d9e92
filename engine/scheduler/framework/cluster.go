package framework

import (
	corev1 "k8s.io/api/core/v1"
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
	// Counts maps a topology value to the number of carrying pods on nodes
	// with it. Read-only.
	Counts map[string]int
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
	// TopologyCounts answers a CountQuery: topology value -> matching pods
	// (values with no pods are absent).
	TopologyCounts(q *CountQuery) map[string]int
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
	DefaultSpreadSelector(pod *corev1.Pod) labels.Selector
}
