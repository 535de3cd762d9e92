package podtopologyspread_test

import (
	"math"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/scheduler/internal/st"
	"github.com/kubeloop/kubeloop/engine/scheduler/plugins/podtopologyspread"
)

const (
	host = corev1.LabelHostname
	zone = corev1.LabelTopologyZone
)

func node(name, z string) *corev1.Node {
	return st.MakeNode().Name(name).Label(host, name).Label(zone, z).Obj()
}

// n1 and n4 in zone-a, n2 in zone-b, n3 in zone-c.
func nodes() []*corev1.Node {
	return []*corev1.Node{node("n1", "zone-a"), node("n2", "zone-b"), node("n3", "zone-c"), node("n4", "zone-a")}
}

func web(name, node string) *st.PodWrapper {
	return st.MakePod().Name(name).Label("app", "web").Node(node)
}

func filterAll(t *testing.T, c *st.Cluster, pod *corev1.Pod) map[string]string {
	t.Helper()
	return st.FilterAll(&podtopologyspread.PodTopologySpread{}, c, pod)
}

const (
	skew    = "Unschedulable: node(s) didn't match pod topology spread constraints"
	missing = "UnschedulableAndUnresolvable: node(s) didn't match pod topology spread constraints (missing required label)"
)

func TestFilter(t *testing.T) {
	twoA := []*corev1.Pod{web("w1", "n1").Obj(), web("w2", "n4").Obj(), web("w3", "n2").Obj()} // a:2 b:1 c:0
	oneEach := []*corev1.Pod{web("w1", "n1").Obj(), web("w2", "n2").Obj(), web("w3", "n3").Obj()}
	ignore := corev1.NodeInclusionPolicyIgnore
	honor := corev1.NodeInclusionPolicyHonor
	for _, tc := range []struct {
		name  string
		nodes []*corev1.Node
		pods  []*corev1.Pod
		pod   *corev1.Pod
		want  map[string]string
	}{
		{"no constraints: skip", nil, twoA, web("w", "").Obj(),
			map[string]string{"n1": "skip", "n2": "skip", "n3": "skip", "n4": "skip"}},
		{"ScheduleAnyway only: skip", nil, twoA, web("w", "").Spread(1, zone, corev1.ScheduleAnyway, "app", "web").Obj(),
			map[string]string{"n1": "skip", "n2": "skip", "n3": "skip", "n4": "skip"}},
		// min over zones is 0 (zone-c); zone-a: 2+1-0 = 3 > 1; zone-b: 1+1-0 = 2 > 1; zone-c: 0+1-0 = 1.
		{"maxSkew 1 by zone: only the empty zone", nil, twoA, web("w", "").Spread(1, zone, corev1.DoNotSchedule, "app", "web").Obj(),
			map[string]string{"n1": skew, "n2": skew, "n3": "pass", "n4": skew}},
		{"maxSkew 2 by zone admits zone-b too", nil, twoA, web("w", "").Spread(2, zone, corev1.DoNotSchedule, "app", "web").Obj(),
			map[string]string{"n1": skew, "n2": "pass", "n3": "pass", "n4": skew}},
		// A pod that does not match its own selector adds nothing: zone-b 1-0 = 1.
		{"a pod outside its own selector", nil, twoA,
			st.MakePod().Name("x").Spread(1, zone, corev1.DoNotSchedule, "app", "web").Obj(),
			map[string]string{"n1": skew, "n2": "pass", "n3": "pass", "n4": skew}},
		{"one in each zone: anywhere", nil, oneEach, web("w", "").Spread(1, zone, corev1.DoNotSchedule, "app", "web").Obj(),
			map[string]string{"n1": "pass", "n2": "pass", "n3": "pass", "n4": "pass"}},
		// minDomains 4 > 3 zones: the global minimum counts as 0, so 1+1-0 = 2 > 1 everywhere.
		{"minDomains above the domain count", nil, oneEach,
			web("w", "").Spread(1, zone, corev1.DoNotSchedule, "app", "web").MinDomainsLast(4).Obj(),
			map[string]string{"n1": skew, "n2": skew, "n3": skew, "n4": skew}},
		{"by hostname", nil, oneEach, web("w", "").Spread(1, host, corev1.DoNotSchedule, "app", "web").Obj(),
			map[string]string{"n1": skew, "n2": skew, "n3": skew, "n4": "pass"}},
		{"a node without the key", append(nodes(), st.MakeNode().Name("n5").Obj()), oneEach,
			web("w", "").Spread(1, zone, corev1.DoNotSchedule, "app", "web").Obj(),
			map[string]string{"n1": "pass", "n5": missing}},
		{"terminating pods do not count", nil,
			[]*corev1.Pod{web("w1", "n1").Obj(), web("w2", "n4").Terminating().Obj(), web("w3", "n2").Obj(), web("w4", "n3").Obj()},
			web("w", "").Spread(1, zone, corev1.DoNotSchedule, "app", "web").Obj(),
			map[string]string{"n1": "pass", "n2": "pass", "n3": "pass", "n4": "pass"}},
		{"other namespaces do not count", nil, []*corev1.Pod{web("w1", "n1").Namespace("other").Obj()},
			web("w", "").Spread(1, zone, corev1.DoNotSchedule, "app", "web").Obj(),
			map[string]string{"n1": "pass", "n2": "pass", "n3": "pass", "n4": "pass"}},
		// nodeAffinityPolicy Honor (default): zone-c is not eligible for a pod
		// selecting zone-a or zone-b, so the minimum is 1 (zone-b).
		{"nodeAffinityPolicy Honor leaves ineligible zones out", nil, twoA,
			web("w", "").RequiredNodeAffinity(zone, corev1.NodeSelectorOpIn, "zone-a", "zone-b").
				Spread(1, zone, corev1.DoNotSchedule, "app", "web").Obj(),
			map[string]string{"n1": skew, "n2": "pass", "n4": skew}},
		{"nodeAffinityPolicy Ignore counts every zone", nil, twoA, func() *corev1.Pod {
			p := web("w", "").RequiredNodeAffinity(zone, corev1.NodeSelectorOpIn, "zone-a", "zone-b").
				Spread(1, zone, corev1.DoNotSchedule, "app", "web").Obj()
			p.Spec.TopologySpreadConstraints[0].NodeAffinityPolicy = &ignore
			return p
		}(), map[string]string{"n1": skew, "n2": skew, "n4": skew}},
		// nodeTaintsPolicy Honor: tainted n3 (zone-c) drops out, min becomes 1.
		{"nodeTaintsPolicy Honor leaves tainted nodes out",
			[]*corev1.Node{node("n1", "zone-a"), node("n2", "zone-b"),
				st.MakeNode().Name("n3").Label(host, "n3").Label(zone, "zone-c").Taint("k", "v", corev1.TaintEffectNoSchedule).Obj(),
				node("n4", "zone-a")}, twoA, func() *corev1.Pod {
				p := web("w", "").Spread(1, zone, corev1.DoNotSchedule, "app", "web").Obj()
				p.Spec.TopologySpreadConstraints[0].NodeTaintsPolicy = &honor
				return p
			}(), map[string]string{"n1": skew, "n2": "pass", "n4": skew}},
		{"matchLabelKeys narrows to the pod's own version", nil,
			[]*corev1.Pod{web("w1", "n1").Label("v", "1").Obj(), web("w2", "n4").Label("v", "1").Obj(), web("w3", "n2").Label("v", "2").Obj()},
			func() *corev1.Pod {
				p := web("w", "").Label("v", "2").Spread(1, zone, corev1.DoNotSchedule, "app", "web").Obj()
				p.Spec.TopologySpreadConstraints[0].MatchLabelKeys = []string{"v"}
				return p
			}(), map[string]string{"n1": "pass", "n2": skew, "n3": "pass", "n4": "pass"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := tc.nodes
			if ns == nil {
				ns = nodes()
			}
			got := filterAll(t, st.NewCluster(ns, tc.pods), tc.pod)
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
	pl := &podtopologyspread.PodTopologySpread{}
	state := framework.NewCycleState()
	state.Cluster = c
	pi := framework.NewPodInfo(pod)
	if s := pl.PreScore(state, pi, c.Nodes); s.IsSkip() {
		return nil, nil
	} else if !s.IsSuccess() {
		t.Fatal(s)
	}
	raw = st.ScoreEach(t, pl, state, pi, c.Nodes)
	var scores framework.NodeScoreList
	for i, ni := range c.Nodes {
		scores = append(scores, framework.NodeScore{Name: ni.Name(), Score: raw[i]})
	}
	pl.NormalizeScore(state, pi, scores)
	for _, s := range scores {
		norm = append(norm, s.Score)
	}
	// The framework normalises through NormalizeNodeScores: the same
	// scores from a plain slice.
	slice := append([]int64(nil), raw...)
	if s := pl.NormalizeNodeScores(state, pi, c.Nodes, slice); !s.IsSuccess() {
		t.Fatal(s)
	}
	if !eq(slice, norm) {
		t.Errorf("NormalizeNodeScores = %v; NormalizeScore gave %v", slice, norm)
	}
	return raw, norm
}

func TestScore(t *testing.T) {
	twoA := []*corev1.Pod{web("w1", "n1").Obj(), web("w2", "n4").Obj(), web("w3", "n2").Obj()} // a:2 b:1 c:0
	for _, tc := range []struct {
		name      string
		pods      []*corev1.Pod
		pod       *corev1.Pod
		def       labels.Selector
		raw, norm []int64
		zoneless  bool // add n5, without a zone
	}{
		{"no constraints, nobody selects it: skip", twoA, web("w", "").Obj(), nil, nil, nil, false},
		// 3 zones: weight log(5) = 1.609; raw = round(cnt × 1.609 + 0): a 2 → 3, b 1 → 2, c 0.
		// normalised 100 × (3 + 0 − s) / 3: a 0, b 33, c 100.
		{"ScheduleAnyway by zone", twoA, web("w", "").Spread(1, zone, corev1.ScheduleAnyway, "app", "web").Obj(), nil,
			[]int64{3, 2, 0, 3}, []int64{0, 33, 100, 0}, false},
		// maxSkew 3 adds 2 to every raw score: 5 4 2 5; 100 × (5 + 2 − s) / 5: 40 60 100 40.
		{"maxSkew waters the differences down", twoA, web("w", "").Spread(3, zone, corev1.ScheduleAnyway, "app", "web").Obj(), nil,
			[]int64{5, 4, 2, 5}, []int64{40, 60, 100, 40}, false},
		// 4 hosts: log(6) = 1.792; n1 1, n2 1, n3 0, n4 1 → 2 2 0 2.
		{"ScheduleAnyway by hostname", twoA, web("w", "").Spread(1, host, corev1.ScheduleAnyway, "app", "web").Obj(), nil,
			[]int64{2, 2, 0, 2}, []int64{0, 0, 100, 0}, false},
		{"nothing placed yet: all 100", nil, web("w", "").Spread(1, zone, corev1.ScheduleAnyway, "app", "web").Obj(), nil,
			[]int64{0, 0, 0, 0}, []int64{100, 100, 100, 100}, false},
		// System defaults: hostname maxSkew 3 (log(6) = 1.792) plus zone maxSkew 5 (log(5) = 1.609):
		// n1: 1×1.792+2 + 2×1.609+4 = 11.01 → 11; n2: 3.792 + 1.609+4 = 9.40 → 9; n3: 2 + 4 = 6; n4 = 11.
		// normalised 100 × (11 + 6 − s) / 11: 54 72 100 54.
		{"system defaults for a pod a Service selects", twoA, web("w", "").Obj(), labels.SelectorFromSet(labels.Set{"app": "web"}),
			[]int64{11, 9, 6, 11}, []int64{54, 72, 100, 54}, false},
		// System defaults do not require every key: zoneless n5 is scored by
		// hostname alone, and its missing zone counts as a domain (""), so 5
		// hosts weigh log(7) = 1.946 and 4 zones log(6) = 1.792:
		// n1 1.946+2 + 2×1.792+4 = 11.53 → 12; n2 3.946 + 5.792 = 9.74 → 10;
		// n3 2 + 4 = 6; n4 12; n5 0 + 2 = 2. Normalised 100 × (12 + 2 − s) / 12.
		// The pod's own constraint: zoneless n5 is ignored (raw and
		// normalised 0) and takes no part in the weight or the range.
		{"ScheduleAnyway by zone with a node without a zone", twoA, web("w", "").Spread(1, zone, corev1.ScheduleAnyway, "app", "web").Obj(), nil,
			[]int64{3, 2, 0, 3, 0}, []int64{0, 33, 100, 0, 0}, true},
		{"system defaults with a node without a zone", twoA, web("w", "").Obj(), labels.SelectorFromSet(labels.Set{"app": "web"}),
			[]int64{12, 10, 6, 12, 2}, []int64{16, 33, 66, 16, 100}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := st.NewCluster(nodes(), tc.pods)
			c.Default = tc.def
			if tc.zoneless {
				c = st.NewCluster(append(nodes(), st.MakeNode().Name("n5").Obj()), tc.pods)
				c.Default = tc.def
			}
			raw, norm := scoreAll(t, c, tc.pod)
			if !eq(raw, tc.raw) || !eq(norm, tc.norm) {
				t.Errorf("raw %v norm %v; want %v %v", raw, norm, tc.raw, tc.norm)
			}
		})
	}
}

func TestFormulas(t *testing.T) {
	if w := podtopologyspread.TopologyNormalizingWeight(3); math.Abs(w-math.Log(5)) > 1e-12 {
		t.Errorf("weight(3) = %v", w)
	}
	if s := podtopologyspread.ScoreForCount(2, 3, 1.5); s != 5 {
		t.Errorf("scoreForCount = %v, want 2×1.5+2 = 5", s)
	}
	if s := podtopologyspread.Skew(2, 1, 0); s != 3 {
		t.Errorf("skew = %d", s)
	}
	ignored := map[string]struct{}{"x": {}}
	sc := framework.NodeScoreList{{Name: "a", Score: 4}, {Name: "x", Score: 1}, {Name: "b", Score: 2}}
	podtopologyspread.Normalize(sc, ignored)
	if sc[0].Score != 50 || sc[1].Score != 0 || sc[2].Score != 100 {
		t.Errorf("normalize = %v", sc)
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
