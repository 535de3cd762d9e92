package scheduler_test

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/scheduler"
	"github.com/kubeloop/kubeloop/engine/scheduler/internal/st"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/trace"
)

func schedulerEvents(h *harness) []string {
	var out []string
	for _, ev := range h.trace.All() {
		if ev.Component == scheduler.Component {
			out = append(out, fmt.Sprintf("%s %s", ev.T, ev.Message))
		}
	}
	return out
}

func eventsFor(h *harness, reason string) []*corev1.Event {
	var out []*corev1.Event
	for _, o := range h.store.List(kinds.Event, "") {
		if ev := o.(*corev1.Event); ev.Reason == reason {
			out = append(out, ev)
		}
	}
	return out
}

func TestNumFeasibleNodesToFind(t *testing.T) {
	tests := []struct {
		nodes, want int
		pct         int32
	}{
		{3, 3, 0}, {99, 99, 0}, {100, 100, 50}, {500, 230, 46}, {1000, 420, 42}, {5000, 500, 10}, {15000, 750, 5},
	}
	for _, tt := range tests {
		if got, pct := scheduler.NumFeasibleNodesToFind(0, tt.nodes); got != tt.want || pct != tt.pct {
			t.Errorf("NumFeasibleNodesToFind(0, %d) = %d, %d%%; want %d, %d%%", tt.nodes, got, pct, tt.want, tt.pct)
		}
	}
	if got, _ := scheduler.NumFeasibleNodesToFind(1, 5000); got != 100 {
		t.Errorf("NumFeasibleNodesToFind(1%%, 5000) = %d; want the floor of 100", got)
	}
}

func TestBackoffDuration(t *testing.T) {
	want := []sim.Tick{0, 1, 2, 4, 8, 10, 10, 10}
	for attempts, w := range want {
		if got := scheduler.BackoffDuration(attempts, sim.Second, 10*sim.Second); got != w*sim.Second {
			t.Errorf("BackoffDuration(%d) = %s; want %s", attempts, got, w*sim.Second)
		}
	}
}

// TestBackoffRetries: a pod that fails with no plugin to blame (no nodes at
// all) is retried after 1, 2, 4, 8, 10 and 10 seconds. Its FailedScheduling
// events are the events.k8s.io/v1 recorder's: the first attempt's Event
// names the pod before its PodScheduled condition was written, so the
// second attempt's is another; from the third on they repeat the second,
// which becomes a series of 2, then counts up in the recorder's memory
// only until its 30-minute refresh writes the count.
func TestBackoffRetries(t *testing.T) {
	h := newHarness()
	h.create(st.MakePod().Name("lonely").Obj())
	h.advance(36 * sim.Second)
	times := failedAttempts(t, h)
	var gaps []string
	for i := 1; i < len(times); i++ {
		gaps = append(gaps, (times[i] - times[i-1]).String())
	}
	if got, want := strings.Join(gaps, " "), "1.000s 2.000s 4.000s 8.000s 10.000s 10.000s"; got != want {
		t.Errorf("retry gaps = %s; want %s", got, want)
	}
	evs := eventsFor(h, "FailedScheduling")
	if len(evs) != 2 {
		t.Fatalf("%d FailedScheduling events; want 2: %+v", len(evs), evs)
	}
	for _, ev := range evs {
		if ev.Type != corev1.EventTypeWarning || ev.Action != "Scheduling" || ev.ReportingController != "default-scheduler" ||
			ev.ReportingInstance != "default-scheduler-control-plane" || ev.Source != (corev1.EventSource{}) ||
			ev.Count != 0 || !ev.FirstTimestamp.IsZero() || !ev.LastTimestamp.IsZero() {
			t.Errorf("event %s is not as events.k8s.io/v1 writes it: %+v", ev.Name, ev)
		}
	}
	first, second := evs[0], evs[1]
	if first.Series != nil || sim.FromTime(first.EventTime.Time) != times[0] {
		t.Errorf("first event: series %+v, eventTime %s; want none, %s", first.Series, first.EventTime, times[0])
	}
	if second.InvolvedObject.ResourceVersion == first.InvolvedObject.ResourceVersion {
		t.Errorf("both events regard the pod at resourceVersion %s", first.InvolvedObject.ResourceVersion)
	}
	if sim.FromTime(second.EventTime.Time) != times[1] || second.Series == nil || second.Series.Count != 2 ||
		sim.FromTime(second.Series.LastObservedTime.Time) != times[2] {
		t.Errorf("second event: eventTime %s, series %+v; want %s, a series of 2 last seen at %s",
			second.EventTime, second.Series, times[1], times[2])
	}
	p := h.pod("lonely")
	if len(p.Status.Conditions) != 1 || p.Status.Conditions[0].Reason != "Unschedulable" ||
		p.Status.Conditions[0].Message != "no nodes available to schedule pods" {
		t.Errorf("conditions = %+v", p.Status.Conditions)
	}

	// At 30 minutes the recorder writes the count it kept: every attempt
	// since the second, and no more until the next refresh.
	h.advance(30*sim.Minute - h.loop.Now() + 5*sim.Second)
	times = failedAttempts(t, h)
	want := int32(0)
	for _, at := range times[1:] {
		if at <= 30*sim.Minute {
			want++
		}
	}
	if got := eventsFor(h, "FailedScheduling")[1].Series; got == nil || got.Count != want ||
		sim.FromTime(got.LastObservedTime.Time) > 30*sim.Minute {
		t.Errorf("series after the refresh = %+v; want %d attempts up to 30m", got, want)
	}
}

// failedAttempts is when the scheduler recorded a FailedScheduling, all
// for no nodes.
func failedAttempts(t *testing.T, h *harness) []sim.Tick {
	var times []sim.Tick
	for _, ev := range h.trace.All() {
		if ev.Component == scheduler.Component && strings.HasPrefix(ev.Message, "FailedScheduling") {
			times = append(times, ev.T)
			if ev.Message != "FailedScheduling: no nodes available to schedule pods" {
				t.Errorf("message %q", ev.Message)
			}
		}
	}
	return times
}

// TestEventSeriesFinish: once a pod stops failing, the recorder writes its
// series' final count at the first of its six-minute passes that comes
// over six minutes after the last repeat, and forgets it.
func TestEventSeriesFinish(t *testing.T) {
	h := newHarness()
	h.create(st.MakePod().Name("lonely").Obj())
	h.advance(36 * sim.Second) // 7 attempts: the second Event's series counts 6
	h.create(st.MakeNode().Name("n1").Obj())
	h.advance(6*sim.Minute - h.loop.Now() + sim.Second)
	if h.pod("lonely").Spec.NodeName != "n1" {
		t.Fatalf("pod not bound to n1")
	}
	series := func() *corev1.EventSeries { return eventsFor(h, "FailedScheduling")[1].Series }
	if s := series(); s == nil || s.Count != 2 {
		t.Errorf("series at 6m = %+v; want 2: the last repeat, at 35s, is not six minutes old", s)
	}
	h.advance(12*sim.Minute - h.loop.Now() + sim.Second)
	if s := series(); s == nil || s.Count != 6 || sim.FromTime(s.LastObservedTime.Time) != 35*sim.Second {
		t.Errorf("series at 12m = %+v; want 6, last seen at 35s", s)
	}
	var passes []string
	var lastFailure uint64
	for _, ev := range h.trace.All() {
		if strings.HasPrefix(ev.Message, "FailedScheduling") {
			lastFailure = ev.Seq
		}
		if strings.HasPrefix(ev.Message, "event series") {
			passes = append(passes, ev.T.String()+" "+ev.Message)
			if ev.Cause != lastFailure || ev.Column != trace.Maintain {
				t.Errorf("series write: cause #%d, column %s; want the last failure #%d, Maintain", ev.Cause, ev.Column, lastFailure)
			}
		}
	}
	if got, want := strings.Join(passes, "; "), "12m00.000s event series FailedScheduling x6 finished: its last repeat was over 6 minutes ago"; got != want {
		t.Errorf("series writes = %q; want %q", got, want)
	}
	// Forgotten: the 30-minute refresh writes nothing.
	rev := h.store.Rev()
	h.advance(31*sim.Minute - h.loop.Now())
	if h.store.Rev() != rev {
		t.Errorf("%d writes after the series finished; want none", h.store.Rev()-rev)
	}
}

// TestFailedSchedulingExample reproduces k8s-facts §4.7's full example on a
// real cycle: a tainted control-plane node and two nodes short of cpu.
func TestFailedSchedulingExample(t *testing.T) {
	h := newHarness()
	h.create(st.MakeNode().Name("cp").Taint("node-role.kubernetes.io/control-plane", "", corev1.TaintEffectNoSchedule).Obj())
	h.create(st.MakeNode().Name("n1").Obj())
	h.create(st.MakeNode().Name("n2").Obj())
	h.create(st.MakePod().Name("busy1").Node("n1").Req("3500m", "").Obj())
	h.create(st.MakePod().Name("busy2").Node("n2").Req("3500m", "").Obj())
	h.create(st.MakePod().Name("web").Req("1", "").Obj())
	h.settle()
	want := "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. " +
		"preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."
	evs := eventsFor(h, "FailedScheduling")
	if len(evs) != 1 || evs[0].Message != want {
		t.Fatalf("FailedScheduling = %v; want %q", evs, want)
	}
	c := h.pod("web").Status.Conditions
	if len(c) != 1 || c[0].Type != corev1.PodScheduled || c[0].Status != corev1.ConditionFalse || c[0].Reason != "Unschedulable" || c[0].Message != want {
		t.Errorf("PodScheduled = %+v", c)
	}
	// Freeing room on n1 (an assigned pod deleted) moves the pod back: it
	// is bound at once, its backoff (1 s after one attempt) being over.
	h.advance(2 * sim.Second)
	if _, err := h.api.Delete(apiserver.Actor{Component: "test"}, kinds.Pod, "default", "busy1", apiserver.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	h.settle()
	if n := h.pod("web").Spec.NodeName; n != "n1" {
		t.Errorf("web on %q; want n1", n)
	}
}

func TestTruncateMessage(t *testing.T) {
	long := strings.Repeat("x", 2000)
	got := scheduler.TruncateMessage(long)
	if len(got) != 1024 || !strings.HasSuffix(got, "x ...") {
		t.Errorf("TruncateMessage: len %d, suffix %q", len(got), got[len(got)-6:])
	}
	if scheduler.TruncateMessage("short") != "short" {
		t.Error("short message changed")
	}
}

func TestPodLevelDetails(t *testing.T) {
	h := newHarness()
	h.create(st.MakeNode().Name("n1").Obj())
	// Already bound: never scheduled, but its requests count.
	h.create(st.MakePod().Name("bound").Node("n1").Req("3", "").Obj())
	// Another scheduler's pod is left alone.
	other := st.MakePod().Name("other").Obj()
	other.Spec.SchedulerName = "my-scheduler"
	h.create(other)
	h.settle()
	if n := h.pod("other").Spec.NodeName; n != "" {
		t.Errorf("other scheduler's pod bound to %s", n)
	}
	if len(h.sched.Explain("default", "bound")) != 0 {
		t.Error("a bound pod was scheduled")
	}
	if got := h.sched.NodeInfo("n1").Requested.MilliCPU; got != 3000 {
		t.Errorf("n1 requested %dm; want 3000m", got)
	}
	// A pod deleted while waiting is dropped from the queue and forgotten.
	h.create(st.MakePod().Name("huge").Req("2", "").Obj())
	h.settle()
	if a, b, u := h.sched.Queued(); a+b+u != 1 {
		t.Fatalf("queued %d %d %d; want the huge pod parked", a, b, u)
	}
	if _, err := h.api.Delete(apiserver.Actor{Component: "test"}, kinds.Pod, "default", "huge", apiserver.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	h.settle()
	if a, b, u := h.sched.Queued(); a+b+u != 0 {
		t.Errorf("queued %d %d %d after delete; want none", a, b, u)
	}
	if len(h.sched.Explain("default", "huge")) != 0 {
		t.Error("explanations kept for a deleted pod")
	}
	// A finished pod frees its node.
	p := h.pod("bound").DeepCopy()
	p.Status.Phase = corev1.PodSucceeded
	if _, err := h.api.UpdateStatus(apiserver.Actor{Component: "test"}, p); err != nil {
		t.Fatal(err)
	}
	h.settle()
	if got := h.sched.NodeInfo("n1").Requested.MilliCPU; got != 0 {
		t.Errorf("n1 requested %dm after the pod finished; want 0", got)
	}
}

// TestUnschedulableFlush: a parked pod that no event helps is tried again
// once it has waited more than 5 minutes, at the next 30-second flush.
func TestUnschedulableFlush(t *testing.T) {
	h := newHarness()
	h.create(st.MakeNode().Name("n1").Obj())
	h.create(st.MakePod().Name("big").Req("8", "").Obj())
	h.advance(11 * sim.Minute)
	got := schedulerEvents(h)
	if len(got) != 3 || !strings.HasPrefix(got[1], "5m30.000s ") || !strings.HasPrefix(got[2], "11m00.000s ") {
		t.Errorf("attempts:\n%s\nwant at 0s, 5m30s and 11m00s", strings.Join(got, "\n"))
	}
}

// TestCordonAndTaintRequeue: the plugins' queueing hints decide which node
// changes bring a parked pod back.
func TestCordonAndTaintRequeue(t *testing.T) {
	h := newHarness()
	h.create(st.MakeNode().Name("n1").Unschedulable().Obj())
	h.create(st.MakePod().Name("web").Obj())
	h.advance(sim.Minute)
	if a, b, u := h.sched.Queued(); u != 1 || a+b != 0 {
		t.Fatalf("queued %d %d %d; want the pod parked", a, b, u)
	}
	// A relabel does not concern NodeUnschedulable: the pod stays parked.
	n := h.store.List(kinds.Node, "")[0].(*corev1.Node).DeepCopy()
	n.Labels["team"] = "a"
	if _, err := h.api.Update(apiserver.Actor{Component: "test"}, n); err != nil {
		t.Fatal(err)
	}
	h.settle()
	if a, b, u := h.sched.Queued(); u != 1 || a+b != 0 {
		t.Fatalf("after relabel: queued %d %d %d; want still parked", a, b, u)
	}
	// Uncordoning does.
	n = h.store.List(kinds.Node, "")[0].(*corev1.Node).DeepCopy()
	n.Spec.Unschedulable = false
	if _, err := h.api.Update(apiserver.Actor{Component: "test"}, n); err != nil {
		t.Fatal(err)
	}
	h.settle()
	if got := h.pod("web").Spec.NodeName; got != "n1" {
		t.Errorf("web on %q after uncordon; want n1", got)
	}
}

// TestNodeTreeOrder: the scan interleaves zones, as kube's node tree does,
// so with one feasible node per zone found first the spread is even.
func TestNodeTreeOrder(t *testing.T) {
	h := newHarness()
	for i, z := range []string{"a", "a", "b", "b", "c"} {
		h.create(st.MakeNode().Name(fmt.Sprintf("n%d", i+1)).Label(corev1.LabelTopologyZone, z).Obj())
	}
	h.create(st.MakePod().Name("p").Obj())
	h.settle()
	d := h.sched.Explain("default", "p")[0]
	var order []string
	for _, r := range d.Nodes {
		order = append(order, r.Node)
	}
	if got, want := strings.Join(order, " "), "n1 n3 n5 n2 n4"; got != want {
		t.Errorf("scan order %s; want %s", got, want)
	}
}

// TestDeterminism: the same seed gives the same bindings and trace; another
// seed may change only the choices among tied nodes, so every decision's
// winning score is the same.
func TestDeterminism(t *testing.T) {
	run := func(seed uint64) (bindings, scores, trace string) {
		h := newHarnessSeed(seed)
		for i := 1; i <= 10; i++ {
			h.create(st.MakeNode().Name(fmt.Sprintf("n%d", i)).Label(corev1.LabelTopologyZone, fmt.Sprintf("z%d", i%3)).Obj())
		}
		for i := 1; i <= 30; i++ {
			h.create(st.MakePod().Name(fmt.Sprintf("p%02d", i)).Req("300m", "1Gi").Obj())
			h.settle()
		}
		// Parked pods, moved back together by one event: the order a map
		// is visited in must not show.
		for i := 1; i <= 20; i++ {
			h.create(st.MakePod().Name(fmt.Sprintf("big%02d", i)).Req("3800m", "").Obj())
			h.advance(700 * sim.Millisecond)
		}
		h.create(st.MakeNode().Name("huge").Capacity("64", "256Gi", 110).Obj())
		h.advance(30 * sim.Second)
		var b, s []string
		for i := 1; i <= 20; i++ {
			name := fmt.Sprintf("big%02d", i)
			b = append(b, name+"="+h.pod(name).Spec.NodeName)
		}
		for i := 1; i <= 30; i++ {
			name := fmt.Sprintf("p%02d", i)
			b = append(b, name+"="+h.pod(name).Spec.NodeName)
			s = append(s, fmt.Sprint(h.sched.Explain("default", name)[0].Score))
		}
		return strings.Join(b, " "), strings.Join(s, " "), strings.Join(schedulerEvents(h), "\n")
	}
	b1, s1, t1 := run(1)
	if !strings.Contains(t1, "FailedScheduling") || !strings.Contains(b1, "big01=huge") || !strings.Contains(b1, "big20=") {
		t.Fatalf("scenario did not park and move pods:\n%s", b1)
	}
	b1again, s1again, t1again := run(1)
	if b1 != b1again || s1 != s1again || t1 != t1again {
		t.Fatalf("seed 1 twice differs:\n%s\n%s", b1, b1again)
	}
	b2, s2, _ := run(2)
	if s1 != s2 {
		t.Errorf("winning scores differ between seeds:\n%s\n%s", s1, s2)
	}
	if b1 == b2 {
		t.Errorf("seeds 1 and 2 broke every tie the same way; the tie-break ignores the seed")
	}
}

// TestPreemptedEvent: the Preempted Event regards the victim as the
// scheduler chose it, before its DisruptionTarget condition was written
// (kube's prepareCandidate), names the preemptor as related, and says
// what the scheduler did: Preempting.
func TestPreemptedEvent(t *testing.T) {
	h := newHarness()
	for name, v := range map[string]int32{"low": 10, "high": 1000} {
		h.create(&schedulingv1.PriorityClass{TypeMeta: metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1", Kind: "PriorityClass"},
			ObjectMeta: metav1.ObjectMeta{Name: name}, Value: v})
	}
	h.create(st.MakeNode().Name("n1").Capacity("1", "4Gi", 110).Obj())
	victim := st.MakePod().Name("victim").Req("1", "100Mi").Obj()
	victim.Spec.PriorityClassName = "low"
	h.create(victim)
	h.advance(sim.Second)
	chosen := h.pod("victim").ResourceVersion
	urgent := st.MakePod().Name("urgent").Req("1", "100Mi").Obj()
	urgent.Spec.PriorityClassName = "high"
	h.create(urgent)
	h.advance(sim.Second)
	evs := eventsFor(h, "Preempted")
	if len(evs) != 1 {
		t.Fatalf("%d Preempted events; want 1", len(evs))
	}
	ev := evs[0]
	if ev.InvolvedObject.Name != "victim" || ev.InvolvedObject.ResourceVersion != chosen || ev.Related == nil ||
		ev.Related.Name != "urgent" || ev.Action != "Preempting" || ev.ReportingController != "default-scheduler" {
		t.Errorf("Preempted event = %+v; want it about victim at resourceVersion %s, related urgent, action Preempting", ev, chosen)
	}
}

// TestExplainFollowsPodLifecycle checks that a pod's decision is explained
// for as long as the pod exists, wherever the scheduler keeps it: waiting,
// bound and running (the cache keeps it then), finished, and not after it
// is deleted, nor for a new pod of the same name.
func TestExplainFollowsPodLifecycle(t *testing.T) {
	h := newHarness()
	h.create(st.MakeNode().Name("n1").Obj())
	h.create(st.MakePod().Name("p").Req("100m", "").Obj())
	h.settle()
	status := func(phase corev1.PodPhase) {
		t.Helper()
		p := h.pod("p").DeepCopy()
		p.Status.Phase = phase
		if _, err := h.api.UpdateStatus(apiserver.Actor{Component: "test"}, p); err != nil {
			t.Fatal(err)
		}
		h.settle()
	}
	check := func(when, node string, attempts int) {
		t.Helper()
		d := h.sched.Explain("default", "p")
		if len(d) != attempts || attempts > 0 && (d[len(d)-1].Node != node || d[len(d)-1].Pod != "default/p") {
			t.Errorf("%s: %d decisions %v; want %d, the last binding to %q", when, len(d), d, attempts, node)
		}
	}
	check("bound", "n1", 1)
	status(corev1.PodRunning)
	check("running", "n1", 1)
	status(corev1.PodSucceeded)
	check("finished", "n1", 1)
	del := func(grace *int64) {
		t.Helper()
		if _, err := h.api.Delete(apiserver.Actor{Component: "test"}, kinds.Pod, "default", "p",
			apiserver.DeleteOptions{GracePeriodSeconds: grace}); err != nil {
			t.Fatal(err)
		}
		h.settle()
	}
	del(nil)
	check("deleted", "", 0)
	// Deleted while running: the decision goes with the cached pod.
	h.create(st.MakePod().Name("p").Req("100m", "").Obj())
	h.settle()
	check("bound again", "n1", 1)
	del(nil) // graceful: the pod stays, terminating
	check("terminating", "n1", 1)
	now := int64(0)
	del(&now)
	check("deleted while running", "", 0)
	// A new pod of the same name has its own decisions only.
	h.create(st.MakePod().Name("p").Req("100", "").Obj())
	h.settle()
	check("too big to place", "", 1)
}
