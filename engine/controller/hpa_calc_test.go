package controller

import (
	"strings"
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/sim"
)

// hpaNow is the time of every calculation below: 20 minutes in.
const hpaNow = 20 * sim.Minute

type hpaPod struct {
	name    string
	phase   corev1.PodPhase // Running if empty
	started sim.Tick        // start time, counted back from hpaNow
	ready   *bool           // nil: no Ready condition
	readyAt sim.Tick        // last Ready transition, counted back from hpaNow
	request string          // cpu request; "" for none
	usage   int64           // millicores; -1: no sample
	deleted bool
}

func yes() *bool { b := true; return &b }
func no() *bool  { b := false; return &b }

func buildHPAPods(in []hpaPod) ([]*corev1.Pod, map[string]podMetric) {
	var pods []*corev1.Pod
	samples := map[string]podMetric{}
	for _, p := range in {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: p.name, Namespace: "default"}}
		pod.Spec.Containers = []corev1.Container{{Name: "api"}}
		if p.request != "" {
			pod.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(p.request)}
		}
		pod.Status.Phase = p.phase
		if pod.Status.Phase == "" {
			pod.Status.Phase = corev1.PodRunning
		}
		start := metav1.NewTime((hpaNow - p.started).Time())
		pod.Status.StartTime = &start
		if p.ready != nil {
			st := corev1.ConditionFalse
			if *p.ready {
				st = corev1.ConditionTrue
			}
			pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: st,
				LastTransitionTime: metav1.NewTime((hpaNow - p.readyAt).Time())}}
		}
		if p.deleted {
			t := metav1.NewTime(hpaNow.Time())
			pod.DeletionTimestamp = &t
		}
		pods = append(pods, pod)
		if p.usage >= 0 {
			samples[p.name] = podMetric{Timestamp: hpaNow, Window: 15 * sim.Second, Value: p.usage}
		}
	}
	return pods, samples
}

// settled is a pod that has been running and ready for 10 minutes.
func settled(name string, usage int64) hpaPod {
	return hpaPod{name: name, started: 10 * sim.Minute, ready: yes(), readyAt: 10 * sim.Minute, request: "200m", usage: usage}
}

func TestResourceReplicas(t *testing.T) {
	for _, tt := range []struct {
		name     string
		current  int32
		target   int32
		pods     []hpaPod
		want     int32
		wantUtil int32
		text     string // a part of the explanation
		err      string
	}{
		{name: "walkthrough: 3 pods at 83% of 50% → 5", current: 3, target: 50,
			pods: []hpaPod{settled("a", 166), settled("b", 166), settled("c", 167)},
			want: 5, wantUtil: 83, text: "3 pods at 83% of request (166m average) vs target 50% → desired ceil(3 × 1.66) = 5"},
		{name: "within tolerance keeps the count", current: 1, target: 50,
			pods: []hpaPod{settled("a", 108)}, want: 1, wantUtil: 54, text: "ratio 1.08 is within the 0.1 tolerance, so recommend the current 1"},
		{name: "just outside tolerance scales", current: 2, target: 50,
			pods: []hpaPod{settled("a", 112), settled("b", 112)}, want: 3, wantUtil: 56},
		{name: "utilization is truncated to an integer", current: 1, target: 50,
			pods: []hpaPod{settled("a", 109)}, want: 1, wantUtil: 54 /* 54.5 → 54: ratio 1.08 */},
		{name: "scale down", current: 10, target: 50,
			pods: []hpaPod{settled("a", 20), settled("b", 20), settled("c", 20), settled("d", 20), settled("e", 20),
				settled("f", 20), settled("g", 20), settled("h", 20), settled("i", 20), settled("j", 20)},
			want: 2, wantUtil: 10, text: "desired ceil(10 × 0.20) = 2"},
		{name: "missing pod counts as 0 on a scale-up", current: 3, target: 50,
			pods: []hpaPod{settled("a", 200), settled("b", 200), settled("c", -1)},
			want: 4, wantUtil: 100, text: "(1 pod without metrics counted at 0) → desired ceil(3 × 1.32) = 4"},
		{name: "missing pod counts as 100% of request on a scale-down", current: 3, target: 50,
			pods: []hpaPod{settled("a", 20), settled("b", 20), settled("c", -1)},
			want: 3, wantUtil: 10, text: "1 pod without metrics counted at 100% of request"},
		{name: "unready pod counts as 0 on a scale-up", current: 2, target: 50,
			pods: []hpaPod{settled("a", 200), {name: "b", started: hpaMins(1), ready: no(), readyAt: hpaMins(1), request: "200m", usage: 1}},
			want: 2, wantUtil: 100, text: "1 pod not yet ready counted at 0) → ratio 1.00 is within the 0.1 tolerance, so recommend the current 2"},
		{name: "unready pod is left out on a scale-down", current: 2, target: 50,
			pods: []hpaPod{settled("a", 20), {name: "b", started: hpaMins(1), ready: no(), readyAt: hpaMins(1), request: "200m", usage: 1}},
			want: 1, wantUtil: 10, text: "1 pod at 10% of request (20m average) vs target 50% → desired ceil(1 × 0.20) = 1"},
		{name: "sample taken before the pod became ready is ignored", current: 2, target: 50,
			pods: []hpaPod{settled("a", 200), {name: "b", started: hpaMins(1), ready: yes(), readyAt: 10 * sim.Second, request: "200m", usage: 200}},
			want: 2, text: "1 pod not yet ready counted at 0"},
		{name: "a sample one window after readiness counts", current: 2, target: 50,
			pods: []hpaPod{settled("a", 200), {name: "b", started: hpaMins(1), ready: yes(), readyAt: 15 * sim.Second, request: "200m", usage: 200}},
			want: 4, text: "2 pods at 100% of request (200m average) vs target 50% → desired ceil(2 × 2.00) = 4"},
		{name: "after 5m, an unready pod that was ready once counts", current: 2, target: 50,
			pods: []hpaPod{settled("a", 200), {name: "b", started: 6 * sim.Minute, ready: no(), readyAt: sim.Minute, request: "200m", usage: 200}},
			want: 4},
		{name: "after 5m, a pod never ready since start+30s is ignored", current: 2, target: 50,
			pods: []hpaPod{settled("a", 200), {name: "b", started: 6 * sim.Minute, ready: no(), readyAt: 6*sim.Minute - 10*sim.Second, request: "200m", usage: 200}},
			want: 2},
		{name: "pending pods are ignored", current: 2, target: 50,
			pods: []hpaPod{settled("a", 200), {name: "b", phase: corev1.PodPending, request: "200m", usage: -1}},
			want: 2 /* rebalanced: (200+0)/400 = 50% */},
		// As in kube, a deleted pod is not counted as ready, but its sample
		// is not removed either: (200m + 300m) / 400m = 125%, × 1 ready pod.
		{name: "deleted and failed pods are not counted as ready", current: 3, target: 50,
			pods: []hpaPod{settled("a", 200), {name: "b", deleted: true, request: "200m", usage: 300},
				{name: "c", phase: corev1.PodFailed, request: "200m", usage: -1}},
			want: 3, wantUtil: 125},
		{name: "no request", current: 1, target: 50, pods: []hpaPod{{name: "api-1", started: hpaMins(10), ready: yes(), readyAt: hpaMins(10), usage: 10}},
			err: "missing request for cpu in container api of Pod api-1"},
		{name: "no pods", current: 1, target: 50, pods: nil, err: "no pods returned by selector while calculating replica count"},
		{name: "only unready pods have samples", current: 1, target: 50,
			pods: []hpaPod{{name: "a", started: hpaMins(1), ready: no(), readyAt: hpaMins(1), request: "200m", usage: 1}},
			err:  "did not receive metrics for any ready pods"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pods, samples := buildHPAPods(tt.pods)
			rc, err := resourceReplicas(tt.current, tt.target, 0, corev1.ResourceCPU, "", pods, samples, hpaNow)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rc.Replicas != tt.want {
				t.Errorf("replicas = %d, want %d (%s)", rc.Replicas, tt.want, rc.Text)
			}
			if tt.wantUtil != 0 && rc.Utilization != tt.wantUtil {
				t.Errorf("utilization = %d, want %d", rc.Utilization, tt.wantUtil)
			}
			if !strings.Contains(rc.Text, tt.text) {
				t.Errorf("text = %q, want it to contain %q", rc.Text, tt.text)
			}
		})
	}
}

func hpaMins(minutes int64) sim.Tick { return sim.Tick(minutes) * sim.Minute }

func TestResourceReplicasAverageValue(t *testing.T) {
	pods, samples := buildHPAPods([]hpaPod{settled("a", 300), settled("b", 300)})
	rc, err := resourceReplicas(2, 0, 100, corev1.ResourceCPU, "", pods, samples, hpaNow)
	if err != nil {
		t.Fatal(err)
	}
	if rc.Replicas != 6 || rc.Raw != 300 {
		t.Fatalf("got %d replicas at %dm, want 6 at 300m (%s)", rc.Replicas, rc.Raw, rc.Text)
	}
	if want := "2 pods at 300m average vs target 100m → desired ceil(2 × 3.00) = 6"; rc.Text != want {
		t.Errorf("text = %q, want %q", rc.Text, want)
	}
	// A plain target needs no requests.
	pods[0].Spec.Containers[0].Resources = corev1.ResourceRequirements{}
	if _, err := resourceReplicas(2, 0, 100, corev1.ResourceCPU, "", pods, samples, hpaNow); err != nil {
		t.Errorf("AverageValue without requests: %v", err)
	}
}

func TestNormalizeDefault(t *testing.T) {
	for _, tt := range []struct {
		name             string
		recs             []timedRecommendation
		current, desired int32
		min, max         int32
		want             int32
		able, limit      string
		limited          bool
		text             string
	}{
		{name: "scale-up limit max(2×1, 4)", current: 1, desired: 10, min: 1, max: 10, want: 4,
			able: "ReadyForNewScale", limit: "ScaleUpLimit", limited: true, text: "scale-up limited to max(2 × 1, 4) = 4 per sync"},
		{name: "scale-up limit 2×current", current: 4, desired: 10, min: 1, max: 20, want: 8,
			able: "ReadyForNewScale", limit: "ScaleUpLimit", limited: true},
		{name: "max replicas", current: 8, desired: 12, min: 1, max: 10, want: 10,
			able: "ReadyForNewScale", limit: "TooManyReplicas", limited: true, text: "capped at maxReplicas 10"},
		{name: "min replicas", current: 2, desired: 1, min: 2, max: 10, want: 2,
			able: "ReadyForNewScale", limit: "TooFewReplicas", limited: true},
		{name: "within range", current: 3, desired: 5, min: 1, max: 10, want: 5,
			able: "ReadyForNewScale", limit: "DesiredWithinRange"},
		{name: "scale-down waits for the highest recommendation of 5 minutes", current: 5, desired: 1, min: 1, max: 10,
			recs: []timedRecommendation{{5, hpaNow - 4*sim.Minute}, {7, hpaNow - 6*sim.Minute}}, want: 5,
			able: "ScaleDownStabilized", limit: "DesiredWithinRange", text: "the highest recommendation of the last 5m is 5"},
		{name: "a recommendation exactly 5 minutes old still counts", current: 5, desired: 1, min: 1, max: 10,
			recs: []timedRecommendation{{5, hpaNow - 5*sim.Minute}}, want: 5, able: "ScaleDownStabilized", limit: "DesiredWithinRange"},
		{name: "older recommendations have left the window", current: 5, desired: 1, min: 1, max: 10,
			recs: []timedRecommendation{{5, hpaNow - 5*sim.Minute - sim.Second}}, want: 1, able: "ReadyForNewScale", limit: "DesiredWithinRange"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, recs := normalizeDefault(append([]timedRecommendation(nil), tt.recs...), tt.current, tt.desired, tt.min, tt.max, hpaNow)
			if r.Replicas != tt.want || r.AbleReason != tt.able || r.LimitReason != tt.limit || r.Limited != tt.limited {
				t.Errorf("got %d %s %s limited=%v, want %d %s %s limited=%v", r.Replicas, r.AbleReason, r.LimitReason, r.Limited,
					tt.want, tt.able, tt.limit, tt.limited)
			}
			if !strings.Contains(r.Text, tt.text) {
				t.Errorf("text = %q, want it to contain %q", r.Text, tt.text)
			}
			found := false
			for _, rec := range recs {
				found = found || (rec.At == hpaNow && rec.Replicas == tt.desired)
			}
			if !found {
				t.Errorf("the new recommendation was not recorded: %v", recs)
			}
		})
	}
}

func policies(sel autoscalingv2.ScalingPolicySelect, ps ...autoscalingv2.HPAScalingPolicy) *autoscalingv2.HPAScalingRules {
	return &autoscalingv2.HPAScalingRules{SelectPolicy: &sel, Policies: ps}
}

func podsPolicy(v, period int32) autoscalingv2.HPAScalingPolicy {
	return autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.PodsScalingPolicy, Value: v, PeriodSeconds: period}
}

func percentPolicy(v, period int32) autoscalingv2.HPAScalingPolicy {
	return autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.PercentScalingPolicy, Value: v, PeriodSeconds: period}
}

func TestBehaviorRateLimits(t *testing.T) {
	max, min, off := autoscalingv2.MaxChangePolicySelect, autoscalingv2.MinChangePolicySelect, autoscalingv2.DisabledPolicySelect
	recent := []scaleEvent{{Change: 3, At: hpaNow - 10*sim.Second}}
	old := []scaleEvent{{Change: 3, At: hpaNow - 20*sim.Second}}
	for _, tt := range []struct {
		name    string
		up      bool
		current int32
		upEv    []scaleEvent
		downEv  []scaleEvent
		rules   *autoscalingv2.HPAScalingRules
		want    int32
	}{
		{"default up: max(3+4, 2×3)", true, 3, nil, nil, policies(max, podsPolicy(4, 15), percentPolicy(100, 15)), 7},
		{"default up from 10: 2×10", true, 10, nil, nil, policies(max, podsPolicy(4, 15), percentPolicy(100, 15)), 20},
		{"up counts from the period's start", true, 6, recent, nil, policies(max, podsPolicy(4, 15), percentPolicy(100, 15)), 7},
		{"events older than the period are forgotten", true, 6, old, nil, policies(max, podsPolicy(4, 15), percentPolicy(100, 15)), 12},
		{"Min picks the smaller change", true, 3, nil, nil, policies(min, podsPolicy(4, 15), percentPolicy(100, 15)), 6},
		{"percent up rounds up", true, 3, nil, nil, policies(max, percentPolicy(10, 60)), 4},
		{"Disabled up", true, 3, nil, nil, policies(off, podsPolicy(4, 15)), 3},
		{"default down: 100% per 15s", false, 10, nil, nil, policies(max, percentPolicy(100, 15)), 0},
		{"down Max picks the biggest change", false, 10, nil, nil, policies(max, percentPolicy(50, 60), podsPolicy(2, 60)), 5},
		{"down Min picks the smallest change", false, 10, nil, nil, policies(min, percentPolicy(50, 60), podsPolicy(2, 60)), 8},
		{"percent down rounds down", false, 5, nil, nil, policies(max, percentPolicy(10, 60)), 4},
		{"down counts from the period's start", false, 7, nil, recent, policies(max, podsPolicy(2, 60)), 8},
		{"Disabled down", false, 10, nil, nil, policies(off, percentPolicy(100, 15)), 10},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got int32
			if tt.up {
				got, _ = scaleUpLimitWithRules(tt.current, tt.upEv, tt.downEv, tt.rules, hpaNow)
			} else {
				got, _ = scaleDownLimitWithRules(tt.current, tt.upEv, tt.downEv, tt.rules, hpaNow)
			}
			if got != tt.want {
				t.Errorf("limit = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestNormalizeWithBehavior(t *testing.T) {
	w := func(s int32) *int32 { return &s }
	max := autoscalingv2.MaxChangePolicySelect
	b := &autoscalingv2.HorizontalPodAutoscalerBehavior{
		ScaleUp:   &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: w(60), SelectPolicy: &max, Policies: []autoscalingv2.HPAScalingPolicy{podsPolicy(2, 60)}},
		ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: w(120), SelectPolicy: &max, Policies: []autoscalingv2.HPAScalingPolicy{podsPolicy(1, 30)}},
	}
	for _, tt := range []struct {
		name             string
		recs             []timedRecommendation
		up, down         []scaleEvent
		current, desired int32
		want             int32
		able, limit      string
	}{
		{name: "scale-up stabilized by a lower recent recommendation", current: 3, desired: 6,
			recs: []timedRecommendation{{3, hpaNow - 30*sim.Second}}, want: 3, able: "ScaleUpStabilized", limit: "DesiredWithinRange"},
		{name: "scale-up window passed, then rate-limited to +2 per 60s", current: 3, desired: 6,
			recs: []timedRecommendation{{3, hpaNow - 61*sim.Second}}, want: 5, able: "ReadyForNewScale", limit: "ScaleUpLimit"},
		{name: "rate limit counts a recent scale-up", current: 5, desired: 6,
			up: []scaleEvent{{Change: 2, At: hpaNow - 30*sim.Second}}, want: 5, able: "ReadyForNewScale", limit: "ScaleUpLimit"},
		{name: "scale-down stabilized by a higher recommendation within 120s", current: 5, desired: 2,
			recs: []timedRecommendation{{4, hpaNow - 100*sim.Second}}, want: 4, able: "ScaleDownStabilized", limit: "DesiredWithinRange"},
		{name: "scale-down limited to -1 per 30s", current: 5, desired: 2, want: 4, able: "ReadyForNewScale", limit: "ScaleDownLimit"},
		{name: "maxReplicas wins over a looser rate", current: 9, desired: 15,
			recs: nil, want: 10, able: "ReadyForNewScale", limit: "TooManyReplicas"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := &behaviorState{Recs: append([]timedRecommendation(nil), tt.recs...), Up: tt.up, Down: tt.down}
			r := normalizeWithBehavior(st, b, tt.current, tt.desired, 1, 10, hpaNow)
			if r.Replicas != tt.want || r.AbleReason != tt.able || r.LimitReason != tt.limit {
				t.Errorf("got %d %s %s, want %d %s %s (%s)", r.Replicas, r.AbleReason, r.LimitReason, tt.want, tt.able, tt.limit, r.Text)
			}
		})
	}
}

func TestStoreScaleEventReusesOutdatedSlots(t *testing.T) {
	b := withBehaviorDefaults(&autoscalingv2.HorizontalPodAutoscalerBehavior{})
	st := &behaviorState{}
	storeScaleEvent(st, b, 1, 4, hpaNow-hpaMins(1))
	storeScaleEvent(st, b, 4, 8, hpaNow)
	if len(st.Up) != 1 || st.Up[0].Change != 4 || st.Up[0].At != hpaNow {
		t.Fatalf("up events = %+v, want one reused slot with +4 now", st.Up)
	}
	storeScaleEvent(st, b, 8, 2, hpaNow)
	if len(st.Down) != 1 || st.Down[0].Change != 6 {
		t.Fatalf("down events = %+v", st.Down)
	}
}

func TestResourceReplicasMemory(t *testing.T) {
	pods, _ := buildHPAPods([]hpaPod{settled("a", 0), settled("b", 0)})
	for _, p := range pods {
		p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("100Mi")}
	}
	// 90Mi and 70Mi of 100Mi each: 80% against a 60% target → ceil(2 × 1.33) = 3.
	samples := map[string]podMetric{
		"a": {Timestamp: hpaNow, Window: 15 * sim.Second, Value: 90 << 20 * 1000},
		"b": {Timestamp: hpaNow, Window: 15 * sim.Second, Value: 70 << 20 * 1000},
	}
	rc, err := resourceReplicas(2, 60, 0, corev1.ResourceMemory, "", pods, samples, hpaNow)
	if err != nil {
		t.Fatal(err)
	}
	if want := "2 pods at 80% of request (80Mi average) vs target 60% → desired ceil(2 × 1.33) = 3"; rc.Text != want || rc.Replicas != 3 {
		t.Errorf("got %d: %q, want 3: %q", rc.Replicas, rc.Text, want)
	}
	// Memory samples are never ignored for readiness: only CPU has a
	// start-up spike to hide.
	pods[1].Status.Conditions[0].Status = corev1.ConditionFalse
	if rc, _ := resourceReplicas(2, 60, 0, corev1.ResourceMemory, "", pods, samples, hpaNow); rc.Ready != 2 {
		t.Errorf("an unready pod's memory sample was ignored: ready %d", rc.Ready)
	}
}

func TestPodRequestsContainer(t *testing.T) {
	pods, _ := buildHPAPods([]hpaPod{settled("a", 0)})
	pods[0].Spec.Containers = append(pods[0].Spec.Containers, corev1.Container{Name: "sidecar"})
	if _, err := podRequests(pods, corev1.ResourceCPU, ""); err == nil ||
		err.Error() != "missing request for cpu in container sidecar of Pod a" {
		t.Errorf("whole pod: %v", err)
	}
	got, err := podRequests(pods, corev1.ResourceCPU, "api")
	if err != nil || got["a"] != 200 {
		t.Errorf("container api: %v %v", got, err)
	}
}
