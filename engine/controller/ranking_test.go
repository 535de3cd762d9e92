package controller

import (
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/sim"
)

func TestActivePodsWithRanksRules(t *testing.T) {
	now := metav1.NewTime(sim.Hour.Time())
	running := func(name string) *podBuilder { return makePod(name).node("n1").phase(corev1.PodRunning) }
	tests := []struct {
		rule         string
		first, then  *corev1.Pod
		rankF, rankT int
	}{
		{"1 unassigned before assigned", makePod("a").phase(corev1.PodPending).obj(), makePod("b").node("n1").phase(corev1.PodPending).obj(), 0, 0},
		{"2 Pending before Unknown", makePod("a").node("n1").phase(corev1.PodPending).obj(), makePod("b").node("n1").phase(corev1.PodUnknown).obj(), 0, 0},
		{"2 Unknown before Running", makePod("a").node("n1").phase(corev1.PodUnknown).obj(), running("b").obj(), 0, 0},
		{"3 not ready before ready", running("a").obj(), running("b").ready(0).obj(), 0, 0},
		{"4 lower deletion cost first", running("a").ready(0).cost("-5").obj(), running("b").ready(0).obj(), 0, 5},
		{"4 invalid cost counts as 0", running("a").ready(0).cost("x").obj(), running("b").ready(0).cost("1").obj(), 0, 0},
		{"5 doubled up before alone", running("a").ready(0).obj(), running("b").ready(0).obj(), 3, 1},
		{"6 ready more recently first", running("a").ready(50 * sim.Minute).obj(), running("b").ready(1 * sim.Minute).obj(), 1, 1},
		{"7 more restarts first", running("a").ready(0).restarts(4).obj(), running("b").ready(0).restarts(1).obj(), 1, 1},
		{"8 newer first", running("a").created(50 * sim.Minute).obj(), running("b").created(1 * sim.Minute).obj(), 1, 1},
	}
	for _, tt := range tests {
		s := ActivePodsWithRanks{Pods: []*corev1.Pod{tt.first, tt.then}, Rank: []int{tt.rankF, tt.rankT}, Now: now}
		if !s.Less(0, 1) || s.Less(1, 0) {
			t.Errorf("rule %s: Less(first, then) = %v, Less(then, first) = %v; want true, false", tt.rule, s.Less(0, 1), s.Less(1, 0))
		}
	}
}

func TestLogarithmicScaleDown(t *testing.T) {
	// At t = 1h, pods ready at 30m and 40m have been ready 30m and 20m:
	// 1.8e12 ns and 1.2e12 ns fall in the same power-of-two bucket (2^40 ..
	// 2^41), so the UID decides, not which is more recent.
	now := metav1.NewTime(sim.Hour.Time())
	a := makePod("a").node("n1").phase(corev1.PodRunning).ready(30 * sim.Minute).obj()
	b := makePod("b").node("n1").phase(corev1.PodRunning).ready(40 * sim.Minute).obj()
	s := ActivePodsWithRanks{Pods: []*corev1.Pod{a, b}, Rank: []int{0, 0}, Now: now}
	if !s.Less(0, 1) {
		t.Error("same bucket: want the lower UID (uid-a) first")
	}
	// Without a reference time, the more recently ready goes first.
	s.Now = metav1.Time{}
	if !s.Less(1, 0) {
		t.Error("no Now: want the more recently ready (b) first")
	}
	// Buckets differ: ready 1 min ago (2^35) versus 30 min ago (2^40).
	c := makePod("c").node("n1").phase(corev1.PodRunning).ready(59 * sim.Minute).obj()
	s = ActivePodsWithRanks{Pods: []*corev1.Pod{a, c}, Rank: []int{0, 0}, Now: now}
	if !s.Less(1, 0) {
		t.Error("different buckets: want the more recently ready (c) first")
	}
}

func TestPodsToDeleteOrder(t *testing.T) {
	now := metav1.NewTime(sim.Hour.Time())
	pods := []*corev1.Pod{
		makePod("ready-old").node("n1").phase(corev1.PodRunning).ready(1 * sim.Minute).created(0).obj(),
		makePod("pending").node("n2").phase(corev1.PodPending).obj(),
		makePod("ready-doubled").node("n3").phase(corev1.PodRunning).ready(2 * sim.Minute).obj(),
		makePod("unscheduled").phase(corev1.PodPending).obj(),
		makePod("running-unready").node("n1").phase(corev1.PodRunning).obj(),
		makePod("ready-n3").node("n3").phase(corev1.PodRunning).ready(1 * sim.Minute).obj(),
	}
	ranked := rankByRelatedPodsOnSameNode(pods, pods, now)
	sort.Sort(ranked)
	var names []string
	for _, p := range ranked.Pods {
		names = append(names, p.Name)
	}
	want := "unscheduled pending running-unready ready-doubled ready-n3 ready-old"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("deletion order:\n  got  %s\n  want %s", got, want)
	}
}

func TestIsPodAvailable(t *testing.T) {
	p := makePod("a").ready(10 * sim.Second).obj()
	at := func(tk sim.Tick) metav1.Time { return metav1.NewTime(tk.Time()) }
	for _, tt := range []struct {
		minReady int32
		now      sim.Tick
		want     bool
	}{
		{0, 10 * sim.Second, true},
		{5, 15 * sim.Second, false}, // exactly minReadySeconds: not yet (strictly after)
		{5, 15*sim.Second + 1, true},
		{5, 12 * sim.Second, false},
	} {
		if got := IsPodAvailable(p, tt.minReady, at(tt.now)); got != tt.want {
			t.Errorf("IsPodAvailable(ready at 10s, minReady %d, now %s) = %v; want %v", tt.minReady, tt.now, got, tt.want)
		}
	}
	if IsPodAvailable(makePod("b").obj(), 0, at(0)) {
		t.Error("a pod that is not Ready is available")
	}
}
