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

// TestNormalizeTable checks that normalising through the table (raw scores
// spanning fewer values than there are nodes) gives what dividing per node
// gives, on both sides of the table's bounds.
func TestNormalizeTable(t *testing.T) {
	for _, tc := range []struct {
		name string
		raw  []int64
	}{
		{"narrow", []int64{7, 9, 7, 8, 9, 9, 7, 12}},
		{"one value", []int64{5, 5, 5, 5}},
		{"from 0", []int64{0, 3, 1, 3, 2}},
		{"as wide as the list", []int64{1, 5, 2, 3, 4}},
		{"wider than the table", func() []int64 {
			var r []int64
			for i := range 100 {
				r = append(r, int64(i%70)*3+11)
			}
			return r
		}()},
		{"negative", []int64{-2, 0, 3, 1, -2, 2, 3}},
	} {
		scores := make(framework.NodeScoreList, len(tc.raw))
		var lo, hi int64 = tc.raw[0], 0
		for i, s := range tc.raw {
			scores[i] = framework.NodeScore{Name: string(rune('a' + i%26)), Score: s}
			lo, hi = min(lo, s), max(hi, s)
		}
		Normalize(scores, nil)
		for i, s := range tc.raw {
			want := framework.MaxNodeScore * (hi + lo - s) / hi
			if scores[i].Score != want {
				t.Errorf("Normalize(%s): node %d (raw %d) = %d; want %d", tc.name, i, s, scores[i].Score, want)
			}
		}
	}
}
