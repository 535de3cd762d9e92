package scheduler

import "github.com/kubeloop/kubeloop/engine/scheduler/framework"

// Every test here also checks that the plugins' whole-list scoring
// shortcuts (NodesScorer, NodesNormalizer) agree with kube's per-node
// Score and NormalizeScore; the benchmarks turn the check off.
func init() { framework.VerifyNodesScorers = true }
