package nodeaffinity

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
)

// Name is the plugin's name.
const Name = "NodeAffinity"

// Reasons, in kube's words.
const (
	// ErrReason: the node does not match the pod's nodeSelector or required
	// node affinity.
	ErrReason = "node(s) didn't match Pod's node affinity/selector"
	// ErrReasonConflict: the required terms name no node at all
	// (matchFields on metadata.name that cannot all hold).
	ErrReasonConflict = "pod affinity terms conflict"
)

// NodeAffinity filters and scores nodes by the pod's node selector and node
// affinity.
type NodeAffinity struct{}

var (
	_ framework.PreFilterPlugin   = (*NodeAffinity)(nil)
	_ framework.FilterPlugin      = (*NodeAffinity)(nil)
	_ framework.PreScorePlugin    = (*NodeAffinity)(nil)
	_ framework.ScorePlugin       = (*NodeAffinity)(nil)
	_ framework.ScoreExtensions   = (*NodeAffinity)(nil)
	_ framework.EnqueueExtensions = (*NodeAffinity)(nil)
)

var statusMismatch = framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReason)

// Name implements framework.Plugin.
func (*NodeAffinity) Name() string { return Name }

// nodeSelectorTerm is a parsed NodeSelectorTerm: its matchExpressions as
// label requirements (ANDed) and its matchFields on metadata.name.
type nodeSelectorTerm struct {
	labels   []labels.Requirement
	fields   []corev1.NodeSelectorRequirement
	empty    bool // a term with no requirements matches no node
	parseErr bool // an invalid term matches no node (validation rejects them)
}

func parseTerm(t *corev1.NodeSelectorTerm) nodeSelectorTerm {
	out := nodeSelectorTerm{empty: len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0}
	for _, r := range t.MatchExpressions {
		var op selection.Operator
		switch r.Operator {
		case corev1.NodeSelectorOpIn:
			op = selection.In
		case corev1.NodeSelectorOpNotIn:
			op = selection.NotIn
		case corev1.NodeSelectorOpExists:
			op = selection.Exists
		case corev1.NodeSelectorOpDoesNotExist:
			op = selection.DoesNotExist
		case corev1.NodeSelectorOpGt:
			op = selection.GreaterThan
		case corev1.NodeSelectorOpLt:
			op = selection.LessThan
		default:
			out.parseErr = true
			continue
		}
		req, err := labels.NewRequirement(r.Key, op, r.Values)
		if err != nil {
			out.parseErr = true
			continue
		}
		out.labels = append(out.labels, *req)
	}
	for _, r := range t.MatchFields {
		if r.Key != metav1.ObjectNameField || len(r.Values) != 1 ||
			(r.Operator != corev1.NodeSelectorOpIn && r.Operator != corev1.NodeSelectorOpNotIn) {
			out.parseErr = true
			continue
		}
		out.fields = append(out.fields, r)
	}
	return out
}

func (t *nodeSelectorTerm) matches(node *corev1.Node) bool {
	if t.empty || t.parseErr {
		return false
	}
	set := labels.Set(node.Labels)
	for i := range t.labels {
		if !t.labels[i].Matches(set) {
			return false
		}
	}
	for _, f := range t.fields {
		in := f.Values[0] == node.Name
		if (f.Operator == corev1.NodeSelectorOpIn) != in {
			return false
		}
	}
	return true
}

// RequiredNodeAffinity is a pod's hard node constraints: its nodeSelector
// and its required node affinity terms (ORed), which must both hold.
type RequiredNodeAffinity struct {
	selector map[string]string
	terms    []nodeSelectorTerm // nil: no required affinity
}

// GetRequiredNodeAffinity parses a pod's hard node constraints.
func GetRequiredNodeAffinity(pod *corev1.Pod) RequiredNodeAffinity {
	r := RequiredNodeAffinity{selector: pod.Spec.NodeSelector}
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		ts := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
		r.terms = make([]nodeSelectorTerm, 0, len(ts))
		for i := range ts {
			r.terms = append(r.terms, parseTerm(&ts[i]))
		}
		if r.terms == nil {
			r.terms = []nodeSelectorTerm{}
		}
	}
	return r
}

// Match reports whether node satisfies the constraints: every nodeSelector
// label, and at least one required term.
func (r *RequiredNodeAffinity) Match(node *corev1.Node) bool {
	for k, v := range r.selector {
		if lv, ok := node.Labels[k]; !ok || lv != v {
			return false
		}
	}
	if r.terms == nil {
		return true
	}
	for i := range r.terms {
		if r.terms[i].matches(node) {
			return true
		}
	}
	return false
}

// Fits reports whether a pod's nodeSelector and required node affinity
// allow node.
func Fits(pod *corev1.Pod, node *corev1.Node) bool {
	r := GetRequiredNodeAffinity(pod)
	return r.Match(node)
}

var preFilterStateKey = framework.NewStateKey("PreFilter" + Name)

func hasRequired(pod *corev1.Pod) bool {
	a := pod.Spec.Affinity
	return a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil
}

// PreFilterExtensions implements framework.PreFilterPlugin: none, as what
// PreFilter parses depends on the pod alone.
func (*NodeAffinity) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// PreFilter implements framework.PreFilterPlugin: Skip for a pod with
// neither nodeSelector nor required affinity; otherwise parse once, and if
// every required term pins metadata.name, narrow the nodes to those names.
func (*NodeAffinity) PreFilter(state *framework.CycleState, pi *framework.PodInfo) (*framework.PreFilterResult, *framework.Status) {
	pod := pi.Pod
	if !hasRequired(pod) && pod.Spec.NodeSelector == nil {
		return nil, statusSkip
	}
	r := GetRequiredNodeAffinity(pod)
	state.Write(preFilterStateKey, &r)
	if !hasRequired(pod) {
		return nil, nil
	}
	var names map[string]struct{}
	for _, t := range pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		var termNames map[string]struct{}
		for _, f := range t.MatchFields {
			if f.Key != metav1.ObjectNameField || f.Operator != corev1.NodeSelectorOpIn {
				continue
			}
			s := map[string]struct{}{}
			for _, v := range f.Values {
				if termNames == nil {
					s[v] = struct{}{}
				} else if _, ok := termNames[v]; ok {
					s[v] = struct{}{}
				}
			}
			termNames = s
		}
		if termNames == nil {
			return nil, nil // this term allows any node; terms are ORed
		}
		if names == nil {
			names = map[string]struct{}{}
		}
		for n := range termNames {
			names[n] = struct{}{}
		}
	}
	if names != nil && len(names) == 0 {
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonConflict)
	}
	if len(names) > 0 {
		return &framework.PreFilterResult{NodeNames: names}, nil
	}
	return nil, nil
}

// Filter implements framework.FilterPlugin.
func (*NodeAffinity) Filter(state *framework.CycleState, pi *framework.PodInfo, ni *framework.NodeInfo) *framework.Status {
	r, _ := state.Read(preFilterStateKey).(*RequiredNodeAffinity)
	if r == nil {
		req := GetRequiredNodeAffinity(pi.Pod)
		r = &req
	}
	if !r.Match(ni.Node()) {
		return statusMismatch
	}
	return nil
}

type weightedTerm struct {
	term   nodeSelectorTerm
	weight int64
}

// PreferredSchedulingTerms is a pod's parsed preferred node affinity.
type PreferredSchedulingTerms []weightedTerm

// GetPreferredSchedulingTerms parses a pod's preferred node affinity; terms
// of weight 0 are dropped, as kube drops them.
func GetPreferredSchedulingTerms(pod *corev1.Pod) PreferredSchedulingTerms {
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil {
		return nil
	}
	var out PreferredSchedulingTerms
	for i := range a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
		t := &a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution[i]
		if t.Weight == 0 {
			continue
		}
		out = append(out, weightedTerm{term: parseTerm(&t.Preference), weight: int64(t.Weight)})
	}
	return out
}

// Score is the sum of the weights of the terms node matches: the raw score.
func (ts PreferredSchedulingTerms) Score(node *corev1.Node) int64 {
	var s int64
	for i := range ts {
		if ts[i].term.matches(node) {
			s += ts[i].weight
		}
	}
	return s
}

var preScoreStateKey = framework.NewStateKey("PreScore" + Name)

// PreScore implements framework.PreScorePlugin: Skip for a pod without
// preferred terms.
func (*NodeAffinity) PreScore(state *framework.CycleState, pi *framework.PodInfo, _ []*framework.NodeInfo) *framework.Status {
	ts := GetPreferredSchedulingTerms(pi.Pod)
	if len(ts) == 0 {
		return statusSkip
	}
	st := ts // moved to the heap only here, not for every pod that skips
	state.Write(preScoreStateKey, &st)
	return nil
}

// Score implements framework.ScorePlugin.
func (*NodeAffinity) Score(state *framework.CycleState, pi *framework.PodInfo, ni *framework.NodeInfo) (int64, *framework.Status) {
	ts, _ := state.Read(preScoreStateKey).(*PreferredSchedulingTerms)
	if ts == nil {
		t := GetPreferredSchedulingTerms(pi.Pod)
		ts = &t
	}
	return ts.Score(ni.Node()), nil
}

// ScoreExtensions implements framework.ScorePlugin.
func (pl *NodeAffinity) ScoreExtensions() framework.ScoreExtensions { return pl }

// NormalizeScore implements framework.ScoreExtensions: the best-matching
// node gets 100, others in proportion.
func (*NodeAffinity) NormalizeScore(_ *framework.CycleState, _ *framework.PodInfo, scores framework.NodeScoreList) *framework.Status {
	return framework.DefaultNormalizeScore(framework.MaxNodeScore, false, scores)
}

// EventsToRegister implements framework.EnqueueExtensions: a node added or
// relabelled, if it now matches.
func (*NodeAffinity) EventsToRegister() []framework.ClusterEventWithHint {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeLabel},
			QueueingHintFn: isSchedulableAfterNodeChange},
	}
}

func isSchedulableAfterNodeChange(pod *corev1.Pod, _, newObj any) framework.QueueingHint {
	if n, ok := newObj.(*corev1.Node); ok && Fits(pod, n) {
		return framework.Queue
	}
	return framework.QueueSkip
}

// statusSkip is made once: PreFilter and PreScore skip most pods.
var statusSkip = framework.NewStatus(framework.Skip)
