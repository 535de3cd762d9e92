package controller

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/component"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
)

// cluster is the controller manager on a fixture, with a stand-in for the
// scheduler and kubelets that the test drives by hand.
type cluster struct {
	*fixture
	dc  *DeploymentController
	rsc *ReplicaSetController
	esc *EndpointSliceController
	gc  *GarbageCollector
}

func newCluster(t testing.TB) *cluster {
	f := newFixture(t)
	return &cluster{fixture: f, dc: NewDeploymentController(f.env), rsc: NewReplicaSetController(f.env),
		esc: NewEndpointSliceController(f.env), gc: NewGarbageCollector(f.env)}
}

func (c *cluster) reactors() []component.Reactor {
	return []component.Reactor{c.dc, c.rsc, c.esc, c.gc}
}

func (c *cluster) run() { c.settle(c.reactors()...) }

// startPods plays scheduler and kubelet: every pod that is not Ready yet is
// bound, Running, given an IP and Ready now.
func (c *cluster) startPods() int {
	n := 0
	for i, o := range c.env.Store.List(kinds.Pod, "") {
		p := o.(*corev1.Pod)
		if IsPodReady(p) || p.DeletionTimestamp != nil {
			continue
		}
		c.markRunning(p, i)
		n++
	}
	return n
}

func (c *cluster) markRunning(p *corev1.Pod, i int) {
	c.t.Helper()
	cp := p.DeepCopy()
	ip := "10.0.0." + itoa(i+2)
	cp.Status.Phase = corev1.PodRunning
	cp.Status.PodIP = ip
	cp.Status.PodIPs = []corev1.PodIP{{IP: ip}}
	cp.Status.Conditions = append(cp.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady,
		Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(c.env.Loop.Now().Time())})
	if _, err := c.env.API.UpdateStatus(apiserver.Actor{Component: "kubelet/n1"}, cp); err != nil {
		c.t.Fatal(err)
	}
}

func itoa(i int) string {
	return strings.TrimSpace(strings.Repeat(" ", 0) + string(rune('0'+i/100%10)) + string(rune('0'+i/10%10)) + string(rune('0'+i%10)))
}

func (c *cluster) deployment(name string) *appsv1.Deployment {
	return c.get(kinds.Deployment, "default", name).(*appsv1.Deployment)
}

func (c *cluster) replicaSets(d *appsv1.Deployment) []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for _, o := range controlled(c.env.Store, kinds.ReplicaSet, d) {
		out = append(out, o.(*appsv1.ReplicaSet))
	}
	return out
}

func (c *cluster) scalingEvents() []string {
	var out []string
	for _, e := range c.eventObjects() {
		if e.Reason == "ScalingReplicaSet" {
			out = append(out, e.Message)
		}
	}
	return out
}

func (c *cluster) update(obj kinds.Object) {
	c.t.Helper()
	if _, err := c.env.API.Update(setup, obj); err != nil {
		c.t.Fatal(err)
	}
}

func TestDeploymentCreatesReplicaSet(t *testing.T) {
	c := newCluster(t)
	d := c.create(makeDeployment("api", 3).obj()).(*appsv1.Deployment)
	hash := ComputeHash(&d.Spec.Template, nil)
	if _, err := c.dc.Reconcile("default/api"); err != nil {
		t.Fatal(err)
	}
	c.expectActions("create replicaset default/api-"+hash, "update deployment default/api", "update deployment default/api")
	rs := c.get(kinds.ReplicaSet, "default", "api-"+hash).(*appsv1.ReplicaSet)
	if rs.Labels["pod-template-hash"] != hash || rs.Spec.Selector.MatchLabels["pod-template-hash"] != hash ||
		rs.Spec.Template.Labels["pod-template-hash"] != hash || rs.Spec.Template.Labels["app"] != "api" {
		t.Errorf("labels %v, selector %v, template labels %v; want pod-template-hash=%s everywhere", rs.Labels, rs.Spec.Selector.MatchLabels, rs.Spec.Template.Labels, hash)
	}
	wantAnn := map[string]string{RevisionAnnotation: "1", DesiredReplicasAnnotation: "3", MaxReplicasAnnotation: "4"}
	for k, v := range wantAnn {
		if rs.Annotations[k] != v {
			t.Errorf("annotation %s = %q; want %q", k, rs.Annotations[k], v)
		}
	}
	if ref := metav1.GetControllerOf(rs); ref == nil || ref.UID != d.UID || ref.Kind != "Deployment" || !*ref.BlockOwnerDeletion {
		t.Errorf("controller reference %+v", ref)
	}
	if *rs.Spec.Replicas != 3 {
		t.Errorf("replicas = %d; want 3", *rs.Spec.Replicas)
	}
	if got := c.scalingEvents(); len(got) != 1 || got[0] != "Scaled up replica set api-"+hash+" from 0 to 3" {
		t.Errorf("events = %q", got)
	}
	d = c.deployment("api")
	if d.Annotations[RevisionAnnotation] != "1" || d.Generation != 1 || d.Status.ObservedGeneration != 1 {
		t.Errorf("revision %q, generation %d, observed %d; want 1, 1, 1", d.Annotations[RevisionAnnotation], d.Generation, d.Status.ObservedGeneration)
	}
	p := GetDeploymentCondition(d.Status, appsv1.DeploymentProgressing)
	a := GetDeploymentCondition(d.Status, appsv1.DeploymentAvailable)
	if p == nil || p.Reason != NewReplicaSetReason || p.Message != `Created new replica set "api-`+hash+`"` {
		t.Errorf("Progressing = %+v", p)
	}
	if a == nil || a.Status != corev1.ConditionFalse || a.Reason != MinimumReplicasUnavailable || a.Message != "Deployment does not have minimum availability." {
		t.Errorf("Available = %+v", a)
	}
}

func TestDeploymentBecomesAvailableAndQuiet(t *testing.T) {
	c := newCluster(t)
	c.create(makeDeployment("api", 3).obj())
	c.run()
	c.startPods()
	c.run()
	d := c.deployment("api")
	st := d.Status
	if st.Replicas != 3 || st.UpdatedReplicas != 3 || st.ReadyReplicas != 3 || st.AvailableReplicas != 3 || st.UnavailableReplicas != 0 {
		t.Errorf("status = %+v; want 3/3/3/3/0", st)
	}
	p := GetDeploymentCondition(st, appsv1.DeploymentProgressing)
	rs := c.replicaSets(d)[0]
	if p.Reason != NewRSAvailableReason || p.Message != `ReplicaSet "`+rs.Name+`" has successfully progressed.` {
		t.Errorf("Progressing = %s %q", p.Reason, p.Message)
	}
	if a := GetDeploymentCondition(st, appsv1.DeploymentAvailable); a.Reason != MinimumReplicasAvailable || a.Message != "Deployment has minimum availability." {
		t.Errorf("Available = %s %q", a.Reason, a.Message)
	}
	// Converged: syncing again writes nothing.
	c.actions()
	c.dc.Reconcile("default/api")
	c.rsc.Reconcile("default/" + rs.Name)
	c.expectActions()
}

// rollout changes the image and plays kubelet until the rollout is
// complete, checking the rolling update's bounds at every step.
func (c *cluster) rollout(name, image string, check func(total, available int32)) {
	c.t.Helper()
	d := c.deployment(name).DeepCopy()
	d.Spec.Template.Spec.Containers[0].Image = image
	c.update(d)
	for i := 0; i < 100; i++ {
		c.run()
		total, available := int32(0), int32(0)
		for _, o := range c.env.Store.List(kinds.Pod, "default") {
			p := o.(*corev1.Pod)
			if IsPodActive(p) {
				total++
				if IsPodReady(p) {
					available++
				}
			}
		}
		check(total, available)
		if c.startPods() == 0 {
			c.run()
			return
		}
	}
	c.t.Fatal("rollout did not finish")
}

func TestRollingUpdate(t *testing.T) {
	c := newCluster(t)
	c.create(makeDeployment("api", 4).surge("25%", "25%").obj())
	c.run()
	c.startPods()
	c.run()
	old := c.replicaSets(c.deployment("api"))[0].Name
	c.rollout("api", "nginx:1.28", func(total, available int32) {
		if total > 4+1 {
			t.Errorf("%d pods; a rolling update of 4 with maxSurge 1 allows at most 5", total)
		}
		if available < 4-1 {
			t.Errorf("%d available; with maxUnavailable 1 at least 3 must be", available)
		}
	})
	d := c.deployment("api")
	var nw string
	for _, rs := range c.replicaSets(d) {
		if rs.Name != old {
			nw = rs.Name
		}
	}
	want := []string{
		"Scaled up replica set " + old + " from 0 to 4",
		"Scaled up replica set " + nw + " from 0 to 1",
		"Scaled down replica set " + old + " from 4 to 3",
		"Scaled up replica set " + nw + " from 1 to 2",
		"Scaled down replica set " + old + " from 3 to 1",
		"Scaled up replica set " + nw + " from 2 to 4",
		"Scaled down replica set " + old + " from 1 to 0",
	}
	if got := c.scalingEvents(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("scaling events:\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if d.Annotations[RevisionAnnotation] != "2" || d.Status.UpdatedReplicas != 4 || d.Status.Replicas != 4 || d.Status.AvailableReplicas != 4 {
		t.Errorf("revision %s, status %+v", d.Annotations[RevisionAnnotation], d.Status)
	}
	if p := GetDeploymentCondition(d.Status, appsv1.DeploymentProgressing); p.Reason != NewRSAvailableReason {
		t.Errorf("Progressing = %s", p.Reason)
	}
}

func TestRecreate(t *testing.T) {
	c := newCluster(t)
	c.create(makeDeployment("api", 2).recreate().obj())
	c.run()
	c.startPods()
	c.run()
	old := c.replicaSets(c.deployment("api"))[0].Name
	d := c.deployment("api").DeepCopy()
	d.Spec.Template.Spec.Containers[0].Image = "nginx:1.28"
	c.update(d)
	c.run()
	// Unbound-looking pods of this test have no kubelet to wait for: the
	// API server deletes them at once, so the new ReplicaSet follows in the
	// same instant, but only after the old one is at 0 with no pods.
	var nw string
	for _, rs := range c.replicaSets(c.deployment("api")) {
		if rs.Name != old {
			nw = rs.Name
		}
	}
	want := []string{
		"Scaled up replica set " + old + " from 0 to 2",
		"Scaled down replica set " + old + " from 2 to 0",
		"Scaled up replica set " + nw + " from 0 to 2",
	}
	if got := c.scalingEvents(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("scaling events:\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestRecreateWaitsForOldPods(t *testing.T) {
	c := newCluster(t)
	c.create(makeDeployment("api", 2).recreate().obj())
	c.run()
	c.startPods()
	c.run()
	// Bind the pods, so that deleting them is graceful and they linger.
	for _, o := range c.env.Store.List(kinds.Pod, "default") {
		cp := o.(*corev1.Pod).DeepCopy()
		cp.Spec.NodeName = "n1"
		c.env.Store.Update(cp, 0)
	}
	d := c.deployment("api").DeepCopy()
	d.Spec.Template.Spec.Containers[0].Image = "nginx:1.28"
	c.update(d)
	c.run()
	if n := len(c.replicaSets(c.deployment("api"))); n != 1 {
		t.Fatalf("%d ReplicaSets while old pods terminate; Recreate must not create the new one yet", n)
	}
	// The kubelet finishes: the pods go.
	for _, o := range c.env.Store.List(kinds.Pod, "default") {
		c.env.API.Delete(setup, kinds.Pod, "default", o.GetName(), apiserver.DeleteOptions{GracePeriodSeconds: new(int64)})
	}
	c.run()
	if n := len(c.replicaSets(c.deployment("api"))); n != 2 {
		t.Fatalf("%d ReplicaSets after old pods are gone; want the new one too", n)
	}
}

func TestProgressDeadlineExceeded(t *testing.T) {
	c := newCluster(t)
	in := makeDeployment("api", 2).obj()
	deadline := int32(30)
	in.Spec.ProgressDeadlineSeconds = &deadline
	c.create(in)
	c.advance(29*sim.Second, c.reactors()...)
	if p := GetDeploymentCondition(c.deployment("api").Status, appsv1.DeploymentProgressing); p.Status != corev1.ConditionTrue {
		t.Fatalf("at 29s Progressing = %s %s", p.Status, p.Reason)
	}
	c.advance(10*sim.Second, c.reactors()...)
	d := c.deployment("api")
	p := GetDeploymentCondition(d.Status, appsv1.DeploymentProgressing)
	rs := c.replicaSets(d)[0]
	if p.Status != corev1.ConditionFalse || p.Reason != TimedOutReason || p.Message != `ReplicaSet "`+rs.Name+`" has timed out progressing.` {
		t.Errorf("Progressing = %s %s %q", p.Status, p.Reason, p.Message)
	}
	// Checked at lastUpdateTime + 30s + 1s, as kube's requeue does.
	if got := p.LastUpdateTime.Time; !got.Equal((31 * sim.Second).Time()) {
		t.Errorf("timed out at %v; want 31s", sim.FromTime(got))
	}
}

func TestScaleMidRolloutIsProportional(t *testing.T) {
	c := newCluster(t)
	c.create(makeDeployment("api", 10).surge("3", "2").obj())
	c.run()
	c.startPods()
	c.run()
	d := c.deployment("api").DeepCopy()
	d.Spec.Template.Spec.Containers[0].Image = "nginx:1.28" // stuck: never started
	c.update(d)
	c.run()
	sizes := func() map[string]int32 {
		m := map[string]int32{}
		for _, rs := range c.replicaSets(c.deployment("api")) {
			m[rs.Spec.Template.Spec.Containers[0].Image] = *rs.Spec.Replicas
		}
		return m
	}
	// 10 replicas, maxSurge 3, maxUnavailable 2: new RS 5, old RS 8.
	if s := sizes(); s["nginx:1.27"] != 8 || s["nginx:1.28"] != 5 {
		t.Fatalf("mid-rollout sizes %v; want old 8, new 5", s)
	}
	d = c.deployment("api").DeepCopy()
	twenty := int32(20)
	d.Spec.Replicas = &twenty
	c.update(d)
	c.run()
	// 23 allowed (20 + maxSurge 3), 13 in use: 10 to add, larger first,
	// each in proportion to the annotated max of 13: old round(8*23/13) =
	// 14 (+6), new round(5*23/13) = 9 (+4).
	if s := sizes(); s["nginx:1.27"] != 14 || s["nginx:1.28"] != 9 {
		t.Errorf("after scaling to 20: %v; want old 14, new 9", s)
	}
}

func TestRevisionHistoryLimit(t *testing.T) {
	c := newCluster(t)
	in := makeDeployment("api", 1).obj()
	limit := int32(1)
	in.Spec.RevisionHistoryLimit = &limit
	c.create(in)
	c.run()
	c.startPods()
	c.run()
	for _, img := range []string{"nginx:1.28", "nginx:1.29"} {
		c.rollout("api", img, func(int32, int32) {})
	}
	rss := c.replicaSets(c.deployment("api"))
	var revs []string
	for _, rs := range rss {
		revs = append(revs, rs.Annotations[RevisionAnnotation]+":"+rs.Spec.Template.Spec.Containers[0].Image)
	}
	if strings.Join(revs, " ") != "2:nginx:1.28 3:nginx:1.29" && strings.Join(revs, " ") != "3:nginx:1.29 2:nginx:1.28" {
		t.Errorf("ReplicaSets kept %v; want revisions 2 and 3 (limit 1 old)", revs)
	}
}

func TestPauseAndResume(t *testing.T) {
	c := newCluster(t)
	in := makeDeployment("api", 2).obj()
	deadline := int32(600)
	in.Spec.ProgressDeadlineSeconds = &deadline
	c.create(in)
	c.run()
	c.startPods()
	c.run()
	d := c.deployment("api").DeepCopy()
	d.Spec.Paused = true
	d.Spec.Template.Spec.Containers[0].Image = "nginx:1.28"
	c.update(d)
	c.run()
	d = c.deployment("api")
	if n := len(c.replicaSets(d)); n != 1 {
		t.Errorf("%d ReplicaSets while paused; a paused Deployment must not roll out", n)
	}
	if p := GetDeploymentCondition(d.Status, appsv1.DeploymentProgressing); p.Status != corev1.ConditionUnknown || p.Reason != PausedDeployReason || p.Message != "Deployment is paused" {
		t.Errorf("Progressing = %s %s %q; want Unknown DeploymentPaused", p.Status, p.Reason, p.Message)
	}
	d = d.DeepCopy()
	d.Spec.Paused = false
	c.update(d)
	c.run()
	d = c.deployment("api")
	if n := len(c.replicaSets(d)); n != 2 {
		t.Errorf("%d ReplicaSets after resume; want the rollout to start", n)
	}
	if p := GetDeploymentCondition(d.Status, appsv1.DeploymentProgressing); p.Reason == PausedDeployReason {
		t.Errorf("Progressing still %s after resume", p.Reason)
	}
}

func TestRollbackReusesOldReplicaSet(t *testing.T) {
	c := newCluster(t)
	c.create(makeDeployment("api", 2).obj())
	c.run()
	c.startPods()
	c.run()
	first := c.replicaSets(c.deployment("api"))[0].Name
	c.rollout("api", "nginx:1.28", func(int32, int32) {})
	// kubectl rollout undo: the template goes back to revision 1's.
	c.rollout("api", "nginx:1.27", func(int32, int32) {})
	d := c.deployment("api")
	if n := len(c.replicaSets(d)); n != 2 {
		t.Fatalf("%d ReplicaSets; a rollback must reuse the old one", n)
	}
	rs := c.get(kinds.ReplicaSet, "default", first).(*appsv1.ReplicaSet)
	if *rs.Spec.Replicas != 2 || rs.Annotations[RevisionAnnotation] != "3" || rs.Annotations[RevisionHistoryAnnotation] != "1" {
		t.Errorf("%s: replicas %d, revision %q, history %q; want 2, 3, 1", first, *rs.Spec.Replicas, rs.Annotations[RevisionAnnotation], rs.Annotations[RevisionHistoryAnnotation])
	}
	if d.Annotations[RevisionAnnotation] != "3" {
		t.Errorf("deployment revision %q; want 3", d.Annotations[RevisionAnnotation])
	}
}

// TestStuckDeploymentIsCheckedAtTheRateLimitersPace: a Deployment whose
// rollout completed (Progressing NewReplicaSetAvailable) and which then
// lost a Ready pod can neither complete nor time out; once its progress
// deadline has passed, kube re-checks it through the rate limiter
// ("make it ratelimited so we stay on the safe side"): 5 ms apart while
// the controller's burst of 100 lasts, then 10 a second. Not every 5 ms.
func TestStuckDeploymentIsCheckedAtTheRateLimitersPace(t *testing.T) {
	c := newCluster(t)
	in := makeDeployment("api", 2).obj()
	deadline := int32(30)
	in.Spec.ProgressDeadlineSeconds = &deadline
	c.create(in)
	c.run()
	c.startPods()
	c.run()
	if p := GetDeploymentCondition(c.deployment("api").Status, appsv1.DeploymentProgressing); p == nil || p.Reason != NewRSAvailableReason {
		t.Fatalf("Progressing = %+v; want NewReplicaSetAvailable", p)
	}
	pod := c.env.Store.List(kinds.Pod, "default")[0].(*corev1.Pod).DeepCopy()
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == corev1.PodReady {
			pod.Status.Conditions[i].Status = corev1.ConditionFalse
		}
	}
	if _, err := c.env.API.UpdateStatus(apiserver.Actor{Component: "kubelet/n1"}, pod); err != nil {
		t.Fatal(err)
	}
	c.advance(40*sim.Second, c.reactors()...)
	syncs := 0
	reconcile := c.dc.reconcile
	c.dc.reconcile = func(key string) (Result, error) { syncs++; return reconcile(key) }
	c.advance(60*sim.Second, c.reactors()...)
	// The burst (at most 100) and then 10 a second for the rest of the minute.
	if syncs < 550 || syncs > 800 {
		t.Errorf("%d syncs of the stuck Deployment in a minute; want about 100 + 10/s (kube's rate limiter), not one every 5 ms", syncs)
	}
}

// TestDescribeDeploymentStatus describes status writes with and without
// changed conditions and a standing, twice each, so that the shared
// messages of the ones that report counts only are read back as well as
// made.
func TestDescribeDeploymentStatus(t *testing.T) {
	c := NewDeploymentController(newFixture(t).env)
	counts := func(replicas, updated, ready, available int32, conds ...appsv1.DeploymentCondition) *appsv1.DeploymentStatus {
		return &appsv1.DeploymentStatus{Replicas: replicas, UpdatedReplicas: updated, ReadyReplicas: ready,
			AvailableReplicas: available, Conditions: conds}
	}
	available := appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: MinimumReplicasAvailable}
	unavailable := appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionFalse, Reason: MinimumReplicasUnavailable}
	progressing := appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: ReplicaSetUpdatedReason}
	for _, tc := range []struct {
		old, st  *appsv1.DeploymentStatus
		standing string
		want     string
	}{
		{counts(0, 0, 0, 0), counts(150, 150, 120, 118), "",
			"Updated status: 150 replicas, 150 updated, 120 ready, 118 available"},
		{counts(0, 0, 0, 0), counts(150, 150, 120, 119), "",
			"Updated status: 150 replicas, 150 updated, 120 ready, 119 available"},
		{counts(0, 0, 0, 0), counts(150, 149, 120, 118), "",
			"Updated status: 150 replicas, 149 updated, 120 ready, 118 available"},
		{counts(3, 3, 1, 1, unavailable, progressing), counts(3, 3, 2, 2, unavailable, progressing), "",
			"Updated status: 3 replicas, 3 updated, 2 ready, 2 available"},
		{counts(3, 3, 0, 0), counts(3, 3, 0, 0, unavailable, progressing), "",
			"Updated status: 3 replicas, 3 updated, 0 ready, 0 available; Available=False (MinimumReplicasUnavailable); Progressing=True (ReplicaSetUpdated)"},
		{counts(3, 3, 1, 1, unavailable), counts(3, 3, 2, 2, available), "",
			"Updated status: 3 replicas, 3 updated, 2 ready, 2 available; Available=True (MinimumReplicasAvailable)"},
		{counts(0, 0, 0, 0), counts(3, 3, 2, 2), "new replicaset web-1 has 2 of 3 pods available",
			"Updated status: 3 replicas, 3 updated, 2 ready, 2 available; new replicaset web-1 has 2 of 3 pods available"},
	} {
		for round := range 2 {
			if got := c.describeDeploymentStatus(tc.old, tc.st, tc.standing); got != tc.want {
				t.Errorf("round %d: describeDeploymentStatus = %q; want %q", round, got, tc.want)
			}
		}
	}
}
