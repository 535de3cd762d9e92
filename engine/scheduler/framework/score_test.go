package framework_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/scheduler/internal/st"
	"github.com/kubeloop/kubeloop/engine/scheduler/plugins/queuesort"
)

// fixedScorer scores each node from a table, by name; with reverse it
// normalises as TaintToleration does (reversed, the highest raw score
// gets 0); with skip its PreScore returns Skip.
type fixedScorer struct {
	name    string
	scores  map[string]int64
	reverse bool
	skip    bool
}

func (p *fixedScorer) Name() string { return p.name }
func (p *fixedScorer) PreScore(*framework.CycleState, *framework.PodInfo, []*framework.NodeInfo) *framework.Status {
	if p.skip {
		return framework.NewStatus(framework.Skip)
	}
	return nil
}
func (p *fixedScorer) Score(_ *framework.CycleState, _ *framework.PodInfo, ni *framework.NodeInfo) (int64, *framework.Status) {
	return p.scores[ni.Name()], nil
}
func (p *fixedScorer) ScoreExtensions() framework.ScoreExtensions {
	if p.reverse {
		return p
	}
	return nil
}
func (p *fixedScorer) NormalizeScore(_ *framework.CycleState, _ *framework.PodInfo, scores framework.NodeScoreList) *framework.Status {
	return framework.DefaultNormalizeScore(framework.MaxNodeScore, true, scores)
}

// threeNodesAndPod is what the score tests score: nodes n1, n2 and n3,
// which the fixed scorers know, and a pod p.
func threeNodesAndPod() ([]*framework.NodeInfo, *framework.PodInfo) {
	var nodes []*framework.NodeInfo
	for _, n := range []string{"n1", "n2", "n3"} {
		nodes = append(nodes, framework.NewNodeInfo(st.MakeNode().Name(n).Obj()))
	}
	return nodes, framework.NewPodInfo(st.MakePod().Name("p").Obj())
}

// TestRunScorePlugins runs the score pass with and without a plugin
// skipped, on the same buffers in turn: a skipped plugin leaves empty
// lists and adds nothing, and nothing of an earlier pass shows through.
func TestRunScorePlugins(t *testing.T) {
	a := &fixedScorer{name: "A", scores: map[string]int64{"n1": 10, "n2": 20, "n3": 30}}
	b := &fixedScorer{name: "B", scores: map[string]int64{"n1": 0, "n2": 1, "n3": 2}, reverse: true}
	fw := framework.New([]framework.PluginConfig{{Plugin: &queuesort.PrioritySort{}}, {Plugin: a, Weight: 1}, {Plugin: b, Weight: 3}})
	nodes, pod := threeNodesAndPod()
	var out framework.Scores
	for _, tc := range []struct {
		name         string
		skipB        bool
		nodes        int
		rawA, rawB   []int64
		normA, normB []int64
		totals       []int64
	}{
		// A does not normalise: its list stays empty (its raw scores
		// count). B reversed: 100 × (1 − s/2): 100, 50, 0, weighted ×3.
		{"both score", false, 3, []int64{10, 20, 30}, []int64{0, 1, 2}, nil, []int64{100, 50, 0}, []int64{310, 170, 30}},
		{"B skipped", true, 3, []int64{10, 20, 30}, nil, nil, nil, []int64{10, 20, 30}},
		{"both again, fewer nodes", false, 2, []int64{10, 20}, []int64{0, 1}, nil, []int64{100, 0}, []int64{310, 20}},
	} {
		b.skip = tc.skipB
		state := framework.NewCycleState()
		if st := fw.RunPreScorePlugins(state, pod, nodes[:tc.nodes]); !st.IsSuccess() {
			t.Fatalf("%s: PreScore: %v", tc.name, st)
		}
		if st := fw.RunScorePlugins(state, pod, nodes[:tc.nodes], &out); !st.IsSuccess() {
			t.Fatalf("%s: Score: %v", tc.name, st)
		}
		for _, c := range []struct {
			what      string
			got, want []int64
		}{
			{"A raw", out.Raw[0], tc.rawA}, {"B raw", out.Raw[1], tc.rawB},
			{"A normalised", out.Normalized[0], tc.normA}, {"B normalised", out.Normalized[1], tc.normB},
			{"totals", out.Totals, tc.totals},
		} {
			if len(c.got) != len(c.want) || !slices.Equal(c.got, c.want) {
				t.Errorf("%s: %s = %v; want %v", tc.name, c.what, c.got, c.want)
			}
		}
	}
}

// batchScorer is a fixedScorer that also scores all nodes in one call,
// counting those calls; fail makes the named node's score fail.
type batchScorer struct {
	fixedScorer
	calls int
	fail  string
}

func (p *batchScorer) Score(state *framework.CycleState, pi *framework.PodInfo, ni *framework.NodeInfo) (int64, *framework.Status) {
	if ni.Name() == p.fail {
		return 0, framework.NewStatus(framework.Error, "no score for "+p.fail)
	}
	return p.fixedScorer.Score(state, pi, ni)
}

func (p *batchScorer) ScoreNodes(state *framework.CycleState, pi *framework.PodInfo, nodes []*framework.NodeInfo, scores []int64) *framework.Status {
	p.calls++
	for i, ni := range nodes {
		s, st := p.Score(state, pi, ni)
		if !st.IsSuccess() {
			return st
		}
		scores[i] = s
	}
	return nil
}

// TestRunScorePluginsNodesScorer: a plugin with ScoreNodes is called once
// per pass, with the totals and normalised scores Score would give, and
// its failure is reported as a Score failure is.
func TestRunScorePluginsNodesScorer(t *testing.T) {
	a := &batchScorer{fixedScorer: fixedScorer{name: "A", scores: map[string]int64{"n1": 10, "n2": 20, "n3": 30}}}
	b := &batchScorer{fixedScorer: fixedScorer{name: "B", scores: map[string]int64{"n1": 0, "n2": 1, "n3": 2}, reverse: true}}
	fw := framework.New([]framework.PluginConfig{{Plugin: &queuesort.PrioritySort{}}, {Plugin: a, Weight: 1}, {Plugin: b, Weight: 3}})
	nodes, pod := threeNodesAndPod()
	var out framework.Scores
	if st := fw.RunScorePlugins(framework.NewCycleState(), pod, nodes, &out); !st.IsSuccess() {
		t.Fatalf("RunScorePlugins: %v", st)
	}
	if want := []int64{310, 170, 30}; !slices.Equal(out.Totals, want) {
		t.Errorf("totals = %v; want %v", out.Totals, want)
	}
	if a.calls != 1 || b.calls != 1 {
		t.Errorf("ScoreNodes calls = %d, %d; want 1, 1", a.calls, b.calls)
	}
	for _, p := range []*batchScorer{a, b} {
		a.fail, b.fail = "", ""
		p.fail = "n2"
		st := fw.RunScorePlugins(framework.NewCycleState(), pod, nodes, &out)
		want := `plugin "` + p.name + `" failed with: no score for n2`
		if st.Code() != framework.Error || st.Message() != want {
			t.Errorf("%s fails: RunScorePlugins = %v; want Error: %s", p.name, st, want)
		}
	}
}

// seenScorer is a fixedScorer that normalises as kube's DefaultNormalizeScore
// (not reversed) and remembers the list NormalizeScore was given.
type seenScorer struct {
	fixedScorer
	seen framework.NodeScoreList
}

func (p *seenScorer) ScoreExtensions() framework.ScoreExtensions { return p }
func (p *seenScorer) NormalizeScore(_ *framework.CycleState, _ *framework.PodInfo, scores framework.NodeScoreList) *framework.Status {
	p.seen = append(p.seen[:0], scores...)
	return framework.DefaultNormalizeScore(framework.MaxNodeScore, false, scores)
}

// TestRunScorePluginsNormalizers: plugins that normalise in one pass each
// get the nodes' names with their own raw scores (not another plugin's
// normalised ones), in node order, and keep their own normalised scores.
func TestRunScorePluginsNormalizers(t *testing.T) {
	a := &seenScorer{fixedScorer: fixedScorer{name: "A", scores: map[string]int64{"n1": 1, "n2": 4, "n3": 2}}}
	b := &seenScorer{fixedScorer: fixedScorer{name: "B", scores: map[string]int64{"n1": 5, "n2": 0, "n3": 10}}}
	fw := framework.New([]framework.PluginConfig{{Plugin: &queuesort.PrioritySort{}}, {Plugin: a, Weight: 1}, {Plugin: b, Weight: 2}})
	var out framework.Scores
	pod := framework.NewPodInfo(st.MakePod().Name("p").Obj())
	for _, names := range [][]string{{"n1", "n2", "n3"}, {"n3", "n1"}} {
		var nodes []*framework.NodeInfo
		for _, n := range names {
			nodes = append(nodes, framework.NewNodeInfo(st.MakeNode().Name(n).Obj()))
		}
		if st := fw.RunScorePlugins(framework.NewCycleState(), pod, nodes, &out); !st.IsSuccess() {
			t.Fatalf("RunScorePlugins: %v", st)
		}
		for pi, p := range []*seenScorer{a, b} {
			var want framework.NodeScoreList
			var wantNorm []int64
			var maxRaw int64
			for _, n := range names {
				want = append(want, framework.NodeScore{Name: n, Score: p.scores[n]})
				maxRaw = max(maxRaw, p.scores[n])
			}
			for _, n := range names {
				wantNorm = append(wantNorm, framework.MaxNodeScore*p.scores[n]/maxRaw)
			}
			if !slices.Equal(p.seen, want) {
				t.Errorf("%v: %s.NormalizeScore got %v; want %v", names, p.name, p.seen, want)
			}
			if !slices.Equal(out.Normalized[pi], wantNorm) {
				t.Errorf("%v: %s normalised = %v; want %v", names, p.name, out.Normalized[pi], wantNorm)
			}
		}
	}
}

// sliceNormScorer is a fixedScorer (reversed) that is also a
// NodesNormalizer, and counts the calls to each normalisation.
type sliceNormScorer struct {
	fixedScorer
	listCalls, sliceCalls int
	bad                   bool // NormalizeNodeScores leaves an out-of-range score
}

func (p *sliceNormScorer) ScoreExtensions() framework.ScoreExtensions { return p }
func (p *sliceNormScorer) NormalizeScore(_ *framework.CycleState, _ *framework.PodInfo, scores framework.NodeScoreList) *framework.Status {
	p.listCalls++
	return framework.DefaultNormalizeScore(framework.MaxNodeScore, true, scores)
}
func (p *sliceNormScorer) NormalizeNodeScores(_ *framework.CycleState, _ *framework.PodInfo, nodes []*framework.NodeInfo, scores []int64) *framework.Status {
	p.sliceCalls++
	if len(nodes) != len(scores) {
		return framework.NewStatus(framework.Error, "nodes and scores differ in length")
	}
	framework.DefaultNormalizeNodeScores(framework.MaxNodeScore, true, scores)
	if p.bad {
		scores[0] = framework.MaxNodeScore + 1
	}
	return nil
}

// TestRunScorePluginsNodesNormalizer: a plugin that is a NodesNormalizer
// is normalised through it, not through NormalizeScore, to the same
// normalised scores and totals as the same plugin normalised through the
// list, with its raw scores kept; a score out of range is still an error.
func TestRunScorePluginsNodesNormalizer(t *testing.T) {
	scores := map[string]int64{"n1": 3, "n2": 0, "n3": 1}
	a := &fixedScorer{name: "A", scores: scores, reverse: true}
	b := &sliceNormScorer{fixedScorer: fixedScorer{name: "B", scores: scores, reverse: true}}
	fw := framework.New([]framework.PluginConfig{{Plugin: &queuesort.PrioritySort{}}, {Plugin: a, Weight: 1}, {Plugin: b, Weight: 1}})
	nodes, pod := threeNodesAndPod()
	var out framework.Scores
	if st := fw.RunScorePlugins(framework.NewCycleState(), pod, nodes, &out); !st.IsSuccess() {
		t.Fatalf("RunScorePlugins: %v", st)
	}
	if b.listCalls != 0 || b.sliceCalls != 1 {
		t.Errorf("NormalizeScore called %d times, NormalizeNodeScores %d; want 0 and 1", b.listCalls, b.sliceCalls)
	}
	wantNorm, wantTotals := []int64{0, 100, 67}, []int64{0, 200, 134}
	for _, c := range []struct {
		what      string
		got, want []int64
	}{
		{"A normalised", out.Normalized[0], wantNorm},
		{"B normalised", out.Normalized[1], wantNorm},
		{"B raw", out.Raw[1], []int64{3, 0, 1}},
		{"totals", out.Totals, wantTotals},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s = %v; want %v", c.what, c.got, c.want)
		}
	}
	b.bad = true
	st := fw.RunScorePlugins(framework.NewCycleState(), pod, nodes, &out)
	want := `plugin "B" returns an invalid score 101, it should in the range of [0, 100] after normalizing`
	if st.Code() != framework.Error || st.Message() != want {
		t.Errorf("out of range: RunScorePlugins = %v; want Error: %s", st, want)
	}
}

// lyingScorer is a batchScorer whose ScoreNodes says something Score does
// not: off is added to every score, or, with failAll, it fails.
type lyingScorer struct {
	batchScorer
	off     int64
	failAll bool
}

func (p *lyingScorer) ScoreNodes(state *framework.CycleState, pi *framework.PodInfo, nodes []*framework.NodeInfo, scores []int64) *framework.Status {
	if p.failAll {
		return framework.NewStatus(framework.Error, "no scores today")
	}
	st := p.batchScorer.ScoreNodes(state, pi, nodes, scores)
	for i := range scores {
		scores[i] += p.off
	}
	return st
}

// TestVerifyNodesScorers: with VerifyNodesScorers on (as in every test of
// the scheduler, the engine, the lessons and the REPL), a pass panics
// where a NodesScorer or a NodesNormalizer disagrees with kube's per-node
// methods, and not where they agree, failures included.
func TestVerifyNodesScorers(t *testing.T) {
	defer func(v bool) { framework.VerifyNodesScorers = v }(framework.VerifyNodesScorers)
	framework.VerifyNodesScorers = true
	scores := map[string]int64{"n1": 3, "n2": 0, "n3": 1}
	nodes, pod := threeNodesAndPod()
	for _, c := range []struct {
		name   string
		plugin framework.ScorePlugin
		panics string // a part of the panic's message; "" for none
	}{
		{"agreeing scorer", &batchScorer{fixedScorer: fixedScorer{name: "A", scores: scores}}, ""},
		{"agreeing failure", &batchScorer{fixedScorer: fixedScorer{name: "A", scores: scores}, fail: "n2"}, ""},
		{"agreeing normalizer", &sliceNormScorer{fixedScorer: fixedScorer{name: "B", scores: scores, reverse: true}}, ""},
		{"scores off by one", &lyingScorer{batchScorer: batchScorer{fixedScorer: fixedScorer{name: "L", scores: scores}}, off: 1},
			"L.ScoreNodes scores node n1 4, Score 3"},
		{"fails where Score succeeds", &lyingScorer{batchScorer: batchScorer{fixedScorer: fixedScorer{name: "L", scores: scores}}, failAll: true},
			`L.ScoreNodes fails with "no scores today" where Score succeeds on every node`},
		{"normalises otherwise", &sliceNormScorer{fixedScorer: fixedScorer{name: "B", scores: scores, reverse: true}, bad: true},
			"B.NormalizeNodeScores gives node n1 101, NormalizeScore 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fw := framework.New([]framework.PluginConfig{{Plugin: &queuesort.PrioritySort{}}, {Plugin: c.plugin, Weight: 1}})
			got := func() (msg string) {
				defer func() {
					if r := recover(); r != nil {
						msg = fmt.Sprint(r)
					}
				}()
				var out framework.Scores
				fw.RunScorePlugins(framework.NewCycleState(), pod, nodes, &out)
				return ""
			}()
			if (got == "") != (c.panics == "") || !strings.Contains(got, c.panics) {
				t.Errorf("panic %q; want one saying %q", got, c.panics)
			}
		})
	}
}
