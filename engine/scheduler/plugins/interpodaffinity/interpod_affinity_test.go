package interpodaffinity_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/scheduler/internal/st"
	"github.com/kubeloop/kubeloop/engine/scheduler/plugins/interpodaffinity"
)

const (
	host = corev1.LabelHostname
	zone = corev1.LabelTopologyZone
)

// nodes: n1 and n2 in zone-a, n3 in zone-b.
func nodes() []*corev1.Node {
	return []*corev1.Node{
		st.MakeNode().Name("n1").Label(zone, "zone-a").Obj(),
		st.MakeNode().Name("n2").Label(zone, "zone-a").Obj(),
		st.MakeNode().Name("n3").Label(zone, "zone-b").Obj(),
	}
}

func web(name, node string) *st.PodWrapper {
	return st.MakePod().Name(name).Label("app", "web").Node(node)
}

// filterAll runs PreFilter and Filter on every node: "pass", "skip" (the
// PreFilter said Skip) or the status.
func filterAll(t *testing.T, c *st.Cluster, pod *corev1.Pod) map[string]string {
	t.Helper()
	return st.FilterAll(&interpodaffinity.InterPodAffinity{HardPodAffinityWeight: 1}, c, pod)
}

const (
	aff      = "UnschedulableAndUnresolvable: node(s) didn't match pod affinity rules"
	anti     = "Unschedulable: node(s) didn't match pod anti-affinity rules"
	existing = "Unschedulable: node(s) didn't satisfy existing pods anti-affinity rules"
)

func TestFilter(t *testing.T) {
	other := framework.NamespaceInfo{Name: "other", Labels: map[string]string{"team": "x"}}
	def := framework.NamespaceInfo{Name: "default"}
	for _, tc := range []struct {
		name string
		pods []*corev1.Pod
		ns   []framework.NamespaceInfo
		pod  *corev1.Pod
		want map[string]string
	}{
		{"no affinity anywhere: skip", []*corev1.Pod{web("w1", "n1").Obj()}, nil,
			st.MakePod().Name("p").Obj(), map[string]string{"n1": "skip", "n2": "skip", "n3": "skip"}},
		{"required anti-affinity by hostname keeps off n1 only", []*corev1.Pod{web("w1", "n1").Obj()}, nil,
			web("w2", "").PodAntiAffinity("app", "web", host).Obj(),
			map[string]string{"n1": anti, "n2": "pass", "n3": "pass"}},
		{"required anti-affinity by zone keeps off zone-a", []*corev1.Pod{web("w1", "n1").Obj()}, nil,
			web("w2", "").PodAntiAffinity("app", "web", zone).Obj(),
			map[string]string{"n1": anti, "n2": anti, "n3": "pass"}},
		{"required affinity to db's zone", []*corev1.Pod{st.MakePod().Name("db").Label("app", "db").Node("n3").Obj()}, nil,
			web("w", "").PodAffinity("app", "db", zone).Obj(),
			map[string]string{"n1": aff, "n2": aff, "n3": "pass"}},
		{"required affinity with no match and not self-affine", nil, nil,
			web("w", "").PodAffinity("app", "db", zone).Obj(),
			map[string]string{"n1": aff, "n2": aff, "n3": aff}},
		{"first pod of a self-affine group goes anywhere", nil, nil,
			web("w", "").PodAffinity("app", "web", zone).Obj(),
			map[string]string{"n1": "pass", "n2": "pass", "n3": "pass"}},
		{"self-affine but a member exists: only its zone", []*corev1.Pod{web("w1", "n3").Obj()}, nil,
			web("w", "").PodAffinity("app", "web", zone).Obj(),
			map[string]string{"n1": aff, "n2": aff, "n3": "pass"}},
		{"required affinity on a key no node has", []*corev1.Pod{web("w1", "n3").Obj()}, nil,
			web("w", "").PodAffinity("app", "web", "rack").Obj(),
			map[string]string{"n1": aff, "n2": aff, "n3": aff}},
		{"symmetric: an existing pod's anti-affinity keeps web off its host",
			[]*corev1.Pod{st.MakePod().Name("loner").Node("n1").PodAntiAffinity("app", "web", host).Obj()}, nil,
			web("w", "").Obj(), map[string]string{"n1": existing, "n2": "pass", "n3": "pass"}},
		{"symmetric by zone", []*corev1.Pod{st.MakePod().Name("loner").Node("n2").PodAntiAffinity("app", "web", zone).Obj()}, nil,
			web("w", "").Obj(), map[string]string{"n1": existing, "n2": existing, "n3": "pass"}},
		{"symmetric rule only for pods the term matches (nothing left to check: skip)",
			[]*corev1.Pod{st.MakePod().Name("loner").Node("n1").PodAntiAffinity("app", "web", host).Obj()}, nil,
			st.MakePod().Name("db").Label("app", "db").Obj(), map[string]string{"n1": "skip", "n2": "skip", "n3": "skip"}},
		{"terms look in the pod's own namespace by default", []*corev1.Pod{web("w1", "n1").Namespace("other").Obj()}, nil,
			web("w", "").PodAntiAffinity("app", "web", host).Obj(),
			map[string]string{"n1": "pass", "n2": "pass", "n3": "pass"}},
		{"namespaceSelector {} means every namespace", []*corev1.Pod{web("w1", "n1").Namespace("other").Obj()}, nil,
			web("w", "").PodAntiAffinity("app", "web", host).NamespaceSelectorLast(true, nil).Obj(),
			map[string]string{"n1": anti, "n2": "pass", "n3": "pass"}},
		{"namespaceSelector by label", []*corev1.Pod{web("w1", "n1").Namespace("other").Obj()}, []framework.NamespaceInfo{def, other},
			web("w", "").PodAntiAffinity("app", "web", host).NamespaceSelectorLast(true, map[string]string{"team": "x"}).Obj(),
			map[string]string{"n1": anti, "n2": "pass", "n3": "pass"}},
		{"namespaceSelector matching nothing", []*corev1.Pod{web("w1", "n1").Namespace("other").Obj()}, []framework.NamespaceInfo{def, other},
			web("w", "").PodAntiAffinity("app", "web", host).NamespaceSelectorLast(true, map[string]string{"team": "y"}).Obj(),
			map[string]string{"n1": "pass", "n2": "pass", "n3": "pass"}},
		{"existing pod's namespaceSelector matches the incoming pod's namespace",
			[]*corev1.Pod{st.MakePod().Name("loner").Namespace("default").Node("n1").PodAntiAffinity("app", "web", host).
				NamespaceSelectorLast(true, map[string]string{"team": "x"}).Obj()}, []framework.NamespaceInfo{def, other},
			web("w", "").Namespace("other").Obj(), map[string]string{"n1": existing, "n2": "pass", "n3": "pass"}},
		{"affinity is checked before anti-affinity", []*corev1.Pod{web("w1", "n1").Obj()}, nil,
			web("w", "").PodAffinity("app", "db", zone).PodAntiAffinity("app", "web", host).Obj(),
			map[string]string{"n1": aff, "n2": aff, "n3": aff}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := st.NewCluster(nodes(), tc.pods)
			c.NS = tc.ns
			got := filterAll(t, c, tc.pod)
			for n, w := range tc.want {
				if got[n] != w {
					t.Errorf("%s: got %q, want %q", n, got[n], w)
				}
			}
		})
	}
}

func scoreAll(t *testing.T, c *st.Cluster, pod *corev1.Pod) (raw, norm []int64) {
	t.Helper()
	pl := &interpodaffinity.InterPodAffinity{HardPodAffinityWeight: 1}
	state := framework.NewCycleState()
	state.Cluster = c
	pi := framework.NewPodInfo(pod)
	if s := pl.PreScore(state, pi, c.Nodes); s.IsSkip() {
		return nil, nil
	} else if !s.IsSuccess() {
		t.Fatal(s)
	}
	var scores framework.NodeScoreList
	for _, ni := range c.Nodes {
		s, st := pl.Score(state, pi, ni)
		if !st.IsSuccess() {
			t.Fatal(st)
		}
		raw = append(raw, s)
		scores = append(scores, framework.NodeScore{Name: ni.Name(), Score: s})
	}
	pl.NormalizeScore(state, pi, scores)
	for _, s := range scores {
		norm = append(norm, s.Score)
	}
	return raw, norm
}

func TestScore(t *testing.T) {
	db := st.MakePod().Name("db").Label("app", "db").Node("n3").Obj()
	for _, tc := range []struct {
		name      string
		pods      []*corev1.Pod
		pod       *corev1.Pod
		raw, norm []int64
	}{
		{"nothing to score: skip", []*corev1.Pod{db}, web("w", "").Obj(), nil, nil},
		{"preferred affinity weight 10 to db's zone", []*corev1.Pod{db},
			web("w", "").PreferredPodAffinity(10, "app", "db", zone).Obj(), []int64{0, 0, 10}, []int64{0, 0, 100}},
		{"preferred anti-affinity weight 5 from web's host", []*corev1.Pod{web("w1", "n1").Obj()},
			web("w", "").PreferredPodAntiAffinity(5, "app", "web", host).Obj(), []int64{-5, 0, 0}, []int64{0, 100, 100}},
		{"two webs in zone-a, anti-affinity by zone and affinity to db",
			[]*corev1.Pod{web("w1", "n1").Obj(), web("w2", "n2").Obj(), db},
			web("w", "").PreferredPodAntiAffinity(50, "app", "web", zone).PreferredPodAffinity(30, "app", "db", host).Obj(),
			[]int64{-100, -100, 30}, []int64{0, 0, 100}},
		{"min-max with three levels", []*corev1.Pod{web("w1", "n1").Obj(), web("w2", "n1").Obj(), web("w3", "n2").Obj()},
			web("w", "").PreferredPodAffinity(3, "app", "web", host).Obj(), []int64{6, 3, 0}, []int64{100, 50, 0}},
		{"symmetric: an existing pod's preferred affinity draws web to its zone",
			[]*corev1.Pod{st.MakePod().Name("fan").Node("n1").PreferredPodAffinity(20, "app", "web", zone).Obj()},
			web("w", "").Obj(), []int64{20, 20, 0}, []int64{100, 100, 0}},
		{"symmetric: an existing pod's preferred anti-affinity pushes web away",
			[]*corev1.Pod{st.MakePod().Name("shy").Node("n3").PreferredPodAntiAffinity(7, "app", "web", host).Obj()},
			web("w", "").Obj(), []int64{0, 0, -7}, []int64{100, 100, 0}},
		{"hardPodAffinityWeight 1 for an existing pod's required affinity",
			[]*corev1.Pod{st.MakePod().Name("needy").Node("n3").PodAffinity("app", "web", host).Obj()},
			web("w", "").Obj(), []int64{0, 0, 1}, []int64{0, 0, 100}},
		{"equal scores normalise to 0", []*corev1.Pod{web("w1", "n1").Obj(), web("w2", "n2").Obj(), web("w3", "n3").Obj()},
			web("w", "").PreferredPodAffinity(3, "app", "web", host).Obj(), []int64{3, 3, 3}, []int64{0, 0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, norm := scoreAll(t, st.NewCluster(nodes(), tc.pods), tc.pod)
			if !eq(raw, tc.raw) || !eq(norm, tc.norm) {
				t.Errorf("raw %v norm %v; want %v %v", raw, norm, tc.raw, tc.norm)
			}
		})
	}
}

func eq(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
