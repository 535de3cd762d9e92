package podtopologyspread_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/scheduler/internal/st"
	"github.com/kubeloop/kubeloop/engine/scheduler/plugins/podtopologyspread"
)

// op is one PreFilterExtensions call: add (or remove) the pod on a node.
type op struct {
	remove bool
	pod    *corev1.Pod
	node   string
}

func filterState(pl *podtopologyspread.PodTopologySpread, c *st.Cluster, state *framework.CycleState, pi *framework.PodInfo) map[string]string {
	out := map[string]string{}
	for _, ni := range c.Nodes {
		if s := pl.Filter(state, pi, ni); s.IsSuccess() {
			out[ni.Name()] = "pass"
		} else {
			out[ni.Name()] = s.String()
		}
	}
	return out
}

func apply(t *testing.T, pl *podtopologyspread.PodTopologySpread, c *st.Cluster, state *framework.CycleState, pi *framework.PodInfo, ops []op, reverse bool) {
	t.Helper()
	for _, o := range ops {
		ni, p := c.Node(o.node), framework.NewPodInfo(o.pod)
		var s *framework.Status
		if o.remove != reverse {
			s = pl.RemovePod(state, pi, p, ni)
		} else {
			s = pl.AddPod(state, pi, p, ni)
		}
		if !s.IsSuccess() {
			t.Fatalf("extension: %v", s)
		}
	}
}

// TestAddRemovePod: after PreFilter, AddPod and RemovePod on a clone of the
// state change the domain counts and the global minimum (kube's critical
// paths) that Filter sees there, and only there.
func TestAddRemovePod(t *testing.T) {
	twoA := []*corev1.Pod{web("w1", "n1").Obj(), web("w2", "n4").Obj(), web("w3", "n2").Obj()} // a:2 b:1 c:0
	oneEach := []*corev1.Pod{web("w1", "n1").Obj(), web("w2", "n2").Obj(), web("w3", "n3").Obj()}
	byZone := web("w", "").Spread(1, zone, corev1.DoNotSchedule, "app", "web").Obj()
	for _, tc := range []struct {
		name string
		pods []*corev1.Pod
		pod  *corev1.Pod
		ops  []op
		want map[string]string
	}{
		// b drops to 0: b 0+1-0 = 1 passes, a 2+1-0 = 3 does not.
		{"removing a pod lowers its domain's count", twoA, byZone,
			[]op{{remove: true, pod: twoA[2], node: "n2"}},
			map[string]string{"n1": skew, "n2": "pass", "n3": "pass", "n4": skew}},
		// c rises to 2 (minimum still 1): c 2+1-1 = 2 > 1.
		{"adding a pod raises its domain's count", oneEach, byZone,
			[]op{{pod: web("w9", "n3").Obj(), node: "n3"}},
			map[string]string{"n1": "pass", "n2": "pass", "n3": skew, "n4": "pass"}},
		// a drops to 0, the new global minimum: b and c 1+1-0 = 2 > 1.
		{"removing a pod lowers the global minimum", oneEach, byZone,
			[]op{{pod: web("w9", "n3").Obj(), node: "n3"}, {remove: true, pod: oneEach[0], node: "n1"}},
			map[string]string{"n1": "pass", "n2": skew, "n3": skew, "n4": "pass"}},
		// a:2 b:1 c:1, then b and c to 2: the minimum rises to 2 and a passes.
		{"adding pods raises the global minimum", append(oneEach[:3:3], web("w4", "n4").Obj()), byZone,
			[]op{{pod: web("w8", "n2").Obj(), node: "n2"}, {pod: web("w9", "n3").Obj(), node: "n3"}},
			map[string]string{"n1": "pass", "n2": "pass", "n3": "pass", "n4": "pass"}},
		{"a pod in another namespace does not count", twoA, byZone,
			[]op{{pod: web("w9", "n3").Namespace("other").Obj(), node: "n3"},
				{pod: web("w8", "n3").Namespace("other").Obj(), node: "n3"}},
			map[string]string{"n1": skew, "n2": skew, "n3": "pass", "n4": skew}},
		{"a pod the selector does not match does not count", twoA, byZone,
			[]op{{pod: st.MakePod().Name("x").Label("app", "db").Node("n3").Obj(), node: "n3"},
				{pod: st.MakePod().Name("y").Label("app", "db").Node("n3").Obj(), node: "n3"}},
			map[string]string{"n1": skew, "n2": skew, "n3": "pass", "n4": skew}},
		// Only zone-a (2) and zone-b (1) are eligible: minimum 1. A pod gone
		// from zone-c, which the pod's node affinity excludes, changes nothing
		// (counted, it would make the minimum 0 and fail n2).
		{"a node the inclusion policy leaves out does not count",
			append(twoA[:3:3], web("w4", "n3").Obj()),
			web("w", "").Spread(1, zone, corev1.DoNotSchedule, "app", "web").
				RequiredNodeAffinity(zone, corev1.NodeSelectorOpIn, "zone-a", "zone-b").Obj(),
			[]op{{remove: true, pod: web("w4", "n3").Obj(), node: "n3"}},
			map[string]string{"n1": skew, "n2": "pass", "n3": "pass", "n4": skew}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := st.NewCluster(nodes(), tc.pods)
			pl := &podtopologyspread.PodTopologySpread{}
			state := framework.NewCycleState()
			state.Cluster = c
			pi := framework.NewPodInfo(tc.pod)
			if _, s := pl.PreFilter(state, pi); !s.IsSuccess() {
				t.Fatalf("PreFilter: %v", s)
			}
			before := filterState(pl, c, state, pi)
			clone := state.Clone()
			apply(t, pl, c, clone, pi, tc.ops, false)
			if got := filterState(pl, c, clone, pi); !sameMap(got, tc.want) {
				t.Errorf("after the changes: got %v, want %v", got, tc.want)
			}
			if got := filterState(pl, c, state, pi); !sameMap(got, before) {
				t.Errorf("original state changed: got %v, want %v", got, before)
			}
			second := clone.Clone()
			if got := filterState(pl, c, second, pi); !sameMap(got, tc.want) {
				t.Errorf("clone of the changed state: got %v, want %v", got, tc.want)
			}
			apply(t, pl, c, second, pi, tc.ops, true)
			if got := filterState(pl, c, clone, pi); !sameMap(got, tc.want) {
				t.Errorf("changes to a clone reached its source: got %v, want %v", got, tc.want)
			}
		})
	}
}

func sameMap(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
