package tainttoleration

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
)

// Name is the plugin's name.
const Name = "TaintToleration"

// ErrReason starts the reason for a node with a taint the pod does not
// tolerate; Reason completes it with the taint: "node(s) had untolerated
// taint {node-role.kubernetes.io/control-plane: }".
const ErrReason = "node(s) had untolerated taint"

// TaintToleration filters and scores nodes by their taints.
type TaintToleration struct{}

var (
	_ framework.FilterPlugin      = (*TaintToleration)(nil)
	_ framework.PreScorePlugin    = (*TaintToleration)(nil)
	_ framework.ScorePlugin       = (*TaintToleration)(nil)
	_ framework.NodesScorer       = (*TaintToleration)(nil)
	_ framework.ScoreExtensions   = (*TaintToleration)(nil)
	_ framework.NodesNormalizer   = (*TaintToleration)(nil)
	_ framework.EnqueueExtensions = (*TaintToleration)(nil)
)

// Name implements framework.Plugin.
func (*TaintToleration) Name() string { return Name }

// Reason is the filter's reason for an untolerated taint.
func Reason(t corev1.Taint) string { return ErrReason + " {" + t.Key + ": " + t.Value + "}" }

// Tolerates reports whether any toleration tolerates the taint (key equal,
// or empty with Exists; effect equal or empty; Exists, or Equal and the same
// value): k8s.io/api's Toleration.ToleratesTaint.
func Tolerates(tolerations []corev1.Toleration, taint *corev1.Taint) bool {
	for i := range tolerations {
		if tolerations[i].ToleratesTaint(taint) {
			return true
		}
	}
	return false
}

// UntoleratedTaint returns the first NoSchedule or NoExecute taint, in the
// node's order, that the tolerations do not tolerate.
func UntoleratedTaint(taints []corev1.Taint, tolerations []corev1.Toleration) (corev1.Taint, bool) {
	for i := range taints {
		t := &taints[i]
		if t.Effect != corev1.TaintEffectNoSchedule && t.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		if !Tolerates(tolerations, t) {
			return *t, true
		}
	}
	return corev1.Taint{}, false
}

// Filter implements framework.FilterPlugin. An untolerated taint is
// UnschedulableAndUnresolvable: evicting pods from the node would not
// remove its taint.
func (*TaintToleration) Filter(_ *framework.CycleState, pi *framework.PodInfo, ni *framework.NodeInfo) *framework.Status {
	taints := ni.Taints()
	if len(taints) == 0 {
		return nil
	}
	if t, ok := UntoleratedTaint(taints, pi.Pod.Spec.Tolerations); ok {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, Reason(t))
	}
	return nil
}

var preScoreStateKey = framework.NewStateKey("PreScore" + Name)

type preScoreState struct {
	tolerationsPreferNoSchedule []corev1.Toleration
}

var noPreferTolerations = &preScoreState{}

// PreScore implements framework.PreScorePlugin: it keeps the tolerations
// that can apply to PreferNoSchedule taints (effect PreferNoSchedule or
// empty).
func (*TaintToleration) PreScore(state *framework.CycleState, pi *framework.PodInfo, _ []*framework.NodeInfo) *framework.Status {
	s := noPreferTolerations
	for _, t := range pi.Pod.Spec.Tolerations {
		if t.Effect == "" || t.Effect == corev1.TaintEffectPreferNoSchedule {
			if s == noPreferTolerations {
				s = &preScoreState{}
			}
			s.tolerationsPreferNoSchedule = append(s.tolerationsPreferNoSchedule, t)
		}
	}
	state.Write(preScoreStateKey, s)
	return nil
}

// CountIntolerablePreferNoSchedule counts the node's PreferNoSchedule
// taints that the tolerations do not tolerate: the raw score, lower better.
func CountIntolerablePreferNoSchedule(taints []corev1.Taint, tolerations []corev1.Toleration) int64 {
	var n int64
	for i := range taints {
		if taints[i].Effect == corev1.TaintEffectPreferNoSchedule && !Tolerates(tolerations, &taints[i]) {
			n++
		}
	}
	return n
}

// Score implements framework.ScorePlugin.
func (*TaintToleration) Score(state *framework.CycleState, _ *framework.PodInfo, ni *framework.NodeInfo) (int64, *framework.Status) {
	taints := ni.Taints()
	if len(taints) == 0 {
		return 0, nil
	}
	s, _ := state.Read(preScoreStateKey).(*preScoreState)
	if s == nil {
		return 0, statusNoPreScore
	}
	return CountIntolerablePreferNoSchedule(taints, s.tolerationsPreferNoSchedule), nil
}

// ScoreNodes implements framework.NodesScorer: Score on every node, with
// the PreScore state read once.
func (*TaintToleration) ScoreNodes(state *framework.CycleState, _ *framework.PodInfo, nodes []*framework.NodeInfo, scores []int64) *framework.Status {
	s, _ := state.Read(preScoreStateKey).(*preScoreState)
	for i, ni := range nodes {
		taints := ni.Taints()
		if len(taints) == 0 {
			scores[i] = 0
			continue
		}
		if s == nil {
			return statusNoPreScore
		}
		scores[i] = CountIntolerablePreferNoSchedule(taints, s.tolerationsPreferNoSchedule)
	}
	return nil
}

var statusNoPreScore = framework.NewStatus(framework.Error, "PreScore state of "+Name+" missing")

// ScoreExtensions implements framework.ScorePlugin.
func (pl *TaintToleration) ScoreExtensions() framework.ScoreExtensions { return pl }

// NormalizeScore implements framework.ScoreExtensions: reversed, so the
// node with the most intolerable taints gets 0 and nodes with none get 100
// (all 100 when no node has any).
func (*TaintToleration) NormalizeScore(_ *framework.CycleState, _ *framework.PodInfo, scores framework.NodeScoreList) *framework.Status {
	return framework.DefaultNormalizeScore(framework.MaxNodeScore, true, scores)
}

// NormalizeNodeScores implements framework.NodesNormalizer: NormalizeScore
// on a plain slice.
func (*TaintToleration) NormalizeNodeScores(_ *framework.CycleState, _ *framework.PodInfo, _ []*framework.NodeInfo, scores []int64) *framework.Status {
	return framework.DefaultNormalizeNodeScores(framework.MaxNodeScore, true, scores)
}

// EventsToRegister implements framework.EnqueueExtensions: a node added or
// its taints changed, if the pod now tolerates it; or the pod's own
// tolerations changed.
func (*TaintToleration) EventsToRegister() []framework.ClusterEventWithHint {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeTaint},
			QueueingHintFn: isSchedulableAfterNodeChange},
		{Event: framework.ClusterEvent{Resource: framework.UnscheduledPod, ActionType: framework.UpdatePodToleration}},
	}
}

func isSchedulableAfterNodeChange(pod *corev1.Pod, _, newObj any) framework.QueueingHint {
	n, ok := newObj.(*corev1.Node)
	if !ok {
		return framework.QueueSkip
	}
	if _, untolerated := UntoleratedTaint(n.Spec.Taints, pod.Spec.Tolerations); untolerated {
		return framework.QueueSkip
	}
	return framework.Queue
}
