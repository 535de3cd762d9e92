package interpodaffinity_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/scheduler/internal/st"
	"github.com/kubeloop/kubeloop/engine/scheduler/plugins/interpodaffinity"
)

// op is one PreFilterExtensions call: add (or remove) the pod on a node.
type op struct {
	remove bool
	pod    *corev1.Pod
	node   string
}

// filterState runs Filter on every node with the given state.
func filterState(pl *interpodaffinity.InterPodAffinity, c *st.Cluster, state *framework.CycleState, pi *framework.PodInfo) map[string]string {
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

// TestAddRemovePod: after PreFilter, AddPod and RemovePod on a clone of the
// state change what Filter sees there, and only there.
func TestAddRemovePod(t *testing.T) {
	w1 := web("w1", "n1").Obj()
	antiW1 := web("a1", "n1").PodAntiAffinity("app", "web", host).Obj()
	for _, tc := range []struct {
		name string
		pods []*corev1.Pod
		pod  *corev1.Pod
		ops  []op
		want map[string]string
	}{
		{"removing the pod the anti-affinity avoids frees its node", []*corev1.Pod{w1},
			web("p", "").PodAntiAffinity("app", "web", host).Obj(),
			[]op{{remove: true, pod: w1, node: "n1"}},
			map[string]string{"n1": "pass", "n2": "pass", "n3": "pass"}},
		{"removing then adding it back blocks the node again", []*corev1.Pod{w1},
			web("p", "").PodAntiAffinity("app", "web", host).Obj(),
			[]op{{remove: true, pod: w1, node: "n1"}, {pod: w1, node: "n1"}},
			map[string]string{"n1": anti, "n2": "pass", "n3": "pass"}},
		{"adding a matching pod blocks its zone", []*corev1.Pod{w1},
			web("p", "").PodAntiAffinity("app", "web", zone).Obj(),
			[]op{{pod: web("w9", "n3").Obj(), node: "n3"}},
			map[string]string{"n1": anti, "n2": anti, "n3": anti}},
		{"removing the existing pod whose anti-affinity forbids the pod", []*corev1.Pod{antiW1},
			web("p", "").Obj(),
			[]op{{remove: true, pod: antiW1, node: "n1"}},
			map[string]string{"n1": "pass", "n2": "pass", "n3": "pass"}},
		{"adding a pod whose anti-affinity forbids the pod, by zone", []*corev1.Pod{antiW1},
			web("p", "").Obj(),
			[]op{{pod: web("a2", "n3").PodAntiAffinity("app", "web", zone).Obj(), node: "n3"}},
			map[string]string{"n1": existing, "n2": "pass", "n3": existing}},
		{"required affinity: removing the only match leaves a pod affine to itself free", []*corev1.Pod{w1},
			web("p", "").PodAffinity("app", "web", zone).Obj(),
			[]op{{remove: true, pod: w1, node: "n1"}},
			map[string]string{"n1": "pass", "n2": "pass", "n3": "pass"}},
		{"required affinity: adding a match in zone-b opens it", []*corev1.Pod{w1},
			st.MakePod().Name("p").PodAffinity("app", "web", zone).Obj(),
			[]op{{pod: web("w9", "n3").Obj(), node: "n3"}},
			map[string]string{"n1": "pass", "n2": "pass", "n3": "pass"}},
		{"a pod in another namespace does not count", []*corev1.Pod{w1},
			web("p", "").PodAntiAffinity("app", "web", zone).Obj(),
			[]op{{pod: web("w9", "n3").Namespace("other").Obj(), node: "n3"}},
			map[string]string{"n1": anti, "n2": anti, "n3": "pass"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := st.NewCluster(nodes(), tc.pods)
			pl := &interpodaffinity.InterPodAffinity{HardPodAffinityWeight: 1}
			state := framework.NewCycleState()
			state.Cluster = c
			pi := framework.NewPodInfo(tc.pod)
			if _, s := pl.PreFilter(state, pi); !s.IsSuccess() {
				t.Fatalf("PreFilter: %v", s)
			}
			before := filterState(pl, c, state, pi)
			clone := state.Clone()
			for _, o := range tc.ops {
				ni, p := c.Node(o.node), framework.NewPodInfo(o.pod)
				var s *framework.Status
				if o.remove {
					s = pl.RemovePod(clone, pi, p, ni)
				} else {
					s = pl.AddPod(clone, pi, p, ni)
				}
				if !s.IsSuccess() {
					t.Fatalf("extension: %v", s)
				}
			}
			if got := filterState(pl, c, clone, pi); !sameMap(got, tc.want) {
				t.Errorf("after the changes: got %v, want %v", got, tc.want)
			}
			// The original state, and a clone taken before, still see the cluster.
			if got := filterState(pl, c, state, pi); !sameMap(got, before) {
				t.Errorf("original state changed: got %v, want %v", got, before)
			}
			// A clone of the changed clone carries the changes, and its own
			// changes do not reach the clone it came from.
			second := clone.Clone()
			if got := filterState(pl, c, second, pi); !sameMap(got, tc.want) {
				t.Errorf("clone of the changed state: got %v, want %v", got, tc.want)
			}
			for _, o := range tc.ops {
				if o.remove {
					pl.AddPod(second, pi, framework.NewPodInfo(o.pod), c.Node(o.node))
				} else {
					pl.RemovePod(second, pi, framework.NewPodInfo(o.pod), c.Node(o.node))
				}
			}
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
