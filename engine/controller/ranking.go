package controller

import (
	"math"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PodDeletionCostAnnotation lets a user say which pods a ReplicaSet should
// delete first on scale-down: lower cost first (PodDeletionCost, beta and on
// since 1.22).
const PodDeletionCostAnnotation = "controller.kubernetes.io/pod-deletion-cost"

var podPhaseOrdinal = map[corev1.PodPhase]int{corev1.PodPending: 0, corev1.PodUnknown: 1, corev1.PodRunning: 2}

// ActivePodsWithRanks sorts pods into the order a ReplicaSet deletes them
// on scale-down (controller_utils.go), first to go first:
//
//  1. unassigned before assigned to a node;
//  2. Pending before Unknown before Running;
//  3. not Ready before Ready;
//  4. lower pod-deletion-cost before higher;
//  5. higher rank (more pods of the same owner on the same node) first;
//  6. if both Ready, Ready more recently first;
//  7. more container restarts first;
//  8. created more recently first.
//
// With LogarithmicScaleDown (GA in 1.31) the times in 6 and 8 are compared
// in buckets of floor(log2(age in nanoseconds)) at Now, and pods in the same
// bucket are ordered by UID, which spreads deletions over equally old pods.
type ActivePodsWithRanks struct {
	Pods []*corev1.Pod
	Rank []int
	Now  metav1.Time
}

// Len is the number of pods.
func (s ActivePodsWithRanks) Len() int { return len(s.Pods) }

// Swap swaps two pods and their ranks.
func (s ActivePodsWithRanks) Swap(i, j int) {
	s.Pods[i], s.Pods[j] = s.Pods[j], s.Pods[i]
	s.Rank[i], s.Rank[j] = s.Rank[j], s.Rank[i]
}

// Less reports whether pod i should be deleted before pod j.
func (s ActivePodsWithRanks) Less(i, j int) bool {
	a, b := s.Pods[i], s.Pods[j]
	if a.Spec.NodeName != b.Spec.NodeName && (a.Spec.NodeName == "" || b.Spec.NodeName == "") {
		return a.Spec.NodeName == ""
	}
	if podPhaseOrdinal[a.Status.Phase] != podPhaseOrdinal[b.Status.Phase] {
		return podPhaseOrdinal[a.Status.Phase] < podPhaseOrdinal[b.Status.Phase]
	}
	ra, rb := IsPodReady(a), IsPodReady(b)
	if ra != rb {
		return !ra
	}
	if ca, cb := deletionCost(a), deletionCost(b); ca != cb {
		return ca < cb
	}
	if s.Rank[i] != s.Rank[j] {
		return s.Rank[i] > s.Rank[j]
	}
	if ra && rb {
		ta, tb := podReadyTime(a), podReadyTime(b)
		if !ta.Equal(tb) {
			if s.Now.IsZero() || ta.IsZero() || tb.IsZero() {
				return afterOrZero(ta, tb)
			}
			if d := logarithmicRankDiff(*ta, *tb, s.Now); d != 0 {
				return d < 0
			}
			return a.UID < b.UID
		}
	}
	if ma, mb := maxContainerRestarts(a), maxContainerRestarts(b); ma != mb {
		return ma > mb
	}
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		if s.Now.IsZero() || a.CreationTimestamp.IsZero() || b.CreationTimestamp.IsZero() {
			return afterOrZero(&a.CreationTimestamp, &b.CreationTimestamp)
		}
		if d := logarithmicRankDiff(a.CreationTimestamp, b.CreationTimestamp, s.Now); d != 0 {
			return d < 0
		}
		return a.UID < b.UID
	}
	return false
}

// deletionCost reads the pod-deletion-cost annotation; a missing or invalid
// value counts as 0.
func deletionCost(p *corev1.Pod) int32 {
	v, ok := p.Annotations[PodDeletionCostAnnotation]
	if !ok {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0
	}
	return int32(n)
}

func afterOrZero(t1, t2 *metav1.Time) bool {
	if t1.Time.IsZero() || t2.Time.IsZero() {
		return t1.Time.IsZero()
	}
	return t1.After(t2.Time)
}

func podReadyTime(p *corev1.Pod) *metav1.Time {
	if c := podReadyCondition(p); c != nil && c.Status == corev1.ConditionTrue {
		t := c.LastTransitionTime
		return &t
	}
	return &metav1.Time{}
}

// logarithmicRankDiff compares the ages of t1 and t2 at now in powers of
// two of nanoseconds: negative if t1 is in a younger bucket.
func logarithmicRankDiff(t1, t2, now metav1.Time) int64 {
	d1, d2 := now.Sub(t1.Time), now.Sub(t2.Time)
	r1, r2 := int64(-1), int64(-1)
	if d1 > 0 {
		r1 = int64(math.Log2(float64(d1)))
	}
	if d2 > 0 {
		r2 = int64(math.Log2(float64(d2)))
	}
	return r1 - r2
}

func maxContainerRestarts(p *corev1.Pod) int {
	m := 0
	for _, c := range p.Status.ContainerStatuses {
		m = max(m, int(c.RestartCount))
	}
	return m
}

// rankByRelatedPodsOnSameNode ranks each pod by the number of active
// related pods (all pods of the ReplicaSet's owner) on its node.
func rankByRelatedPodsOnSameNode(pods, related []*corev1.Pod, now metav1.Time) ActivePodsWithRanks {
	onNode := map[string]int{}
	for _, p := range related {
		if IsPodActive(p) {
			onNode[p.Spec.NodeName]++
		}
	}
	ranks := make([]int, len(pods))
	for i, p := range pods {
		ranks[i] = onNode[p.Spec.NodeName]
	}
	return ActivePodsWithRanks{Pods: pods, Rank: ranks, Now: now}
}
