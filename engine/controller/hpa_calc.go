package controller

// The HorizontalPodAutoscaler's arithmetic, as pure functions: the replica
// calculator (pkg/controller/podautoscaler/replica_calculator.go and
// metrics/utilization.go) and the normalisation of a recommendation by
// stabilization windows, rate limits and min/max (horizontal.go). Each
// function returns, besides its number, the words a learner needs to
// follow it.

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine/sim"
)

// HPA controller defaults (kube-controller-manager's flags,
// pkg/controller/podautoscaler/config/v1alpha1/defaults.go).
const (
	// HPASyncPeriod is --horizontal-pod-autoscaler-sync-period.
	HPASyncPeriod = 15 * sim.Second
	// HPATolerance is --horizontal-pod-autoscaler-tolerance.
	HPATolerance = 0.1
	// HPADownscaleStabilization is --horizontal-pod-autoscaler-downscale-stabilization.
	HPADownscaleStabilization = 5 * sim.Minute
	// HPACPUInitializationPeriod is --horizontal-pod-autoscaler-cpu-initialization-period.
	HPACPUInitializationPeriod = 5 * sim.Minute
	// HPAInitialReadinessDelay is --horizontal-pod-autoscaler-initial-readiness-delay.
	HPAInitialReadinessDelay = 30 * sim.Second
	// scaleUpLimitFactor and scaleUpLimitMinimum bound a scale-up without
	// behavior: at most max(2 × current, 4) per sync.
	scaleUpLimitFactor  = 2.0
	scaleUpLimitMinimum = 4.0
)

// podMetric is one pod's sample of one metric (metricsclient.PodMetric):
// the value in milli-units (millicores; bytes × 1000 for memory).
type podMetric struct {
	Timestamp sim.Tick
	Window    sim.Tick
	Value     int64
}

// groupPods sorts the pods matched by an HPA's selector as
// replica_calculator's groupPods does: deleted and Failed pods are left
// out; Pending pods are ignored; pods without a sample are missing; for
// CPU, a pod is ignored while its sample may still show its start-up (see
// the CPU initialization period and initial readiness delay). The
// returned sets are sorted names.
func groupPods(pods []*corev1.Pod, metrics map[string]podMetric, resource corev1.ResourceName, now sim.Tick) (ready int, ignored, missing []string) {
	for _, pod := range pods {
		if pod.DeletionTimestamp != nil || pod.Status.Phase == corev1.PodFailed {
			continue
		}
		if pod.Status.Phase == corev1.PodPending {
			ignored = append(ignored, pod.Name)
			continue
		}
		metric, found := metrics[pod.Name]
		if !found {
			missing = append(missing, pod.Name)
			continue
		}
		if resource == corev1.ResourceCPU {
			ignore := false
			cond := podReadyCondition(pod)
			if cond == nil || pod.Status.StartTime == nil {
				ignore = true
			} else {
				start := sim.FromTime(pod.Status.StartTime.Time)
				transition := sim.FromTime(cond.LastTransitionTime.Time)
				if start+HPACPUInitializationPeriod > now {
					// Within the initialisation period: ignore an unready
					// pod, or a sample whose window began before the pod
					// became ready.
					ignore = cond.Status == corev1.ConditionFalse || metric.Timestamp < transition+metric.Window
				} else {
					// Ignore an unready pod that has never been ready.
					ignore = cond.Status == corev1.ConditionFalse && start+HPAInitialReadinessDelay > transition
				}
			}
			if ignore {
				ignored = append(ignored, pod.Name)
				continue
			}
		}
		ready++
	}
	sort.Strings(ignored)
	sort.Strings(missing)
	return ready, ignored, missing
}

// podRequests sums each pod's requests of a resource over its containers
// (and restartable init containers), in milli-units; a container without
// one is an error worded as kube's calculateRequests words it.
func podRequests(pods []*corev1.Pod, resource corev1.ResourceName, container string) (map[string]int64, error) {
	out := make(map[string]int64, len(pods))
	for _, pod := range pods {
		var sum int64
		cs := pod.Spec.Containers
		for _, c := range pod.Spec.InitContainers {
			if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
				cs = append(cs[:len(cs):len(cs)], c)
			}
		}
		for _, c := range cs {
			if container != "" && c.Name != container {
				continue
			}
			q, ok := c.Resources.Requests[resource]
			if !ok {
				return nil, fmt.Errorf("missing request for %s in container %s of Pod %s", resource, c.Name, pod.Name)
			}
			sum += q.MilliValue()
		}
		out[pod.Name] = sum
	}
	return out, nil
}

// utilizationRatio is metricsclient.GetResourceUtilizationRatio: the
// utilization of the pods with samples as an integer percentage of their
// requests (truncated), its ratio to the target, and the average raw value.
func utilizationRatio(metrics map[string]podMetric, requests map[string]int64, target int32) (ratio float64, utilization int32, rawAverage int64, err error) {
	var total, reqTotal int64
	n := 0
	for _, name := range sortedMetricNames(metrics) {
		req, ok := requests[name]
		if !ok {
			continue
		}
		total += metrics[name].Value
		reqTotal += req
		n++
	}
	if reqTotal == 0 {
		return 0, 0, 0, errors.New("no metrics returned matched known pods")
	}
	utilization = int32(total * 100 / reqTotal)
	return float64(utilization) / float64(target), utilization, total / int64(n), nil
}

// plainRatio is metricsclient.GetMetricUtilizationRatio: the average value
// and its ratio to the target average.
func plainRatio(metrics map[string]podMetric, target int64) (float64, int64) {
	var total int64
	for _, m := range metrics {
		total += m.Value
	}
	avg := total / int64(len(metrics))
	return float64(avg) / float64(target), avg
}

func sortedMetricNames(m map[string]podMetric) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// replicaCalc is one metric's proposal and how it was reached.
type replicaCalc struct {
	Replicas int32
	// Utilization is the percentage of request (Utilization targets); Raw
	// the average value in milli-units.
	Utilization int32
	Raw         int64
	// Ratio is the usage ratio of the pods with samples; NewRatio the ratio
	// after counting missing and unready pods (0 if not recomputed).
	Ratio, NewRatio float64
	Ready           int
	Ignored         []string
	Missing         []string
	// Considered is the number of pods the final formula multiplied by.
	Considered int
	// Text is the arithmetic in words.
	Text string
}

// resourceReplicas is ReplicaCalculator.GetResourceReplicas (target a
// utilization percentage; rawTarget 0) and GetRawResourceReplicas (target
// an average value in milli-units: rawTarget > 0), over samples and the
// pods the HPA's selector matches. A container name limits requests to
// that container (ContainerResource metrics); samples are then that
// container's alone.
func resourceReplicas(current int32, target int32, rawTarget int64, resource corev1.ResourceName, container string, pods []*corev1.Pod,
	samples map[string]podMetric, now sim.Tick) (replicaCalc, error) {
	var rc replicaCalc
	if len(pods) == 0 {
		return rc, errors.New("no pods returned by selector while calculating replica count")
	}
	metrics := make(map[string]podMetric, len(samples))
	for k, v := range samples {
		metrics[k] = v
	}
	rc.Ready, rc.Ignored, rc.Missing = groupPods(pods, metrics, resource, now)
	for _, n := range rc.Ignored {
		delete(metrics, n)
	}
	utilizationTarget := rawTarget == 0
	var requests map[string]int64
	if utilizationTarget {
		var err error
		if requests, err = podRequests(pods, resource, container); err != nil {
			return rc, err
		}
	}
	if len(metrics) == 0 {
		return rc, errors.New("did not receive metrics for any ready pods")
	}
	ratio := func() (float64, error) {
		if utilizationTarget {
			r, u, raw, err := utilizationRatio(metrics, requests, target)
			rc.Utilization, rc.Raw = u, raw
			return r, err
		}
		r, avg := plainRatio(metrics, rawTarget)
		rc.Raw = avg
		return r, nil
	}
	var err error
	if rc.Ratio, err = ratio(); err != nil {
		return rc, err
	}
	measured := describeMeasure(rc.Ready, rc.Utilization, rc.Raw, target, rawTarget, resource)
	rebalanceIgnored := len(rc.Ignored) > 0 && rc.Ratio > 1.0
	if !rebalanceIgnored && len(rc.Missing) == 0 {
		if math.Abs(1.0-rc.Ratio) <= HPATolerance {
			rc.Replicas = current
			rc.Text = fmt.Sprintf("%s → ratio %.2f is within the %.1f tolerance, so recommend the current %d", measured, rc.Ratio, HPATolerance, current)
			return rc, nil
		}
		rc.Considered = rc.Ready
		rc.Replicas = int32(math.Ceil(rc.Ratio * float64(rc.Ready)))
		rc.Text = fmt.Sprintf("%s → desired ceil(%d × %.2f) = %d", measured, rc.Ready, rc.Ratio, rc.Replicas)
		return rc, nil
	}

	// Assume the pods without usable samples are at the worst place for
	// the change: missing pods at 100% of request (the target, for plain
	// values) on a scale-down, 0% on a scale-up; unready pods at 0% on a
	// scale-up.
	var notes []string
	if len(rc.Missing) > 0 {
		switch {
		case rc.Ratio < 1.0:
			for _, n := range rc.Missing {
				v := rawTarget
				if utilizationTarget {
					v = requests[n]
				}
				metrics[n] = podMetric{Value: v}
			}
			notes = append(notes, fmt.Sprintf("%s without metrics counted at %s", plural(len(rc.Missing), "pod"), atTarget(utilizationTarget)))
		case rc.Ratio > 1.0:
			for _, n := range rc.Missing {
				metrics[n] = podMetric{Value: 0}
			}
			notes = append(notes, fmt.Sprintf("%s without metrics counted at 0", plural(len(rc.Missing), "pod")))
		}
	}
	if rebalanceIgnored {
		for _, n := range rc.Ignored {
			metrics[n] = podMetric{Value: 0}
		}
		notes = append(notes, fmt.Sprintf("%s not yet ready counted at 0", plural(len(rc.Ignored), "pod")))
	}
	first := rc.Utilization
	firstRaw := rc.Raw
	if rc.NewRatio, err = ratio(); err != nil {
		return rc, err
	}
	rc.Utilization, rc.Raw = first, firstRaw // status reports the measured value
	measured += " (" + strings.Join(notes, ", ") + ")"
	if math.Abs(1.0-rc.NewRatio) <= HPATolerance || (rc.Ratio < 1.0 && rc.NewRatio > 1.0) || (rc.Ratio > 1.0 && rc.NewRatio < 1.0) {
		rc.Replicas = current
		why := "is within the " + fmt.Sprintf("%.1f", HPATolerance) + " tolerance"
		if math.Abs(1.0-rc.NewRatio) > HPATolerance {
			why = "would change the direction of scaling"
		}
		rc.Text = fmt.Sprintf("%s → ratio %.2f %s, so recommend the current %d", measured, rc.NewRatio, why, current)
		return rc, nil
	}
	rc.Considered = len(metrics)
	n := int32(math.Ceil(rc.NewRatio * float64(len(metrics))))
	if (rc.NewRatio < 1.0 && n > current) || (rc.NewRatio > 1.0 && n < current) {
		rc.Replicas = current
		rc.Text = fmt.Sprintf("%s → ceil(%d × %.2f) = %d would scale the wrong way, so recommend the current %d", measured, len(metrics), rc.NewRatio, n, current)
		return rc, nil
	}
	rc.Replicas = n
	rc.Text = fmt.Sprintf("%s → desired ceil(%d × %.2f) = %d", measured, len(metrics), rc.NewRatio, n)
	return rc, nil
}

func atTarget(utilization bool) string {
	if utilization {
		return "100% of request"
	}
	return "the target"
}

// describeMeasure is "3 pods at 83% of request vs target 50%" or
// "2 pods at 150Mi average vs target 100Mi".
func describeMeasure(ready int, utilization int32, raw int64, target int32, rawTarget int64, resource corev1.ResourceName) string {
	if rawTarget == 0 {
		return fmt.Sprintf("%s at %d%% of request (%s average) vs target %d%%", plural(ready, "pod"), utilization,
			formatMilli(raw, resource), target)
	}
	return fmt.Sprintf("%s at %s average vs target %s", plural(ready, "pod"), formatMilli(raw, resource), formatMilli(rawTarget, resource))
}

// formatMilli writes a milli-value as kubectl would show the quantity:
// "166m" for CPU, "150Mi" (or bytes) for memory.
func formatMilli(v int64, resource corev1.ResourceName) string {
	if resource == corev1.ResourceCPU {
		return fmt.Sprintf("%dm", v)
	}
	b := v / 1000
	if b%(1<<20) == 0 || b >= 10<<20 {
		return fmt.Sprintf("%dMi", b>>20)
	}
	return fmt.Sprintf("%d", b)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// timedRecommendation is one sync's unstabilised recommendation.
type timedRecommendation struct {
	Replicas int32
	At       sim.Tick
}

// scaleEvent is one rescale, for the behavior rate limits.
type scaleEvent struct {
	Change   int32
	At       sim.Tick
	Outdated bool
}

// limitResult is the outcome of normalisation with its conditions.
type limitResult struct {
	Replicas int32
	// Stabilized is the recommendation after the stabilization window.
	Stabilized int32
	// AbleReason/AbleMessage are the AbleToScale condition's (True).
	AbleReason, AbleMessage string
	// Limited, LimitReason and LimitMessage are the ScalingLimited condition's.
	Limited                   bool
	LimitReason, LimitMessage string
	// Text explains stabilization and limits in words ("" if neither acted).
	Text string
}

// stabilizeDefault is stabilizeRecommendation (no behavior): the highest
// recommendation within the downscale stabilization window wins. It records
// the new recommendation in recs, reusing one slot that has left the window.
func stabilizeDefault(recs []timedRecommendation, desired int32, now sim.Tick) (int32, []timedRecommendation) {
	max := desired
	old := -1
	cutoff := now - HPADownscaleStabilization
	for i, r := range recs {
		if r.At < cutoff {
			old = i
		} else if r.Replicas > max {
			max = r.Replicas
		}
	}
	if old >= 0 {
		recs[old] = timedRecommendation{desired, now}
	} else {
		recs = append(recs, timedRecommendation{desired, now})
	}
	return max, recs
}

// scaleUpLimit is calculateScaleUpLimit: max(2 × current, 4).
func scaleUpLimit(current int32) int32 {
	return int32(math.Max(scaleUpLimitFactor*float64(current), scaleUpLimitMinimum))
}

// normalizeDefault is normalizeDesiredReplicas with
// convertDesiredReplicasWithRules: stabilise, then clamp to min, max and
// the scale-up limit.
func normalizeDefault(recs []timedRecommendation, current, desired, min, max int32, now sim.Tick) (limitResult, []timedRecommendation) {
	var r limitResult
	stab, recs := stabilizeDefault(recs, desired, now)
	r.Stabilized = stab
	if stab != desired {
		r.AbleReason, r.AbleMessage = "ScaleDownStabilized", "recent recommendations were higher than current one, applying the highest recent recommendation"
		r.Text = fmt.Sprintf("stabilization window: the highest recommendation of the last %s is %d", windowText(int32(HPADownscaleStabilization/sim.Second)), stab)
	} else {
		r.AbleReason, r.AbleMessage = "ReadyForNewScale", "recommended size matches current size"
	}
	var maxAllowed int32
	limit := scaleUpLimit(current)
	if max > limit {
		maxAllowed = limit
		r.LimitReason, r.LimitMessage = "ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate"
	} else {
		maxAllowed = max
		r.LimitReason, r.LimitMessage = "TooManyReplicas", "the desired replica count is more than the maximum replica count"
	}
	var limitText string
	switch {
	case stab < min:
		r.Replicas = min
		r.LimitReason, r.LimitMessage = "TooFewReplicas", "the desired replica count is less than the minimum replica count"
		limitText = fmt.Sprintf("raised to minReplicas %d", min)
	case stab > maxAllowed:
		r.Replicas = maxAllowed
		if r.LimitReason == "ScaleUpLimit" {
			limitText = fmt.Sprintf("scale-up limited to max(2 × %d, 4) = %d per sync", current, limit)
		} else {
			limitText = fmt.Sprintf("capped at maxReplicas %d", max)
		}
	default:
		r.Replicas = stab
		r.LimitReason, r.LimitMessage = "DesiredWithinRange", "the desired count is within the acceptable range"
	}
	r.Limited = r.Replicas != stab
	r.Text = joinText(r.Text, limitText)
	return r, recs
}

// windowText writes a window of seconds as "5m" or "90s".
func windowText(seconds int32) string {
	if seconds >= 60 && seconds%60 == 0 {
		return fmt.Sprintf("%dm", seconds/60)
	}
	return fmt.Sprintf("%ds", seconds)
}

func joinText(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// behaviorState is what normalisation with behavior remembers per HPA.
type behaviorState struct {
	Recs     []timedRecommendation
	Up, Down []scaleEvent
}

// stabilizeWithBehavior is stabilizeRecommendationWithBehaviors: the
// recommendation is kept between the lowest recommendation within the
// scale-up window and the highest within the scale-down window.
func stabilizeWithBehavior(recs []timedRecommendation, current, desired, upWindow, downWindow int32, now sim.Tick) (int32, string, string, []timedRecommendation) {
	upCutoff := now - sim.Seconds(int64(upWindow))
	downCutoff := now - sim.Seconds(int64(downWindow))
	up, down := desired, desired
	old := -1
	for i, r := range recs {
		if r.At > upCutoff {
			up = min(r.Replicas, up)
		}
		if r.At > downCutoff {
			down = max(r.Replicas, down)
		}
		if r.At < upCutoff && r.At < downCutoff {
			old = i
		}
	}
	rec := current
	if rec < up {
		rec = up
	}
	if rec > down {
		rec = down
	}
	if old >= 0 {
		recs[old] = timedRecommendation{desired, now}
	} else {
		recs = append(recs, timedRecommendation{desired, now})
	}
	if desired >= current {
		return rec, "ScaleUpStabilized", "recent recommendations were lower than current one, applying the lowest recent recommendation", recs
	}
	return rec, "ScaleDownStabilized", "recent recommendations were higher than current one, applying the highest recent recommendation", recs
}

// changeInPeriod is getReplicasChangePerPeriod: the replicas added (or
// removed) by the events within the last periodSeconds.
func changeInPeriod(periodSeconds int32, events []scaleEvent, now sim.Tick) int32 {
	cutoff := now - sim.Seconds(int64(periodSeconds))
	var n int32
	for _, e := range events {
		if e.At > cutoff {
			n += e.Change
		}
	}
	return n
}

// scaleUpLimitWithRules is calculateScaleUpLimitWithScalingRules.
func scaleUpLimitWithRules(current int32, up, down []scaleEvent, rules *autoscalingv2.HPAScalingRules, now sim.Tick) (int32, string) {
	return limitWithRules(current, up, down, rules, now, true)
}

// scaleDownLimitWithRules is calculateScaleDownLimitWithBehaviors.
func scaleDownLimitWithRules(current int32, up, down []scaleEvent, rules *autoscalingv2.HPAScalingRules, now sim.Tick) (int32, string) {
	return limitWithRules(current, up, down, rules, now, false)
}

// limitWithRules is kube's two limit functions in one: each policy
// proposes a limit from the replica count at the start of its period
// (current, less what was added in it, plus what was removed), and
// selectPolicy Max takes the largest change (the highest limit going up,
// the lowest going down), Min the smallest. It returns the limit and the
// arithmetic, for the trace.
func limitWithRules(current int32, up, down []scaleEvent, rules *autoscalingv2.HPAScalingRules, now sim.Tick, scaleUp bool) (int32, string) {
	sel := autoscalingv2.MaxChangePolicySelect
	if rules.SelectPolicy != nil {
		sel = *rules.SelectPolicy
	}
	if sel == autoscalingv2.DisabledPolicySelect {
		if scaleUp {
			return current, "scale-up is disabled (selectPolicy Disabled)"
		}
		return current, "scale-down is disabled (selectPolicy Disabled)"
	}
	// The largest change (Max) is the highest limit going up and the
	// lowest going down; the smallest (Min), the other way round.
	highest := scaleUp == (sel == autoscalingv2.MaxChangePolicySelect)
	result, pick := int32(math.MaxInt32), func(a, b int32) int32 { return min(a, b) }
	if highest {
		result, pick = math.MinInt32, func(a, b int32) int32 { return max(a, b) }
	}
	var parts []string
	for _, p := range rules.Policies {
		start := current - changeInPeriod(p.PeriodSeconds, up, now) + changeInPeriod(p.PeriodSeconds, down, now)
		var proposed int32
		switch {
		case p.Type == autoscalingv2.PodsScalingPolicy && scaleUp:
			proposed = start + p.Value
			parts = append(parts, fmt.Sprintf("%d + %d pods = %d per %ds", start, p.Value, proposed, p.PeriodSeconds))
		case p.Type == autoscalingv2.PodsScalingPolicy:
			proposed = start - p.Value
			parts = append(parts, fmt.Sprintf("%d - %d pods = %d per %ds", start, p.Value, proposed, p.PeriodSeconds))
		case p.Type == autoscalingv2.PercentScalingPolicy && scaleUp:
			proposed = int32(math.Ceil(float64(start) * (1 + float64(p.Value)/100)))
			parts = append(parts, fmt.Sprintf("ceil(%d × %d%%) = %d per %ds", start, 100+p.Value, proposed, p.PeriodSeconds))
		case p.Type == autoscalingv2.PercentScalingPolicy:
			proposed = int32(float64(start) * (1 - float64(p.Value)/100))
			parts = append(parts, fmt.Sprintf("floor(%d × %d%%) = %d per %ds", start, 100-p.Value, proposed, p.PeriodSeconds))
		}
		result = pick(result, proposed)
	}
	return result, fmt.Sprintf("selectPolicy %s of [%s]", sel, strings.Join(parts, ", "))
}

// normalizeWithBehavior is normalizeDesiredReplicasWithBehaviors with
// convertDesiredReplicasWithBehaviorRate. b must have both rules set (the
// API server's defaults fill them); a nil scale-down window means the
// controller's 300 s.
func normalizeWithBehavior(st *behaviorState, b *autoscalingv2.HorizontalPodAutoscalerBehavior, current, desired, minR, maxR int32, now sim.Tick) limitResult {
	var r limitResult
	upW := int32(0)
	if b.ScaleUp.StabilizationWindowSeconds != nil {
		upW = *b.ScaleUp.StabilizationWindowSeconds
	}
	downW := int32(HPADownscaleStabilization / sim.Second)
	if b.ScaleDown.StabilizationWindowSeconds != nil {
		downW = *b.ScaleDown.StabilizationWindowSeconds
	}
	stab, reason, msg, recs := stabilizeWithBehavior(st.Recs, current, desired, upW, downW, now)
	st.Recs = recs
	r.Stabilized = stab
	if stab != desired {
		r.AbleReason, r.AbleMessage = reason, msg
		if reason == "ScaleUpStabilized" {
			r.Text = fmt.Sprintf("scale-up stabilization window: the lowest recommendation of the last %s is %d", windowText(upW), stab)
		} else {
			r.Text = fmt.Sprintf("scale-down stabilization window: the highest recommendation of the last %s is %d", windowText(downW), stab)
		}
	} else {
		r.AbleReason, r.AbleMessage = "ReadyForNewScale", "recommended size matches current size"
	}
	r.Replicas = stab
	r.LimitReason, r.LimitMessage = "DesiredWithinRange", "the desired count is within the acceptable range"
	var limitText string
	switch {
	case stab > current:
		limit, how := scaleUpLimitWithRules(current, st.Up, st.Down, b.ScaleUp, now)
		if limit < current {
			limit = current
		}
		maxAllowed := maxR
		reason, msg := "TooManyReplicas", "the desired replica count is more than the maximum replica count"
		if maxAllowed > limit {
			maxAllowed = limit
			reason, msg = "ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate"
		}
		if stab > maxAllowed {
			r.Replicas, r.LimitReason, r.LimitMessage = maxAllowed, reason, msg
			if reason == "ScaleUpLimit" {
				limitText = fmt.Sprintf("scale-up limited to %d by %s", limit, how)
			} else {
				limitText = fmt.Sprintf("capped at maxReplicas %d", maxR)
			}
		}
	case stab < current:
		limit, how := scaleDownLimitWithRules(current, st.Up, st.Down, b.ScaleDown, now)
		if limit > current {
			limit = current
		}
		minAllowed := minR
		reason, msg := "TooFewReplicas", "the desired replica count is less than the minimum replica count"
		if minAllowed < limit {
			minAllowed = limit
			reason, msg = "ScaleDownLimit", "the desired replica count is decreasing faster than the maximum scale rate"
		}
		if stab < minAllowed {
			r.Replicas, r.LimitReason, r.LimitMessage = minAllowed, reason, msg
			if reason == "ScaleDownLimit" {
				limitText = fmt.Sprintf("scale-down limited to %d by %s", limit, how)
			} else {
				limitText = fmt.Sprintf("raised to minReplicas %d", minR)
			}
		}
	}
	r.Limited = r.Replicas != stab
	r.Text = joinText(r.Text, limitText)
	return r
}

// longestPeriod is getLongestPolicyPeriod.
func longestPeriod(rules *autoscalingv2.HPAScalingRules) int32 {
	var p int32
	for _, pol := range rules.Policies {
		p = max(p, pol.PeriodSeconds)
	}
	return p
}

// storeScaleEvent is storeScaleEvent: remember a rescale for the rate
// limits, reusing a slot that has left the longest policy period.
func storeScaleEvent(st *behaviorState, b *autoscalingv2.HorizontalPodAutoscalerBehavior, prev, next int32, now sim.Tick) {
	if b == nil {
		return
	}
	record := func(events []scaleEvent, rules *autoscalingv2.HPAScalingRules, change int32) []scaleEvent {
		cutoff := now - sim.Seconds(int64(longestPeriod(rules)))
		old := -1
		for i := range events {
			if events[i].At < cutoff {
				events[i].Outdated = true
			}
			if events[i].Outdated {
				old = i
			}
		}
		e := scaleEvent{Change: change, At: now}
		if old >= 0 {
			events[old] = e
			return events
		}
		return append(events, e)
	}
	if next > prev {
		st.Up = record(st.Up, b.ScaleUp, next-prev)
	} else {
		st.Down = record(st.Down, b.ScaleDown, prev-next)
	}
}
