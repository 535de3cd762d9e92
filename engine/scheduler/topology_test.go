package scheduler

import (
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/scheduler/internal/st"
)

// TestTopoIndexMatchesBruteForce drives the cache through random pod adds,
// relabels, terminations, deletions and node relabels, and after each step
// compares its incrementally kept counts and terms with a scan of all pods.
func TestTopoIndexMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(7)) // test-only randomness, fixed seed
	c := newCache()
	zones := []string{"zone-a", "zone-b", "zone-c"}
	var nodes []*corev1.Node
	for i := 0; i < 6; i++ {
		n := st.MakeNode().Name(fmt.Sprintf("n%d", i)).Label(corev1.LabelHostname, fmt.Sprintf("n%d", i)).
			Label(corev1.LabelTopologyZone, zones[i%3]).Obj()
		nodes = append(nodes, n)
		c.AddNode(n)
	}
	apps := []string{"web", "db", "cache"}
	queries := func() []framework.CountQuery {
		var qs []framework.CountQuery
		for _, app := range apps {
			for _, key := range []string{corev1.LabelHostname, corev1.LabelTopologyZone} {
				for _, skip := range []bool{false, true} {
					qs = append(qs, framework.CountQuery{Key: fmt.Sprint(app, key, skip), TopologyKey: key, SkipTerminating: skip,
						Terms: []framework.PodSelector{{Namespaces: map[string]struct{}{"default": {}},
							Selector: labels.SelectorFromSet(labels.Set{"app": app})}}})
				}
			}
		}
		// Selectors without an equality requirement have no anchor label:
		// the cache checks them against every pod change.
		for _, expr := range []string{"app in (web,db)", "app", "app!=cache", "!app"} {
			sel, err := labels.Parse(expr)
			if err != nil {
				t.Fatal(err)
			}
			for _, key := range []string{corev1.LabelHostname, corev1.LabelTopologyZone} {
				qs = append(qs, framework.CountQuery{Key: expr + key, TopologyKey: key,
					Terms: []framework.PodSelector{{Namespaces: map[string]struct{}{"default": {}}, Selector: sel}}})
			}
		}
		return qs
	}()
	pods := map[string]*corev1.Pod{}
	for step := 0; step < 400; step++ {
		switch op := r.Intn(10); {
		case op < 4 || len(pods) == 0: // add
			name := fmt.Sprintf("p%d", step)
			w := st.MakePod().Name(name).Label("app", apps[r.Intn(3)]).Node(nodes[r.Intn(len(nodes))].Name)
			switch r.Intn(4) {
			case 0:
				w.PodAntiAffinity("app", apps[r.Intn(3)], corev1.LabelHostname)
			case 1:
				w.PreferredPodAffinity(int32(1+r.Intn(3)), "app", apps[r.Intn(3)], corev1.LabelTopologyZone)
			}
			p := w.Obj()
			pods[name] = p
			c.AddPod(p)
		case op < 6: // relabel or terminate
			p := pick(r, pods).DeepCopy()
			switch r.Intn(3) {
			case 0:
				p.Labels = map[string]string{"app": apps[r.Intn(3)]}
			case 1:
				p.Labels = map[string]string{"tier": "x"} // leaves every app= anchor
			default:
				p = st.MakePod().Name(p.Name).Label("app", p.Labels["app"]).Node(p.Spec.NodeName).Terminating().Obj()
			}
			pods[p.Name] = p
			c.UpdatePod(p)
		case op < 8: // delete
			p := pick(r, pods)
			delete(pods, p.Name)
			c.RemovePod(p)
		default: // move a node to another zone
			i := r.Intn(len(nodes))
			n := nodes[i].DeepCopy()
			n.Labels[corev1.LabelTopologyZone] = zones[r.Intn(3)]
			c.UpdateNode(nodes[i], n)
			nodes[i] = n
		}
		var list []*corev1.Pod
		for _, p := range pods {
			list = append(list, p)
		}
		sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
		want := st.NewCluster(nodes, list)
		for i := range queries {
			q := &queries[i]
			if got, w := c.TopologyCounts(q), want.TopologyCounts(q); !reflect.DeepEqual(got.ByValue, w.ByValue) || !byNode(c, got, w) {
				t.Fatalf("step %d query %s: cache %v, scan %v", step, q.Key, got, w)
			}
		}
		if got, w := termSummary(c.ExistingTerms()), termSummary(want.ExistingTerms()); !reflect.DeepEqual(got, w) {
			t.Fatalf("step %d terms: cache %v, scan %v", step, got, w)
		}
	}
}

func pick(r *rand.Rand, pods map[string]*corev1.Pod) *corev1.Pod {
	names := make([]string, 0, len(pods))
	for n := range pods {
		names = append(names, n)
	}
	sort.Strings(names)
	return pods[names[r.Intn(len(names))]]
}

func termSummary(ts []*framework.ExistingTerm) []string {
	var out []string
	for _, t := range ts {
		keys := make([]string, 0, len(t.Counts.ByValue))
		for k := range t.Counts.ByValue {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		s := fmt.Sprint(t.Kind, t.Weight, t.Namespace, t.Term.String())
		for _, k := range keys {
			s += fmt.Sprint(" ", k, "=", t.Counts.ByValue[k])
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// byNode checks the cache's per-node lookups (by domain number) against the
// brute-force ones (through labels).
func byNode(c *cache, got, want *framework.DomainCounts) bool {
	for _, ni := range c.NodeInfos() {
		g, gok := got.ForNode(ni)
		w, wok := want.ForNode(ni)
		if g != w || gok != wok {
			return false
		}
	}
	return true
}
