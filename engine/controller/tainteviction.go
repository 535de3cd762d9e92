package controller

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/component"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/store"
	"github.com/kubeloop/kubeloop/engine/trace"
)

// TaintEvictionControllerName is the taint-eviction controller's name in
// the trace and the source of its Events.
const TaintEvictionControllerName = "taint-eviction-controller"

// The DisruptionTarget condition the taint-eviction controller adds before
// it deletes a pod (addConditionAndDeletePod).
const (
	DisruptionReasonTaintManager  = "DeletionByTaintManager"
	DisruptionMessageTaintManager = "Taint manager: deleting due to NoExecute taint"
)

const (
	whyTaintEvict = "A NoExecute taint evicts the pods that do not tolerate it, and those that tolerate it for a " +
		"limited time once that time runs out; every pod gets 300 s for not-ready and unreachable by default."
	whyTaintSchedule = "The taint-eviction controller waits out the shortest matching toleration before evicting, " +
		"so a node that comes back quickly keeps its pods."
	whyTaintCancel = "The NoExecute taint is gone (or now tolerated), so the eviction that was waiting for it is cancelled."
)

// GetMatchingTolerations reports whether every taint is tolerated by some
// toleration and, if so, the first toleration that tolerates each taint,
// in taint order (v1helper.GetMatchingTolerations).
func GetMatchingTolerations(taints []corev1.Taint, tolerations []corev1.Toleration) (bool, []corev1.Toleration) {
	if len(taints) == 0 {
		return true, []corev1.Toleration{}
	}
	if len(tolerations) == 0 {
		return false, []corev1.Toleration{}
	}
	out := make([]corev1.Toleration, 0, len(taints))
	for i := range taints {
		tolerated := false
		for j := range tolerations {
			if tolerations[j].ToleratesTaint(&taints[i]) {
				out = append(out, tolerations[j])
				tolerated = true
				break
			}
		}
		if !tolerated {
			return false, []corev1.Toleration{}
		}
	}
	return true, out
}

// MinTolerationTime is the shortest tolerationSeconds among tolerations:
// 0 if there are none or one is ≤ 0 (evict now), -1 if none has a limit
// (tolerate forever). It also returns the index of the toleration that
// sets it (-1 if none).
func MinTolerationTime(tolerations []corev1.Toleration) (sim.Tick, int) {
	if len(tolerations) == 0 {
		return 0, -1
	}
	minSecs, at := int64(math.MaxInt64), -1
	for i := range tolerations {
		if s := tolerations[i].TolerationSeconds; s != nil {
			if *s <= 0 {
				return 0, i
			}
			if *s < minSecs {
				minSecs, at = *s, i
			}
		}
	}
	if at < 0 {
		return -1, -1
	}
	return sim.Seconds(minSecs), at
}

// TolerationString describes a toleration as a learner reads it:
// "node.kubernetes.io/unreachable:NoExecute op=Exists for 300s".
func TolerationString(t corev1.Toleration) string {
	var b strings.Builder
	if t.Key == "" {
		b.WriteString("<every key>")
	} else {
		b.WriteString(t.Key)
	}
	if t.Operator == corev1.TolerationOpExists {
		b.WriteString(" op=Exists")
	} else {
		b.WriteString("=" + t.Value)
	}
	if t.Effect != "" {
		b.WriteString(":" + string(t.Effect))
	}
	if t.TolerationSeconds != nil {
		fmt.Fprintf(&b, " for %ds", *t.TolerationSeconds)
	}
	return b.String()
}

// scheduledEviction is one pod's pending deletion (a TimedWorker).
type scheduledEviction struct {
	created, fireAt sim.Tick
	cause           uint64 // the step that tainted the node
	node            string
	taint           corev1.Taint
	toleration      *corev1.Toleration // nil: the taint is not tolerated at all
	fired           bool               // kept after firing, as kube keeps a nil worker
}

// TaintEvictionController deletes the pods of NoExecute-tainted nodes that
// do not tolerate the taints, at once or when their tolerationSeconds run
// out, as kube-controller-manager's taint-eviction-controller does
// (pkg/controller/tainteviction, a separate controller since 1.29): it
// adds the DisruptionTarget condition (DeletionByTaintManager), records
// the TaintManagerEviction event "Marking for deletion Pod ns/name", and
// deletes the pod with its default grace period. A scheduled deletion is
// cancelled, with the event "Cancelling deletion of Pod ns/name", when
// the taint goes away or the pod leaves.
type TaintEvictionController struct {
	worker
	taintedNodes map[string][]corev1.Taint
	taintCause   map[string]uint64
	evictions    map[string]*scheduledEviction // by pod key
}

var _ component.Reactor = (*TaintEvictionController)(nil)

// NewTaintEvictionController builds the controller.
func NewTaintEvictionController(env component.Env) *TaintEvictionController {
	ensurePodNodeIndex(env.Store)
	c := &TaintEvictionController{worker: newWorker(TaintEvictionControllerName, env, 8),
		taintedNodes: map[string][]corev1.Taint{}, taintCause: map[string]uint64{},
		evictions: map[string]*scheduledEviction{}}
	c.reconcile = c.Reconcile
	return c
}

func noExecuteTaints(ts []corev1.Taint) []corev1.Taint {
	var out []corev1.Taint
	for _, t := range ts {
		if t.Effect == corev1.TaintEffectNoExecute {
			out = append(out, t)
		}
	}
	return out
}

// Observe queues a node whose NoExecute taints changed, and a pod whose
// node or tolerations changed (PodUpdated, NodeUpdated).
func (c *TaintEvictionController) Observe(ev store.Event) {
	switch ev.Kind {
	case kinds.Node:
		if ev.Type == store.Modified {
			oldT := noExecuteTaints(ev.Old.(*corev1.Node).Spec.Taints)
			newT := noExecuteTaints(ev.Object.(*corev1.Node).Spec.Taints)
			if equality.Semantic.DeepEqual(oldT, newT) {
				return
			}
		}
		c.queue.Add("node:"+ev.Object.GetName(), ev.Cause)
	case kinds.Pod:
		p := ev.Object.(*corev1.Pod)
		if ev.Type == store.Modified {
			old := ev.Old.(*corev1.Pod)
			if old.Spec.NodeName == p.Spec.NodeName && slices.EqualFunc(old.Spec.Tolerations, p.Spec.Tolerations, tolerationEqual) {
				return
			}
		}
		if p.Spec.NodeName == "" && ev.Type != store.Deleted {
			return
		}
		c.queue.Add("pod:"+p.Namespace+"/"+p.Name, ev.Cause)
	}
}

// tolerationEqual is equality.Semantic.DeepEqual for tolerations, without
// reflection (it runs for every pod update); slices.EqualFunc, like
// Semantic, takes nil and empty lists as equal.
func tolerationEqual(a, b corev1.Toleration) bool {
	return a.Key == b.Key && a.Operator == b.Operator && a.Value == b.Value && a.Effect == b.Effect &&
		(a.TolerationSeconds == nil) == (b.TolerationSeconds == nil) &&
		(a.TolerationSeconds == nil || *a.TolerationSeconds == *b.TolerationSeconds)
}

// Reconcile handles "node:NAME", "pod:NS/NAME" and "evict:NS/NAME" keys.
func (c *TaintEvictionController) Reconcile(key string) (Result, error) {
	kind, rest, _ := strings.Cut(key, ":")
	switch kind {
	case "node":
		c.handleNodeUpdate(rest)
	case "pod":
		c.handlePodUpdate(rest)
	case "evict":
		return Result{}, c.fire(rest)
	}
	return Result{}, nil
}

func (c *TaintEvictionController) handleNodeUpdate(name string) {
	o, ok := c.env.Store.Lookup(kinds.Node, "", name)
	if !ok {
		delete(c.taintedNodes, name)
		delete(c.taintCause, name)
		return
	}
	node := o.(*corev1.Node)
	taints := noExecuteTaints(node.Spec.Taints)
	if len(taints) == 0 {
		delete(c.taintedNodes, name)
		delete(c.taintCause, name)
	} else {
		c.taintedNodes[name] = taints
		c.taintCause[name] = c.cause
	}
	pods := c.env.Store.ByIndex(kinds.Pod, PodNodeIndex, name)
	sort.Slice(pods, func(i, j int) bool { return Key(pods[i]) < Key(pods[j]) })
	for _, o := range pods {
		p := o.(*corev1.Pod)
		if len(taints) == 0 {
			c.cancel(Key(p), p)
			continue
		}
		c.processPodOnNode(p, name, taints)
	}
}

func (c *TaintEvictionController) handlePodUpdate(key string) {
	ns, name := SplitKey(key)
	o, ok := c.env.Store.Lookup(kinds.Pod, ns, name)
	if !ok {
		c.cancel(key, nil)
		delete(c.evictions, key)
		return
	}
	p := o.(*corev1.Pod)
	taints, ok := c.taintedNodes[p.Spec.NodeName]
	if p.Spec.NodeName == "" || !ok {
		return
	}
	c.processPodOnNode(p, p.Spec.NodeName, taints)
}

// processPodOnNode schedules, keeps or cancels the pod's eviction.
func (c *TaintEvictionController) processPodOnNode(p *corev1.Pod, node string, taints []corev1.Taint) {
	key := Key(p)
	now := c.env.Loop.Now()
	cause := c.taintCause[node]
	if cause == 0 {
		cause = c.cause
	}
	allTolerated, used := GetMatchingTolerations(taints, p.Spec.Tolerations)
	if !allTolerated {
		c.cancel(key, p)
		// The first taint nothing tolerates.
		var bad corev1.Taint
		for _, t := range taints {
			if ok, _ := GetMatchingTolerations([]corev1.Taint{t}, p.Spec.Tolerations); !ok {
				bad = t
				break
			}
		}
		c.schedule(key, &scheduledEviction{created: now, fireAt: now, cause: cause, node: node, taint: bad})
		return
	}
	d, at := MinTolerationTime(used)
	if d < 0 {
		c.cancel(key, p)
		return
	}
	if ex := c.evictions[key]; ex != nil {
		if ex.fired || ex.created+d < now+d {
			return // the earlier deadline stands (or the pod is already being deleted)
		}
		c.cancel(key, p)
	}
	// The toleration that runs out first, and the taint it tolerates.
	tol, taint := used[at], taints[at]
	c.schedule(key, &scheduledEviction{created: now, fireAt: now + d, cause: cause, node: node, taint: taint, toleration: &tol})
}

func (c *TaintEvictionController) schedule(key string, e *scheduledEviction) {
	if ex := c.evictions[key]; ex != nil && ex.fired {
		return // AddWork skips work that already ran for this pod
	}
	c.evictions[key] = e
	ns, name := SplitKey(key)
	d := e.fireAt - c.env.Loop.Now()
	if d > 0 {
		c.cause = e.cause
		c.record(trace.Maintain, ns, "pod/"+name, fmt.Sprintf(
			"pod %s tolerates taint %s of node %s for %s (toleration %s): deletion scheduled at %s",
			name, TaintString(e.taint), e.node, d.Duration(), TolerationString(*e.toleration), e.fireAt), whyTaintSchedule)
		c.queue.AddAfter("evict:"+key, e.cause, d)
		return
	}
	c.queue.Add("evict:"+key, e.cause)
}

// cancel drops a pending eviction, with the cancelling event if it had
// not fired yet. pod is the pod for the event (nil if gone).
func (c *TaintEvictionController) cancel(key string, pod *corev1.Pod) {
	e := c.evictions[key]
	if e == nil {
		return
	}
	delete(c.evictions, key)
	if e.fired || pod == nil {
		return
	}
	seq := c.record(trace.Maintain, pod.Namespace, "pod/"+pod.Name, fmt.Sprintf(
		"cancelled the scheduled deletion of pod %s: node %s no longer has a NoExecute taint it does not tolerate", pod.Name, e.node),
		whyTaintCancel)
	c.event(seq, TaintEvictionControllerName, pod, corev1.EventTypeNormal, "TaintManagerEviction",
		"Cancelling deletion of Pod "+Key(pod))
}

// fire is deletePodHandler: the event, the DisruptionTarget condition, the
// deletion.
func (c *TaintEvictionController) fire(key string) error {
	e := c.evictions[key]
	now := c.env.Loop.Now()
	if e == nil || e.fired || e.fireAt > now {
		return nil
	}
	e.fired = true
	ns, name := SplitKey(key)
	o, ok := c.env.Store.Lookup(kinds.Pod, ns, name)
	if !ok {
		return nil
	}
	p := o.(*corev1.Pod)
	var msg string
	if e.toleration == nil {
		msg = fmt.Sprintf("deleting pod %s: node %s has taint %s and the pod has no toleration for it",
			name, e.node, TaintString(e.taint))
	} else {
		added := ""
		if e.taint.TimeAdded != nil {
			added = fmt.Sprintf(", tainted at %s", sim.FromTime(e.taint.TimeAdded.Time))
		}
		msg = fmt.Sprintf("deleting pod %s: its toleration %s of taint %s on node %s expired%s",
			name, TolerationString(*e.toleration), TaintString(e.taint), e.node, added)
	}
	c.cause = e.cause
	seq := c.record(trace.Maintain, ns, "pod/"+name, msg, whyTaintEvict)
	c.event(seq, TaintEvictionControllerName, p, corev1.EventTypeNormal, "TaintManagerEviction", "Marking for deletion Pod "+key)
	upd := p.DeepCopy()
	if setDisruptionTarget(&upd.Status, DisruptionReasonTaintManager, DisruptionMessageTaintManager, c.now()) {
		if _, err := c.env.API.UpdateStatus(c.actor(seq), upd); err != nil {
			if apierrors.IsNotFound(err) {
				return nil
			}
			return err
		}
	}
	if _, err := c.env.API.Delete(c.actor(seq), kinds.Pod, ns, name, apiserver.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return nil
}

// setDisruptionTarget adds or updates the pod's DisruptionTarget
// condition (UpdatePodCondition) and reports whether it changed.
func setDisruptionTarget(st *corev1.PodStatus, reason, message string, now metav1.Time) bool {
	c := corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: reason,
		Message: message, LastTransitionTime: now}
	for i := range st.Conditions {
		old := &st.Conditions[i]
		if old.Type != corev1.DisruptionTarget {
			continue
		}
		if old.Status == c.Status && old.Reason == c.Reason && old.Message == c.Message {
			return false
		}
		if old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
		}
		*old = c
		return true
	}
	st.Conditions = append(st.Conditions, c)
	return true
}
