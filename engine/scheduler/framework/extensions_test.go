package framework_test

import (
	"testing"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/scheduler/internal/st"
	"github.com/kubeloop/kubeloop/engine/scheduler/plugins/queuesort"
)

var countKey = framework.NewStateKey("PreFilterCount")

// countState counts the pods AddPod added, less those RemovePod removed.
type countState struct{ n int }

func (s *countState) Clone() framework.StateData { c := *s; return &c }

// countPlugin writes a countState in PreFilter (or returns Skip) and keeps
// it through its PreFilterExtensions.
type countPlugin struct {
	name string
	skip bool
}

func (p *countPlugin) Name() string { return p.name }
func (p *countPlugin) PreFilter(state *framework.CycleState, _ *framework.PodInfo) (*framework.PreFilterResult, *framework.Status) {
	if p.skip {
		return nil, framework.NewStatus(framework.Skip)
	}
	state.Write(countKey, &countState{})
	return nil, nil
}
func (p *countPlugin) PreFilterExtensions() framework.PreFilterExtensions { return p }
func (p *countPlugin) AddPod(state *framework.CycleState, _, _ *framework.PodInfo, _ *framework.NodeInfo) *framework.Status {
	s, ok := state.Read(countKey).(*countState)
	if !ok {
		return framework.NewStatus(framework.Error, "no state")
	}
	s.n++
	return nil
}
func (p *countPlugin) RemovePod(state *framework.CycleState, _, _ *framework.PodInfo, _ *framework.NodeInfo) *framework.Status {
	s, ok := state.Read(countKey).(*countState)
	if !ok {
		return framework.NewStatus(framework.Error, "no state")
	}
	s.n--
	return nil
}

func count(state *framework.CycleState) int {
	if s, ok := state.Read(countKey).(*countState); ok {
		return s.n
	}
	return -1
}

func TestPreFilterExtensions(t *testing.T) {
	pod := framework.NewPodInfo(st.MakePod().Name("p").Obj())
	other := framework.NewPodInfo(st.MakePod().Name("q").Obj())
	node := framework.NewNodeInfo(st.MakeNode().Name("n1").Obj())
	for _, tc := range []struct {
		name      string
		skip      bool
		wantAdded int
		wantError bool
	}{
		{"a plugin that ran PreFilter is told", false, 2, false},
		// Its state is not there: called, it would fail.
		{"a plugin that returned Skip is not", true, -1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fw := framework.New([]framework.PluginConfig{{Plugin: &queuesort.PrioritySort{}}, {Plugin: &countPlugin{name: "Count", skip: tc.skip}}})
			state := framework.NewCycleState()
			if _, s, _ := fw.RunPreFilterPlugins(state, pod); !s.IsSuccess() {
				t.Fatalf("PreFilter: %v", s)
			}
			clone := state.Clone()
			for i := 0; i < 2; i++ {
				if s := fw.RunPreFilterExtensionAddPod(clone, pod, other, node); !s.IsSuccess() {
					t.Fatalf("AddPod: %v", s)
				}
			}
			if got := count(clone); got != tc.wantAdded {
				t.Errorf("clone counts %d, want %d", got, tc.wantAdded)
			}
			if s := fw.RunPreFilterExtensionRemovePod(clone, pod, other, node); !s.IsSuccess() {
				t.Fatalf("RemovePod: %v", s)
			}
			if !tc.skip {
				if got := count(clone); got != 1 {
					t.Errorf("after RemovePod the clone counts %d, want 1", got)
				}
				if got := count(state); got != 0 {
					t.Errorf("the original counts %d, want 0: a clone's changes reached it", got)
				}
			}
		})
	}
}
