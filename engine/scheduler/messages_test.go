package scheduler

import "testing"

// TestScopeSummaryAndRank pins the words of the bind's trace messages,
// which are built in a buffer.
func TestScopeSummaryAndRank(t *testing.T) {
	for _, tc := range []struct {
		d           Decision
		scope, rank string
	}{
		{Decision{Node: "n1", Nominated: true, AllNodes: 3, Evaluated: 1, Feasible: 1},
			"its nominated node n1 checked first and feasible, taken without looking at the others", "its nominated node, tried first"},
		{Decision{AllNodes: 3, Evaluated: 3, Feasible: 1},
			"1 node feasible, taken without scoring", "the only feasible node, not scored"},
		{Decision{AllNodes: 3, Evaluated: 3, Feasible: 2, Scored: 2, Score: 597, Ties: 1},
			"2 nodes feasible, 2 scored", "score 597, highest of 2"},
		{Decision{AllNodes: 3, Evaluated: 3, Feasible: 3, Scored: 3, Score: 597, Ties: 2},
			"3 nodes feasible, 3 scored", "score 597, tied with 1 other node at the top of 3; picked at random"},
		{Decision{AllNodes: 500, Evaluated: 230, Percentage: 46, Feasible: 230, Scored: 230, Score: 1234, Ties: 17},
			"230 of 500 nodes evaluated (percentageOfNodesToScore 46%), 230 nodes feasible, 230 scored",
			"score 1234, tied with 16 other nodes at the top of 230; picked at random"},
		{Decision{AllNodes: 500, Evaluated: 500, Percentage: 46, Feasible: 1},
			"1 node feasible, taken without scoring", "the only feasible node, not scored"},
		{Decision{AllNodes: 500, Evaluated: 150, Percentage: 5, Feasible: 1},
			"150 of 500 nodes evaluated (percentageOfNodesToScore 5%), 1 node feasible, taken without scoring",
			"the only feasible node, not scored"},
	} {
		if got := string(appendScopeSummary([]byte("x: "), &tc.d)); got != "x: "+tc.scope {
			t.Errorf("scope %q, want %q", got, "x: "+tc.scope)
		}
		if got := tc.d.Rank(); got != tc.rank {
			t.Errorf("rank %q, want %q", got, tc.rank)
		}
	}
}
