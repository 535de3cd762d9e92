package controller

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubeloop/kubeloop/engine/component"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/metrics"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/store"
	"github.com/kubeloop/kubeloop/engine/trace"
)

// HPAControllerName is the HorizontalPodAutoscaler controller's name in the
// trace and the source of its Events, as kube-controller-manager names it.
const HPAControllerName = "horizontal-pod-autoscaler"

// HPAWorkers is --concurrent-horizontal-pod-autoscaler-syncs.
const HPAWorkers = 5

// Why-sentences of the HPA controller's steps.
const (
	whyHPAScale    = "The HorizontalPodAutoscaler sets the target's replicas to ceil(current replicas × current metric / target), within its limits, every 15 s."
	whyHPAKeep     = "The HorizontalPodAutoscaler recomputes its recommendation every 15 s; it only changes the replicas when the ratio leaves the 0.1 tolerance and its windows and limits allow."
	whyHPAFailed   = "Without a metric for every target pod, or without the target's scale, the HorizontalPodAutoscaler cannot compute a replica count and leaves the replicas as they are."
	whyHPADisabled = "A target scaled to zero replicas is left alone: the HorizontalPodAutoscaler only resumes when something scales it up again."
)

// HPADecision is the controller's account of its latest sync of one HPA,
// for `why hpa/X`.
type HPADecision struct {
	// At is when the sync ran.
	At sim.Tick
	// Current and Desired are the target's replicas before and after.
	Current, Desired int32
	// Steps are the sync's reasoning in order: the metric arithmetic, the
	// stabilization window and the limits, the outcome.
	Steps []string
	// Error is the reason the sync could not compute a count, if any.
	Error string
}

// HPAController is kube-controller-manager's HorizontalPodAutoscaler
// controller (pkg/controller/podautoscaler, autoscaling/v2): every 15 s per
// HPA it reads the target's scale and the pods' metrics from the
// metrics-server, computes the desired replicas and writes them through
// the target's scale.
//
// Supported: Resource and ContainerResource metrics (cpu, memory) with
// Utilization or AverageValue targets, on Deployments. Pods, Object and
// External metrics are reported as not simulated (ScalingActive False),
// not silently ignored.
type HPAController struct {
	worker
	metrics *metrics.Server
	// recs and behav are the per-HPA memories of horizontal.go:
	// recommendations for the stabilization windows, scale events for the
	// behavior rate limits.
	recs      map[string][]timedRecommendation
	behav     map[string]*behaviorState
	decisions map[string]HPADecision
}

var _ component.Reactor = (*HPAController)(nil)

// NewHPAController builds the HPA controller over a metrics-server.
func NewHPAController(env component.Env, m *metrics.Server) *HPAController {
	c := &HPAController{worker: newWorker(HPAControllerName, env, HPAWorkers), metrics: m,
		recs: map[string][]timedRecommendation{}, behav: map[string]*behaviorState{}, decisions: map[string]HPADecision{}}
	c.reconcile = c.Reconcile
	return c
}

// Observe queues an HPA when it changes. As in kube, where the HPA queue's
// rate limiter is a fixed 15 s interval, a new or changed HPA is synced at
// the next 15 s tick of its own, not at once.
func (c *HPAController) Observe(ev store.Event) {
	if ev.Kind != kinds.HPA {
		return
	}
	key := Key(ev.Object)
	if ev.Type == store.Deleted {
		delete(c.recs, key)
		delete(c.behav, key)
		delete(c.decisions, key)
		return
	}
	c.queue.AddAfter(key, ev.Cause, HPASyncPeriod)
}

// Explain returns the latest decision about an HPA.
func (c *HPAController) Explain(namespace, name string) (HPADecision, bool) {
	d, ok := c.decisions[namespace+"/"+name]
	return d, ok
}

// Reconcile syncs one HPA (reconcileAutoscaler) and asks to be run again
// after the sync period.
func (c *HPAController) Reconcile(key string) (Result, error) {
	ns, name := SplitKey(key)
	o, ok := c.env.Store.Lookup(kinds.HPA, ns, name)
	if !ok {
		return Result{}, nil
	}
	c.sync(o.(*autoscalingv2.HorizontalPodAutoscaler))
	return Result{RequeueAfter: HPASyncPeriod}, nil
}

// hpaSync is one sync in progress.
type hpaSync struct {
	c    *HPAController
	hpa  *autoscalingv2.HorizontalPodAutoscaler // the copy being changed
	now  sim.Tick
	dec  HPADecision
	warn []hpaWarning
}

type hpaWarning struct{ reason, message string }

func (s *hpaSync) setCondition(t autoscalingv2.HorizontalPodAutoscalerConditionType, status corev1.ConditionStatus, reason, message string) {
	conds := s.hpa.Status.Conditions
	i := 0
	for ; i < len(conds) && conds[i].Type != t; i++ {
	}
	if i == len(conds) {
		conds = append(conds, autoscalingv2.HorizontalPodAutoscalerCondition{Type: t})
	}
	if conds[i].Status != status {
		conds[i].LastTransitionTime = metav1.NewTime(s.now.Time())
	}
	conds[i].Status, conds[i].Reason, conds[i].Message = status, reason, message
	s.hpa.Status.Conditions = conds
}

func (c *HPAController) sync(orig *autoscalingv2.HorizontalPodAutoscaler) {
	key := Key(orig)
	s := &hpaSync{c: c, hpa: orig.DeepCopy(), now: c.env.Loop.Now()}
	s.dec.At = s.now
	h := s.hpa
	ref := h.Spec.ScaleTargetRef
	objRef := "horizontalpodautoscaler/" + h.Name

	// The target's scale.
	dep, err := c.scaleOf(h.Namespace, ref)
	if err != nil {
		msg := err.Error()
		s.warn = append(s.warn, hpaWarning{"FailedGetScale", msg})
		s.setCondition(autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedGetScale",
			"the HPA controller was unable to get the target's current scale: "+msg)
		s.dec.Error = "cannot get the scale of " + strings.ToLower(ref.Kind) + "/" + ref.Name + ": " + msg
		s.dec.Steps = append(s.dec.Steps, s.dec.Error)
		c.finish(s, orig, objRef, trace.Maintain, "cannot scale: "+msg, whyHPAFailed)
		return
	}
	s.setCondition(autoscalingv2.AbleToScale, corev1.ConditionTrue, "SucceededGetScale",
		"the HPA controller was able to get the target's current scale")
	current := int32(1)
	if dep.Spec.Replicas != nil {
		current = *dep.Spec.Replicas
	}
	s.dec.Current = current
	if c.recs[key] == nil {
		c.recs[key] = []timedRecommendation{{current, s.now}} // recordInitialRecommendation
	}
	minR := int32(1)
	if h.Spec.MinReplicas != nil {
		minR = *h.Spec.MinReplicas
	}
	maxR := h.Spec.MaxReplicas
	target := strings.ToLower(ref.Kind) + "/" + ref.Name

	var desired int32
	var reason string
	var statuses []autoscalingv2.MetricStatus
	rescale := true
	switch {
	case current == 0 && minR != 0:
		desired, rescale = 0, false
		s.setCondition(autoscalingv2.ScalingActive, corev1.ConditionFalse, "ScalingDisabled",
			"scaling is disabled since the replica count of the target is zero")
		s.dec.Steps = append(s.dec.Steps, target+" has 0 replicas: autoscaling is disabled until it is scaled up")
	case current > maxR:
		desired, reason = maxR, "Current number of replicas above Spec.MaxReplicas"
		s.dec.Steps = append(s.dec.Steps, fmt.Sprintf("%d replicas is above maxReplicas %d", current, maxR))
	case current < minR:
		desired, reason = minR, "Current number of replicas below Spec.MinReplicas"
		s.dec.Steps = append(s.dec.Steps, fmt.Sprintf("%d replicas is below minReplicas %d", current, minR))
	default:
		proposal, metricName, sts, ok := c.computeReplicasForMetrics(s, dep, current)
		statuses = sts
		if !ok {
			s.hpa.Status.CurrentReplicas = current
			s.hpa.Status.CurrentMetrics = statuses
			c.finish(s, orig, objRef, trace.Maintain, "cannot compute a replica count: "+s.dec.Error, whyHPAFailed)
			return
		}
		desired = proposal
		switch {
		case desired > current:
			reason = metricName + " above target"
		case desired < current:
			reason = "All metrics below target"
		}
		var lr limitResult
		if h.Spec.Behavior == nil {
			lr, c.recs[key] = normalizeDefault(c.recs[key], current, desired, minR, maxR, s.now)
		} else {
			st := c.behav[key]
			if st == nil {
				st = &behaviorState{Recs: c.recs[key]}
				c.behav[key] = st
			}
			st.Recs = c.recs[key]
			lr = normalizeWithBehavior(st, withBehaviorDefaults(h.Spec.Behavior), current, desired, minR, maxR, s.now)
			c.recs[key] = st.Recs
		}
		s.setCondition(autoscalingv2.AbleToScale, corev1.ConditionTrue, lr.AbleReason, lr.AbleMessage)
		limited := corev1.ConditionFalse
		if lr.Limited {
			limited = corev1.ConditionTrue
		}
		s.setCondition(autoscalingv2.ScalingLimited, limited, lr.LimitReason, lr.LimitMessage)
		if lr.Text != "" {
			s.dec.Steps = append(s.dec.Steps, lr.Text)
		}
		desired = lr.Replicas
		rescale = desired != current
	}

	if !rescale {
		desired = current
		s.dec.Desired = desired
		s.dec.Steps = append(s.dec.Steps, fmt.Sprintf("keep %d", current))
		c.setStatus(s, current, desired, statuses, false)
		c.finish(s, orig, objRef, trace.Maintain, strings.Join(s.dec.Steps, "; "), whyHPAKeep)
		return
	}

	// Rescale through the target's scale subresource.
	s.dec.Desired = desired
	s.dec.Steps = append(s.dec.Steps, fmt.Sprintf("scale %s from %d to %d", target, current, desired))
	seq := c.record(trace.Maintain, h.Namespace, objRef, strings.Join(s.dec.Steps, "; "), whyHPAScale)
	upd := dep.DeepCopy()
	upd.Spec.Replicas = &desired
	if _, err := c.env.API.Update(c.actor(seq), upd); err != nil {
		msg := fmt.Sprintf("New size: %d; reason: %s; error: %v", desired, reason, err)
		c.event(seq, HPAControllerName, orig, corev1.EventTypeWarning, "FailedRescale", msg)
		s.setCondition(autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedUpdateScale",
			"the HPA controller was unable to update the target scale: "+err.Error())
		s.hpa.Status.CurrentReplicas = current
		s.hpa.Status.CurrentMetrics = statuses
		c.writeStatus(seq, orig, s.hpa)
		c.decisions[key] = s.dec
		return
	}
	s.setCondition(autoscalingv2.AbleToScale, corev1.ConditionTrue, "SucceededRescale",
		fmt.Sprintf("the HPA controller was able to update the target scale to %d", desired))
	c.event(seq, HPAControllerName, orig, corev1.EventTypeNormal, "SuccessfulRescale",
		fmt.Sprintf("New size: %d; reason: %s", desired, reason))
	if h.Spec.Behavior != nil {
		st := c.behav[key]
		if st == nil {
			st = &behaviorState{}
			c.behav[key] = st
		}
		storeScaleEvent(st, withBehaviorDefaults(h.Spec.Behavior), current, desired, s.now)
	}
	c.setStatus(s, current, desired, statuses, true)
	c.writeStatus(seq, orig, s.hpa)
	c.decisions[key] = s.dec
}

// finish records the warnings, then writes the status if it changed, with
// a trace event saying what the sync decided.
func (c *HPAController) finish(s *hpaSync, orig *autoscalingv2.HorizontalPodAutoscaler, objRef string, col trace.Column, message, why string) {
	c.decisions[Key(orig)] = s.dec
	changed := !equality.Semantic.DeepEqual(orig.Status, s.hpa.Status)
	if !changed && len(s.warn) == 0 {
		return
	}
	seq := c.record(col, orig.Namespace, objRef, message, why)
	for _, w := range s.warn {
		c.correlatedEvent(seq, orig, corev1.EventTypeWarning, w.reason, w.message)
	}
	if changed {
		c.writeStatus(seq, orig, s.hpa)
	}
}

func (c *HPAController) correlatedEvent(seq uint64, obj *autoscalingv2.HorizontalPodAutoscaler, eventType, reason, message string) {
	rev := int64(0)
	if e, ok := c.env.Trace.Get(seq); ok {
		rev = e.Rev
	}
	c.env.API.RecordEventCorrelated(c.actor(seq), corev1.EventSource{Component: HPAControllerName}, obj, eventType, reason, message)
	c.env.Trace.SetRev(seq, rev)
}

// writeStatus writes the HPA's status, keeping the revision stamped on seq
// if the step already wrote something else (the target's scale).
func (c *HPAController) writeStatus(seq uint64, orig, upd *autoscalingv2.HorizontalPodAutoscaler) {
	if equality.Semantic.DeepEqual(orig.Status, upd.Status) {
		return
	}
	rev := int64(0)
	if e, ok := c.env.Trace.Get(seq); ok {
		rev = e.Rev
	}
	_, _ = c.env.API.UpdateStatus(c.actor(seq), upd) // the next sync retries
	if rev != 0 {
		c.env.Trace.SetRev(seq, rev)
	}
}

// setStatus is horizontal.go's setStatus.
func (c *HPAController) setStatus(s *hpaSync, current, desired int32, statuses []autoscalingv2.MetricStatus, rescale bool) {
	st := &s.hpa.Status
	st.CurrentReplicas = current
	st.DesiredReplicas = desired
	st.CurrentMetrics = statuses
	if rescale {
		t := metav1.NewTime(s.now.Time())
		st.LastScaleTime = &t
	}
}

// scaleOf reads the target's scale: only Deployments are simulated.
func (c *HPAController) scaleOf(ns string, ref autoscalingv2.CrossVersionObjectReference) (*appsv1.Deployment, error) {
	if ref.Kind != "Deployment" {
		return nil, fmt.Errorf("%s/scale is not simulated by kubeloop (only Deployments are)", strings.ToLower(ref.Kind))
	}
	o, ok := c.env.Store.Lookup(kinds.Deployment, ns, ref.Name)
	if !ok {
		return nil, fmt.Errorf("deployments/scale.apps %q not found", ref.Name)
	}
	return o.(*appsv1.Deployment), nil
}

// computeReplicasForMetrics is horizontal.go's computeReplicasForMetrics:
// the largest proposal of the valid metrics wins; if every metric is
// invalid (or some are and the valid ones would scale down) the sync fails.
func (c *HPAController) computeReplicasForMetrics(s *hpaSync, dep *appsv1.Deployment, current int32) (int32, string, []autoscalingv2.MetricStatus, bool) {
	h := s.hpa
	statuses := make([]autoscalingv2.MetricStatus, len(h.Spec.Metrics))
	var replicas int32
	var metricName string
	invalid := 0
	var invalidErr string
	var invalidCond *hpaWarning
	sel, err := metav1.LabelSelectorAsSelector(dep.Spec.Selector)
	if err != nil || sel.Empty() {
		msg := "selector is required"
		if err != nil {
			msg = err.Error()
		}
		s.warn = append(s.warn, hpaWarning{"SelectorRequired", msg})
		s.setCondition(autoscalingv2.ScalingActive, corev1.ConditionFalse, "InvalidSelector",
			"the HPA target's scale is missing a selector")
		s.dec.Error = "the target has no selector"
		return 0, "", nil, false
	}
	for i, spec := range h.Spec.Metrics {
		proposal, name, st, reason, err := c.computeReplicasForMetric(s, spec, sel, current)
		if err != nil {
			if invalid == 0 {
				invalidErr = err.Error()
				if spec.Type == autoscalingv2.ResourceMetricSourceType && spec.Resource != nil {
					invalidErr = fmt.Sprintf("failed to get %s resource metric value: %v", spec.Resource.Name, err)
				}
				if spec.Type == autoscalingv2.ContainerResourceMetricSourceType && spec.ContainerResource != nil {
					invalidErr = fmt.Sprintf("failed to get %s container metric value: %v", spec.ContainerResource.Container, err)
				}
				invalidCond = &hpaWarning{reason, err.Error()}
			}
			invalid++
			continue
		}
		statuses[i] = st
		if replicas == 0 || proposal > replicas {
			replicas, metricName = proposal, name
		}
	}
	if invalid >= len(h.Spec.Metrics) || (invalid > 0 && replicas < current) {
		full := fmt.Sprintf("invalid metrics (%d invalid out of %d), first error is: %s", invalid, len(h.Spec.Metrics), invalidErr)
		s.warn = append(s.warn, hpaWarning{"FailedComputeMetricsReplicas", full})
		s.setCondition(autoscalingv2.ScalingActive, corev1.ConditionFalse, invalidCond.reason,
			"the HPA was unable to compute the replica count: "+invalidCond.message)
		s.dec.Error = invalidCond.message
		s.dec.Steps = append(s.dec.Steps, invalidCond.message)
		return 0, "", statuses, false
	}
	s.setCondition(autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound",
		"the HPA was able to successfully calculate a replica count from "+metricName)
	return replicas, metricName, statuses, true
}

// computeReplicasForMetric handles one metric spec. A failed metric adds
// its own warning event (FailedGetResourceMetric, ...) and returns the
// ScalingActive reason and the error.
func (c *HPAController) computeReplicasForMetric(s *hpaSync, spec autoscalingv2.MetricSpec, sel labels.Selector, current int32) (int32, string, autoscalingv2.MetricStatus, string, error) {
	var res corev1.ResourceName
	var t autoscalingv2.MetricTarget
	container := ""
	reason := "FailedGetResourceMetric"
	switch {
	case spec.Type == autoscalingv2.ResourceMetricSourceType && spec.Resource != nil:
		res, t = spec.Resource.Name, spec.Resource.Target
	case spec.Type == autoscalingv2.ContainerResourceMetricSourceType && spec.ContainerResource != nil:
		res, t, container = spec.ContainerResource.Name, spec.ContainerResource.Target, spec.ContainerResource.Container
		reason = "FailedGetContainerResourceMetric"
	default:
		reason := "Failed" + "Get" + string(spec.Type) + "Metric"
		err := fmt.Errorf("%s metrics are not simulated by kubeloop (only Resource and ContainerResource metrics are)", spec.Type)
		s.warn = append(s.warn, hpaWarning{reason, err.Error()})
		return 0, "", autoscalingv2.MetricStatus{}, reason, err
	}
	pods := c.podsOf(s.hpa.Namespace, sel)
	fail := func(err error) (int32, string, autoscalingv2.MetricStatus, string, error) {
		s.warn = append(s.warn, hpaWarning{reason, err.Error()})
		return 0, "", autoscalingv2.MetricStatus{}, reason, err
	}
	status := func(v autoscalingv2.MetricValueStatus) autoscalingv2.MetricStatus {
		if container != "" {
			return autoscalingv2.MetricStatus{Type: autoscalingv2.ContainerResourceMetricSourceType,
				ContainerResource: &autoscalingv2.ContainerResourceMetricStatus{Name: res, Container: container, Current: v}}
		}
		return autoscalingv2.MetricStatus{Type: autoscalingv2.ResourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricStatus{Name: res, Current: v}}
	}
	kind := " resource"
	if container != "" {
		kind = " container resource"
	}
	samples, err := c.samples(s.hpa.Namespace, sel, res, container)
	if err != nil {
		if t.AverageValue != nil {
			return fail(fmt.Errorf("failed to get %s usage: unable to get metrics for resource %s: %v", res, res, err))
		}
		return fail(fmt.Errorf("failed to get %s utilization: unable to get metrics for resource %s: %v", res, res, err))
	}
	if t.AverageValue != nil {
		rc, err := resourceReplicas(current, 0, t.AverageValue.MilliValue(), res, container, pods, samples, s.now)
		if err != nil {
			return fail(fmt.Errorf("failed to get %s usage: %v", res, err))
		}
		s.dec.Steps = append(s.dec.Steps, rc.Text)
		st := status(autoscalingv2.MetricValueStatus{AverageValue: resource.NewMilliQuantity(rc.Raw, resource.DecimalSI)})
		return rc.Replicas, string(res) + kind, st, "", nil
	}
	if t.AverageUtilization == nil {
		err := fmt.Errorf("invalid resource metric source: neither a utilization target nor a value target was set")
		return fail(err)
	}
	rc, err := resourceReplicas(current, *t.AverageUtilization, 0, res, container, pods, samples, s.now)
	if err != nil {
		return fail(fmt.Errorf("failed to get %s utilization: %v", res, err))
	}
	s.dec.Steps = append(s.dec.Steps, rc.Text)
	u := rc.Utilization
	st := status(autoscalingv2.MetricValueStatus{AverageUtilization: &u, AverageValue: resource.NewMilliQuantity(rc.Raw, resource.DecimalSI)})
	return rc.Replicas, string(res) + kind + " utilization (percentage of request)", st, "", nil
}

// podsOf lists the pods the selector matches in a namespace.
func (c *HPAController) podsOf(ns string, sel labels.Selector) []*corev1.Pod {
	var out []*corev1.Pod
	for _, o := range c.env.Store.List(kinds.Pod, ns) {
		p := o.(*corev1.Pod)
		if sel.Matches(labels.Set(p.Labels)) {
			out = append(out, p)
		}
	}
	return out
}

// samples asks the metrics-server for the matched pods' usage of a
// resource (the resource metrics client's GetResourceMetric), in
// milli-units.
func (c *HPAController) samples(ns string, sel labels.Selector, res corev1.ResourceName, container string) (map[string]podMetric, error) {
	out := map[string]podMetric{}
	if c.metrics != nil && c.metrics.Available() {
		for _, p := range c.env.Store.List(kinds.Pod, ns) {
			if !sel.Matches(labels.Set(p.GetLabels())) {
				continue
			}
			pm, ok := c.metrics.Pod(ns, p.GetName())
			if !ok || len(pm.Containers) == 0 {
				continue
			}
			var v int64
			found := container == ""
			for _, ct := range pm.Containers {
				if container != "" {
					if ct.Name != container {
						continue
					}
					found = true
				}
				if res == corev1.ResourceCPU {
					v += ct.CPUMilli
				} else {
					v += ct.MemoryBytes * 1000
				}
			}
			if !found {
				continue // kube's getContainerMetrics: the pod has no such container's sample
			}
			out[p.GetName()] = podMetric{Timestamp: pm.Timestamp, Window: pm.Window, Value: v}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no metrics returned from resource metrics API")
	}
	return out, nil
}

// withBehaviorDefaults fills what the API server's defaulting fills in a
// behavior (for an HPA written before defaulting, as in tests).
func withBehaviorDefaults(b *autoscalingv2.HorizontalPodAutoscalerBehavior) *autoscalingv2.HorizontalPodAutoscalerBehavior {
	out := b.DeepCopy()
	maxSel := autoscalingv2.MaxChangePolicySelect
	if out.ScaleUp == nil {
		out.ScaleUp = &autoscalingv2.HPAScalingRules{}
	}
	if out.ScaleUp.SelectPolicy == nil {
		out.ScaleUp.SelectPolicy = &maxSel
	}
	if len(out.ScaleUp.Policies) == 0 {
		out.ScaleUp.Policies = []autoscalingv2.HPAScalingPolicy{
			{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15},
			{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15}}
	}
	if out.ScaleUp.StabilizationWindowSeconds == nil {
		zero := int32(0)
		out.ScaleUp.StabilizationWindowSeconds = &zero
	}
	if out.ScaleDown == nil {
		out.ScaleDown = &autoscalingv2.HPAScalingRules{}
	}
	if out.ScaleDown.SelectPolicy == nil {
		out.ScaleDown.SelectPolicy = &maxSel
	}
	if len(out.ScaleDown.Policies) == 0 {
		out.ScaleDown.Policies = []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15}}
	}
	return out
}
