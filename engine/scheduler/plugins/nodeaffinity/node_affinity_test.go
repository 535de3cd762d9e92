package nodeaffinity

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/scheduler/internal/st"
)

func TestFilter(t *testing.T) {
	ssd := st.MakeNode().Name("n1").Label("disk", "ssd").Label("cores", "8").Obj()
	hdd := st.MakeNode().Name("n2").Label("disk", "hdd").Label("cores", "4").Obj()
	tests := []struct {
		name string
		pod  *corev1.Pod
		node *corev1.Node
		want bool
	}{
		{"nodeSelector matches", st.MakePod().Name("p").NodeSelector("disk", "ssd").Obj(), ssd, true},
		{"nodeSelector mismatch", st.MakePod().Name("p").NodeSelector("disk", "ssd").Obj(), hdd, false},
		{"nodeSelector on a missing label", st.MakePod().Name("p").NodeSelector("gpu", "yes").Obj(), ssd, false},
		{"In", st.MakePod().Name("p").RequiredNodeAffinity("disk", corev1.NodeSelectorOpIn, "ssd", "nvme").Obj(), ssd, true},
		{"NotIn", st.MakePod().Name("p").RequiredNodeAffinity("disk", corev1.NodeSelectorOpNotIn, "ssd").Obj(), ssd, false},
		{"Exists", st.MakePod().Name("p").RequiredNodeAffinity("disk", corev1.NodeSelectorOpExists).Obj(), hdd, true},
		{"DoesNotExist", st.MakePod().Name("p").RequiredNodeAffinity("gpu", corev1.NodeSelectorOpDoesNotExist).Obj(), hdd, true},
		{"Gt", st.MakePod().Name("p").RequiredNodeAffinity("cores", corev1.NodeSelectorOpGt, "4").Obj(), hdd, false},
		{"Lt", st.MakePod().Name("p").RequiredNodeAffinity("cores", corev1.NodeSelectorOpLt, "8").Obj(), hdd, true},
		{"terms are ORed", st.MakePod().Name("p").RequiredNodeAffinity("disk", corev1.NodeSelectorOpIn, "x").
			RequiredNodeAffinity("disk", corev1.NodeSelectorOpIn, "hdd").Obj(), hdd, true},
		{"nodeSelector and affinity must both hold", st.MakePod().Name("p").NodeSelector("disk", "ssd").
			RequiredNodeAffinity("cores", corev1.NodeSelectorOpLt, "5").Obj(), ssd, false},
	}
	pl := &NodeAffinity{}
	for _, tt := range tests {
		state := framework.NewCycleState()
		pi := framework.NewPodInfo(tt.pod)
		if _, st := pl.PreFilter(state, pi); !st.IsSuccess() {
			t.Fatalf("%s: PreFilter = %v", tt.name, st)
		}
		got := pl.Filter(state, pi, framework.NewNodeInfo(tt.node))
		if got.IsSuccess() != tt.want {
			t.Errorf("%s: Filter = %v; want success %v", tt.name, got, tt.want)
		}
		if !tt.want && (got.Code() != framework.UnschedulableAndUnresolvable || got.Message() != ErrReason) {
			t.Errorf("%s: Filter = %v; want UnschedulableAndUnresolvable: %s", tt.name, got, ErrReason)
		}
		if Fits(tt.pod, tt.node) != tt.want {
			t.Errorf("%s: Fits = %v; want %v", tt.name, !tt.want, tt.want)
		}
	}
}

func TestPreFilter(t *testing.T) {
	pl := &NodeAffinity{}
	if _, st := pl.PreFilter(framework.NewCycleState(), framework.NewPodInfo(st.MakePod().Name("p").Obj())); !st.IsSkip() {
		t.Errorf("PreFilter(no selector) = %v; want Skip", st)
	}
	pinned := st.MakePod().Name("p").Obj()
	pinned.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{
			{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"n2"}}}},
		}}}}
	r, st := pl.PreFilter(framework.NewCycleState(), framework.NewPodInfo(pinned))
	if !st.IsSuccess() || r.AllNodes() || len(r.NodeNames) != 1 {
		t.Errorf("PreFilter(metadata.name In n2) = %v, %v; want {n2}", r, st)
	}
}

// TestScore: the raw score sums the weights of matching preferred terms;
// NormalizeScore scales the best to 100.
func TestScore(t *testing.T) {
	pod := framework.NewPodInfo(st.MakePod().Name("p").
		PreferredNodeAffinity(80, "disk", corev1.NodeSelectorOpIn, "ssd").
		PreferredNodeAffinity(20, "zone", corev1.NodeSelectorOpIn, "a").Obj())
	nodes := []*corev1.Node{
		st.MakeNode().Name("both").Label("disk", "ssd").Label("zone", "a").Obj(),
		st.MakeNode().Name("ssd").Label("disk", "ssd").Obj(),
		st.MakeNode().Name("zone").Label("zone", "a").Obj(),
		st.MakeNode().Name("none").Obj(),
	}
	pl := &NodeAffinity{}
	state := framework.NewCycleState()
	if st := pl.PreScore(state, pod, nil); !st.IsSuccess() {
		t.Fatalf("PreScore = %v", st)
	}
	var scores framework.NodeScoreList
	for _, n := range nodes {
		s, _ := pl.Score(state, pod, framework.NewNodeInfo(n))
		scores = append(scores, framework.NodeScore{Name: n.Name, Score: s})
	}
	for i, want := range []int64{100, 80, 20, 0} {
		if scores[i].Score != want {
			t.Errorf("Score(%s) = %d; want %d", scores[i].Name, scores[i].Score, want)
		}
	}
	// Only the zone term matches anywhere: 20 becomes 100.
	part := framework.NodeScoreList{{Name: "zone", Score: 20}, {Name: "none", Score: 0}}
	pl.NormalizeScore(state, pod, part)
	if part[0].Score != 100 || part[1].Score != 0 {
		t.Errorf("NormalizeScore = %v; want zone 100, none 0", part)
	}
	if st := pl.PreScore(framework.NewCycleState(), framework.NewPodInfo(st.MakePod().Name("q").Obj()), nil); !st.IsSkip() {
		t.Errorf("PreScore(no preferences) = %v; want Skip", st)
	}
}
