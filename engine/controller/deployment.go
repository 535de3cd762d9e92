package controller

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeloop/kubeloop/engine/component"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/store"
	"github.com/kubeloop/kubeloop/engine/trace"
)

// DeploymentControllerName is the Deployment controller's name in the trace
// and the source of its Events.
const DeploymentControllerName = "deployment-controller"

// DeploymentWorkers is kube-controller-manager's --concurrent-deployment-syncs.
const DeploymentWorkers = 5

var (
	deploymentGVK = appsv1.SchemeGroupVersion.WithKind("Deployment")
	replicaSetGVK = appsv1.SchemeGroupVersion.WithKind("ReplicaSet")
)

// Why-sentences of the Deployment controller's steps.
const (
	whyNewRS         = "A Deployment runs each version of its pod template through its own ReplicaSet, named after the template's hash; a new template gets a new ReplicaSet."
	whyScaleUpNew    = "A rolling update grows the new ReplicaSet as far as maxSurge allows: at most replicas + maxSurge pods in all."
	whyScaleDownOld  = "A rolling update shrinks old ReplicaSets only as far as availability allows: at least replicas - maxUnavailable pods must stay available."
	whyRecreateDown  = "The Recreate strategy stops every old pod before it starts any new one."
	whyRecreateUp    = "The Recreate strategy starts the new pods once no old pod is running."
	whyScaleEvent    = "When spec.replicas changes, the Deployment resizes its ReplicaSets, in proportion to their size if a rollout is under way."
	whyAnnotations   = "The Deployment keeps its revision and desired size on the ReplicaSet, so rollout history and proportional scaling can be worked out later."
	whyStatus        = "A Deployment's status sums up its ReplicaSets' status, so kubectl rollout status and other clients can follow the rollout."
	whyCleanup       = "A Deployment keeps only revisionHistoryLimit old, scaled-down ReplicaSets for rollbacks and deletes older ones."
	whyBlocked       = "A rolling update adds pods only up to replicas + maxSurge and removes old ones only while replicas - maxUnavailable stay available, so it waits for new pods to become available."
	whyPaused        = "A paused Deployment keeps its ReplicaSets as they are: template changes wait until it is resumed, though scaling still applies."
	whyTimedOut      = "When a rollout makes no progress for progressDeadlineSeconds, the Deployment reports it as failed; it does not roll back by itself."
	whyAdopt         = "A controller adopts orphans that match its selector, so objects it would otherwise duplicate come under its care."
	whySelectingAll  = "A Deployment with an empty selector would claim every pod in its namespace, so the controller refuses to act on it."
	deploymentSource = DeploymentControllerName
)

// DeploymentController rolls Deployments out through ReplicaSets
// (pkg/controller/deployment).
type DeploymentController struct {
	worker
	// result is what the reconcile in progress asks of its queue.
	result Result
	// specCause is the trace seq of the step that last changed each
	// Deployment's spec: steps carrying that spec out take its column.
	specCause map[string]uint64
	// sameTemplate memoizes EqualIgnoreHash by the generations of both
	// objects (a template change moves each object's generation): a sync
	// compares the same templates several times, and a reflective deep
	// comparison of pod templates is the controller's dearest step.
	sameTemplate map[templatePair]bool
	// lastTemplate is equalTemplates' latest answer about a pair of
	// objects with UIDs.
	lastTemplate struct {
		pair      templatePair
		same, set bool
	}
	// selectors caches each Deployment's parsed selector by UID and
	// generation (the selector is spec, and immutable in apps/v1 besides),
	// so that a sync, one per status change of a ReplicaSet, reuses it.
	selectors map[types.UID]cachedSelector
	// work is the working copy of the Deployment being synced, and probe
	// the ReplicaSet on which getNewReplicaSet tries its annotations:
	// scratch space reused from sync to sync (see workingCopy).
	work  appsv1.Deployment
	probe appsv1.ReplicaSet
	// statusMessages are the trace messages of status writes that report
	// only counts (see describeDeploymentStatus).
	statusMessages sharedMessages[deploymentCounts]
}

type cachedSelector struct {
	generation int64
	sel        labels.Selector
}

type templatePair struct {
	d, rs       types.UID
	dGen, rsGen int64
}

// maxTemplateMemo bounds the memo; it is simply cleared when full.
const maxTemplateMemo = 1 << 16

func (c *DeploymentController) equalTemplates(d *appsv1.Deployment, rs *appsv1.ReplicaSet) bool {
	k := templatePair{d: d.UID, rs: rs.UID, dGen: d.Generation, rsGen: rs.Generation}
	known := d.UID != "" && rs.UID != ""
	// A sync asks about the same pair two or three times in a row
	// (isScalingEvent, getAllReplicaSetsAndSyncRevision, getNewReplicaSet):
	// the last answer saves a lookup in a memo too large to stay in the
	// cache.
	if known && c.lastTemplate.set && c.lastTemplate.pair == k {
		return c.lastTemplate.same
	}
	same, ok := c.sameTemplate[k]
	if !ok || !known {
		same = EqualIgnoreHash(&rs.Spec.Template, &d.Spec.Template)
		if len(c.sameTemplate) >= maxTemplateMemo {
			clear(c.sameTemplate)
		}
		c.sameTemplate[k] = same
	}
	if known {
		c.lastTemplate.pair, c.lastTemplate.same, c.lastTemplate.set = k, same, true
	}
	return same
}

// splitReplicaSets is FindNewReplicaSet and FindOldReplicaSets in one pass,
// through the memo.
func (c *DeploymentController) splitReplicaSets(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) (*appsv1.ReplicaSet, []*appsv1.ReplicaSet) {
	byCreation(rss)
	var newRS *appsv1.ReplicaSet
	for _, rs := range rss {
		if c.equalTemplates(d, rs) {
			newRS = rs
			break
		}
	}
	var old []*appsv1.ReplicaSet
	for _, rs := range rss {
		if newRS == nil || rs.UID != newRS.UID {
			old = append(old, rs)
		}
	}
	return newRS, old
}

var _ component.Reactor = (*DeploymentController)(nil)

// NewDeploymentController builds the Deployment controller.
func NewDeploymentController(env component.Env) *DeploymentController {
	EnsureIndexes(env.Store)
	c := &DeploymentController{worker: newWorker(DeploymentControllerName, env, DeploymentWorkers),
		specCause: map[string]uint64{}, sameTemplate: map[templatePair]bool{}, selectors: map[types.UID]cachedSelector{},
		statusMessages: sharedMessages[deploymentCounts]{}}
	c.reconcile = c.Reconcile
	return c
}

// Observe queues the Deployment a change concerns: the Deployment itself,
// the owner of a ReplicaSet, or, for the Recreate strategy, the owner of a
// deleted pod (its rollout waits for old pods to be gone).
func (c *DeploymentController) Observe(ev store.Event) {
	switch ev.Kind {
	case kinds.Deployment:
		key := Key(ev.Object)
		switch {
		case ev.Type == store.Deleted:
			delete(c.specCause, key)
			delete(c.selectors, ev.Object.GetUID())
		case ev.Old == nil || ev.Old.GetGeneration() != ev.Object.GetGeneration():
			c.specCause[key] = ev.Cause
		}
		c.queue.Add(key, ev.Cause)
	case kinds.ReplicaSet:
		rs := ev.Object.(*appsv1.ReplicaSet)
		ref := metav1.GetControllerOfNoCopy(rs)
		if ref != nil && ref.Kind == "Deployment" {
			c.queue.Add(rs.Namespace+"/"+ref.Name, ev.Cause)
		}
		if ev.Old != nil {
			if old := metav1.GetControllerOfNoCopy(ev.Old); old != nil && old.Kind == "Deployment" && (ref == nil || old.UID != ref.UID) {
				c.queue.Add(rs.Namespace+"/"+old.Name, ev.Cause)
			}
		}
		if ref == nil && ev.Type != store.Deleted {
			c.enqueueAdopters(rs, ev.Cause)
		}
	case kinds.Pod:
		if ev.Type == store.Deleted {
			if d := c.deploymentOfPod(ev.Object.(*corev1.Pod)); d != nil && d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
				c.queue.Add(Key(d), ev.Cause)
			}
		}
	}
}

// enqueueAdopters queues the Deployments whose selector matches an orphaned
// ReplicaSet (getDeploymentsForReplicaSet).
func (c *DeploymentController) enqueueAdopters(rs *appsv1.ReplicaSet, cause uint64) {
	if len(rs.Labels) == 0 {
		return
	}
	for _, o := range c.env.Store.List(kinds.Deployment, rs.Namespace) {
		d := o.(*appsv1.Deployment)
		if sel := c.selectorFor(d); !sel.Empty() && sel.Matches(labels.Set(rs.Labels)) {
			c.queue.Add(Key(d), cause)
		}
	}
}

// selectorFor is selectorOf(d.Spec.Selector), parsed once per UID and
// generation.
func (c *DeploymentController) selectorFor(d *appsv1.Deployment) labels.Selector {
	if s, ok := c.selectors[d.UID]; ok && s.generation == d.Generation && d.UID != "" {
		return s.sel
	}
	sel := selectorOf(d.Spec.Selector)
	c.selectors[d.UID] = cachedSelector{generation: d.Generation, sel: sel}
	return sel
}

func (c *DeploymentController) deploymentOfPod(p *corev1.Pod) *appsv1.Deployment {
	ref := metav1.GetControllerOfNoCopy(p)
	if ref == nil || ref.Kind != "ReplicaSet" {
		return nil
	}
	o, ok := c.env.Store.Lookup(kinds.ReplicaSet, p.Namespace, ref.Name)
	if !ok || o.GetUID() != ref.UID {
		return nil
	}
	dref := metav1.GetControllerOfNoCopy(o)
	if dref == nil || dref.Kind != "Deployment" {
		return nil
	}
	d, ok := c.env.Store.Lookup(kinds.Deployment, p.Namespace, dref.Name)
	if !ok || d.GetUID() != dref.UID {
		return nil
	}
	return d.(*appsv1.Deployment)
}

// declareColumn is the column of steps that carry d's spec down to its
// ReplicaSets: Declare if the spec change was a Declare step (a learner's
// apply, scale or set image), Maintain if it was a Maintain step (an
// autoscaler's scale).
func (c *DeploymentController) declareColumn(d *appsv1.Deployment) trace.Column {
	if c.columnOf(c.specCause[Key(d)], trace.Declare) == trace.Declare {
		return trace.Declare
	}
	return trace.Maintain
}

// Reconcile syncs one Deployment (syncDeployment): it finds the
// Deployment's ReplicaSets, and then, in kube's order of precedence,
// reports status only if it is being deleted, scales if paused or if
// spec.replicas changed, or else rolls out by its strategy.
func (c *DeploymentController) Reconcile(key string) (Result, error) {
	c.result = Result{}
	ns, name := SplitKey(key)
	o, ok := c.env.Store.Lookup(kinds.Deployment, ns, name)
	if !ok {
		return Result{}, nil
	}
	stored := o.(*appsv1.Deployment)
	if VerifyTallies {
		// Tests also check that the sync left the shared, stored object as
		// it was (see workingCopy).
		before := stored.DeepCopy()
		defer func() {
			if !equality.Semantic.DeepEqual(before, stored) {
				panic("deployment " + key + ": a sync changed the stored object")
			}
		}()
	}
	d := c.workingCopy(stored)
	err := c.syncDeployment(d)
	c.work = appsv1.Deployment{} // keeps nothing alive past the sync
	return c.result, err
}

// workingCopy is the Deployment a sync works on. kube deep-copies it
// ("otherwise we are mutating our cache"). A sync changes only its status,
// its annotations (the revision) and its resourceVersion, and never in
// place: a changed condition list, annotation map or collision count is a
// new one (SetDeploymentCondition, setDeploymentRevision, the collision
// in getNewReplicaSet). So a shallow copy is as good as a deep one: it
// shares the spec, the template, the conditions and the annotations with
// the stored object, which nobody changes. A Deployment is synced every
// time one of its ReplicaSets' status changes, and the deep copy was 5% of
// the whole-engine benchmark. The copy is made into c.work, reused by
// every sync: nothing keeps it past the sync (the API server keeps none of
// a status write's body but its status and annotations, see writeStatus).
func (c *DeploymentController) workingCopy(stored *appsv1.Deployment) *appsv1.Deployment {
	c.work = *stored
	return &c.work
}

func (c *DeploymentController) syncDeployment(d *appsv1.Deployment) error {
	if sel := d.Spec.Selector; sel == nil || len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 {
		// Semantically equal to &metav1.LabelSelector{}: nil and empty
		// are the same.
		seq := c.record(trace.Maintain, d.Namespace, "deployment/"+d.Name,
			"This deployment is selecting all pods. A non-empty selector is required.", whySelectingAll)
		c.event(seq, deploymentSource, d, corev1.EventTypeWarning, "SelectingAll",
			"This deployment is selecting all pods. A non-empty selector is required.")
		if d.Status.ObservedGeneration < d.Generation {
			d.Status.ObservedGeneration = d.Generation
			return c.updateStatus(d, "observed generation "+strconv.FormatInt(d.Generation, 10))
		}
		return nil
	}
	rsList, err := c.replicaSetsFor(d)
	if err != nil {
		return err
	}
	if d.DeletionTimestamp != nil {
		return c.syncStatusOnly(d, rsList)
	}
	if err := c.checkPausedConditions(d); err != nil {
		return err
	}
	if d.Spec.Paused {
		return c.sync(d, rsList)
	}
	// spec.rollbackTo existed only in extensions/v1beta1 and apps/v1beta1;
	// apps/v1 rollbacks are kubectl rollout undo rewriting the template.
	if c.isScalingEvent(d, rsList) {
		return c.sync(d, rsList)
	}
	switch d.Spec.Strategy.Type {
	case appsv1.RecreateDeploymentStrategyType:
		return c.rolloutRecreate(d, rsList)
	case appsv1.RollingUpdateDeploymentStrategyType:
		return c.rolloutRolling(d, rsList)
	}
	return fmt.Errorf("unexpected deployment strategy type: %s", d.Spec.Strategy.Type)
}

// replicaSetsFor returns the ReplicaSets the Deployment controls, adopting
// orphans that match its selector and releasing its own that no longer do
// (ClaimReplicaSets).
func (c *DeploymentController) replicaSetsFor(d *appsv1.Deployment) ([]*appsv1.ReplicaSet, error) {
	sel := c.selectorFor(d)
	var out []*appsv1.ReplicaSet
	for _, o := range controlled(c.env.Store, kinds.ReplicaSet, d) {
		rs := o.(*appsv1.ReplicaSet)
		if sel.Matches(labels.Set(rs.Labels)) {
			out = append(out, rs)
			continue
		}
		if d.DeletionTimestamp != nil {
			continue
		}
		if err := c.release(d, rs); err != nil && !apierrors.IsNotFound(err) {
			return nil, err
		}
	}
	if d.DeletionTimestamp == nil {
		for _, o := range c.env.Store.ByIndex(kinds.ReplicaSet, IndexOrphan, d.Namespace) {
			rs := o.(*appsv1.ReplicaSet)
			if rs.DeletionTimestamp != nil || !sel.Matches(labels.Set(rs.Labels)) {
				continue
			}
			adopted, err := c.adopt(d, rs)
			if err != nil {
				if apierrors.IsNotFound(err) {
					continue
				}
				return nil, err
			}
			out = append(out, adopted)
		}
	}
	return out, nil
}

func (c *DeploymentController) adopt(d *appsv1.Deployment, rs *appsv1.ReplicaSet) (*appsv1.ReplicaSet, error) {
	cp := rs.DeepCopy()
	cp.OwnerReferences = append(cp.OwnerReferences, *metav1.NewControllerRef(d, deploymentGVK))
	seq := c.record(trace.Maintain, d.Namespace, "replicaset/"+rs.Name,
		fmt.Sprintf("deployment/%s adopted replica set %s, which matches its selector", d.Name, rs.Name), whyAdopt)
	o, err := c.env.API.Update(c.actor(seq), cp)
	if err != nil {
		return nil, err
	}
	return o.(*appsv1.ReplicaSet), nil
}

func (c *DeploymentController) release(d *appsv1.Deployment, rs *appsv1.ReplicaSet) error {
	cp := rs.DeepCopy()
	var refs []metav1.OwnerReference
	for _, r := range cp.OwnerReferences {
		if r.UID != d.UID {
			refs = append(refs, r)
		}
	}
	cp.OwnerReferences = refs
	seq := c.record(trace.Maintain, d.Namespace, "replicaset/"+rs.Name,
		fmt.Sprintf("deployment/%s released replica set %s, which no longer matches its selector", d.Name, rs.Name),
		"A controller lets go of objects that no longer match its selector; they become orphans.")
	_, err := c.env.API.Update(c.actor(seq), cp)
	return err
}

// podsByReplicaSet groups the pods each ReplicaSet controls
// (getPodMapForDeployment); only the Recreate strategy needs it.
func (c *DeploymentController) podsByReplicaSet(rsList []*appsv1.ReplicaSet) map[types.UID][]*corev1.Pod {
	m := make(map[types.UID][]*corev1.Pod, len(rsList))
	for _, rs := range rsList {
		for _, o := range controlled(c.env.Store, kinds.Pod, rs) {
			m[rs.UID] = append(m[rs.UID], o.(*corev1.Pod))
		}
	}
	return m
}

// getAllReplicaSetsAndSyncRevision splits the ReplicaSets into the new one
// (template equal to the Deployment's; created if asked and missing) and
// the old ones, syncing the revision annotations.
func (c *DeploymentController) getAllReplicaSetsAndSyncRevision(d *appsv1.Deployment, rsList []*appsv1.ReplicaSet, create bool) (*appsv1.ReplicaSet, []*appsv1.ReplicaSet, error) {
	existing, oldRSs := c.splitReplicaSets(d, rsList)
	newRS, err := c.getNewReplicaSet(d, existing, oldRSs, create)
	if err != nil {
		return nil, nil, err
	}
	return newRS, oldRSs, nil
}

func (c *DeploymentController) getNewReplicaSet(d *appsv1.Deployment, existing *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet, create bool) (*appsv1.ReplicaSet, error) {
	newRevision := strconv.FormatInt(maxRevision(oldRSs)+1, 10)
	now := c.now()
	if existing != nil {
		// kube deep-copies the ReplicaSet here and sets its annotations on
		// the copy; on most syncs nothing changes, so kubeloop sets them on
		// the annotations alone, in c.probe (scratch space, reused), and
		// copies the ReplicaSet only to write. rsCopy is read-only to
		// callers (they copy before writing, as scaleReplicaSet does).
		rsCopy := existing
		annotations, annotationsUpdated := c.probeNewReplicaSetAnnotations(d, existing, newRevision)
		minReadyChanged := existing.Spec.MinReadySeconds != d.Spec.MinReadySeconds
		if annotationsUpdated || minReadyChanged {
			rsCopy = existing.DeepCopy()
			if annotationsUpdated {
				rsCopy.Annotations = annotations // the probe's own copy
			}
			rsCopy.Spec.MinReadySeconds = d.Spec.MinReadySeconds
			msg := fmt.Sprintf("Updated replica set %s: revision %s", rsCopy.Name, rsCopy.Annotations[RevisionAnnotation])
			if minReadyChanged {
				msg += fmt.Sprintf(", minReadySeconds %d", d.Spec.MinReadySeconds)
			}
			seq := c.record(c.declareColumn(d), d.Namespace, "replicaset/"+rsCopy.Name, msg, whyAnnotations)
			o, err := c.env.API.Update(c.actor(seq), rsCopy)
			if err != nil {
				return nil, err
			}
			return o.(*appsv1.ReplicaSet), nil
		}
		needsUpdate := setDeploymentRevision(d, rsCopy.Annotations[RevisionAnnotation])
		if HasProgressDeadline(d) && GetDeploymentCondition(d.Status, appsv1.DeploymentProgressing) == nil {
			SetDeploymentCondition(&d.Status, *NewDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue,
				FoundNewRSReason, fmt.Sprintf("Found new replica set %q", rsCopy.Name), now))
			needsUpdate = true
		}
		if needsUpdate {
			if err := c.updateStatus(d, "revision "+d.Annotations[RevisionAnnotation]); err != nil {
				return nil, err
			}
		}
		return rsCopy, nil
	}
	if !create {
		return nil, nil
	}

	template := d.Spec.Template.DeepCopy()
	hash := ComputeHash(template, d.Status.CollisionCount)
	template.Labels = withLabel(d.Spec.Template.Labels, appsv1.DefaultDeploymentUniqueLabelKey, hash)
	newRS := &appsv1.ReplicaSet{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: metav1.ObjectMeta{
			Name:            d.Name + "-" + hash,
			Namespace:       d.Namespace,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d, deploymentGVK)},
			Labels:          copyMap(template.Labels),
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas:        new(int32),
			MinReadySeconds: d.Spec.MinReadySeconds,
			Selector:        withSelectorLabel(d.Spec.Selector, appsv1.DefaultDeploymentUniqueLabelKey, hash),
			Template:        *template,
		},
	}
	n, err := NewRSNewReplicas(d, append(append([]*appsv1.ReplicaSet(nil), oldRSs...), newRS), newRS)
	if err != nil {
		return nil, err
	}
	*newRS.Spec.Replicas = n
	SetNewReplicaSetAnnotations(d, newRS, newRevision, false)

	msg := fmt.Sprintf("Created new replica set %q (pod-template-hash %s, revision %s) with %s", newRS.Name, hash, newRevision, countOf(n, "replica"))
	seq := c.record(c.declareColumn(d), d.Namespace, "replicaset/"+newRS.Name, msg, whyNewRS)
	name := newRS.Name
	created, err := c.env.API.Create(c.actor(seq), newRS)
	alreadyExists := false
	switch {
	case apierrors.IsAlreadyExists(err):
		alreadyExists = true
		o, ok := c.env.Store.Lookup(kinds.ReplicaSet, d.Namespace, name)
		if !ok {
			return nil, err
		}
		rs := o.(*appsv1.ReplicaSet)
		if ref := metav1.GetControllerOfNoCopy(rs); ref != nil && ref.UID == d.UID && c.equalTemplates(d, rs) {
			created, err = rs, nil
			break
		}
		// A hash collision: another template already has this name. Count
		// it in the status, so the next hash differs, and try again.
		// A new counter rather than an increment in place, which would
		// change the stored object's (see workingCopy).
		collisions := int32(1)
		if d.Status.CollisionCount != nil {
			collisions = *d.Status.CollisionCount + 1
		}
		d.Status.CollisionCount = &collisions
		if uerr := c.updateStatus(d, fmt.Sprintf("collisionCount %d: replica set %s already exists with another template", *d.Status.CollisionCount, name)); uerr != nil {
			return nil, uerr
		}
		return nil, err
	case err != nil:
		cmsg := fmt.Sprintf("Failed to create new replica set %q: %v", name, err)
		if HasProgressDeadline(d) {
			SetDeploymentCondition(&d.Status, *NewDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse, FailedRSCreateReason, cmsg, now))
			_ = c.updateStatus(d, FailedRSCreateReason)
		}
		c.event(seq, deploymentSource, d, corev1.EventTypeWarning, FailedRSCreateReason, cmsg)
		return nil, err
	}
	rs := created.(*appsv1.ReplicaSet)
	if !alreadyExists && n > 0 {
		c.event(seq, deploymentSource, d, corev1.EventTypeNormal, "ScalingReplicaSet",
			fmt.Sprintf("Scaled up replica set %s from 0 to %d", rs.Name, n))
	}
	needsUpdate := setDeploymentRevision(d, newRevision)
	if !alreadyExists && HasProgressDeadline(d) {
		SetDeploymentCondition(&d.Status, *NewDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue,
			NewReplicaSetReason, fmt.Sprintf("Created new replica set %q", rs.Name), now))
		needsUpdate = true
	}
	if needsUpdate {
		if err := c.updateStatus(d, fmt.Sprintf("revision %s, Progressing=True (%s)", newRevision, NewReplicaSetReason)); err != nil {
			return nil, err
		}
	}
	return rs, nil
}

// probeNewReplicaSetAnnotations is SetNewReplicaSetAnnotations on
// existing's annotations, in c.probe: the annotations existing should have
// and whether they differ from its own. The map is existing's own if
// nothing changes (it is read-only), a new one otherwise (see
// SetNewReplicaSetAnnotations).
func (c *DeploymentController) probeNewReplicaSetAnnotations(d *appsv1.Deployment, existing *appsv1.ReplicaSet, newRevision string) (map[string]string, bool) {
	c.probe.Annotations = existing.Annotations
	changed := SetNewReplicaSetAnnotations(d, &c.probe, newRevision, true)
	annotations := c.probe.Annotations
	c.probe.Annotations = nil // the scratch space keeps no object's map alive
	return annotations, changed
}

func countOf(n int32, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(int(n)) + " " + word + "s"
}

func setDeploymentRevision(d *appsv1.Deployment, revision string) bool {
	if d.Annotations[RevisionAnnotation] == revision {
		return false
	}
	// A new map: d's may be the stored object's (see workingCopy).
	annotations := maps.Clone(d.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[RevisionAnnotation] = revision
	d.Annotations = annotations
	return true
}

func withLabel(m map[string]string, k, v string) map[string]string {
	out := make(map[string]string, len(m)+1)
	for a, b := range m {
		out[a] = b
	}
	out[k] = v
	return out
}

func withSelectorLabel(s *metav1.LabelSelector, k, v string) *metav1.LabelSelector {
	out := s.DeepCopy()
	if out == nil {
		out = &metav1.LabelSelector{}
	}
	out.MatchLabels = withLabel(out.MatchLabels, k, v)
	return out
}

// updateStatus writes d's status, with the revision annotation, through
// the status subresource (whose strategy for Deployments keeps metadata
// annotations, and does not move the generation), and carries the new
// resourceVersion forward in d. Kube's controller would write with its
// stale copy, fail with a Conflict and retry a few milliseconds later;
// carrying the resourceVersion skips that detour to the same result.
func (c *DeploymentController) updateStatus(d *appsv1.Deployment, what string) error {
	return c.writeStatus(d, "Updated status: "+what, whyStatus)
}

func (c *DeploymentController) writeStatus(d *appsv1.Deployment, message, why string) error {
	cur, ok := c.env.Store.Lookup(kinds.Deployment, d.Namespace, d.Name)
	if !ok {
		return apierrors.NewNotFound(kinds.Deployment.GroupResource(), d.Name)
	}
	stored := cur.(*appsv1.Deployment)
	if deploymentStatusEqual(&stored.Status, &d.Status) && maps.Equal(stored.Annotations, d.Annotations) {
		return nil // nothing to write: no trace, no request
	}
	seq := c.record(c.statusColumn(), d.Namespace, "deployment/"+d.Name, message, why)
	// The body is d itself, as in kube. The API server keeps only its
	// status and annotations (the status strategy keeps the revision
	// annotations the controller sets; a write to /status keeps the stored
	// spec whatever the body says), which the controller never changes in
	// place (see workingCopy); nothing of d's reused space itself.
	o, err := c.env.API.UpdateStatus(c.actor(seq), d)
	if err != nil {
		return err
	}
	if o == kinds.Object(d) {
		panic("deployment controller: the API server kept the body of a status write, which is reused")
	}
	d.ResourceVersion = o.GetResourceVersion()
	return nil
}

// scaleReplicaSet sets rs's size and its desired/max-replicas annotations,
// recording ScalingReplicaSet if the size changed (sync.go scaleReplicaSet).
func (c *DeploymentController) scaleReplicaSet(rs *appsv1.ReplicaSet, newScale int32, d *appsv1.Deployment, op string, col trace.Column, why string) (bool, *appsv1.ReplicaSet, error) {
	sizeChanged := replicas(rs.Spec.Replicas) != newScale
	r := replicas(d.Spec.Replicas)
	annotationsChanged := replicasAnnotationsNeedUpdate(rs, r, r+MaxSurge(d))
	if !sizeChanged && !annotationsChanged {
		return false, rs, nil
	}
	old := replicas(rs.Spec.Replicas)
	cp := rs.DeepCopy()
	cp.Spec.Replicas = &newScale
	setReplicasAnnotations(cp, r, r+MaxSurge(d))
	msg := fmt.Sprintf("Scaled %s replica set %s from %d to %d", op, rs.Name, old, newScale)
	if !sizeChanged {
		msg = fmt.Sprintf("Updated replica set %s: desired-replicas %d, max-replicas %d", rs.Name, r, r+MaxSurge(d))
		col, why = c.declareColumn(d), whyAnnotations
	}
	seq := c.record(col, d.Namespace, "replicaset/"+rs.Name, msg, why)
	o, err := c.env.API.Update(c.actor(seq), cp)
	if err != nil {
		return false, rs, err
	}
	if sizeChanged {
		c.event(seq, deploymentSource, d, corev1.EventTypeNormal, "ScalingReplicaSet", msg)
	}
	return sizeChanged, o.(*appsv1.ReplicaSet), nil
}

func (c *DeploymentController) scaleReplicaSetAndRecordEvent(rs *appsv1.ReplicaSet, newScale int32, d *appsv1.Deployment, col trace.Column, why string) (bool, *appsv1.ReplicaSet, error) {
	if replicas(rs.Spec.Replicas) == newScale {
		return false, rs, nil
	}
	op := "down"
	if replicas(rs.Spec.Replicas) < newScale {
		op = "up"
	}
	return c.scaleReplicaSet(rs, newScale, d, op, col, why)
}

// rolloutRolling is one step of a rolling update (rolling.go): scale the
// new ReplicaSet up if there is room, else scale old ones down if
// availability allows, then report status.
func (c *DeploymentController) rolloutRolling(d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) error {
	newRS, oldRSs, err := c.getAllReplicaSetsAndSyncRevision(d, rsList, true)
	if err != nil {
		return err
	}
	allRSs := append(append([]*appsv1.ReplicaSet(nil), oldRSs...), newRS)

	scaledUp, err := c.reconcileNewReplicaSet(allRSs, newRS, d)
	if err != nil {
		return err
	}
	if scaledUp {
		return c.syncRolloutStatus(allRSs, newRS, d)
	}
	scaledDown, err := c.reconcileOldReplicaSets(allRSs, activeReplicaSets(oldRSs), newRS, d)
	if err != nil {
		return err
	}
	if scaledDown {
		return c.syncRolloutStatus(allRSs, newRS, d)
	}
	if DeploymentComplete(d, &d.Status) {
		if err := c.cleanupDeployment(oldRSs, d); err != nil {
			return err
		}
	}
	return c.syncRolloutStatus(allRSs, newRS, d)
}

func (c *DeploymentController) reconcileNewReplicaSet(allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, d *appsv1.Deployment) (bool, error) {
	r := replicas(d.Spec.Replicas)
	switch {
	case replicas(newRS.Spec.Replicas) == r:
		return false, nil
	case replicas(newRS.Spec.Replicas) > r:
		scaled, _, err := c.scaleReplicaSetAndRecordEvent(newRS, r, d, c.declareColumn(d), whyScaleEvent)
		return scaled, err
	}
	n, err := NewRSNewReplicas(d, allRSs, newRS)
	if err != nil {
		return false, err
	}
	scaled, _, err := c.scaleReplicaSetAndRecordEvent(newRS, n, d, c.declareColumn(d), whyScaleUpNew)
	return scaled, err
}

// reconcileOldReplicaSets scales old ReplicaSets down as far as
// maxUnavailable allows: first their unhealthy pods, then available ones.
func (c *DeploymentController) reconcileOldReplicaSets(allRSs, oldRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, d *appsv1.Deployment) (bool, error) {
	if replicaCount(oldRSs) == 0 {
		return false, nil
	}
	minAvailable := replicas(d.Spec.Replicas) - MaxUnavailable(d)
	newRSUnavailable := replicas(newRS.Spec.Replicas) - newRS.Status.AvailableReplicas
	maxScaledDown := replicaCount(allRSs) - minAvailable - newRSUnavailable
	if maxScaledDown <= 0 {
		return false, nil
	}
	oldRSs, cleaned, err := c.cleanupUnhealthyReplicas(oldRSs, d, maxScaledDown)
	if err != nil {
		return false, nil //nolint:nilerr // kube ignores this error and resyncs later
	}
	allRSs = append(append([]*appsv1.ReplicaSet(nil), oldRSs...), newRS)
	scaled, err := c.scaleDownOldReplicaSetsForRollingUpdate(allRSs, oldRSs, d)
	if err != nil {
		return false, nil //nolint:nilerr // as above
	}
	return cleaned+scaled > 0, nil
}

func (c *DeploymentController) cleanupUnhealthyReplicas(oldRSs []*appsv1.ReplicaSet, d *appsv1.Deployment, maxCleanup int32) ([]*appsv1.ReplicaSet, int32, error) {
	byCreation(oldRSs)
	total := int32(0)
	for i, rs := range oldRSs {
		if total >= maxCleanup {
			break
		}
		if replicas(rs.Spec.Replicas) == 0 || replicas(rs.Spec.Replicas) == rs.Status.AvailableReplicas {
			continue
		}
		down := min(maxCleanup-total, replicas(rs.Spec.Replicas)-rs.Status.AvailableReplicas)
		newCount := replicas(rs.Spec.Replicas) - down
		_, upd, err := c.scaleReplicaSetAndRecordEvent(rs, newCount, d, trace.Maintain,
			"A rolling update first removes old pods that are not available anyway, which costs no availability.")
		if err != nil {
			return nil, total, err
		}
		total += down
		oldRSs[i] = upd
	}
	return oldRSs, total, nil
}

func (c *DeploymentController) scaleDownOldReplicaSetsForRollingUpdate(allRSs, oldRSs []*appsv1.ReplicaSet, d *appsv1.Deployment) (int32, error) {
	minAvailable := replicas(d.Spec.Replicas) - MaxUnavailable(d)
	_, _, available := actualReplicaCount(allRSs)
	if available <= minAvailable {
		return 0, nil
	}
	byCreation(oldRSs)
	total, target := int32(0), available-minAvailable
	for _, rs := range oldRSs {
		if total >= target {
			break
		}
		if replicas(rs.Spec.Replicas) == 0 {
			continue
		}
		down := min(replicas(rs.Spec.Replicas), target-total)
		if _, _, err := c.scaleReplicaSetAndRecordEvent(rs, replicas(rs.Spec.Replicas)-down, d, trace.Maintain, whyScaleDownOld); err != nil {
			return total, err
		}
		total += down
	}
	return total, nil
}

// rolloutRecreate is one step of the Recreate strategy (recreate.go).
func (c *DeploymentController) rolloutRecreate(d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) error {
	// Don't create the new ReplicaSet yet, so nothing scales up before the
	// old pods are gone.
	newRS, oldRSs, err := c.getAllReplicaSetsAndSyncRevision(d, rsList, false)
	if err != nil {
		return err
	}
	allRSs := append(append([]*appsv1.ReplicaSet(nil), oldRSs...), newRS)

	scaledDown := false
	for _, rs := range activeReplicaSets(oldRSs) {
		scaled, _, err := c.scaleReplicaSetAndRecordEvent(rs, 0, d, trace.Maintain, whyRecreateDown)
		if err != nil {
			return err
		}
		scaledDown = scaledDown || scaled
	}
	if scaledDown {
		return c.syncRolloutStatus(allRSs, newRS, d)
	}
	if oldPodsRunning(newRS, oldRSs, c.podsByReplicaSet(rsList)) {
		return c.syncRolloutStatus(allRSs, newRS, d)
	}
	if newRS == nil {
		newRS, oldRSs, err = c.getAllReplicaSetsAndSyncRevision(d, rsList, true)
		if err != nil {
			return err
		}
		allRSs = append(append([]*appsv1.ReplicaSet(nil), oldRSs...), newRS)
	}
	if _, _, err := c.scaleReplicaSetAndRecordEvent(newRS, replicas(d.Spec.Replicas), d, c.declareColumn(d), whyRecreateUp); err != nil {
		return err
	}
	if DeploymentComplete(d, &d.Status) {
		if err := c.cleanupDeployment(oldRSs, d); err != nil {
			return err
		}
	}
	return c.syncRolloutStatus(allRSs, newRS, d)
}

// oldPodsRunning reports whether any old ReplicaSet still reports pods, or
// any pod of one is not yet Succeeded or Failed (terminating pods count).
func oldPodsRunning(newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet, pods map[types.UID][]*corev1.Pod) bool {
	if n, _, _ := actualReplicaCount(oldRSs); n > 0 {
		return true
	}
	for _, rs := range oldRSs {
		if newRS != nil && rs.UID == newRS.UID {
			continue
		}
		for _, p := range pods[rs.UID] {
			if p.Status.Phase != corev1.PodFailed && p.Status.Phase != corev1.PodSucceeded {
				return true
			}
		}
	}
	return false
}

// sync handles a scaling event or a paused Deployment: scale, clean up if
// paused, report status (sync.go sync).
func (c *DeploymentController) sync(d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) error {
	newRS, oldRSs, err := c.getAllReplicaSetsAndSyncRevision(d, rsList, false)
	if err != nil {
		return err
	}
	if err := c.scale(d, newRS, oldRSs); err != nil {
		return err
	}
	if d.Spec.Paused {
		if err := c.cleanupDeployment(oldRSs, d); err != nil {
			return err
		}
	}
	return c.syncDeploymentStatus(append(append([]*appsv1.ReplicaSet(nil), oldRSs...), newRS), newRS, d)
}

// scale resizes the ReplicaSets after spec.replicas changed: the only active
// one takes the new size; if the new one is saturated the old ones go to
// zero; during a rolling update the difference is spread in proportion
// (sync.go scale).
func (c *DeploymentController) scale(d *appsv1.Deployment, newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet) error {
	r := replicas(d.Spec.Replicas)
	if rs := findActiveOrLatest(newRS, oldRSs); rs != nil {
		if replicas(rs.Spec.Replicas) == r {
			return nil
		}
		_, _, err := c.scaleReplicaSetAndRecordEvent(rs, r, d, c.declareColumn(d), whyScaleEvent)
		return err
	}
	if IsSaturated(d, newRS) {
		for _, old := range activeReplicaSets(oldRSs) {
			if _, _, err := c.scaleReplicaSetAndRecordEvent(old, 0, d, trace.Maintain, whyScaleDownOld); err != nil {
				return err
			}
		}
		return nil
	}
	if !isRollingUpdate(d) {
		return nil
	}
	allRSs := activeReplicaSets(append(append([]*appsv1.ReplicaSet(nil), oldRSs...), newRS))
	allowed := int32(0)
	if r > 0 {
		allowed = r + MaxSurge(d)
	}
	toAdd := allowed - replicaCount(allRSs)
	op := ""
	switch {
	case toAdd > 0:
		sortBySizeNewer(allRSs)
		op = "up"
	case toAdd < 0:
		sortBySizeOlder(allRSs)
		op = "down"
	}
	added := int32(0)
	sizes := make([]int32, len(allRSs))
	for i, rs := range allRSs {
		sizes[i] = replicas(rs.Spec.Replicas)
		if toAdd != 0 {
			p := GetProportion(rs, d, toAdd, added)
			sizes[i] += p
			added += p
		}
	}
	for i, rs := range allRSs {
		if i == 0 && toAdd != 0 {
			sizes[0] = max(0, sizes[0]+toAdd-added) // leftovers go to the largest
		}
		if _, _, err := c.scaleReplicaSet(rs, sizes[i], d, op, c.declareColumn(d), whyScaleEvent); err != nil {
			return err
		}
	}
	return nil
}

// sortBySizeNewer orders larger first, newer first on ties
// (ReplicaSetsBySizeNewer); sortBySizeOlder, older first on ties.
func sortBySizeNewer(rss []*appsv1.ReplicaSet) { sortBySize(rss, true) }
func sortBySizeOlder(rss []*appsv1.ReplicaSet) { sortBySize(rss, false) }

func sortBySize(rss []*appsv1.ReplicaSet, newerFirst bool) {
	sort.SliceStable(rss, func(i, j int) bool {
		a, b := rss[i], rss[j]
		if replicas(a.Spec.Replicas) != replicas(b.Spec.Replicas) {
			return replicas(a.Spec.Replicas) > replicas(b.Spec.Replicas)
		}
		if newerFirst {
			// ReplicaSetsByCreationTimestamp.Less(j, i): on equal
			// timestamps, names in reverse.
			a, b = b, a
		}
		if a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.Name < b.Name
		}
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	})
}

// isScalingEvent reports whether an active ReplicaSet's desired-replicas
// annotation differs from spec.replicas: the user scaled.
func (c *DeploymentController) isScalingEvent(d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) bool {
	newRS, oldRSs := c.splitReplicaSets(d, rsList)
	// kube asks this of activeReplicaSets(append(oldRSs, newRS)); the same
	// ReplicaSets are asked here in place, without building either list
	// (it runs at every sync).
	scaled := func(rs *appsv1.ReplicaSet) bool {
		if rs == nil || replicas(rs.Spec.Replicas) <= 0 {
			return false // not active
		}
		desired, ok := intAnnotation(rs, DesiredReplicasAnnotation)
		return ok && desired != replicas(d.Spec.Replicas)
	}
	return slices.ContainsFunc(oldRSs, scaled) || scaled(newRS)
}

// checkPausedConditions records pause and resume in the Progressing
// condition, so a resumed rollout is not judged on the time it was paused.
func (c *DeploymentController) checkPausedConditions(d *appsv1.Deployment) error {
	if !HasProgressDeadline(d) {
		return nil
	}
	cond := GetDeploymentCondition(d.Status, appsv1.DeploymentProgressing)
	if cond != nil && cond.Reason == TimedOutReason {
		return nil
	}
	pausedCond := cond != nil && cond.Reason == PausedDeployReason
	switch {
	case d.Spec.Paused && !pausedCond:
		SetDeploymentCondition(&d.Status, *NewDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionUnknown,
			PausedDeployReason, "Deployment is paused", c.now()))
		return c.updateStatus(d, "Progressing=Unknown ("+PausedDeployReason+")")
	case !d.Spec.Paused && pausedCond:
		SetDeploymentCondition(&d.Status, *NewDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionUnknown,
			ResumedDeployReason, "Deployment is resumed", c.now()))
		return c.updateStatus(d, "Progressing=Unknown ("+ResumedDeployReason+")")
	}
	return nil
}

func (c *DeploymentController) syncStatusOnly(d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) error {
	newRS, oldRSs, err := c.getAllReplicaSetsAndSyncRevision(d, rsList, false)
	if err != nil {
		return err
	}
	return c.syncDeploymentStatus(append(append([]*appsv1.ReplicaSet(nil), oldRSs...), newRS), newRS, d)
}

// cleanupDeployment deletes the oldest scaled-down ReplicaSets beyond
// revisionHistoryLimit.
func (c *DeploymentController) cleanupDeployment(oldRSs []*appsv1.ReplicaSet, d *appsv1.Deployment) error {
	if d.Spec.RevisionHistoryLimit == nil || *d.Spec.RevisionHistoryLimit == 1<<31-1 {
		return nil
	}
	var cleanable []*appsv1.ReplicaSet
	for _, rs := range oldRSs {
		if rs != nil && rs.DeletionTimestamp == nil {
			cleanable = append(cleanable, rs)
		}
	}
	diff := int32(len(cleanable)) - *d.Spec.RevisionHistoryLimit
	if diff <= 0 {
		return nil
	}
	sortByRevision(cleanable)
	for i := int32(0); i < diff; i++ {
		rs := cleanable[i]
		if rs.Status.Replicas != 0 || replicas(rs.Spec.Replicas) != 0 || rs.Generation > rs.Status.ObservedGeneration || rs.DeletionTimestamp != nil {
			continue
		}
		seq := c.record(trace.Maintain, d.Namespace, "replicaset/"+rs.Name,
			fmt.Sprintf("Deleted old replica set %s (revision %d): more than revisionHistoryLimit=%d old revisions", rs.Name, Revision(rs), *d.Spec.RevisionHistoryLimit),
			whyCleanup)
		if _, err := c.env.API.Delete(c.actor(seq), kinds.ReplicaSet, rs.Namespace, rs.Name, deleteBackground); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// sortByRevision orders ReplicaSets by revision, oldest first, then by
// creation (ReplicaSetsByRevision).
func sortByRevision(rss []*appsv1.ReplicaSet) {
	sort.SliceStable(rss, func(i, j int) bool {
		ri, rj := Revision(rss[i]), Revision(rss[j])
		if ri == rj {
			a, b := rss[i], rss[j]
			if a.CreationTimestamp.Equal(&b.CreationTimestamp) {
				return a.Name < b.Name
			}
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		return ri < rj
	})
}

// calculateStatus sums the ReplicaSets into a Deployment status and sets
// the Available condition.
func calculateStatus(allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, d *appsv1.Deployment, now metav1.Time) appsv1.DeploymentStatus {
	total, ready, available := actualReplicaCount(allRSs)
	updated, _, _ := actualReplicaCount([]*appsv1.ReplicaSet{newRS})
	unavailable := max(0, replicaCount(allRSs)-available)
	st := appsv1.DeploymentStatus{
		ObservedGeneration:  d.Generation,
		Replicas:            total,
		UpdatedReplicas:     updated,
		ReadyReplicas:       ready,
		AvailableReplicas:   available,
		UnavailableReplicas: unavailable,
		CollisionCount:      d.Status.CollisionCount,
	}
	if len(d.Status.Conditions) > 0 {
		// Shared, not copied: condition lists are never changed in place
		// (SetDeploymentCondition). Clipped, so that an append copies.
		st.Conditions = slices.Clip(d.Status.Conditions)
	}
	if available >= replicas(d.Spec.Replicas)-MaxUnavailable(d) {
		SetDeploymentCondition(&st, *NewDeploymentCondition(appsv1.DeploymentAvailable, corev1.ConditionTrue,
			MinimumReplicasAvailable, "Deployment has minimum availability.", now))
	} else {
		SetDeploymentCondition(&st, *NewDeploymentCondition(appsv1.DeploymentAvailable, corev1.ConditionFalse,
			MinimumReplicasUnavailable, "Deployment does not have minimum availability.", now))
	}
	return st
}

func (c *DeploymentController) syncDeploymentStatus(allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, d *appsv1.Deployment) error {
	st := calculateStatus(allRSs, newRS, d, c.now())
	if deploymentStatusEqual(&d.Status, &st) {
		return nil
	}
	old := d.Status
	d.Status = st
	if d.Spec.Paused {
		standing, _ := c.rolloutStanding(d, allRSs, newRS)
		return c.writeStatus(d, c.describeDeploymentStatus(&old, &st, standing), whyPaused)
	}
	return c.writeStatus(d, c.describeDeploymentStatus(&old, &st, ""), whyStatus)
}

// syncRolloutStatus reports a rollout's status and judges its progress
// against progressDeadlineSeconds (progress.go).
func (c *DeploymentController) syncRolloutStatus(allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, d *appsv1.Deployment) error {
	now := c.now()
	st := calculateStatus(allRSs, newRS, d, now)
	if !HasProgressDeadline(d) {
		RemoveDeploymentCondition(&st, appsv1.DeploymentProgressing)
	}
	cur := GetDeploymentCondition(d.Status, appsv1.DeploymentProgressing)
	isComplete := st.Replicas == st.UpdatedReplicas && cur != nil && cur.Reason == NewRSAvailableReason
	timedOut := false
	if HasProgressDeadline(d) && !isComplete {
		switch {
		case DeploymentComplete(d, &st):
			msg := progressMessage(d, newRS, " has successfully progressed.")
			SetDeploymentCondition(&st, *NewDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, NewRSAvailableReason, msg, now))
		case DeploymentProgressing(d, &st):
			msg := progressMessage(d, newRS, " is progressing.")
			cond := NewDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, ReplicaSetUpdatedReason, msg, now)
			// Progress moves lastUpdateTime even when the reason stays: kube
			// removes the condition, if any, and sets it again, which is
			// replacing it (in one new list rather than two).
			if cur != nil && cur.Status == corev1.ConditionTrue {
				cond.LastTransitionTime = cur.LastTransitionTime
			}
			st.Conditions = append(filterCondition(st.Conditions, appsv1.DeploymentProgressing), *cond)
		case DeploymentTimedOut(d, &st, now):
			msg := progressMessage(d, newRS, " has timed out progressing.")
			SetDeploymentCondition(&st, *NewDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse, TimedOutReason, msg, now))
			timedOut = cur == nil || cur.Reason != TimedOutReason
		}
	}
	if failures := replicaFailures(allRSs, newRS); len(failures) > 0 {
		SetDeploymentCondition(&st, failures[0])
	} else {
		RemoveDeploymentCondition(&st, appsv1.DeploymentReplicaFailure)
	}
	if deploymentStatusEqual(&d.Status, &st) {
		c.requeueStuckDeployment(d, st, now)
		return nil
	}
	old := d.Status
	d.Status = st
	if timedOut {
		cond := GetDeploymentCondition(st, appsv1.DeploymentProgressing)
		standing, _ := c.rolloutStanding(d, allRSs, newRS)
		return c.writeStatus(d, cond.Message+" Progressing=False ("+TimedOutReason+")"+withStanding(standing), whyTimedOut)
	}
	standing, blocked := c.rolloutStanding(d, allRSs, newRS)
	why := whyStatus
	switch {
	case blocked && isRollingUpdate(d):
		why = whyBlocked
	case blocked:
		why = whyRecreateUp
	}
	return c.writeStatus(d, c.describeDeploymentStatus(&old, &st, standing), why)
}

// progressMessage is the Progressing condition's message: kube's
// fmt.Sprintf("ReplicaSet %q"+what, newRS.Name), or of the Deployment if
// there is no new ReplicaSet. Every sync of a rolling Deployment formats
// one, so it is built with strconv.AppendQuote (what %q does to a
// string) in one allocation, without fmt's.
func progressMessage(d *appsv1.Deployment, newRS *appsv1.ReplicaSet, what string) string {
	var buf [128]byte
	b := append(buf[:0], "Deployment "...)
	name := d.Name
	if newRS != nil {
		b, name = append(buf[:0], "ReplicaSet "...), newRS.Name
	}
	return string(append(strconv.AppendQuote(b, name), what...))
}

func replicaFailures(allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) []appsv1.DeploymentCondition {
	conv := func(rc appsv1.ReplicaSetCondition) appsv1.DeploymentCondition {
		return appsv1.DeploymentCondition{Type: appsv1.DeploymentConditionType(rc.Type), Status: rc.Status,
			LastTransitionTime: rc.LastTransitionTime, LastUpdateTime: rc.LastTransitionTime, Reason: rc.Reason, Message: rc.Message}
	}
	var out []appsv1.DeploymentCondition
	if newRS != nil {
		for _, rc := range newRS.Status.Conditions {
			if rc.Type == appsv1.ReplicaSetReplicaFailure {
				out = append(out, conv(rc))
			}
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, rs := range allRSs {
		if rs == nil {
			continue
		}
		for _, rc := range rs.Status.Conditions {
			if rc.Type == appsv1.ReplicaSetReplicaFailure {
				out = append(out, conv(rc))
			}
		}
	}
	return out
}

// requeueStuckDeployment schedules a progress check for when the
// Progressing condition would pass its deadline, plus a second
// (progress.go).
func (c *DeploymentController) requeueStuckDeployment(d *appsv1.Deployment, st appsv1.DeploymentStatus, now metav1.Time) {
	cur := GetDeploymentCondition(d.Status, appsv1.DeploymentProgressing)
	if !HasProgressDeadline(d) || cur == nil {
		return
	}
	if DeploymentComplete(d, &st) || cur.Reason == TimedOutReason {
		return
	}
	after := sim.FromDuration(cur.LastUpdateTime.Add(secondsDuration(*d.Spec.ProgressDeadlineSeconds)).Sub(now.Time))
	if after < sim.Second {
		// "Make it ratelimited so we stay on the safe side": a Deployment
		// that can neither complete nor time out (its Progressing reason
		// is NewReplicaSetAvailable, from before it lost availability) is
		// checked again and again, at the rate limiter's pace.
		c.result.RateLimited = true
		return
	}
	c.result.RequeueAfter = after + sim.Second
}

// describeDeploymentStatus says in one line what a status write reports,
// and where the rollout stands (see rolloutStanding) if it is under way.
// Most writes of a rollout report counts only, which Deployments of one
// size go through alike, so those messages are shared.
func (c *DeploymentController) describeDeploymentStatus(old, st *appsv1.DeploymentStatus, standing string) string {
	var changed [64]byte
	conds := changed[:0]
	for _, t := range []appsv1.DeploymentConditionType{appsv1.DeploymentAvailable, appsv1.DeploymentProgressing, appsv1.DeploymentReplicaFailure} {
		cond := GetDeploymentCondition(*st, t)
		if cond == nil {
			continue
		}
		if o := GetDeploymentCondition(*old, t); o != nil && o.Status == cond.Status && o.Reason == cond.Reason {
			continue
		}
		conds = append(conds, "; "+string(cond.Type)+"="+string(cond.Status)+" ("+cond.Reason+")"...)
	}
	// Each message is built in one buffer and copied out once, where
	// formatting the counts one by one takes up to six allocations.
	var buf [160]byte
	if len(conds) == 0 && standing == "" {
		counts := deploymentCounts{st.Replicas, st.UpdatedReplicas, st.ReadyReplicas, st.AvailableReplicas}
		return c.statusMessages.get(counts, func() string { return string(appendDeploymentCounts(buf[:0], st)) })
	}
	b := append(appendDeploymentCounts(buf[:0], st), conds...)
	return string(append(b, withStanding(standing)...))
}

// deploymentCounts are what a Deployment's status message reports when
// no condition changed and no rollout is under way.
type deploymentCounts struct{ replicas, updated, ready, available int32 }

// appendDeploymentCounts appends the counts of a status message.
func appendDeploymentCounts(b []byte, st *appsv1.DeploymentStatus) []byte {
	b = strconv.AppendInt(append(b, "Updated status: "...), int64(st.Replicas), 10)
	b = strconv.AppendInt(append(b, " replicas, "...), int64(st.UpdatedReplicas), 10)
	b = strconv.AppendInt(append(b, " updated, "...), int64(st.ReadyReplicas), 10)
	b = strconv.AppendInt(append(b, " ready, "...), int64(st.AvailableReplicas), 10)
	return append(b, " available"...)
}

// rolloutStanding says, for the trace and `why deployment/X`, where d's
// rollout stands after this sync: which ReplicaSet is new, how far it has
// got, and what holds it back (new pods not yet available, the surge
// limit, the availability floor, pause, old pods still running under
// Recreate). It is empty when no rollout is under way (no old pods, not
// paused, not timed out). It reports whether something holds the rollout
// back. The ReplicaSets are read again, since this sync may have scaled
// them.
func (c *DeploymentController) rolloutStanding(d *appsv1.Deployment, allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) (string, bool) {
	cond := GetDeploymentCondition(d.Status, appsv1.DeploymentProgressing)
	timedOut := cond != nil && cond.Reason == TimedOutReason
	if newRS != nil && !d.Spec.Paused && !timedOut && !slices.ContainsFunc(allRSs, func(rs *appsv1.ReplicaSet) bool {
		return rs != nil && rs.UID != newRS.UID
	}) {
		// No old ReplicaSet, so no old pods: what the check below finds
		// whatever the ReplicaSets' latest counts, without reading them.
		return "", false
	}
	fresh := func(rs *appsv1.ReplicaSet) *appsv1.ReplicaSet {
		if o, ok := c.env.Store.Lookup(kinds.ReplicaSet, rs.Namespace, rs.Name); ok && o.GetUID() == rs.UID {
			return o.(*appsv1.ReplicaSet)
		}
		return rs
	}
	var all, old []*appsv1.ReplicaSet
	for _, rs := range allRSs {
		if rs == nil {
			continue
		}
		f := fresh(rs)
		all = append(all, f)
		if newRS == nil || rs.UID != newRS.UID {
			old = append(old, f)
		}
	}
	r := replicas(d.Spec.Replicas)
	oldSpec := replicaCount(old)
	oldPods, _, _ := actualReplicaCount(old)
	if newRS == nil {
		if oldPods > 0 {
			return fmt.Sprintf("rollout: no new replica set yet; waiting for %s of the old ones to stop (Recreate)", countOf(oldPods, "pod")), true
		}
		return "rollout: no new replica set yet", false
	}
	nrs := fresh(newRS)
	if oldPods == 0 && oldSpec == 0 && !d.Spec.Paused && !timedOut {
		// No rollout under way: the status counts say it all.
		return "", false
	}
	where := fmt.Sprintf("new replica set %s has %d of %d replicas, %d available", nrs.Name, nrs.Status.Replicas, r, nrs.Status.AvailableReplicas)
	where += fmt.Sprintf("; old replica sets have %s", countOf(oldPods, "pod"))
	if d.Spec.Paused {
		return "rollout paused: " + where, true
	}
	var waits []string
	if notAvailable := replicas(nrs.Spec.Replicas) - nrs.Status.AvailableReplicas; notAvailable > 0 {
		waits = append(waits, fmt.Sprintf("%s not available yet%s", countOf(notAvailable, "new pod"), c.waitingReasons(nrs)))
	}
	if !isRollingUpdate(d) {
		if oldPods > 0 {
			waits = append(waits, fmt.Sprintf("%s still running (Recreate starts new pods only when they are gone)", countOf(oldPods, "old pod")))
		}
	} else {
		surge, unavailable := MaxSurge(d), MaxUnavailable(d)
		if total := replicaCount(all); replicas(nrs.Spec.Replicas) < r && total >= r+surge {
			waits = append(waits, fmt.Sprintf("no new pod can start: %d pods = replicas + maxSurge (%d + %d)", total, r, surge))
		}
		if _, _, available := actualReplicaCount(all); oldSpec > 0 && available <= r-unavailable {
			waits = append(waits, fmt.Sprintf("no old pod can stop: %d available = replicas - maxUnavailable (%d - %d)", available, r, unavailable))
		}
	}
	if len(waits) == 0 {
		return "rollout: " + where, false
	}
	return "rollout: " + where + "; waiting: " + strings.Join(waits, "; "), true
}

func withStanding(standing string) string {
	if standing == "" {
		return ""
	}
	return "; " + standing
}

// waitingReasons names what the ReplicaSet's pods that are not Ready wait
// on, as kubectl get pods shows it (" (ImagePullBackOff)"); empty if they
// wait on nothing the kubelet names.
func (c *DeploymentController) waitingReasons(rs *appsv1.ReplicaSet) string {
	seen := map[string]bool{}
	for _, o := range controlled(c.env.Store, kinds.Pod, rs) {
		p := o.(*corev1.Pod)
		if IsPodReady(p) || p.DeletionTimestamp != nil {
			continue
		}
		for _, cs := range p.Status.ContainerStatuses {
			if w := cs.State.Waiting; w != nil && w.Reason != "" {
				seen[w.Reason] = true
			}
		}
	}
	if len(seen) == 0 {
		return ""
	}
	reasons := make([]string, 0, len(seen))
	for r := range seen {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	return " (" + strings.Join(reasons, ", ") + ")"
}
