package imagelocality

import (
	"testing"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/scheduler/internal/st"
)

func TestNormalizedImageName(t *testing.T) {
	for in, want := range map[string]string{
		"nginx": "nginx:latest", "nginx:1.27": "nginx:1.27", "registry:5000/app": "registry:5000/app:latest",
		"registry:5000/app:v2": "registry:5000/app:v2",
	} {
		if got := NormalizedImageName(in); got != want {
			t.Errorf("NormalizedImageName(%q) = %q; want %q", in, got, want)
		}
	}
}

func TestCalculatePriority(t *testing.T) {
	const mib = 1024 * 1024
	tests := []struct {
		sum  int64
		n    int
		want int64
	}{
		{0, 1, 0},
		{23 * mib, 1, 0},
		{1000 * mib, 1, 100},
		{5000 * mib, 1, 100},
		// 500 MiB on 2 of 3 nodes: 349525333 bytes → 100 × (349525333 − 23 MiB) / (1000 MiB − 23 MiB) = 31.
		{ScaledImageScore(&framework.ImageStateSummary{Size: 500 * mib, NumNodes: 2}, 3), 1, 31},
		// Two containers double the ceiling: 800 MiB of 2000 → 39.
		{800 * mib, 2, 39},
	}
	for _, tt := range tests {
		if got := CalculatePriority(tt.sum, tt.n); got != tt.want {
			t.Errorf("CalculatePriority(%d, %d) = %d; want %d", tt.sum, tt.n, got, tt.want)
		}
	}
}

type images map[string]*framework.ImageStateSummary

func (m images) ImageState(name string) *framework.ImageStateSummary { return m[name] }

func TestScore(t *testing.T) {
	const mib = 1024 * 1024
	big := &framework.ImageStateSummary{Size: 900 * mib, NumNodes: 3}
	ni := framework.NewNodeInfo(st.MakeNode().Name("n1").Obj())
	ni.ImageStates = map[string]*framework.ImageStateSummary{"shop/api:v2.1": big}
	pod := framework.NewPodInfo(st.MakePod().Name("p").Image("shop/api:v2.1").Obj())
	pl := &ImageLocality{}
	state := framework.NewCycleState()
	state.NumAllNodes = 3
	state.Images = images{"shop/api:v2.1": big}
	pl.PreScore(state, pod, nil)
	// 900 MiB on every node: 100 × (900 − 23) / (1000 − 23) = 89.
	empty := framework.NewNodeInfo(st.MakeNode().Name("n2").Obj())
	if got := st.ScoreEach(t, pl, state, pod, []*framework.NodeInfo{ni, empty}); got[0] != 89 || got[1] != 0 {
		t.Errorf("Score(with the image, without) = %v; want [89 0]", got)
	}
	// An image so rare that no node can reach 23 MiB scores 0 without lookups.
	small := &framework.ImageStateSummary{Size: 60 * mib, NumNodes: 1}
	state.Images = images{"shop/api:v2.1": small}
	ni.ImageStates["shop/api:v2.1"] = small
	pl.PreScore(state, pod, nil)
	if got := st.ScoreEach(t, pl, state, pod, []*framework.NodeInfo{ni}); got[0] != 0 {
		t.Errorf("Score(rare small image) = %d; want 0", got[0])
	}
}
