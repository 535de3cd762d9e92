package st

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
)

// Cluster is a brute-force framework.ClusterLister for plugin tests: every
// question is answered by scanning all pods, the obviously right way the
// scheduler's cache must agree with.
type Cluster struct {
	Nodes []*framework.NodeInfo
	NS    []framework.NamespaceInfo
	// Default is what DefaultSpreadSelector returns (nil: nothing).
	Default labels.Selector
}

// NewCluster puts each pod on the node its spec.nodeName names.
func NewCluster(nodes []*corev1.Node, pods []*corev1.Pod) *Cluster {
	c := &Cluster{}
	by := map[string]*framework.NodeInfo{}
	for _, n := range nodes {
		ni := framework.NewNodeInfo(n)
		c.Nodes = append(c.Nodes, ni)
		by[n.Name] = ni
	}
	for _, p := range pods {
		if ni := by[p.Spec.NodeName]; ni != nil {
			ni.AddPod(framework.NewPodInfo(p))
		}
	}
	return c
}

// Node returns a node's NodeInfo.
func (c *Cluster) Node(name string) *framework.NodeInfo {
	for _, n := range c.Nodes {
		if n.Name() == name {
			return n
		}
	}
	return nil
}

// NodeInfos implements framework.ClusterLister.
func (c *Cluster) NodeInfos() []*framework.NodeInfo { return c.Nodes }

// TopologyCounts implements framework.ClusterLister.
func (c *Cluster) TopologyCounts(q *framework.CountQuery) *framework.DomainCounts {
	out := map[string]int{}
	for _, ni := range c.Nodes {
		v, ok := ni.Node().Labels[q.TopologyKey]
		if !ok {
			continue
		}
		for _, p := range ni.Pods {
			if q.Matches(p.Pod) {
				out[v]++
			}
		}
	}
	return framework.NewDomainCounts(q.TopologyKey, out)
}

// Domains implements framework.ClusterLister.
func (c *Cluster) Domains(key string) (map[string]int, int) {
	out, n := map[string]int{}, 0
	for _, ni := range c.Nodes {
		if v, ok := ni.Node().Labels[key]; ok {
			out[v]++
			n++
		}
	}
	return out, n
}

// ExistingTerms implements framework.ClusterLister.
func (c *Cluster) ExistingTerms() []*framework.ExistingTerm {
	m := map[string]*framework.ExistingTerm{}
	add := func(kind framework.TermKind, w int32, p *corev1.Pod, t *corev1.PodAffinityTerm, node *corev1.Node) {
		v, ok := node.Labels[t.TopologyKey]
		if !ok {
			return
		}
		key := string(rune('0'+kind)) + "|" + string(rune('0'+w)) + "|" + p.Namespace + "|" + t.String()
		et := m[key]
		if et == nil {
			sel, err := metav1.LabelSelectorAsSelector(t.LabelSelector)
			if err != nil {
				return
			}
			et = &framework.ExistingTerm{Kind: kind, Weight: w, Namespace: p.Namespace, Term: *t, Selector: sel,
				Counts: framework.NewDomainCounts(t.TopologyKey, map[string]int{})}
			m[key] = et
		}
		et.Counts.Add(-1, v, 1)
	}
	for _, ni := range c.Nodes {
		for _, pi := range ni.Pods {
			p := pi.Pod
			a := p.Spec.Affinity
			if a == nil {
				continue
			}
			if pa := a.PodAffinity; pa != nil {
				for i := range pa.RequiredDuringSchedulingIgnoredDuringExecution {
					add(framework.RequiredAffinity, 0, p, &pa.RequiredDuringSchedulingIgnoredDuringExecution[i], ni.Node())
				}
				for i := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
					w := &pa.PreferredDuringSchedulingIgnoredDuringExecution[i]
					add(framework.PreferredAffinity, w.Weight, p, &w.PodAffinityTerm, ni.Node())
				}
			}
			if pa := a.PodAntiAffinity; pa != nil {
				for i := range pa.RequiredDuringSchedulingIgnoredDuringExecution {
					add(framework.RequiredAntiAffinity, 0, p, &pa.RequiredDuringSchedulingIgnoredDuringExecution[i], ni.Node())
				}
				for i := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
					w := &pa.PreferredDuringSchedulingIgnoredDuringExecution[i]
					add(framework.PreferredAntiAffinity, w.Weight, p, &w.PodAffinityTerm, ni.Node())
				}
			}
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]*framework.ExistingTerm, 0, len(keys))
	for _, k := range keys {
		out = append(out, m[k])
	}
	return out
}

// Namespaces implements framework.ClusterLister.
func (c *Cluster) Namespaces() []framework.NamespaceInfo { return c.NS }

// DefaultSpreadSelector implements framework.ClusterLister.
func (c *Cluster) DefaultSpreadSelector(*corev1.Pod) (labels.Selector, string) {
	if c.Default == nil {
		return labels.Everything(), ""
	}
	return c.Default, c.Default.String()
}
