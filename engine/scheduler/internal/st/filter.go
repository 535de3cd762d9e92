package st

import (
	"maps"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
)

// FilterPlugin is a plugin with PreFilter, its extensions and Filter, as
// InterPodAffinity and PodTopologySpread are.
type FilterPlugin interface {
	framework.PreFilterPlugin
	framework.FilterPlugin
}

// FilterEach runs pl's Filter on every node of c with state: "pass" or the
// status, by node name.
func FilterEach(pl framework.FilterPlugin, c *Cluster, state *framework.CycleState, pi *framework.PodInfo) map[string]string {
	out := map[string]string{}
	for _, ni := range c.Nodes {
		if s := pl.Filter(state, pi, ni); s.IsSuccess() {
			out[ni.Name()] = "pass"
		} else {
			out[ni.Name()] = s.String()
		}
	}
	return out
}

// FilterAll runs pl's PreFilter for pod, then Filter on every node: "pass",
// "skip" (PreFilter said Skip) or the status, by node name.
func FilterAll(pl FilterPlugin, c *Cluster, pod *corev1.Pod) map[string]string {
	state := framework.NewCycleState()
	state.Cluster = c
	pi := framework.NewPodInfo(pod)
	_, s := pl.PreFilter(state, pi)
	if s.IsSuccess() {
		return FilterEach(pl, c, state, pi)
	}
	out := map[string]string{}
	for _, ni := range c.Nodes {
		if s.IsSkip() {
			out[ni.Name()] = "skip"
		} else {
			out[ni.Name()] = s.String()
		}
	}
	return out
}

// ExtensionOp is one PreFilterExtensions call: add (or remove) Pod on Node.
type ExtensionOp struct {
	Remove bool
	Pod    *corev1.Pod
	Node   string
}

// ApplyOps makes the calls of ops on state, or their opposites if undo.
func ApplyOps(t testing.TB, ext framework.PreFilterExtensions, c *Cluster, state *framework.CycleState, pi *framework.PodInfo, ops []ExtensionOp, undo bool) {
	t.Helper()
	for _, o := range ops {
		ni, p := c.Node(o.Node), framework.NewPodInfo(o.Pod)
		var s *framework.Status
		if o.Remove != undo {
			s = ext.RemovePod(state, pi, p, ni)
		} else {
			s = ext.AddPod(state, pi, p, ni)
		}
		if !s.IsSuccess() {
			t.Fatalf("extension: %v", s)
		}
	}
}

// CheckExtensions runs pl's PreFilter for pod on c, then ops on a clone of
// the state, and checks that Filter sees want there and only there: the
// original state still sees the cluster, a clone of the changed state
// carries the changes, and undoing them on that second clone does not
// reach the first.
func CheckExtensions(t *testing.T, pl FilterPlugin, c *Cluster, pod *corev1.Pod, ops []ExtensionOp, want map[string]string) {
	t.Helper()
	state := framework.NewCycleState()
	state.Cluster = c
	pi := framework.NewPodInfo(pod)
	if _, s := pl.PreFilter(state, pi); !s.IsSuccess() {
		t.Fatalf("PreFilter: %v", s)
	}
	ext := pl.PreFilterExtensions()
	before := FilterEach(pl, c, state, pi)
	clone := state.Clone()
	ApplyOps(t, ext, c, clone, pi, ops, false)
	if got := FilterEach(pl, c, clone, pi); !maps.Equal(got, want) {
		t.Errorf("after the changes: got %v, want %v", got, want)
	}
	if got := FilterEach(pl, c, state, pi); !maps.Equal(got, before) {
		t.Errorf("original state changed: got %v, want %v", got, before)
	}
	second := clone.Clone()
	if got := FilterEach(pl, c, second, pi); !maps.Equal(got, want) {
		t.Errorf("clone of the changed state: got %v, want %v", got, want)
	}
	ApplyOps(t, ext, c, second, pi, ops, true)
	if got := FilterEach(pl, c, clone, pi); !maps.Equal(got, want) {
		t.Errorf("changes to a clone reached its source: got %v, want %v", got, want)
	}
}
