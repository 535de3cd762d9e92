package framework

import (
	"fmt"
	"strings"
)

// PluginConfig is one plugin of a profile, with its score weight (0 for
// plugins that do not score, or whose score is not used).
type PluginConfig struct {
	Plugin Plugin
	Weight int64
}

// maxPlugins is how many plugins a PluginSet can name.
const maxPlugins = 64

type filterEntry struct {
	p   FilterPlugin
	idx int
}

type preFilterEntry struct {
	p   PreFilterPlugin
	idx int
}

type preScoreEntry struct {
	p   PreScorePlugin
	idx int
}

// ScoreEntry is one score plugin of a profile as the framework runs it.
type ScoreEntry struct {
	Plugin ScorePlugin
	Index  int // the plugin's index in the profile
	Weight int64
	ext    ScoreExtensions
	nodes  NodesScorer     // the plugin, if it scores all nodes in one call
	norm   NodesNormalizer // ext, if it normalises a plain slice
}

type eventEntry struct {
	reg    ClusterEventWithHint
	plugin int
}

// Framework runs one scheduling profile: the plugins, in profile order, at
// each extension point (kube's frameworkruntime.frameworkImpl).
type Framework struct {
	plugins    []Plugin
	queueSort  QueueSortPlugin
	preEnqueue []PreEnqueuePlugin
	preFilter  []preFilterEntry
	filter     []filterEntry
	postFilter []PostFilterPlugin
	preScore   []preScoreEntry
	score      []ScoreEntry
	events     []eventEntry
	// filterLists are the filters that run, by the set of filters a
	// PreFilter skipped (a handful of sets: which plugins have nothing to
	// check depends on the kind of pod), each made the first time a cycle
	// needs it.
	filterLists map[PluginSet][]filterEntry
}

// New builds a framework from a profile. A profile must have exactly one
// QueueSort plugin; a plugin appears at every extension point it implements.
// Mistakes here are programming errors and panic.
func New(profile []PluginConfig) *Framework {
	if len(profile) > maxPlugins {
		panic("framework: too many plugins")
	}
	f := &Framework{}
	seen := map[string]bool{}
	for i, pc := range profile {
		p := pc.Plugin
		if seen[p.Name()] {
			panic("framework: plugin " + p.Name() + " listed twice")
		}
		seen[p.Name()] = true
		f.plugins = append(f.plugins, p)
		if qs, ok := p.(QueueSortPlugin); ok {
			if f.queueSort != nil {
				panic("framework: two QueueSort plugins")
			}
			f.queueSort = qs
		}
		if pe, ok := p.(PreEnqueuePlugin); ok {
			f.preEnqueue = append(f.preEnqueue, pe)
		}
		if pf, ok := p.(PreFilterPlugin); ok {
			f.preFilter = append(f.preFilter, preFilterEntry{pf, i})
		}
		if fp, ok := p.(FilterPlugin); ok {
			f.filter = append(f.filter, filterEntry{fp, i})
		}
		if pf, ok := p.(PostFilterPlugin); ok {
			f.postFilter = append(f.postFilter, pf)
		}
		if sp, ok := p.(ScorePlugin); ok && pc.Weight > 0 {
			// Only weighted plugins score, as in kube's multiPoint profile.
			if ps, ok := p.(PreScorePlugin); ok {
				f.preScore = append(f.preScore, preScoreEntry{ps, i})
			}
			ns, _ := sp.(NodesScorer)
			ext := sp.ScoreExtensions()
			nn, _ := ext.(NodesNormalizer)
			f.score = append(f.score, ScoreEntry{Plugin: sp, Index: i, Weight: pc.Weight, ext: ext, nodes: ns, norm: nn})
		}
		if ee, ok := p.(EnqueueExtensions); ok {
			for _, reg := range ee.EventsToRegister() {
				f.events = append(f.events, eventEntry{reg: reg, plugin: i})
			}
		}
	}
	if f.queueSort == nil {
		panic("framework: no QueueSort plugin")
	}
	return f
}

// Plugins lists the profile's plugins in order.
func (f *Framework) Plugins() []Plugin { return f.plugins }

// PluginNames names the plugins in a set, in profile order.
func (f *Framework) PluginNames(s PluginSet) []string {
	var out []string
	for i, p := range f.plugins {
		if s.Has(i) {
			out = append(out, p.Name())
		}
	}
	return out
}

// FilterPlugins lists the filter plugins in the order they run, with their
// profile indexes.
func (f *Framework) FilterPlugins() (names []string, indexes []int) {
	for _, e := range f.filter {
		names = append(names, e.p.Name())
		indexes = append(indexes, e.idx)
	}
	return names, indexes
}

// ScorePlugins lists the weighted score plugins in the order they run.
func (f *Framework) ScorePlugins() []ScoreEntry { return f.score }

// HasScorePlugins reports whether any plugin scores.
func (f *Framework) HasScorePlugins() bool { return len(f.score) > 0 }

// Less orders the activeQ (the QueueSort plugin).
func (f *Framework) Less(a, b *QueuedPodInfo) bool { return f.queueSort.Less(a, b) }

// RunPreEnqueuePlugins returns the first PreEnqueue rejection, if any.
func (f *Framework) RunPreEnqueuePlugins(pod *PodInfo) *Status {
	for _, p := range f.preEnqueue {
		if s := p.PreEnqueue(pod); !s.IsSuccess() {
			return s
		}
	}
	return nil
}

// RunPreFilterPlugins runs every PreFilter. A Skip marks that plugin's
// Filter as skipped for this cycle; the first rejection stops the run. The
// set returned names the plugins that rejected the pod or, on success, those
// that narrowed the nodes (kube counts both as the attempt's unschedulable
// plugins: the nodes they left out are theirs).
func (f *Framework) RunPreFilterPlugins(state *CycleState, pod *PodInfo) (*PreFilterResult, *Status, PluginSet) {
	var result *PreFilterResult
	var narrowers PluginSet
	var withNodes []string
	for _, e := range f.preFilter {
		r, s := e.p.PreFilter(state, pod)
		switch {
		case s.IsSkip():
			state.SkipFilterPlugins = state.SkipFilterPlugins.With(e.idx)
			continue
		case !s.IsSuccess():
			if s.IsRejected() {
				return nil, s, PluginSet(0).With(e.idx)
			}
			return nil, s, 0
		}
		if r.AllNodes() {
			continue
		}
		narrowers = narrowers.With(e.idx)
		withNodes = append(withNodes, e.p.Name())
		result = result.Merge(r)
		if len(result.NodeNames) == 0 {
			return nil, NewStatus(UnschedulableAndUnresolvable,
				fmt.Sprintf("node(s) didn't satisfy plugin(s) %v simultaneously", withNodes)), narrowers
		}
	}
	return result, nil, narrowers
}

// RunPreFilterExtensionAddPod tells every PreFilter plugin that ran this
// cycle (those that returned Skip did not) and has PreFilterExtensions that
// added is now on node, and stops at the first error (kube's
// RunPreFilterExtensionAddPod).
func (f *Framework) RunPreFilterExtensionAddPod(state *CycleState, pod, added *PodInfo, node *NodeInfo) *Status {
	return f.runPreFilterExtensions(state, "AddPod", func(ext PreFilterExtensions) *Status {
		return ext.AddPod(state, pod, added, node)
	})
}

// RunPreFilterExtensionRemovePod tells every PreFilter plugin that ran this
// cycle and has PreFilterExtensions that removed has left node (kube's
// RunPreFilterExtensionRemovePod).
func (f *Framework) RunPreFilterExtensionRemovePod(state *CycleState, pod, removed *PodInfo, node *NodeInfo) *Status {
	return f.runPreFilterExtensions(state, "RemovePod", func(ext PreFilterExtensions) *Status {
		return ext.RemovePod(state, pod, removed, node)
	})
}

func (f *Framework) runPreFilterExtensions(state *CycleState, verb string, call func(PreFilterExtensions) *Status) *Status {
	for _, e := range f.preFilter {
		ext := e.p.PreFilterExtensions()
		if ext == nil || state.SkipFilterPlugins.Has(e.idx) {
			continue
		}
		if s := call(ext); !s.IsSuccess() {
			return NewStatus(Error, fmt.Sprintf("running %s on PreFilter plugin %q: %v", verb, e.p.Name(), s.Message()))
		}
	}
	return nil
}

// RunFilterPlugins runs the filters on one node, in profile order, and
// stops at the first rejection (as kube does since 1.2x): it returns the
// status and the profile index of the plugin that rejected, or nil and -1.
// The filters a PreFilter skipped are left out once per cycle (the list
// is kept in the CycleState), not checked again on every node.
func (f *Framework) RunFilterPlugins(state *CycleState, pod *PodInfo, node *NodeInfo) (*Status, int) {
	skip := state.SkipFilterPlugins
	if !state.filtersReady || state.filtersFor != skip {
		f.prepareFilters(state)
	}
	// The list is read once: read through state, it would be loaded
	// again after every Filter call, which may write the state.
	list := state.filterList
	for i := range list {
		if s := list[i].p.Filter(state, pod, node); s != nil && s.code != Success {
			return s, list[i].idx
		}
	}
	return nil, -1
}

// prepareFilters points the state at the list of the filters not skipped
// this cycle.
func (f *Framework) prepareFilters(state *CycleState) {
	skip := state.SkipFilterPlugins
	list, ok := f.filterLists[skip]
	if !ok {
		list = []filterEntry{}
		for _, e := range f.filter {
			if !skip.Has(e.idx) {
				list = append(list, e)
			}
		}
		if f.filterLists == nil {
			f.filterLists = map[PluginSet][]filterEntry{}
		}
		f.filterLists[skip] = list
	}
	state.filterList, state.filtersFor, state.filtersReady = list, skip, true
}

// RunPostFilterPlugins runs the PostFilter plugins until one succeeds and
// returns the messages of those that did not, joined.
func (f *Framework) RunPostFilterPlugins(state *CycleState, pod *PodInfo, nodes []*NodeInfo, m *NodeToStatus) *Status {
	var msgs []string
	code := Unschedulable
	for _, p := range f.postFilter {
		s := p.PostFilter(state, pod, nodes, m)
		if s.IsSuccess() {
			return s
		}
		if s.Code() == Error {
			code = Error
		}
		msgs = append(msgs, s.Message())
	}
	if len(msgs) == 0 {
		return nil
	}
	return NewStatus(code, strings.Join(msgs, " "))
}

// RunPreScorePlugins runs every PreScore; Skip marks that plugin's Score as
// skipped for this cycle.
func (f *Framework) RunPreScorePlugins(state *CycleState, pod *PodInfo, nodes []*NodeInfo) *Status {
	for _, e := range f.preScore {
		s := e.p.PreScore(state, pod, nodes)
		if s.IsSkip() {
			state.SkipScorePlugins = state.SkipScorePlugins.With(e.idx)
			continue
		}
		if !s.IsSuccess() {
			return s
		}
	}
	return nil
}

// Scores are the buffers of one scoring pass, reused from attempt to
// attempt: per score plugin (in ScorePlugins order) the raw scores of each
// feasible node and, for a plugin with NormalizeScore, its normalised
// scores (none for a plugin skipped this cycle); and each node's weighted
// total. A plugin without NormalizeScore has an empty Normalized list: its
// normalised scores are its raw ones.
type Scores struct {
	Raw        [][]int64
	Normalized [][]int64
	Totals     []int64
	// list is kube's NodeScoreList (a name with every score), lent to each
	// NormalizeScore of a pass in turn: the names are written once per
	// pass, and each plugin's raw scores over the last one's.
	list NodeScoreList
}

// RunScorePlugins scores the feasible nodes with every score plugin not
// skipped, normalises, checks the 0..100 range, and sums the weighted scores
// into out.Totals. A skipped plugin adds nothing to the totals, and its raw
// and normalised lists are left empty: its scores are all 0, and writing
// 0s for every node would only be undone. As in kube, every node is scored
// before any score is normalised or checked.
//
// Only NormalizeScore reads a NodeScoreList (a name with every score), so
// only the plugins that normalise use one, and they share it: a string
// stored per node per plugin costs a GC write barrier each while the
// collector marks. A plugin that is a NodesNormalizer needs none.
func (f *Framework) RunScorePlugins(state *CycleState, pod *PodInfo, nodes []*NodeInfo, out *Scores) *Status {
	n := len(nodes)
	for len(out.Raw) < len(f.score) {
		out.Raw = append(out.Raw, nil)
		out.Normalized = append(out.Normalized, nil)
	}
	out.Totals = resize(out.Totals, n)
	clear(out.Totals)
	totals := out.Totals
	named := false // whether out.list holds this pass's names
	for pi := range f.score {
		e := &f.score[pi]
		out.Normalized[pi] = out.Normalized[pi][:0]
		if state.SkipScorePlugins.Has(e.Index) {
			out.Raw[pi] = out.Raw[pi][:0]
			continue
		}
		raw := resize(out.Raw[pi], n)
		out.Raw[pi] = raw
		if st := scoreNodes(e, state, pod, nodes, raw); st != nil {
			return st
		}
		ext, w := e.ext, e.Weight
		if nn := e.norm; nn != nil {
			// A NodesNormalizer normalises a copy of the raw scores in
			// place: no NodeScoreList, no names.
			norm := resize(out.Normalized[pi], n)
			out.Normalized[pi] = norm
			copy(norm, raw)
			st := nn.NormalizeNodeScores(state, pod, nodes, norm)
			if VerifyNodesScorers {
				verifyNormalizeNodeScores(e.Plugin, nn, state, pod, nodes, raw, norm, st)
			}
			if !st.IsSuccess() {
				return NewStatus(Error, fmt.Sprintf("plugin %q failed with: %v", e.Plugin.Name(), st.Message()))
			}
			if st := addWeighted(e.Plugin, norm, w, totals); st != nil {
				return st
			}
			continue
		}
		if ext == nil {
			// Without NormalizeScore a raw score is final.
			if st := addWeighted(e.Plugin, raw, w, totals); st != nil {
				return st
			}
			continue
		}
		list := out.list
		if !named {
			if cap(list) < n {
				list = make(NodeScoreList, n)
			}
			list = list[:n]
			for i, node := range nodes {
				list[i] = NodeScore{Name: node.name, Score: raw[i]}
			}
			out.list, named = list, true
		} else {
			for i, s := range raw {
				list[i].Score = s
			}
		}
		if st := ext.NormalizeScore(state, pod, list); !st.IsSuccess() {
			return NewStatus(Error, fmt.Sprintf("plugin %q failed with: %v", e.Plugin.Name(), st.Message()))
		}
		norm := resize(out.Normalized[pi], n)
		out.Normalized[pi] = norm
		for i := range list {
			norm[i] = list[i].Score
		}
		if st := addWeighted(e.Plugin, norm, w, totals); st != nil {
			return st
		}
	}
	return nil
}

// addWeighted adds a plugin's final (normalised) scores, times its weight,
// to the totals, and then checks that each is within
// MinNodeScore..MaxNodeScore: the first that is not is kube's error (the
// caller drops the totals with it). Checking after the loop keeps the
// loop to one add and one comparison a node.
func addWeighted(p ScorePlugin, scores []int64, w int64, totals []int64) *Status {
	inRange := true
	for i, s := range scores {
		inRange = inRange && s <= MaxNodeScore && s >= MinNodeScore
		totals[i] += s * w
	}
	if inRange {
		return nil
	}
	for _, s := range scores {
		if s > MaxNodeScore || s < MinNodeScore {
			return invalidScore(p, s)
		}
	}
	return nil
}

// scoreNodes runs one plugin's Score on every node into raw: in one call
// if the plugin is a NodesScorer, else node by node. It returns the
// framework's error for the first node the plugin fails on, or nil.
func scoreNodes(e *ScoreEntry, state *CycleState, pod *PodInfo, nodes []*NodeInfo, raw []int64) *Status {
	plugin := e.Plugin
	var st *Status
	if ns := e.nodes; ns != nil {
		st = ns.ScoreNodes(state, pod, nodes, raw)
		if VerifyNodesScorers {
			verifyScoreNodes(plugin, state, pod, nodes, raw, st)
		}
	} else {
		for i, node := range nodes {
			if raw[i], st = plugin.Score(state, pod, node); st != nil && st.code != Success {
				break
			}
		}
	}
	if st != nil && st.code != Success {
		return NewStatus(Error, fmt.Sprintf("plugin %q failed with: %v", plugin.Name(), st.Message()))
	}
	return nil
}

// VerifyNodesScorers makes every scoring pass check what a NodesScorer's
// ScoreNodes and a NodesNormalizer's NormalizeNodeScores gave against the
// kube methods they stand in for (Score node by node, NormalizeScore on a
// NodeScoreList), and panic where they differ: the two are kubeloop's
// shortcuts, and must never say something the definitions would not.
// Tests turn it on (the scheduler's, the engine's, the lessons' and the
// REPL's), as store.VerifyEncoding; benchmarks leave it off.
var VerifyNodesScorers = false

// verifyScoreNodes checks what ScoreNodes gave (scores, and st) against
// Score on each node.
func verifyScoreNodes(p ScorePlugin, state *CycleState, pod *PodInfo, nodes []*NodeInfo, scores []int64, st *Status) {
	for i, node := range nodes {
		s, want := p.Score(state, pod, node)
		if !want.IsSuccess() {
			if st.IsSuccess() || st.Message() != want.Message() {
				panic(fmt.Sprintf("framework: %s.ScoreNodes says %q where Score fails on node %s with %q", p.Name(), st.Message(), node.Name(), want.Message()))
			}
			return // ScoreNodes failed as Score first does
		}
		if st.IsSuccess() && s != scores[i] { // a failed ScoreNodes's scores mean nothing
			panic(fmt.Sprintf("framework: %s.ScoreNodes scores node %s %d, Score %d", p.Name(), node.Name(), scores[i], s))
		}
	}
	if !st.IsSuccess() {
		panic(fmt.Sprintf("framework: %s.ScoreNodes fails with %q where Score succeeds on every node", p.Name(), st.Message()))
	}
}

// verifyNormalizeNodeScores checks what NormalizeNodeScores made of raw
// (norm, and st) against NormalizeScore on kube's NodeScoreList.
func verifyNormalizeNodeScores(p ScorePlugin, ext ScoreExtensions, state *CycleState, pod *PodInfo, nodes []*NodeInfo, raw, norm []int64, st *Status) {
	list := make(NodeScoreList, len(nodes))
	for i, node := range nodes {
		list[i] = NodeScore{Name: node.Name(), Score: raw[i]}
	}
	want := ext.NormalizeScore(state, pod, list)
	if st.IsSuccess() != want.IsSuccess() || st.Message() != want.Message() {
		panic(fmt.Sprintf("framework: %s.NormalizeNodeScores says %q (success %t) where NormalizeScore says %q (success %t)",
			p.Name(), st.Message(), st.IsSuccess(), want.Message(), want.IsSuccess()))
	}
	if !want.IsSuccess() {
		return
	}
	for i := range list {
		if list[i].Score != norm[i] {
			panic(fmt.Sprintf("framework: %s.NormalizeNodeScores gives node %s %d, NormalizeScore %d", p.Name(), list[i].Name, norm[i], list[i].Score))
		}
	}
}

func invalidScore(p ScorePlugin, s int64) *Status {
	return NewStatus(Error, fmt.Sprintf("plugin %q returns an invalid score %v, it should in the range of [%v, %v] after normalizing",
		p.Name(), s, MinNodeScore, MaxNodeScore))
}

func resize(s []int64, n int) []int64 {
	if cap(s) < n {
		return make([]int64, n)
	}
	return s[:n]
}

// EventInterest returns the plugins that registered for an incoming event.
func (f *Framework) EventInterest(in ClusterEvent) PluginSet {
	var s PluginSet
	for _, e := range f.events {
		if e.reg.Event.Matches(in) {
			s = s.With(e.plugin)
		}
	}
	return s
}

// Hint asks the plugins in rejectors that registered for the event whether
// it may make pod schedulable: Queue if any says so. A pod no plugin
// rejected (an error, no nodes at all) is always worth retrying.
func (f *Framework) Hint(rejectors PluginSet, pod *QueuedPodInfo, in ClusterEvent, oldObj, newObj any) QueueingHint {
	if rejectors == 0 {
		return Queue
	}
	for _, e := range f.events {
		if !rejectors.Has(e.plugin) || !e.reg.Event.Matches(in) {
			continue
		}
		if e.reg.QueueingHintFn == nil || e.reg.QueueingHintFn(pod.Pod, oldObj, newObj) == Queue {
			return Queue
		}
	}
	return QueueSkip
}
