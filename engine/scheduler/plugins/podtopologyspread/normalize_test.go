package podtopologyspread

import (
	"testing"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
)

// TestNormalizeIgnored checks Normalize with and without ignored nodes: an
// ignored node gets 0 and takes no part in the minimum and maximum; no
// ignored nodes (nil or empty) normalises every node.
func TestNormalizeIgnored(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ignored map[string]struct{}
		raw     []int64
		want    []int64
	}{
		{"nil", nil, []int64{4, 1, 2}, []int64{25, 100, 75}},
		{"empty", map[string]struct{}{}, []int64{4, 1, 2}, []int64{25, 100, 75}},
		{"b ignored", map[string]struct{}{"b": {}}, []int64{4, 1, 2}, []int64{50, 0, 100}},
		{"all zero", nil, []int64{0, 0, 0}, []int64{100, 100, 100}},
		{"all ignored", map[string]struct{}{"a": {}, "b": {}, "c": {}}, []int64{4, 1, 2}, []int64{0, 0, 0}},
	} {
		scores := framework.NodeScoreList{{Name: "a"}, {Name: "b"}, {Name: "c"}}
		for i := range scores {
			scores[i].Score = tc.raw[i]
		}
		Normalize(scores, tc.ignored)
		for i := range scores {
			if scores[i].Score != tc.want[i] {
				t.Errorf("Normalize(%s, %v) = %v; want %v", tc.name, tc.raw, scores, tc.want)
				break
			}
		}
	}
}
