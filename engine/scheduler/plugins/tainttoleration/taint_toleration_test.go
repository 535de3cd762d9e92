package tainttoleration

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/scheduler/internal/st"
)

func TestFilter(t *testing.T) {
	cp := st.MakeNode().Name("cp").Taint("node-role.kubernetes.io/control-plane", "", corev1.TaintEffectNoSchedule)
	tests := []struct {
		name     string
		pod      *corev1.Pod
		node     *corev1.Node
		wantCode framework.Code
		wantMsg  string
	}{
		{"no taints", st.MakePod().Name("p").Obj(), st.MakeNode().Name("n").Obj(), framework.Success, ""},
		{"empty value prints {key: }", st.MakePod().Name("p").Obj(), cp.Obj(), framework.UnschedulableAndUnresolvable,
			"node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"},
		{"Exists tolerates any value", st.MakePod().Name("p").Toleration("node-role.kubernetes.io/control-plane", corev1.TolerationOpExists, "", "").Obj(),
			cp.Obj(), framework.Success, ""},
		{"Equal needs the value", st.MakePod().Name("p").Toleration("gpu", corev1.TolerationOpEqual, "a100", corev1.TaintEffectNoSchedule).Obj(),
			st.MakeNode().Name("n").Taint("gpu", "h100", corev1.TaintEffectNoSchedule).Obj(), framework.UnschedulableAndUnresolvable,
			"node(s) had untolerated taint {gpu: h100}"},
		{"NoExecute filters too", st.MakePod().Name("p").Obj(), st.MakeNode().Name("n").Taint("k", "v", corev1.TaintEffectNoExecute).Obj(),
			framework.UnschedulableAndUnresolvable, "node(s) had untolerated taint {k: v}"},
		{"PreferNoSchedule does not filter", st.MakePod().Name("p").Obj(), st.MakeNode().Name("n").Taint("k", "v", corev1.TaintEffectPreferNoSchedule).Obj(),
			framework.Success, ""},
		{"empty key with Exists tolerates everything", st.MakePod().Name("p").Toleration("", corev1.TolerationOpExists, "", "").Obj(),
			st.MakeNode().Name("n").Taint("k", "v", corev1.TaintEffectNoExecute).Obj(), framework.Success, ""},
		{"wrong effect does not tolerate", st.MakePod().Name("p").Toleration("k", corev1.TolerationOpExists, "", corev1.TaintEffectNoExecute).Obj(),
			st.MakeNode().Name("n").Taint("k", "v", corev1.TaintEffectNoSchedule).Obj(), framework.UnschedulableAndUnresolvable,
			"node(s) had untolerated taint {k: v}"},
	}
	for _, tt := range tests {
		got := (&TaintToleration{}).Filter(nil, framework.NewPodInfo(tt.pod), framework.NewNodeInfo(tt.node))
		if got.Code() != tt.wantCode || got.Message() != tt.wantMsg {
			t.Errorf("%s: Filter = %v; want %v: %q", tt.name, got, tt.wantCode, tt.wantMsg)
		}
	}
}

// TestScore: the raw score counts intolerable PreferNoSchedule taints; the
// normalisation is reversed, so fewer is better and "none anywhere" is 100
// everywhere.
func TestScore(t *testing.T) {
	nodes := []*corev1.Node{
		st.MakeNode().Name("clean").Obj(),
		st.MakeNode().Name("one").Taint("a", "", corev1.TaintEffectPreferNoSchedule).Obj(),
		st.MakeNode().Name("two").Taint("a", "", corev1.TaintEffectPreferNoSchedule).Taint("b", "", corev1.TaintEffectPreferNoSchedule).Obj(),
		st.MakeNode().Name("tolerated").Taint("t", "", corev1.TaintEffectPreferNoSchedule).Obj(),
	}
	pod := framework.NewPodInfo(st.MakePod().Name("p").Toleration("t", corev1.TolerationOpExists, "", corev1.TaintEffectPreferNoSchedule).Obj())
	pl := &TaintToleration{}
	state := framework.NewCycleState()
	pl.PreScore(state, pod, nil)
	var infos []*framework.NodeInfo
	for _, n := range nodes {
		infos = append(infos, framework.NewNodeInfo(n))
	}
	var scores framework.NodeScoreList
	for i, s := range st.ScoreEach(t, pl, state, pod, infos) {
		scores = append(scores, framework.NodeScore{Name: nodes[i].Name, Score: s})
	}
	wantRaw := []int64{0, 1, 2, 0}
	for i := range scores {
		if scores[i].Score != wantRaw[i] {
			t.Errorf("Score(%s) = %d; want %d", scores[i].Name, scores[i].Score, wantRaw[i])
		}
	}
	pl.NormalizeScore(state, pod, scores)
	want := []int64{100, 50, 0, 100}
	for i := range scores {
		if scores[i].Score != want[i] {
			t.Errorf("NormalizeScore: %s = %d; want %d", scores[i].Name, scores[i].Score, want[i])
		}
	}
	none := framework.NodeScoreList{{Name: "a"}, {Name: "b"}}
	pl.NormalizeScore(state, pod, none)
	if none[0].Score != 100 || none[1].Score != 100 {
		t.Errorf("NormalizeScore(all 0) = %v; want all 100", none)
	}
}
