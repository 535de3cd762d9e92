package st

import (
	"slices"
	"testing"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
)

// ScoreEach runs pl's Score on every node and returns the scores, failing
// the test on an error. If pl is a framework.NodesScorer, it also runs
// ScoreNodes on the nodes (twice: at once, and over buffers holding
// stale scores) and fails the test unless it gives the same scores.
func ScoreEach(t testing.TB, pl framework.ScorePlugin, state *framework.CycleState, pi *framework.PodInfo, nodes []*framework.NodeInfo) []int64 {
	t.Helper()
	want := make([]int64, len(nodes))
	for i, ni := range nodes {
		s, st := pl.Score(state, pi, ni)
		if !st.IsSuccess() {
			t.Fatalf("%s.Score(%s): %v", pl.Name(), ni.Name(), st)
		}
		want[i] = s
	}
	ns, ok := pl.(framework.NodesScorer)
	if !ok {
		return want
	}
	for _, fill := range []int64{0, -7} {
		got := make([]int64, len(nodes))
		for i := range got {
			got[i] = fill
		}
		if st := ns.ScoreNodes(state, pi, nodes, got); !st.IsSuccess() {
			t.Fatalf("%s.ScoreNodes: %v", pl.Name(), st)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s.ScoreNodes = %v; want %v (Score node by node)", pl.Name(), got, want)
		}
	}
	return want
}
