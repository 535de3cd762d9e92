package controller

import (
	"fmt"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubeloop/kubeloop/engine/component"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/store"
	"github.com/kubeloop/kubeloop/engine/trace"
)

// DisruptionControllerName is the disruption controller's name in the trace.
const DisruptionControllerName = "disruption-controller"

// DisruptedPodTimeout is how long an eviction the API server recorded in
// status.disruptedPods counts against the budget before the pod is seen
// terminating (DeletionTimeout, 2 minutes).
const DisruptedPodTimeout = 2 * sim.Minute

const whyPDBStatus = "A PodDisruptionBudget's status says how many of its pods are healthy and how many more may " +
	"be evicted; the Eviction API reads it to refuse evictions that would go below the budget."

// DisruptionController computes every PodDisruptionBudget's status, as
// kube-controller-manager's disruption controller does
// (pkg/controller/disruption): expectedPods, desiredHealthy,
// currentHealthy, disruptionsAllowed, the DisruptionAllowed condition,
// and the cleanup of status.disruptedPods. With an integer minAvailable the
// expected count is the number of selected pods; with a percentage or
// maxUnavailable it is the scale of their controllers (a ReplicaSet's
// replicas, or its Deployment's). Pods without such a controller then
// fail the sync, as in Kubernetes (no disruption allowed).
type DisruptionController struct {
	worker
}

var _ component.Reactor = (*DisruptionController)(nil)

// NewDisruptionController builds the controller.
func NewDisruptionController(env component.Env) *DisruptionController {
	EnsureIndexes(env.Store)
	c := &DisruptionController{worker: newWorker(DisruptionControllerName, env, 1)}
	c.reconcile = c.Reconcile
	return c
}

// Observe queues the budgets a change concerns: the budget itself, the
// budgets selecting a changed pod (old or new labels), every budget of the
// namespace when a ReplicaSet or Deployment changes scale.
func (c *DisruptionController) Observe(ev store.Event) {
	switch ev.Kind {
	case kinds.PDB:
		if ev.Type != store.Deleted {
			c.queue.Add(Key(ev.Object), ev.Cause)
		}
	case kinds.Pod:
		c.enqueueFor(ev.Object.(*corev1.Pod), ev.Cause)
		if ev.Old != nil {
			if old := ev.Old.(*corev1.Pod); !kinds.SameLabels(old.Labels, ev.Object.GetLabels()) {
				c.enqueueFor(old, ev.Cause)
			}
		}
	case kinds.ReplicaSet, kinds.Deployment:
		if ev.Old != nil && ev.Old.GetGeneration() == ev.Object.GetGeneration() {
			return
		}
		for _, o := range c.env.Store.List(kinds.PDB, ev.Object.GetNamespace()) {
			c.queue.Add(Key(o), ev.Cause)
		}
	}
}

func (c *DisruptionController) enqueueFor(p *corev1.Pod, cause uint64) {
	if c.env.Store.Count(kinds.PDB) == 0 {
		return // no budget to queue: skip listing them for every pod event
	}
	for _, o := range c.env.Store.List(kinds.PDB, p.Namespace) {
		pdb := o.(*policyv1.PodDisruptionBudget)
		if pdbSelects(pdb, p) {
			c.queue.Add(Key(pdb), cause)
		}
	}
}

func pdbSelects(pdb *policyv1.PodDisruptionBudget, p *corev1.Pod) bool {
	if pdb.Spec.Selector == nil {
		return false
	}
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	return err == nil && sel.Matches(labels.Set(p.Labels))
}

// PDBNumbers is what the disruption controller computes for one budget.
type PDBNumbers struct {
	Expected, DesiredHealthy, CurrentHealthy, DisruptionsAllowed int32
}

// ComputePDB computes a budget's numbers from its spec, the number of
// pods its controllers expect (expected), and the healthy pods: it is
// getExpectedPodCount and updatePdbStatus's arithmetic, percentages
// rounded up.
func ComputePDB(spec policyv1.PodDisruptionBudgetSpec, expected, healthy int32) PDBNumbers {
	n := PDBNumbers{Expected: expected, CurrentHealthy: healthy}
	switch {
	case spec.MaxUnavailable != nil:
		maxU, _ := intstr.GetScaledValueFromIntOrPercent(spec.MaxUnavailable, int(expected), true)
		n.DesiredHealthy = max(expected-int32(maxU), 0)
	case spec.MinAvailable != nil:
		if spec.MinAvailable.Type == intstr.Int {
			n.DesiredHealthy = spec.MinAvailable.IntVal
		} else {
			minA, _ := intstr.GetScaledValueFromIntOrPercent(spec.MinAvailable, int(expected), true)
			n.DesiredHealthy = int32(minA)
		}
	}
	n.DisruptionsAllowed = max(n.CurrentHealthy-n.DesiredHealthy, 0)
	return n
}

// Reconcile syncs one budget's status.
func (c *DisruptionController) Reconcile(key string) (Result, error) {
	ns, name := SplitKey(key)
	o, ok := c.env.Store.Lookup(kinds.PDB, ns, name)
	if !ok {
		return Result{}, nil
	}
	pdb := o.(*policyv1.PodDisruptionBudget)
	var pods []*corev1.Pod
	for _, po := range c.env.Store.List(kinds.Pod, ns) {
		p := po.(*corev1.Pod)
		if pdbSelects(pdb, p) {
			pods = append(pods, p)
		}
	}
	now := c.env.Loop.Now()
	// status.disruptedPods: drop pods now terminating or gone, and those
	// whose eviction was not confirmed within the timeout.
	byName := map[string]*corev1.Pod{}
	for _, p := range pods {
		byName[p.Name] = p
	}
	disrupted := map[string]metav1.Time{}
	var recheck sim.Tick
	for podName, t := range pdb.Status.DisruptedPods {
		p := byName[podName]
		if p == nil || p.DeletionTimestamp != nil {
			continue
		}
		expires := sim.FromTime(t.Time) + DisruptedPodTimeout
		if expires <= now {
			continue
		}
		disrupted[podName] = t
		if recheck == 0 || expires < recheck {
			recheck = expires
		}
	}
	var healthy int32
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		if _, ok := disrupted[p.Name]; ok {
			continue
		}
		if IsPodReady(p) {
			healthy++
		}
	}
	upd := pdb.DeepCopy()
	upd.Status.ObservedGeneration = pdb.Generation
	upd.Status.DisruptedPods = disrupted
	if len(disrupted) == 0 {
		upd.Status.DisruptedPods = nil
	}
	expected, failed := c.expectedCount(pdb, pods)
	var cond metav1.Condition
	if failed != "" {
		upd.Status.DisruptionsAllowed = 0
		cond = metav1.Condition{Type: policyv1.DisruptionAllowedCondition, Status: metav1.ConditionFalse,
			Reason: policyv1.SyncFailedReason, Message: failed}
	} else {
		n := ComputePDB(pdb.Spec, expected, healthy)
		upd.Status.ExpectedPods, upd.Status.DesiredHealthy = n.Expected, n.DesiredHealthy
		upd.Status.CurrentHealthy, upd.Status.DisruptionsAllowed = n.CurrentHealthy, n.DisruptionsAllowed
		cond = metav1.Condition{Type: policyv1.DisruptionAllowedCondition, Status: metav1.ConditionTrue,
			Reason: policyv1.SufficientPodsReason}
		if n.DisruptionsAllowed == 0 {
			cond.Status, cond.Reason = metav1.ConditionFalse, policyv1.InsufficientPodsReason
		}
	}
	cond.ObservedGeneration = pdb.Generation
	cond.LastTransitionTime = c.now()
	for _, old := range pdb.Status.Conditions {
		if old.Type == cond.Type && old.Status == cond.Status {
			cond.LastTransitionTime = old.LastTransitionTime
		}
	}
	upd.Status.Conditions = []metav1.Condition{cond}
	res := Result{}
	if recheck > 0 {
		res.RequeueAfter = recheck - now
	}
	if equality.Semantic.DeepEqual(upd.Status, pdb.Status) {
		return res, nil
	}
	msg := fmt.Sprintf("Updated status: %d healthy of %d expected pods, %d desired: %d disruptions allowed",
		upd.Status.CurrentHealthy, upd.Status.ExpectedPods, upd.Status.DesiredHealthy, upd.Status.DisruptionsAllowed)
	if failed != "" {
		msg = "Updated status: sync failed (" + failed + "): no disruption allowed"
	}
	seq := c.record(trace.Maintain, ns, "poddisruptionbudget/"+name, msg, whyPDBStatus)
	if _, err := c.env.API.UpdateStatus(c.actor(seq), upd); err != nil {
		if apierrors.IsNotFound(err) {
			return Result{}, nil
		}
		return Result{}, err
	}
	return res, nil
}

// expectedCount is getExpectedPodCount: the selected pods for an integer
// minAvailable, else the scale of their controllers (each counted once).
// It returns a sync failure message if a pod has no such controller.
func (c *DisruptionController) expectedCount(pdb *policyv1.PodDisruptionBudget, pods []*corev1.Pod) (int32, string) {
	if pdb.Spec.MaxUnavailable == nil && pdb.Spec.MinAvailable != nil && pdb.Spec.MinAvailable.Type == intstr.Int {
		return int32(len(pods)), ""
	}
	if pdb.Spec.MaxUnavailable == nil && pdb.Spec.MinAvailable == nil {
		return int32(len(pods)), ""
	}
	seen := map[string]bool{}
	var total int32
	sorted := append([]*corev1.Pod(nil), pods...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	for _, p := range sorted {
		ref := metav1.GetControllerOfNoCopy(p)
		if ref == nil || ref.Kind != "ReplicaSet" {
			return 0, fmt.Sprintf("found no controllers for pod %q", p.Name)
		}
		o, ok := c.env.Store.Lookup(kinds.ReplicaSet, p.Namespace, ref.Name)
		if !ok || o.GetUID() != ref.UID {
			return 0, fmt.Sprintf("found no controllers for pod %q", p.Name)
		}
		rs := o.(*appsv1.ReplicaSet)
		uid, scale := string(rs.UID), replicasOf(rs.Spec.Replicas)
		if dref := metav1.GetControllerOfNoCopy(rs); dref != nil && dref.Kind == "Deployment" {
			if d, ok := c.env.Store.Lookup(kinds.Deployment, p.Namespace, dref.Name); ok && d.GetUID() == dref.UID {
				uid, scale = string(d.GetUID()), replicasOf(d.(*appsv1.Deployment).Spec.Replicas)
			}
		}
		if !seen[uid] {
			seen[uid] = true
			total += scale
		}
	}
	return total, ""
}

func replicasOf(p *int32) int32 {
	if p == nil {
		return 1
	}
	return *p
}
