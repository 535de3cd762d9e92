package imagelocality

import (
	"strings"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
)

// Name is the plugin's name.
const Name = "ImageLocality"

// The score's bounds (k/k image_locality.go): below 23 MiB of locally
// present image the score is 0; at 1000 MiB per container it is 100.
const (
	mb                    int64 = 1024 * 1024
	MinThreshold          int64 = 23 * mb
	MaxContainerThreshold int64 = 1000 * mb
)

// ImageLocality scores nodes by the pod's images they already have.
type ImageLocality struct {
	// preScore is the PreScore state, reused by every cycle: only the
	// cycle's Score reads it, and cycles run one at a time.
	preScore preScoreState
}

var (
	_ framework.PreScorePlugin = (*ImageLocality)(nil)
	_ framework.ScorePlugin    = (*ImageLocality)(nil)
	_ framework.NodesScorer    = (*ImageLocality)(nil)
)

// Name implements framework.Plugin.
func (*ImageLocality) Name() string { return Name }

// NormalizedImageName appends ":latest" to an image with no tag, as the
// node's image list names it ("nginx" is "nginx:latest"). A digest
// reference is left alone.
func NormalizedImageName(name string) string {
	if strings.LastIndex(name, ":") <= strings.LastIndex(name, "/") {
		return name + ":latest"
	}
	return name
}

var preScoreStateKey = framework.NewStateKey("PreScore" + Name)

type preScoreState struct {
	images        []string // normalised, init containers first, only those some node has
	numContainers int
	// allZero is set when even a node with every one of the pod's images
	// would score 0 (their scaled sizes sum to at most 23 MiB): Score then
	// skips the per-node lookups and returns what kube computes, 0.
	allZero bool
}

// PreScore implements framework.PreScorePlugin. kube computes this in
// Score for every node; doing it once per pod gives the same scores. It
// never skips: a pod whose images no node has scores 0 everywhere.
func (pl *ImageLocality) PreScore(state *framework.CycleState, pi *framework.PodInfo, _ []*framework.NodeInfo) *framework.Status {
	spec := &pi.Pod.Spec
	s := &pl.preScore
	*s = preScoreState{numContainers: len(spec.InitContainers) + len(spec.Containers), images: s.images[:0]}
	var upper int64
	add := func(image string) {
		name := NormalizedImageName(image)
		if state.Images != nil {
			img := state.Images.ImageState(name)
			if img == nil {
				return // on no node: contributes nothing anywhere
			}
			upper += ScaledImageScore(img, max(state.NumAllNodes, 1))
		}
		s.images = append(s.images, name)
	}
	for i := range spec.InitContainers {
		add(spec.InitContainers[i].Image)
	}
	for i := range spec.Containers {
		add(spec.Containers[i].Image)
	}
	s.allZero = state.Images != nil && upper <= MinThreshold
	state.Write(preScoreStateKey, s)
	return nil
}

// ScaledImageScore is one present image's contribution: its size times the
// share of nodes that have it.
func ScaledImageScore(img *framework.ImageStateSummary, totalNumNodes int) int64 {
	spread := float64(img.NumNodes) / float64(totalNumNodes)
	return int64(float64(img.Size) * spread)
}

// CalculatePriority turns the summed image scores into 0..100: clamp to
// [23 MiB, 1000 MiB × containers], then scale linearly.
func CalculatePriority(sumScores int64, numContainers int) int64 {
	maxThreshold := MaxContainerThreshold * int64(numContainers)
	if sumScores < MinThreshold {
		sumScores = MinThreshold
	} else if sumScores > maxThreshold {
		sumScores = maxThreshold
	}
	return framework.MaxNodeScore * (sumScores - MinThreshold) / (maxThreshold - MinThreshold)
}

// Score implements framework.ScorePlugin.
func (*ImageLocality) Score(state *framework.CycleState, _ *framework.PodInfo, ni *framework.NodeInfo) (int64, *framework.Status) {
	s, _ := state.Read(preScoreStateKey).(*preScoreState)
	if s == nil {
		return 0, statusNoPreScore
	}
	return s.score(ni, state.NumAllNodes), nil
}

// ScoreNodes implements framework.NodesScorer: Score on every node, with
// the PreScore state read once.
func (*ImageLocality) ScoreNodes(state *framework.CycleState, _ *framework.PodInfo, nodes []*framework.NodeInfo, scores []int64) *framework.Status {
	s, _ := state.Read(preScoreStateKey).(*preScoreState)
	if s == nil {
		if len(nodes) > 0 {
			return statusNoPreScore
		}
		return nil
	}
	numAllNodes := state.NumAllNodes
	if s.allZero || len(s.images) == 0 || numAllNodes == 0 {
		clear(scores[:len(nodes)]) // score's answer for every node, without looking at one
		return nil
	}
	for i, ni := range nodes {
		scores[i] = s.score(ni, numAllNodes)
	}
	return nil
}

var statusNoPreScore = framework.NewStatus(framework.Error, "PreScore state of "+Name+" missing")

// score is Score's score of one node in a cluster of numAllNodes nodes.
func (s *preScoreState) score(ni *framework.NodeInfo, numAllNodes int) int64 {
	if s.allZero || len(s.images) == 0 || len(ni.ImageStates) == 0 || numAllNodes == 0 {
		return 0
	}
	var sum int64
	for _, name := range s.images {
		if img, ok := ni.ImageStates[name]; ok {
			sum += ScaledImageScore(img, numAllNodes)
		}
	}
	return CalculatePriority(sum, s.numContainers)
}

// ScoreExtensions implements framework.ScorePlugin: no normalisation.
func (*ImageLocality) ScoreExtensions() framework.ScoreExtensions { return nil }
