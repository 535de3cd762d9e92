package interpodaffinity_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine/scheduler/internal/st"
	"github.com/kubeloop/kubeloop/engine/scheduler/plugins/interpodaffinity"
)

// TestAddRemovePod: after PreFilter, AddPod and RemovePod on a clone of the
// state change what Filter sees there, and only there.
func TestAddRemovePod(t *testing.T) {
	w1 := web("w1", "n1").Obj()
	antiW1 := web("a1", "n1").PodAntiAffinity("app", "web", host).Obj()
	for _, tc := range []struct {
		name string
		pods []*corev1.Pod
		pod  *corev1.Pod
		ops  []st.ExtensionOp
		want map[string]string
	}{
		{"removing the pod the anti-affinity avoids frees its node", []*corev1.Pod{w1},
			web("p", "").PodAntiAffinity("app", "web", host).Obj(),
			[]st.ExtensionOp{{Remove: true, Pod: w1, Node: "n1"}},
			map[string]string{"n1": "pass", "n2": "pass", "n3": "pass"}},
		{"removing then adding it back blocks the node again", []*corev1.Pod{w1},
			web("p", "").PodAntiAffinity("app", "web", host).Obj(),
			[]st.ExtensionOp{{Remove: true, Pod: w1, Node: "n1"}, {Pod: w1, Node: "n1"}},
			map[string]string{"n1": anti, "n2": "pass", "n3": "pass"}},
		{"adding a matching pod blocks its zone", []*corev1.Pod{w1},
			web("p", "").PodAntiAffinity("app", "web", zone).Obj(),
			[]st.ExtensionOp{{Pod: web("w9", "n3").Obj(), Node: "n3"}},
			map[string]string{"n1": anti, "n2": anti, "n3": anti}},
		{"removing the existing pod whose anti-affinity forbids the pod", []*corev1.Pod{antiW1},
			web("p", "").Obj(),
			[]st.ExtensionOp{{Remove: true, Pod: antiW1, Node: "n1"}},
			map[string]string{"n1": "pass", "n2": "pass", "n3": "pass"}},
		{"adding a pod whose anti-affinity forbids the pod, by zone", []*corev1.Pod{antiW1},
			web("p", "").Obj(),
			[]st.ExtensionOp{{Pod: web("a2", "n3").PodAntiAffinity("app", "web", zone).Obj(), Node: "n3"}},
			map[string]string{"n1": existing, "n2": "pass", "n3": existing}},
		{"required affinity: removing the only match leaves a pod affine to itself free", []*corev1.Pod{w1},
			web("p", "").PodAffinity("app", "web", zone).Obj(),
			[]st.ExtensionOp{{Remove: true, Pod: w1, Node: "n1"}},
			map[string]string{"n1": "pass", "n2": "pass", "n3": "pass"}},
		{"required affinity: adding a match in zone-b opens it", []*corev1.Pod{w1},
			st.MakePod().Name("p").PodAffinity("app", "web", zone).Obj(),
			[]st.ExtensionOp{{Pod: web("w9", "n3").Obj(), Node: "n3"}},
			map[string]string{"n1": "pass", "n2": "pass", "n3": "pass"}},
		{"a pod in another namespace does not count", []*corev1.Pod{w1},
			web("p", "").PodAntiAffinity("app", "web", zone).Obj(),
			[]st.ExtensionOp{{Pod: web("w9", "n3").Namespace("other").Obj(), Node: "n3"}},
			map[string]string{"n1": anti, "n2": anti, "n3": "pass"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st.CheckExtensions(t, &interpodaffinity.InterPodAffinity{HardPodAffinityWeight: 1}, st.NewCluster(nodes(), tc.pods), tc.pod, tc.ops, tc.want)
		})
	}
}
