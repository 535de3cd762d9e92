package scheduler

import (
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/scheduler/internal/st"
	"github.com/kubeloop/kubeloop/engine/store"
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
			if r.Intn(2) == 0 { // pods of one app with different label sets
				w.Label("tier", fmt.Sprint(r.Intn(2)))
			}
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
			if got, w := c.TopologyCounts(q), want.TopologyCounts(q); !reflect.DeepEqual(byValue(got), byValue(w)) || !byNode(c, got, w) {
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

// byValue lists the counts by value.
func byValue(dc *framework.DomainCounts) map[string]int {
	m := map[string]int{}
	for v, n := range dc.All() {
		m[v] = n
	}
	return m
}

func termSummary(ts []*framework.ExistingTerm) []string {
	var out []string
	for _, t := range ts {
		counts := byValue(t.Counts)
		keys := make([]string, 0, len(counts))
		for k := range counts {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		s := fmt.Sprint(t.Kind, t.Weight, t.Namespace, t.Term.String())
		for _, k := range keys {
			s += fmt.Sprint(" ", k, "=", counts[k])
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

// TestDefaultSpreadSelectorCache checks the cached default spread selector
// against a lister with an empty cache after each change to what it is
// computed from: Services, the ReplicaSet and the pod's labels.
func TestDefaultSpreadSelectorCache(t *testing.T) {
	s := store.New()
	write := func(obj store.Object) {
		t.Helper()
		var err error
		if _, ok := s.Lookup(kinds.Of(obj), obj.GetNamespace(), obj.GetName()); ok {
			_, err = s.Update(obj, 0)
		} else {
			_, err = s.Create(obj, 0)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	remove := func(k *kinds.Kind, name string) {
		t.Helper()
		if _, _, err := s.Delete(k, "default", name, "", 0); err != nil {
			t.Fatal(err)
		}
	}
	rs := func(sel map[string]string, replicas int32) *appsv1.ReplicaSet {
		return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-1"},
			Spec:   appsv1.ReplicaSetSpec{Selector: &metav1.LabelSelector{MatchLabels: sel}},
			Status: appsv1.ReplicaSetStatus{Replicas: replicas}}
	}
	svc := func(sel map[string]string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "front"},
			Spec: corev1.ServiceSpec{Selector: sel}}
	}
	owned := true
	pod := func(lbls map[string]string, owner bool) *corev1.Pod {
		p := st.MakePod().Name("p").Obj()
		p.Labels = lbls
		if owner {
			p.OwnerReferences = []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "web-1", Controller: &owned}}
		}
		return p
	}
	web := map[string]string{"app": "web", "hash": "1"}
	cached := &clusterLister{cache: newCache(), st: s}
	check := func(step string, p *corev1.Pod, want string) {
		t.Helper()
		sel, key := cached.DefaultSpreadSelector(p)
		fresh, freshKey := (&clusterLister{cache: newCache(), st: s}).DefaultSpreadSelector(p)
		if key != freshKey || sel.String() != fresh.String() || key != want {
			t.Errorf("%s: cached %q (%q), fresh %q; want %q", step, sel, key, freshKey, want)
		}
	}
	write(rs(web, 0))
	check("ReplicaSet", pod(web, true), "app=web,hash=1")
	check("again", pod(web, true), "app=web,hash=1")
	write(rs(web, 3))
	check("ReplicaSet status written", pod(web, true), "app=web,hash=1")
	check("other labels", pod(map[string]string{"app": "web", "hash": "1", "tier": "a"}, true), "app=web,hash=1")
	write(svc(map[string]string{"tier": "a"}))
	check("a Service selects it", pod(map[string]string{"app": "web", "hash": "1", "tier": "a"}, true), "app=web,hash=1,tier=a")
	check("the Service does not select it", pod(web, true), "app=web,hash=1")
	write(svc(map[string]string{"app": "web"}))
	check("the Service's selector changed", pod(web, true), "app=web,app=web,hash=1")
	remove(kinds.Service, "front")
	check("the Service deleted", pod(web, true), "app=web,hash=1")
	write(rs(map[string]string{"app": "web", "hash": "2"}, 0))
	check("the ReplicaSet's selector changed", pod(web, true), "app=web,hash=2")
	remove(kinds.ReplicaSet, "web-1")
	check("the ReplicaSet deleted", pod(web, true), "")
	check("no controller", pod(web, false), "")
	write(svc(map[string]string{"app": "web"}))
	check("no controller, a Service", pod(web, false), "app=web")
}

func TestSameLabelSelector(t *testing.T) {
	in := func(k string, v ...string) metav1.LabelSelectorRequirement {
		return metav1.LabelSelectorRequirement{Key: k, Operator: metav1.LabelSelectorOpIn, Values: v}
	}
	for _, tc := range []struct {
		name string
		a, b *metav1.LabelSelector
		want bool
	}{
		{"both nil", nil, nil, true},
		{"nil and empty", nil, &metav1.LabelSelector{}, false},
		{"nil and empty matchLabels", &metav1.LabelSelector{}, &metav1.LabelSelector{MatchLabels: map[string]string{}}, true},
		{"equal labels", &metav1.LabelSelector{MatchLabels: map[string]string{"a": "1"}}, &metav1.LabelSelector{MatchLabels: map[string]string{"a": "1"}}, true},
		{"other value", &metav1.LabelSelector{MatchLabels: map[string]string{"a": "1"}}, &metav1.LabelSelector{MatchLabels: map[string]string{"a": "2"}}, false},
		{"equal expressions", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{in("a", "1", "2")}},
			&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{in("a", "1", "2")}}, true},
		{"other values", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{in("a", "1", "2")}},
			&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{in("a", "1")}}, false},
		{"other operator", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{in("a", "1")}},
			&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"1"}}}}, false},
		{"more expressions", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{in("a", "1")}},
			&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{in("a", "1"), in("b", "1")}}, false},
	} {
		if got := sameLabelSelector(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
