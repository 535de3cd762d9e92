package controller

import (
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/store"
)

// podCounts is what a ReplicaSet's status counts of its pods
// (replica_set_utils.go calculateStatus): active pods it controls and
// selects, how many of them carry the template's labels, are Ready, and
// are available.
type podCounts struct {
	replicas, fullyLabeled, ready, available int32
	// unselected counts active pods it controls that its selector no
	// longer matches: a sync must release them.
	unselected int32
}

func (a *podCounts) add(b podCounts, sign int32) {
	a.replicas += sign * b.replicas
	a.fullyLabeled += sign * b.fullyLabeled
	a.ready += sign * b.ready
	a.available += sign * b.available
	a.unselected += sign * b.unselected
}

// countPod is one pod's share of rs's counts, for a ReplicaSet without
// minReadySeconds (where available is ready: no clock involved).
func countPod(rs *appsv1.ReplicaSet, t *tally, p *corev1.Pod) podCounts {
	ref := metav1.GetControllerOfNoCopy(p)
	if ref == nil || ref.UID != rs.UID || !IsPodActive(p) {
		return podCounts{}
	}
	if !t.match.matches(p.Labels) {
		return podCounts{unselected: 1}
	}
	c := podCounts{replicas: 1}
	if t.template.in(p.Labels) {
		c.fullyLabeled = 1
	}
	if IsPodReady(p) {
		c.ready, c.available = 1, 1
	}
	return c
}

// tally is a ReplicaSet's podCounts kept current from the watch between
// syncs.
//
// kube's controller recounts a ReplicaSet's pods on every sync; with 150
// replicas and a sync for each of their status changes, that recount is
// most of what the controller does in a large cluster. kubeloop keeps the
// same counts as a running tally instead, adjusted by each pod event the
// controller observes (the pod's old share out, its new share in), and
// recounts only when the tally cannot answer: before the first sync, after
// the ReplicaSet's spec changed, when pods must be created, deleted,
// adopted or released (which needs the pods themselves, not counts), or
// when minReadySeconds makes availability depend on the clock. The counts
// are the ones a recount gives; the controller's tests check that after
// every sync.
type tally struct {
	generation int64 // the ReplicaSet spec the counts were made against
	match      labelMatcher
	// template is the template's labels, which fullyLabeled asks of each
	// pod, as a list: ranging over a map starts at a random place, which
	// costs more than the lookups for a label or two.
	template labelList
	counts   podCounts
}

// newTally is an empty tally for rs, whose selector is sel.
func newTally(rs *appsv1.ReplicaSet, sel labels.Selector) *tally {
	return &tally{generation: rs.Generation, match: newLabelMatcher(sel), template: newLabelList(rs.Spec.Template.Labels)}
}

// labelList is a label set as a list, sorted by key.
type labelList []struct{ key, val string }

func newLabelList(m map[string]string) labelList {
	l := make(labelList, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		l = append(l, struct{ key, val string }{k, m[k]})
	}
	return l
}

// in is hasLabels(ls, l): whether ls carries every label of l.
func (l labelList) in(ls map[string]string) bool {
	for _, kv := range l {
		if v, ok := ls[kv.key]; !ok || v != kv.val {
			return false
		}
	}
	return true
}

// VerifyTallies makes every sync that answers from a tally recount too and
// panic on a difference, every Deployment sync check that it left the
// stored Deployment unchanged (see workingCopy), and every pod a
// ReplicaSet creates check that it left the spec it shares with the pods
// before it unchanged (see podFromTemplate). Tests turn it on (the
// controller's, the engine's scenarios and the lessons); it costs what the
// tally and the working copy save.
var VerifyTallies = false

// tallyFor returns rs's tally if it can stand in for a recount now.
func (c *ReplicaSetController) tallyFor(rs *appsv1.ReplicaSet) *tally {
	if c.observedRev < c.env.Store.KindRev(kinds.Pod) {
		return nil // pod writes the watch has not delivered yet (this sync's own, or a lagging watch)
	}
	t := c.tallies[rs.UID]
	if t == nil || t.generation != rs.Generation || rs.Spec.MinReadySeconds > 0 || rs.DeletionTimestamp != nil {
		return nil
	}
	if t.counts.unselected > 0 || c.env.Store.CountByIndex(kinds.Pod, IndexOrphan, rs.Namespace) > 0 {
		return nil // pods to release or orphans to consider adopting
	}
	return t
}

// startTally begins a tally for rs from a recount of pods made before the
// sync wrote anything, when the watch has delivered every pod write so far;
// later pod events keep it current.
func (c *ReplicaSetController) startTally(rs *appsv1.ReplicaSet, sel labels.Selector, pods []*corev1.Pod) {
	if rs.Spec.MinReadySeconds > 0 || rs.DeletionTimestamp != nil || c.observedRev < c.env.Store.KindRev(kinds.Pod) {
		delete(c.tallies, rs.UID)
		return
	}
	t := newTally(rs, sel)
	for _, p := range pods {
		t.counts.add(countPod(rs, t, p), 1)
	}
	c.tallies[rs.UID] = t
}

// observeTally moves a pod event's change into the tally of the
// ReplicaSet(s) the pod belongs to, before and after the write.
func (c *ReplicaSetController) observeTally(ev store.Event) {
	if len(c.tallies) == 0 {
		return
	}
	if ev.Type == store.Modified && c.tallyMove(ev.Old.(*corev1.Pod), ev.Object.(*corev1.Pod)) {
		return
	}
	if ev.Old != nil {
		c.tallyShare(ev.Old.(*corev1.Pod), -1)
	}
	if ev.Type != store.Deleted {
		c.tallyShare(ev.Object.(*corev1.Pod), 1)
	}
}

// tallyMove is tallyShare of old out and cur in, for a pod whose
// controller stayed the same (almost every pod write is a status write by
// the scheduler or the kubelet): one tally found and one ReplicaSet
// resolved, for both. It reports false, having done nothing, if the
// controller changed.
func (c *ReplicaSetController) tallyMove(old, cur *corev1.Pod) bool {
	ref, was := metav1.GetControllerOfNoCopy(cur), metav1.GetControllerOfNoCopy(old)
	if ref == nil || was == nil || ref.UID != was.UID || ref.Name != was.Name || ref.Kind != was.Kind {
		return false
	}
	t := c.tallies[ref.UID]
	if t == nil {
		return true
	}
	rs := c.resolve(cur.Namespace, ref)
	if rs == nil || rs.Generation != t.generation {
		delete(c.tallies, ref.UID)
		return true
	}
	t.counts.add(countPod(rs, t, old), -1)
	t.counts.add(countPod(rs, t, cur), 1)
	return true
}

func (c *ReplicaSetController) tallyShare(p *corev1.Pod, sign int32) {
	ref := metav1.GetControllerOfNoCopy(p)
	if ref == nil {
		return
	}
	t := c.tallies[ref.UID]
	if t == nil {
		return
	}
	rs := c.resolve(p.Namespace, ref)
	if rs == nil || rs.Generation != t.generation {
		delete(c.tallies, ref.UID)
		return
	}
	t.counts.add(countPod(rs, t, p), sign)
}

// forgetTally drops a ReplicaSet's tally when its spec changes or it goes.
func (c *ReplicaSetController) forgetTally(uid types.UID) { delete(c.tallies, uid) }
