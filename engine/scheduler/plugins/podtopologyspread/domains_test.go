package podtopologyspread

import (
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/scheduler/internal/st"
)

// TestDomainsAmong checks the count of distinct domains among the feasible
// nodes, which weighs a constraint, on counts kept by domain number as the
// scheduler's cache keeps them: whether it stops early once every domain
// has been seen or reads every node, and its fallback to the node labels
// for a node without the key or without a number.
func TestDomainsAmong(t *testing.T) {
	zone := corev1.LabelTopologyZone
	// The cluster: nodes 0..5 in zones a b c a b c, node 6 without a zone.
	zones := []string{"a", "b", "c", "a", "b", "c", ""}
	ids := []int32{0, 1, 2, 0, 1, 2, -1}
	all := make([]*framework.NodeInfo, len(zones))
	for i, z := range zones {
		n := st.MakeNode().Name("n" + strconv.Itoa(i))
		if z != "" {
			n.Label(zone, z)
		}
		all[i] = framework.NewNodeInfo(n.Obj())
		all[i].Index = i
	}
	unnumbered := framework.NewNodeInfo(st.MakeNode().Name("x").Label(zone, "d").Obj())
	pick := func(is ...int) []*framework.NodeInfo {
		out := make([]*framework.NodeInfo, len(is))
		for j, i := range is {
			out[j] = all[i]
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		nodes []*framework.NodeInfo
		want  int
	}{
		{"no nodes", nil, 0},
		{"one zone", pick(0, 3), 1},
		{"two of three zones", pick(0, 1, 3, 4), 2},
		{"every zone", pick(0, 1, 2), 3},
		{"every zone, then more nodes", pick(2, 1, 0, 3, 4, 5), 3},
		{"every zone, then a node without a zone", pick(0, 1, 2, 6), 3},
		{"a node without a zone first: by label", pick(6, 0, 1), 2},
		{"a node without a number: by label", append(pick(0, 3), unnumbered), 2},
	} {
		c := framework.NewIndexedDomainCounts(zone, ids, []string{"a", "b", "c"}, map[string]int32{"a": 0, "b": 1, "c": 2})
		var s preScoreState
		if got := s.domainsAmong(c, tc.nodes); got != tc.want {
			t.Errorf("domainsAmong(%s) = %d; want %d", tc.name, got, tc.want)
		}
		if got := domainsByLabel(zone, tc.nodes); got != tc.want {
			t.Errorf("domainsByLabel(%s) = %d; want %d", tc.name, got, tc.want)
		}
	}
}
