package controller

import (
	"fmt"
	"slices"
	"sort"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeloop/kubeloop/engine/component"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/store"
	"github.com/kubeloop/kubeloop/engine/trace"
)

// ReplicaSetControllerName is the ReplicaSet controller's name in the trace
// and the source of its Events.
const ReplicaSetControllerName = "replicaset-controller"

// Numbers of the ReplicaSet controller (pkg/controller/replicaset).
const (
	// ReplicaSetWorkers is --concurrent-replicaset-syncs.
	ReplicaSetWorkers = 5
	// BurstReplicas is the most pods one sync creates or deletes.
	BurstReplicas = 500
	// SlowStartInitialBatchSize is the first creation batch; each next
	// batch doubles, and a batch with an error stops the rest.
	SlowStartInitialBatchSize = 1
)

const (
	whyCreateDeclare = "A ReplicaSet keeps a fixed number of identical pods; it creates the difference between desired and observed."
	whyCreateReplace = "A ReplicaSet replaces pods that are gone or finished, so the observed count returns to the desired count."
	whyDeletePods    = "A ReplicaSet deletes the pods above its desired count, the least established first: unscheduled, not ready, doubled up on a node, newest."
	whyRSStatus      = "A ReplicaSet's status counts its pods, so its Deployment and kubectl can see how many exist, are ready and are available; pods that change together are counted in one write, as the controller's work queue holds the ReplicaSet once."
	whyAdoptPod      = "A ReplicaSet adopts orphan pods that match its selector and counts them, rather than creating duplicates."
	whyReleasePod    = "A ReplicaSet lets go of pods whose labels no longer match its selector; they become orphans and it makes replacements."
	replicaSetSource = ReplicaSetControllerName
)

// ReplicaSetController keeps the number of pods of each ReplicaSet equal to
// its spec.replicas (pkg/controller/replicaset).
type ReplicaSetController struct {
	worker
	exp *expectations
	// specCause is the trace seq of the step that last changed each
	// ReplicaSet's spec; declaring is the generation whose pods are being
	// created in the Declare column. See the package doc on columns.
	specCause map[string]uint64
	declaring map[string]int64
	result    Result
	// tallies are the ReplicaSets' pod counts kept from the watch (see
	// tally), by ReplicaSet UID.
	tallies map[types.UID]*tally
	// observedRev is the revision of the latest event observed.
	observedRev int64
	// statusBody is the body of every status write, reused (see
	// updateStatus).
	statusBody appsv1.ReplicaSet
	// statusMessages are the trace messages of status writes by the
	// counts they report (see statusMessage).
	statusMessages sharedMessages[statusCounts]
	// names are the ReplicaSets' queue keys and trace objects by UID, made
	// once rather than for each of their pods' events and status writes.
	names map[types.UID]rsNames
	// resolved memoizes resolve during one Observe: a pod event looks its
	// ReplicaSet up three times (the tally's old and new shares, the
	// queueing), and the store does not change while events are delivered.
	resolved resolvedRef
}

type resolvedRef struct {
	namespace, name string
	uid             types.UID
	rs              *appsv1.ReplicaSet
}

var _ component.Reactor = (*ReplicaSetController)(nil)

// NewReplicaSetController builds the ReplicaSet controller.
func NewReplicaSetController(env component.Env) *ReplicaSetController {
	EnsureIndexes(env.Store)
	c := &ReplicaSetController{worker: newWorker(ReplicaSetControllerName, env, ReplicaSetWorkers),
		exp: newExpectations(env.Loop), specCause: map[string]uint64{}, declaring: map[string]int64{},
		tallies: map[types.UID]*tally{}, names: map[types.UID]rsNames{}, statusMessages: sharedMessages[statusCounts]{}}
	c.reconcile = c.Reconcile
	return c
}

// Observe queues the ReplicaSet a change concerns: the ReplicaSet itself,
// the controller of a pod that changed (counting it against the
// expectations), or, for an orphan pod, every ReplicaSet that could adopt
// it.
func (c *ReplicaSetController) Observe(ev store.Event) {
	c.resolved = resolvedRef{}
	c.observe(ev)
	c.resolved = resolvedRef{}
}

func (c *ReplicaSetController) observe(ev store.Event) {
	c.observedRev = ev.Rev
	switch ev.Kind {
	case kinds.ReplicaSet:
		key := c.keyOf(ev.Object.(*appsv1.ReplicaSet))
		if ev.Type == store.Deleted {
			c.exp.Delete(key)
			delete(c.specCause, key)
			delete(c.declaring, key)
			delete(c.names, ev.Object.GetUID())
			c.forgetTally(ev.Object.GetUID())
		} else if ev.Old == nil || ev.Old.GetGeneration() != ev.Object.GetGeneration() {
			c.specCause[key] = ev.Cause
			c.forgetTally(ev.Object.GetUID())
		}
		c.queue.Add(key, ev.Cause)
	case kinds.Pod:
		c.observeTally(ev)
		p := ev.Object.(*corev1.Pod)
		switch ev.Type {
		case store.Added:
			if p.DeletionTimestamp != nil {
				c.deletePod(p, ev.Cause)
				return
			}
			if ref := metav1.GetControllerOfNoCopy(p); ref != nil {
				if rs := c.resolve(p.Namespace, ref); rs != nil {
					key := c.keyOf(rs)
					c.exp.CreationObserved(key)
					c.queue.Add(key, ev.Cause)
				}
				return
			}
			c.enqueueAdopters(p, ev.Cause)
		case store.Modified:
			c.updatePod(ev.Old.(*corev1.Pod), p, ev.Cause)
		case store.Deleted:
			c.deletePod(p, ev.Cause)
		}
	}
}

func (c *ReplicaSetController) updatePod(old, cur *corev1.Pod, cause uint64) {
	if cur.DeletionTimestamp != nil {
		// A graceful deletion: the ReplicaSet counts the pod as gone now.
		c.deletePod(cur, cause)
		if labelsChanged(old, cur) {
			c.deletePod(old, cause)
		}
		return
	}
	curRef, oldRef := metav1.GetControllerOfNoCopy(cur), metav1.GetControllerOfNoCopy(old)
	refChanged := !ownerRefEqual(curRef, oldRef)
	if refChanged && oldRef != nil {
		if rs := c.resolve(old.Namespace, oldRef); rs != nil {
			c.queue.Add(c.keyOf(rs), cause)
		}
	}
	if curRef != nil {
		rs := c.resolve(cur.Namespace, curRef)
		if rs == nil {
			return
		}
		c.queue.Add(c.keyOf(rs), cause)
		if !IsPodReady(old) && IsPodReady(cur) && rs.Spec.MinReadySeconds > 0 {
			// Look again when the pod becomes available, plus a second
			// against clock skew, as kube does.
			c.queue.AddAfter(c.keyOf(rs), cause, sim.Seconds(int64(rs.Spec.MinReadySeconds))+sim.Second)
		}
		return
	}
	if refChanged || labelsChanged(old, cur) {
		c.enqueueAdopters(cur, cause)
	}
}

// labelsChanged is kube's labelChanged, which updatePod computes first; it
// is asked for here only where it is read, since the common event (a status
// write to a controlled pod) never reads it.
func labelsChanged(old, cur *corev1.Pod) bool {
	return !kinds.SameLabels(old.Labels, cur.Labels)
}

func (c *ReplicaSetController) deletePod(p *corev1.Pod, cause uint64) {
	ref := metav1.GetControllerOfNoCopy(p)
	if ref == nil {
		return
	}
	rs := c.resolve(p.Namespace, ref)
	if rs == nil {
		return
	}
	key := c.keyOf(rs)
	c.exp.DeletionObserved(key, Key(p))
	c.queue.Add(key, cause)
}

// rsNames are a ReplicaSet's queue key, Key(rs), and its trace object,
// "replicaset/<name>": two slices of one string.
type rsNames struct{ key, object string }

// namesOf returns rs's names, made once per ReplicaSet.
func (c *ReplicaSetController) namesOf(rs *appsv1.ReplicaSet) rsNames {
	if n, ok := c.names[rs.UID]; ok && rs.UID != "" {
		return n
	}
	both := "replicaset/" + rs.Name + Key(rs)
	n := len("replicaset/") + len(rs.Name)
	names := rsNames{key: both[n:], object: both[:n]}
	c.names[rs.UID] = names
	return names
}

// keyOf is Key(rs), made once per ReplicaSet.
func (c *ReplicaSetController) keyOf(rs *appsv1.ReplicaSet) string { return c.namesOf(rs).key }

// resolve returns the ReplicaSet a controller reference points to, if it
// still exists with that UID.
func (c *ReplicaSetController) resolve(namespace string, ref *metav1.OwnerReference) *appsv1.ReplicaSet {
	if ref.Kind != "ReplicaSet" {
		return nil
	}
	if r := &c.resolved; r.rs != nil && r.uid == ref.UID && r.name == ref.Name && r.namespace == namespace {
		return r.rs
	}
	o, ok := c.env.Store.Lookup(kinds.ReplicaSet, namespace, ref.Name)
	if !ok || o.GetUID() != ref.UID {
		return nil
	}
	rs := o.(*appsv1.ReplicaSet)
	c.resolved = resolvedRef{namespace: namespace, name: ref.Name, uid: ref.UID, rs: rs}
	return rs
}

// ownerRefEqual is equality.Semantic.DeepEqual for two controller
// references, without reflection: both nil, or equal field by field, the
// *bool fields by what they point to.
func ownerRefEqual(a, b *metav1.OwnerReference) bool {
	if a == b {
		return true // both nil, or one list shared by both versions of a pod, as a status write leaves it
	}
	if a == nil || b == nil {
		return false
	}
	return a.APIVersion == b.APIVersion && a.Kind == b.Kind && a.Name == b.Name && a.UID == b.UID &&
		boolPtrEqual(a.Controller, b.Controller) && boolPtrEqual(a.BlockOwnerDeletion, b.BlockOwnerDeletion)
}

// enqueueAdopters queues the ReplicaSets whose selector matches an orphan
// pod (getPodReplicaSets).
func (c *ReplicaSetController) enqueueAdopters(p *corev1.Pod, cause uint64) {
	if len(p.Labels) == 0 {
		return
	}
	for _, o := range c.env.Store.List(kinds.ReplicaSet, p.Namespace) {
		rs := o.(*appsv1.ReplicaSet)
		if sel := selectorOf(rs.Spec.Selector); !sel.Empty() && sel.Matches(labels.Set(p.Labels)) {
			c.queue.Add(Key(rs), cause)
		}
	}
}

// Reconcile syncs one ReplicaSet (syncReplicaSet): claim its pods, create
// or delete the difference to spec.replicas unless earlier creations or
// deletions are still unobserved, and report status.
func (c *ReplicaSetController) Reconcile(key string) (Result, error) {
	c.result = Result{}
	ns, name := SplitKey(key)
	o, ok := c.env.Store.Lookup(kinds.ReplicaSet, ns, name)
	if !ok {
		c.exp.Delete(key)
		return Result{}, nil
	}
	rs := o.(*appsv1.ReplicaSet)
	needsSync := c.exp.Satisfied(key)
	now := c.now()
	var counts podCounts
	var manageErr error
	if t := c.tallyFor(rs); t != nil && (!needsSync || t.counts.replicas == replicas(rs.Spec.Replicas)) {
		// Nothing to create, delete, adopt or release: the tally answers
		// what a recount would.
		counts = t.counts
		if VerifyTallies {
			c.verifyTally(rs, counts, now)
		}
		if needsSync {
			delete(c.declaring, key) // what manageReplicas does when the count is right
		}
	} else {
		sel, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
		if err != nil {
			return Result{}, nil // kube logs and drops an invalid selector
		}
		rev := c.env.Store.Rev()
		pods, err := c.claimPods(rs, sel)
		if err != nil {
			return Result{}, err
		}
		if c.env.Store.Rev() == rev {
			c.startTally(rs, sel, pods)
		} else {
			c.forgetTally(rs.UID) // claiming wrote: the watch has yet to show those writes
		}
		if needsSync && rs.DeletionTimestamp == nil {
			manageErr = c.manageReplicas(pods, rs)
		}
		counts = countPods(rs, pods, now)
	}
	st := calculateReplicaSetStatus(rs, counts, manageErr, now)
	updated, err := c.updateStatus(rs, st)
	if err != nil {
		return Result{}, err
	}
	r := replicas(updated.Spec.Replicas)
	if manageErr == nil && updated.Spec.MinReadySeconds > 0 && updated.Status.ReadyReplicas == r && updated.Status.AvailableReplicas != r {
		c.result.RequeueAfter = sim.Seconds(int64(updated.Spec.MinReadySeconds))
	}
	return c.result, manageErr
}

// claimPods returns the active pods the ReplicaSet controls after adopting
// matching orphans and releasing its pods that no longer match
// (PodControllerRefManager.ClaimPods).
func (c *ReplicaSetController) claimPods(rs *appsv1.ReplicaSet, sel labels.Selector) ([]*corev1.Pod, error) {
	// The owner index is read in place (it is sorted by key, so the result
	// is in name order); this loop runs for every pod of every ReplicaSet
	// on every sync, the controller's hottest path in a large cluster.
	owned := c.env.Store.ByIndexShared(kinds.Pod, IndexOwnerUID, string(rs.UID))
	out := make([]*corev1.Pod, 0, len(owned))
	match := newLabelMatcher(sel)
	var release []*corev1.Pod
	for _, o := range owned {
		p := o.(*corev1.Pod)
		if ref := metav1.GetControllerOfNoCopy(p); ref == nil || ref.UID != rs.UID || !IsPodActive(p) {
			continue
		}
		if match.matches(p.Labels) {
			out = append(out, p)
			continue
		}
		if rs.DeletionTimestamp == nil {
			release = append(release, p)
		}
	}
	for _, p := range release {
		if err := c.updatePodOwners(rs, p, false); err != nil && !apierrors.IsNotFound(err) {
			return nil, err
		}
	}
	if rs.DeletionTimestamp != nil {
		return out, nil
	}
	adopted := false
	for _, o := range c.env.Store.ByIndex(kinds.Pod, IndexOrphan, rs.Namespace) {
		p := o.(*corev1.Pod)
		if !IsPodActive(p) || !sel.Matches(labels.Set(p.Labels)) {
			continue
		}
		if err := c.updatePodOwners(rs, p, true); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return nil, err
		}
		now, _ := c.env.Store.Lookup(kinds.Pod, p.Namespace, p.Name)
		out = append(out, now.(*corev1.Pod))
		adopted = true
	}
	if adopted {
		sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	}
	return out, nil
}

// labelMatcher is sel.Matches(labels.Set(ls)) with a fast path for the
// selector of one equality requirement (app=web), which is what almost
// every ReplicaSet has: one map lookup per pod, no allocation.
type labelMatcher struct {
	sel      labels.Selector
	key, val string
	fast     bool
}

func newLabelMatcher(sel labels.Selector) labelMatcher {
	m := labelMatcher{sel: sel}
	if reqs, ok := sel.Requirements(); ok && len(reqs) == 1 {
		r := &reqs[0]
		if op := r.Operator(); op == selection.Equals || op == selection.DoubleEquals || op == selection.In {
			if vals := r.ValuesUnsorted(); len(vals) == 1 {
				m.key, m.val, m.fast = r.Key(), vals[0], true
			}
		}
	}
	return m
}

func (m *labelMatcher) matches(ls map[string]string) bool {
	if m.fast {
		v, ok := ls[m.key]
		return ok && v == m.val
	}
	return m.sel.Matches(labels.Set(ls))
}

// updatePodOwners adopts (adds the controller reference) or releases
// (removes it) a pod.
func (c *ReplicaSetController) updatePodOwners(rs *appsv1.ReplicaSet, p *corev1.Pod, adopt bool) error {
	cp := p.DeepCopy()
	var msg, why string
	if adopt {
		cp.OwnerReferences = append(cp.OwnerReferences, *metav1.NewControllerRef(rs, replicaSetGVK))
		msg, why = fmt.Sprintf("replicaset/%s adopted pod %s, which matches its selector", rs.Name, p.Name), whyAdoptPod
	} else {
		var refs []metav1.OwnerReference
		for _, r := range cp.OwnerReferences {
			if r.UID != rs.UID {
				refs = append(refs, r)
			}
		}
		cp.OwnerReferences = refs
		msg, why = fmt.Sprintf("replicaset/%s released pod %s, which no longer matches its selector", rs.Name, p.Name), whyReleasePod
	}
	seq := c.record(trace.Maintain, p.Namespace, "pod/"+p.Name, msg, why)
	_, err := c.env.API.Update(c.actor(seq), cp)
	return err
}

// column is the trace column of the pod creations and deletions this sync
// makes: the column of the step that set the spec being carried out, or
// Maintain once that spec has been carried out (see the package doc).
func (c *ReplicaSetController) column(rs *appsv1.ReplicaSet) trace.Column {
	key := c.keyOf(rs)
	if rs.Status.ObservedGeneration < rs.Generation || c.declaring[key] == rs.Generation {
		if c.columnOf(c.specCause[key], trace.Declare) == trace.Declare {
			c.declaring[key] = rs.Generation
			return trace.Declare
		}
	}
	return trace.Maintain
}

func (c *ReplicaSetController) manageReplicas(pods []*corev1.Pod, rs *appsv1.ReplicaSet) error {
	key := c.keyOf(rs)
	diff := len(pods) - int(replicas(rs.Spec.Replicas))
	col := c.column(rs)
	if diff == 0 {
		delete(c.declaring, key)
		return nil
	}
	if diff < 0 {
		n := min(-diff, BurstReplicas)
		c.exp.ExpectCreations(key, n)
		tmpl := newPodTemplate(rs, n)
		created, err := slowStartBatch(n, SlowStartInitialBatchSize, func() error { return c.createPod(&tmpl, col) })
		for i := created; i < n; i++ {
			// Never attempted or failed: the watch will not show them.
			c.exp.CreationObserved(key)
		}
		if err == nil && n == -diff {
			delete(c.declaring, key)
		}
		return err
	}
	n := min(diff, BurstReplicas)
	victims := c.podsToDelete(pods, rs, n)
	podKeys := make([]string, len(victims))
	for i, p := range victims {
		podKeys[i] = Key(p)
	}
	c.exp.ExpectDeletions(key, podKeys)
	var firstErr error
	for _, p := range victims {
		if err := c.deletePodNow(rs, p, col); err != nil {
			c.exp.DeletionObserved(key, Key(p))
			if !apierrors.IsNotFound(err) && firstErr == nil {
				firstErr = err
			}
		}
	}
	if firstErr == nil && n == diff {
		delete(c.declaring, key)
	}
	return firstErr
}

// slowStartBatch calls fn count times in batches of 1, 2, 4, ...; a batch
// with a failure stops the rest. It returns the number of successes.
// Kube runs each batch's calls concurrently; here they run in order.
func slowStartBatch(count, initial int, fn func() error) (int, error) {
	remaining, successes := count, 0
	for batch := min(remaining, initial); batch > 0; batch = min(2*batch, remaining) {
		var firstErr error
		for i := 0; i < batch; i++ {
			if err := fn(); err != nil {
				if firstErr == nil {
					firstErr = err
				}
				continue
			}
			successes++
		}
		if firstErr != nil {
			return successes, firstErr
		}
		remaining -= batch
	}
	return successes, nil
}

// podTemplate is what the pods one sync creates for a ReplicaSet share:
// its generateName "<rs>-", its controller reference, and the words of
// the trace step creating each. Kube builds these per pod and copies the
// template's label and annotation maps; kubeloop's pods share all of
// them, read-only like everything in a stored object (whoever changes a
// pod's labels or owners copies the pod first; an append to the one-entry
// owner list copies it), so a ReplicaSet's pods keep one copy between them.
type podTemplate struct {
	rs                    *appsv1.ReplicaSet
	generateName          string
	owners                []metav1.OwnerReference
	traceObject, traceMsg string
	spec                  *corev1.PodSpec // the template's spec, copied for this sync's pods (see podFromTemplate)
	// pods are the next pods' objects, allocated podChunk at a time, and
	// left is how many pods the sync may still create (see podFromTemplate).
	pods []corev1.Pod
	left int
}

// podChunk is how many pod objects podFromTemplate allocates at once:
// 64 pods are about 72 KB, which the allocator hands out as one large
// object.
const podChunk = 64

// newPodTemplate prepares the creation of up to n pods of rs.
func newPodTemplate(rs *appsv1.ReplicaSet, n int) podTemplate {
	return podTemplate{rs: rs, left: n, generateName: rs.Name + "-",
		owners:      []metav1.OwnerReference{*metav1.NewControllerRef(rs, replicaSetGVK)},
		traceObject: "replicaset/" + rs.Name, traceMsg: "Creating pod from the template of replicaset/" + rs.Name}
}

// podFromTemplate builds a pod as the ReplicaSet controller does
// (GetPodFromTemplate): the template's labels, annotations, finalizers and
// spec, generateName "<rs>-", and the ReplicaSet as its controller.
//
// The spec is copied, since the API server's defaulting fills it in, but
// once a sync rather than once a pod: the pods of one sync share the copy's
// containers, volumes and the values its pointers point to, as they share
// the template's labels. The first pod's defaults fill the copy in, the
// same for every pod after it (defaulting writes only what is missing),
// and a stored pod is never changed in place. Tests check that creating a
// pod leaves the pods before it as they were (VerifyTallies).
//
// The pod objects themselves are allocated up to podChunk at a time, as
// one array whose elements are handed out one by one: each is a pod of
// its own to everyone else, but the allocator is asked once per chunk
// rather than once per pod, and a pod object (1,144 bytes, most of them
// pointers) is the dearest allocation a ReplicaSet makes. The array stays
// alive while any of its pods does; the pods a sync creates are created
// together, and are superseded by their binding's version together.
func podFromTemplate(pt *podTemplate) *corev1.Pod {
	t := &pt.rs.Spec.Template
	if len(pt.pods) == 0 {
		pt.pods = make([]corev1.Pod, min(max(pt.left, 1), podChunk))
	}
	p := &pt.pods[0] // zero: its fields are set one by one, not copied from a built pod
	pt.pods = pt.pods[1:]
	pt.left--
	p.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	p.Namespace = pt.rs.Namespace
	p.GenerateName = pt.generateName
	p.Labels = t.Labels
	p.Annotations = t.Annotations
	p.Finalizers = append([]string(nil), t.Finalizers...)
	p.OwnerReferences = slices.Clip(pt.owners)
	if pt.spec == nil {
		pt.spec = t.Spec.DeepCopy()
	}
	p.Spec = *pt.spec
	return p
}

func (c *ReplicaSetController) createPod(pt *podTemplate, col trace.Column) error {
	rs := pt.rs
	why := whyCreateReplace
	if col == trace.Declare {
		why = whyCreateDeclare
	}
	seq := c.record(col, rs.Namespace, pt.traceObject, pt.traceMsg, why)
	if VerifyTallies && pt.spec != nil {
		// The new pod shares the spec of the pods this sync created before
		// it (podFromTemplate): creating it must change none of it.
		before := pt.spec.DeepCopy()
		defer func() {
			if !equality.Semantic.DeepEqual(before, pt.spec) {
				panic("replicaset " + rs.Namespace + "/" + rs.Name + ": creating a pod changed the spec it shares with pods stored before it")
			}
		}()
	}
	created, err := c.env.API.Create(c.actor(seq), podFromTemplate(pt))
	if err != nil {
		msg := "Error creating: " + err.Error()
		c.env.Trace.Amend(seq, "", msg)
		c.event(seq, replicaSetSource, rs, corev1.EventTypeWarning, "FailedCreate", msg)
		return err
	}
	object, msg := createdPodNames(created.GetName())
	c.env.Trace.Amend(seq, object, msg)
	c.event(seq, replicaSetSource, rs, corev1.EventTypeNormal, "SuccessfulCreate", msg)
	return nil
}

// createdPodNames returns the trace's name of a new pod, "pod/<name>",
// and the message of its creation, "Created pod: <name>", cut from one
// string: one allocation, not two, for each of the pods a ReplicaSet
// creates.
func createdPodNames(name string) (object, msg string) {
	const objectPrefix, msgPrefix = "pod/", "Created pod: "
	s := objectPrefix + name + msgPrefix + name
	n := len(objectPrefix) + len(name)
	return s[:n], s[n:]
}

func (c *ReplicaSetController) deletePodNow(rs *appsv1.ReplicaSet, p *corev1.Pod, col trace.Column) error {
	msg := "Deleted pod: " + p.Name
	seq := c.record(col, p.Namespace, "pod/"+p.Name, msg, whyDeletePods)
	if _, err := c.env.API.Delete(c.actor(seq), kinds.Pod, p.Namespace, p.Name, deleteBackground); err != nil {
		emsg := "Error deleting: " + err.Error()
		c.env.Trace.Amend(seq, "", emsg)
		if !apierrors.IsNotFound(err) {
			c.event(seq, replicaSetSource, rs, corev1.EventTypeWarning, "FailedDelete", emsg)
		}
		return err
	}
	c.event(seq, replicaSetSource, rs, corev1.EventTypeNormal, "SuccessfulDelete", msg)
	return nil
}

// podsToDelete picks the n pods to delete: all of them unsorted if all go,
// else the first n in ActivePodsWithRanks order, ranked by the pods of the
// ReplicaSet's owner on the same node (getPodsToDelete).
func (c *ReplicaSetController) podsToDelete(pods []*corev1.Pod, rs *appsv1.ReplicaSet, n int) []*corev1.Pod {
	if n < len(pods) {
		sort.Sort(rankByRelatedPodsOnSameNode(pods, c.relatedPods(rs), c.now()))
	}
	return pods[:n]
}

// relatedPods are the pods of every ReplicaSet with the same controller as
// rs, such as all revisions of one Deployment (getIndirectlyRelatedPods).
// Kube lists them by each ReplicaSet's selector; kubeloop by their
// controller, which is the same set unless pods were relabelled by hand.
func (c *ReplicaSetController) relatedPods(rs *appsv1.ReplicaSet) []*corev1.Pod {
	ref := metav1.GetControllerOfNoCopy(rs)
	if ref == nil {
		return nil
	}
	var out []*corev1.Pod
	for _, o := range c.env.Store.ByIndex(kinds.ReplicaSet, IndexOwnerUID, string(ref.UID)) {
		related := o.(*appsv1.ReplicaSet)
		if r := metav1.GetControllerOfNoCopy(related); r == nil || r.UID != ref.UID {
			continue
		}
		for _, p := range controlled(c.env.Store, kinds.Pod, related) {
			out = append(out, p.(*corev1.Pod))
		}
	}
	return out
}

// countPods counts the pods as replica_set_utils.go calculateStatus does.
func countPods(rs *appsv1.ReplicaSet, pods []*corev1.Pod, now metav1.Time) podCounts {
	var c podCounts
	for _, p := range pods {
		c.replicas++
		if hasLabels(p.Labels, rs.Spec.Template.Labels) {
			c.fullyLabeled++
		}
		if IsPodReady(p) {
			c.ready++
			if IsPodAvailable(p, rs.Spec.MinReadySeconds, now) {
				c.available++
			}
		}
	}
	return c
}

// verifyTally panics if a recount of rs's pods disagrees with its tally.
func (c *ReplicaSetController) verifyTally(rs *appsv1.ReplicaSet, counts podCounts, now metav1.Time) {
	t := newTally(rs, selectorOf(rs.Spec.Selector))
	var want podCounts
	for _, o := range c.env.Store.ByIndexShared(kinds.Pod, IndexOwnerUID, string(rs.UID)) {
		want.add(countPod(rs, t, o.(*corev1.Pod)), 1)
	}
	if want != counts {
		panic(fmt.Sprintf("replicaset %s/%s: tally %+v, recount %+v", rs.Namespace, rs.Name, counts, want))
	}
}

// calculateReplicaSetStatus is the status for the counted pods
// (replica_set_utils.go calculateStatus), with the ReplicaFailure
// condition set or cleared.
func calculateReplicaSetStatus(rs *appsv1.ReplicaSet, counts podCounts, manageErr error, now metav1.Time) appsv1.ReplicaSetStatus {
	// A shallow copy: the condition list is shared with the stored
	// ReplicaSet and replaced, never changed in place, if it changes.
	st := rs.Status
	failure := replicaSetCondition(rs.Status, appsv1.ReplicaSetReplicaFailure)
	if manageErr != nil && failure == nil {
		reason := ""
		if diff := int(counts.replicas) - int(replicas(rs.Spec.Replicas)); diff < 0 {
			reason = "FailedCreate"
		} else if diff > 0 {
			reason = "FailedDelete"
		}
		st.Conditions = append(slices.Clip(st.Conditions), appsv1.ReplicaSetCondition{Type: appsv1.ReplicaSetReplicaFailure,
			Status: corev1.ConditionTrue, LastTransitionTime: now, Reason: reason, Message: manageErr.Error()})
	} else if manageErr == nil && failure != nil {
		var keep []appsv1.ReplicaSetCondition
		for _, c := range st.Conditions {
			if c.Type != appsv1.ReplicaSetReplicaFailure {
				keep = append(keep, c)
			}
		}
		st.Conditions = keep
	}
	st.Replicas = counts.replicas
	st.FullyLabeledReplicas = counts.fullyLabeled
	st.ReadyReplicas = counts.ready
	st.AvailableReplicas = counts.available
	return st
}

// hasLabels reports whether ls carries every label of want: what
// labels.SelectorFromSet(want).Matches(ls) answers, without building the
// selector.
func hasLabels(ls, want map[string]string) bool {
	for k, v := range want {
		if got, ok := ls[k]; !ok || got != v {
			return false
		}
	}
	return true
}

func replicaSetCondition(st appsv1.ReplicaSetStatus, t appsv1.ReplicaSetConditionType) *appsv1.ReplicaSetCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == t {
			return &st.Conditions[i]
		}
	}
	return nil
}

// updateStatus writes the ReplicaSet's status if it changed or the
// generation has not been observed yet (updateReplicaSetStatus).
func (c *ReplicaSetController) updateStatus(rs *appsv1.ReplicaSet, st appsv1.ReplicaSetStatus) (*appsv1.ReplicaSet, error) {
	cur := rs.Status
	if cur.Replicas == st.Replicas && cur.FullyLabeledReplicas == st.FullyLabeledReplicas &&
		cur.ReadyReplicas == st.ReadyReplicas && cur.AvailableReplicas == st.AvailableReplicas &&
		rs.Generation == cur.ObservedGeneration && slices.EqualFunc(cur.Conditions, st.Conditions, replicaSetConditionEqual) {
		return rs, nil
	}
	st.ObservedGeneration = rs.Generation
	// A write to /status keeps the stored spec and metadata whatever the
	// body says: the body needs the status and the resourceVersion only.
	// The API server keeps nothing of the body but its status (whose
	// condition list nobody changes in place), so one body, in scratch
	// space, serves every write, as the kubelet's pod status writes do.
	body := &c.statusBody
	body.TypeMeta, body.ObjectMeta, body.Status = rs.TypeMeta, rs.ObjectMeta, st
	seq := c.record(c.statusColumn(), rs.Namespace, c.namesOf(rs).object, c.statusMessage(&st), whyRSStatus)
	o, err := c.env.API.UpdateStatus(c.actor(seq), body)
	*body = appsv1.ReplicaSet{} // keeps nothing alive
	if err != nil {
		return nil, err
	}
	if o == kinds.Object(body) {
		panic("replicaset controller: the API server kept the body of a status write, which is reused")
	}
	return o.(*appsv1.ReplicaSet), nil
}

// statusCounts are what the trace message of a status write reports.
type statusCounts struct {
	replicas, labeled, ready, available int32
	generation                          int64
}

// statusMessage is the trace message of a write of status st. ReplicaSets
// of one size go through the same counts as their pods start, so the
// messages are shared.
func (c *ReplicaSetController) statusMessage(st *appsv1.ReplicaSetStatus) string {
	counts := statusCounts{st.Replicas, st.FullyLabeledReplicas, st.ReadyReplicas, st.AvailableReplicas, st.ObservedGeneration}
	return c.statusMessages.get(counts, func() string {
		// One buffer, copied once, where formatting the counts one by one
		// takes up to five allocations.
		var buf [128]byte
		b := strconv.AppendInt(append(buf[:0], "Updated status: "...), int64(st.Replicas), 10)
		b = strconv.AppendInt(append(b, " replicas, "...), int64(st.FullyLabeledReplicas), 10)
		b = strconv.AppendInt(append(b, " fully labeled, "...), int64(st.ReadyReplicas), 10)
		b = strconv.AppendInt(append(b, " ready, "...), int64(st.AvailableReplicas), 10)
		b = strconv.AppendInt(append(b, " available (observedGeneration "...), st.ObservedGeneration, 10)
		return string(append(b, ')'))
	})
}

// replicaSetConditionEqual is equality.Semantic.DeepEqual for ReplicaSet
// conditions, without reflection (slices.EqualFunc, like Semantic, takes
// nil and empty lists as equal); times compare as Semantic compares
// metav1.Time.
func replicaSetConditionEqual(a, b appsv1.ReplicaSetCondition) bool {
	return a.Type == b.Type && a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message &&
		a.LastTransitionTime.UTC() == b.LastTransitionTime.UTC()
}
