package podtopologyspread_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine/scheduler/internal/st"
	"github.com/kubeloop/kubeloop/engine/scheduler/plugins/podtopologyspread"
)

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
		ops  []st.ExtensionOp
		want map[string]string
	}{
		// b drops to 0: b 0+1-0 = 1 passes, a 2+1-0 = 3 does not.
		{"removing a pod lowers its domain's count", twoA, byZone,
			[]st.ExtensionOp{{Remove: true, Pod: twoA[2], Node: "n2"}},
			map[string]string{"n1": skew, "n2": "pass", "n3": "pass", "n4": skew}},
		// c rises to 2 (minimum still 1): c 2+1-1 = 2 > 1.
		{"adding a pod raises its domain's count", oneEach, byZone,
			[]st.ExtensionOp{{Pod: web("w9", "n3").Obj(), Node: "n3"}},
			map[string]string{"n1": "pass", "n2": "pass", "n3": skew, "n4": "pass"}},
		// a drops to 0, the new global minimum: b and c 1+1-0 = 2 > 1.
		{"removing a pod lowers the global minimum", oneEach, byZone,
			[]st.ExtensionOp{{Pod: web("w9", "n3").Obj(), Node: "n3"}, {Remove: true, Pod: oneEach[0], Node: "n1"}},
			map[string]string{"n1": "pass", "n2": skew, "n3": skew, "n4": "pass"}},
		// a:2 b:1 c:1, then b and c to 2: the minimum rises to 2 and a passes.
		{"adding pods raises the global minimum", append(oneEach[:3:3], web("w4", "n4").Obj()), byZone,
			[]st.ExtensionOp{{Pod: web("w8", "n2").Obj(), Node: "n2"}, {Pod: web("w9", "n3").Obj(), Node: "n3"}},
			map[string]string{"n1": "pass", "n2": "pass", "n3": "pass", "n4": "pass"}},
		{"a pod in another namespace does not count", twoA, byZone,
			[]st.ExtensionOp{{Pod: web("w9", "n3").Namespace("other").Obj(), Node: "n3"},
				{Pod: web("w8", "n3").Namespace("other").Obj(), Node: "n3"}},
			map[string]string{"n1": skew, "n2": skew, "n3": "pass", "n4": skew}},
		{"a pod the selector does not match does not count", twoA, byZone,
			[]st.ExtensionOp{{Pod: st.MakePod().Name("x").Label("app", "db").Node("n3").Obj(), Node: "n3"},
				{Pod: st.MakePod().Name("y").Label("app", "db").Node("n3").Obj(), Node: "n3"}},
			map[string]string{"n1": skew, "n2": skew, "n3": "pass", "n4": skew}},
		// Only zone-a (2) and zone-b (1) are eligible: minimum 1. A pod gone
		// from zone-c, which the pod's node affinity excludes, changes nothing
		// (counted, it would make the minimum 0 and fail n2).
		{"a node the inclusion policy leaves out does not count",
			append(twoA[:3:3], web("w4", "n3").Obj()),
			web("w", "").Spread(1, zone, corev1.DoNotSchedule, "app", "web").
				RequiredNodeAffinity(zone, corev1.NodeSelectorOpIn, "zone-a", "zone-b").Obj(),
			[]st.ExtensionOp{{Remove: true, Pod: web("w4", "n3").Obj(), Node: "n3"}},
			map[string]string{"n1": skew, "n2": "pass", "n3": "pass", "n4": skew}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st.CheckExtensions(t, &podtopologyspread.PodTopologySpread{}, st.NewCluster(nodes(), tc.pods), tc.pod, tc.ops, tc.want)
		})
	}
}
