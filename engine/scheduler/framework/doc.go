// Package framework is kubeloop's kube-scheduler framework at teaching size:
// the types every scheduling plugin shares (Status and its Code, CycleState,
// PodInfo, NodeInfo, FitError) and the plugin interfaces (PreFilter, Filter,
// PostFilter, PreScore, Score with NormalizeScore, QueueSort, PreEnqueue,
// EnqueueExtensions), shaped as in k/k pkg/scheduler/framework.
//
// A plugin is a pure function of (cycle state, pod, node): it reads the
// NodeInfo the scheduler keeps up to date from watch events and never reads
// the store. A nil *Status means Success. Filter plugins say why a node cannot
// run a pod in Kubernetes' exact words (the reasons that end up in the
// FailedScheduling event); score plugins return 0..MaxNodeScore after
// normalisation, and the framework weighs and sums them. A score plugin may
// also be a NodesScorer (kubeloop's, not kube's): it then scores all the
// feasible nodes in one call, with the per-node Score still its definition;
// likewise its ScoreExtensions may be a NodesNormalizer, which normalises a
// plain slice of scores without kube's NodeScoreList of names. Tests run
// with VerifyNodesScorers on, which checks every such shortcut against the
// per-node definitions at every scoring pass.
//
// Framework runs a profile: an ordered list of plugins with score weights,
// as kube-scheduler's multiPoint default profile. New plugins (the Placement
// issue's InterPodAffinity, PodTopologySpread, ...) slot in by implementing
// the interfaces and being listed in the profile; nothing else changes.
package framework
