package framework

// Plugin is anything in a scheduling profile.
type Plugin interface {
	// Name is the plugin's name, as in a KubeSchedulerConfiguration.
	Name() string
}

// QueueSortPlugin orders the activeQ.
type QueueSortPlugin interface {
	Plugin
	// Less reports whether a should be scheduled before b.
	Less(a, b *QueuedPodInfo) bool
}

// PreEnqueuePlugin decides whether a pod may enter the activeQ at all.
type PreEnqueuePlugin interface {
	Plugin
	PreEnqueue(pod *PodInfo) *Status
}

// PreFilterResult narrows the nodes Filter runs on; nil means all nodes.
type PreFilterResult struct {
	NodeNames map[string]struct{}
}

// AllNodes reports whether the result leaves every node in.
func (r *PreFilterResult) AllNodes() bool { return r == nil || r.NodeNames == nil }

// Merge intersects two results.
func (r *PreFilterResult) Merge(o *PreFilterResult) *PreFilterResult {
	if r.AllNodes() {
		return o
	}
	if o.AllNodes() {
		return r
	}
	out := &PreFilterResult{NodeNames: map[string]struct{}{}}
	for n := range r.NodeNames {
		if _, ok := o.NodeNames[n]; ok {
			out.NodeNames[n] = struct{}{}
		}
	}
	return out
}

// PreFilterPlugin runs once per attempt before any Filter: it computes what
// its Filter needs (into the CycleState), may reject the pod outright, may
// narrow the nodes, or may return Skip to have its Filter not run.
type PreFilterPlugin interface {
	Plugin
	PreFilter(state *CycleState, pod *PodInfo) (*PreFilterResult, *Status)
	// PreFilterExtensions returns the plugin's AddPod and RemovePod, or nil
	// when what its PreFilter computed does not depend on other pods.
	PreFilterExtensions() PreFilterExtensions
}

// PreFilterExtensions update what a PreFilter computed when the scheduler
// asks "what if this pod were on (or gone from) that node?": the
// preemption dry run removes victims and puts some back, and the filters
// count nominated pods as if they were bound. The state is a clone made for
// that question (CycleState.Clone), so a change stays in it; the NodeInfo
// is the node the pod is added to or removed from, and pod is the pod being
// scheduled (kube's framework.PreFilterExtensions).
type PreFilterExtensions interface {
	AddPod(state *CycleState, pod *PodInfo, added *PodInfo, node *NodeInfo) *Status
	RemovePod(state *CycleState, pod *PodInfo, removed *PodInfo, node *NodeInfo) *Status
}

// FilterPlugin decides whether one node can run the pod. It must be cheap
// and must not allocate on success: it runs for up to every node.
type FilterPlugin interface {
	Plugin
	Filter(state *CycleState, pod *PodInfo, node *NodeInfo) *Status
}

// PostFilterPlugin runs when no node passed the filters (preemption). Its
// status's message becomes the FitError's last part ("preemption: ...").
type PostFilterPlugin interface {
	Plugin
	PostFilter(state *CycleState, pod *PodInfo, nodes []*NodeInfo, statuses *NodeToStatus) *Status
}

// PreScorePlugin runs once per attempt before any Score; Skip means its
// Score is not run for this pod.
type PreScorePlugin interface {
	Plugin
	PreScore(state *CycleState, pod *PodInfo, nodes []*NodeInfo) *Status
}

// NodeScore is one node's score from one plugin.
type NodeScore struct {
	Name  string
	Score int64
}

// NodeScoreList is one plugin's scores for the feasible nodes, in order.
type NodeScoreList []NodeScore

// ScorePlugin ranks a feasible node. After its NormalizeScore (if any) every
// score must lie in [MinNodeScore, MaxNodeScore].
type ScorePlugin interface {
	Plugin
	Score(state *CycleState, pod *PodInfo, node *NodeInfo) (int64, *Status)
	// ScoreExtensions returns the plugin's NormalizeScore, or nil.
	ScoreExtensions() ScoreExtensions
}

// NodesScorer is a ScorePlugin that can also score every feasible node in
// one call (kubeloop's; kube has no such interface and calls Score per
// node): ScoreNodes sets scores[i] to what Score returns for nodes[i], and
// on a failure returns the status Score returns for the first node it
// fails on. The framework calls it instead of Score when a plugin has it,
// so that scoring 500 nodes is one call that reads the cycle state once,
// not 500 calls through an interface. Score stays the definition: a
// plugin's ScoreNodes is a loop over the same per-node code.
type NodesScorer interface {
	ScorePlugin
	ScoreNodes(state *CycleState, pod *PodInfo, nodes []*NodeInfo, scores []int64) *Status
}

// ScoreExtensions rescales one plugin's raw scores once all nodes have been
// scored. NormalizeScore changes the scores in place, never the names or
// their order: the framework lends every plugin of a pass the same list.
type ScoreExtensions interface {
	NormalizeScore(state *CycleState, pod *PodInfo, scores NodeScoreList) *Status
}

// NodesNormalizer is ScoreExtensions that can also normalise a pass's
// scores as a plain slice (kubeloop's, like NodesScorer): NormalizeNodeScores
// changes scores[i], nodes[i]'s raw score, exactly as NormalizeScore changes
// the score of the list entry named nodes[i].Name(). The framework calls it
// instead of NormalizeScore when a plugin has it: a NodeScoreList needs
// every feasible node's name written beside its score (a string each,
// read from 500 NodeInfos), which most normalisations never look at.
// NormalizeScore stays the definition, on kube's NodeScoreList.
type NodesNormalizer interface {
	ScoreExtensions
	NormalizeNodeScores(state *CycleState, pod *PodInfo, nodes []*NodeInfo, scores []int64) *Status
}

// EnqueueExtensions lists the cluster events after which a pod this plugin
// rejected is worth retrying.
type EnqueueExtensions interface {
	Plugin
	EventsToRegister() []ClusterEventWithHint
}

// DefaultNormalizeScore scales scores so that the highest becomes
// maxPriority (kube's plugins/helper.DefaultNormalizeScore): s' =
// maxPriority × s / max; reversed, s' = maxPriority − s'. If every score is
// 0, reversed scores all become maxPriority and others stay 0.
func DefaultNormalizeScore(maxPriority int64, reverse bool, scores NodeScoreList) *Status {
	var maxCount int64
	for i := range scores {
		maxCount = max(maxCount, scores[i].Score)
	}
	if maxCount == 0 {
		if reverse {
			for i := range scores {
				scores[i].Score = maxPriority
			}
		}
		return nil
	}
	for i := range scores {
		s := maxPriority * scores[i].Score / maxCount
		if reverse {
			s = maxPriority - s
		}
		scores[i].Score = s
	}
	return nil
}

// DefaultNormalizeNodeScores is DefaultNormalizeScore on a plain slice of
// scores (for a NodesNormalizer).
func DefaultNormalizeNodeScores(maxPriority int64, reverse bool, scores []int64) *Status {
	var maxCount int64
	for _, s := range scores {
		maxCount = max(maxCount, s)
	}
	if maxCount == 0 {
		if reverse {
			for i := range scores {
				scores[i] = maxPriority
			}
		}
		return nil
	}
	for i, s := range scores {
		s = maxPriority * s / maxCount
		if reverse {
			s = maxPriority - s
		}
		scores[i] = s
	}
	return nil
}
