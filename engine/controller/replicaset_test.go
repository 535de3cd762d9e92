package controller

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/trace"
)

func makeReplicaSet(name string, replicas int32) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": name}},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}, Annotations: map[string]string{"note": "x"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
			},
		},
	}
}

// ownedPod is a pod of rs, as the ReplicaSet controller would have made it.
func (f *fixture) ownedPod(rs *appsv1.ReplicaSet, b *podBuilder) *corev1.Pod {
	p := b.obj()
	p.Labels = copyMap(rs.Spec.Template.Labels)
	p.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(rs, replicaSetGVK)}
	status := p.Status
	created := f.create(p).(*corev1.Pod)
	if status.Phase != "" || len(status.Conditions) > 0 {
		cp := created.DeepCopy()
		cp.Status = status
		created = f.setStatus(cp).(*corev1.Pod)
	}
	return created
}

func TestReplicaSetCreatesPods(t *testing.T) {
	f := newFixture(t)
	rs := f.create(makeReplicaSet("web", 3)).(*appsv1.ReplicaSet)
	c := NewReplicaSetController(f.env)
	if _, err := c.Reconcile("default/web"); err != nil {
		t.Fatal(err)
	}
	got := f.actions()
	want := []string{"create pod", "create pod", "create pod", "update replicaset default/web"}
	if len(got) != len(want) {
		t.Fatalf("actions = %v", got)
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("action %d = %q; want %q...", i, got[i], w)
		}
	}
	pods := f.env.Store.List(kinds.Pod, "default")
	if len(pods) != 3 {
		t.Fatalf("pods = %d; want 3", len(pods))
	}
	for _, o := range pods {
		p := o.(*corev1.Pod)
		if p.GenerateName != "web-" || !strings.HasPrefix(p.Name, "web-") || len(p.Name) != len("web-")+5 {
			t.Errorf("pod name %q (generateName %q); want web- and 5 characters", p.Name, p.GenerateName)
		}
		ref := metav1.GetControllerOf(p)
		if ref == nil || ref.UID != rs.UID || ref.Kind != "ReplicaSet" || ref.APIVersion != "apps/v1" ||
			ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
			t.Errorf("pod %s controller reference = %+v", p.Name, ref)
		}
		if p.Labels["app"] != "web" || p.Annotations["note"] != "x" {
			t.Errorf("pod %s labels %v annotations %v; want the template's", p.Name, p.Labels, p.Annotations)
		}
	}
	for _, e := range f.events() {
		if !strings.HasPrefix(e, "SuccessfulCreate: Created pod: web-") {
			t.Errorf("event %q; want SuccessfulCreate: Created pod: web-...", e)
		}
	}
	// The status write came from the pods listed before creating them, as
	// in kube: 0 replicas, generation observed.
	if st := f.get(kinds.ReplicaSet, "default", "web").(*appsv1.ReplicaSet).Status; st.Replicas != 0 || st.ObservedGeneration != 1 {
		t.Errorf("status = %+v; want replicas 0, observedGeneration 1", st)
	}
}

func TestReplicaSetWaitsForExpectations(t *testing.T) {
	f := newFixture(t)
	f.create(makeReplicaSet("web", 2))
	c := NewReplicaSetController(f.env)
	from := f.seen
	c.Reconcile("default/web")
	f.actions()
	// The creations have not been observed: a second sync must not create
	// again, only report the pods it sees.
	c.Reconcile("default/web")
	f.expectActions("update replicaset default/web")
	if n := f.env.Store.Count(kinds.Pod); n != 2 {
		t.Errorf("pods = %d; want 2", n)
	}
	// Once the watch delivered them, nothing is left to do.
	f.feed(from, c)
	c.Reconcile("default/web")
	f.expectActions()
}

func TestSlowStartBatch(t *testing.T) {
	var calls []int
	n := 0
	ok, err := slowStartBatch(20, 1, func() error {
		n++
		calls = append(calls, n)
		if n == 6 {
			return errors.New("boom")
		}
		return nil
	})
	// Batches 1, 2, 4: the third batch (calls 4..7) contains the failure,
	// so the fourth batch of 8 never starts.
	if ok != 6 || err == nil || n != 7 {
		t.Errorf("slowStartBatch = %d successes, err %v, %d calls; want 6, boom, 7", ok, err, n)
	}
	n = 0
	if ok, err := slowStartBatch(10, 1, func() error { n++; return nil }); ok != 10 || err != nil || n != 10 {
		t.Errorf("all succeed: %d, %v, %d calls; want 10, nil, 10", ok, err, n)
	}
}

func TestReplicaSetCreateFailureStopsSlowStart(t *testing.T) {
	f := newFixture(t)
	// A template the API server rejects (no image), stored behind its back:
	// every pod create fails validation.
	bad := makeReplicaSet("web", 5)
	bad.Spec.Template.Spec.Containers[0].Image = ""
	bad.UID, bad.Generation = "uid-web", 1
	if _, err := f.env.Store.Create(bad, 0); err != nil {
		t.Fatal(err)
	}
	f.seen = f.env.Store.Rev()
	c := NewReplicaSetController(f.env)
	if _, err := c.Reconcile("default/web"); err == nil {
		t.Fatal("Reconcile succeeded though creates fail")
	}
	attempts := 0
	for _, e := range f.env.Trace.All() {
		if strings.HasPrefix(e.Message, "Error creating: ") {
			attempts++
		}
	}
	if attempts != 1 {
		t.Errorf("create attempts = %d; want 1 (the first slow-start batch)", attempts)
	}
	st := f.get(kinds.ReplicaSet, "default", "web").(*appsv1.ReplicaSet).Status
	if len(st.Conditions) != 1 || st.Conditions[0].Reason != "FailedCreate" || st.Conditions[0].Type != appsv1.ReplicaSetReplicaFailure {
		t.Errorf("conditions = %+v; want ReplicaFailure FailedCreate", st.Conditions)
	}
	if !c.exp.Satisfied("default/web") {
		t.Error("failed and skipped creations still expected")
	}
}

func TestReplicaSetScaleDownRanking(t *testing.T) {
	f := newFixture(t)
	rs := f.create(makeReplicaSet("web", 5)).(*appsv1.ReplicaSet)
	f.env.Loop.SetNow(sim.Hour)
	f.ownedPod(rs, makePod("web-ready-a").node("n1").phase(corev1.PodRunning).ready(10*sim.Minute))
	f.ownedPod(rs, makePod("web-pending").node("n2").phase(corev1.PodPending))
	f.ownedPod(rs, makePod("web-ready-b").node("n2").phase(corev1.PodRunning).ready(10*sim.Minute))
	f.ownedPod(rs, makePod("web-unscheduled").phase(corev1.PodPending))
	f.ownedPod(rs, makePod("web-unready").node("n3").phase(corev1.PodRunning))
	cp := f.get(kinds.ReplicaSet, "default", "web").(*appsv1.ReplicaSet).DeepCopy()
	two := int32(2)
	cp.Spec.Replicas = &two
	if _, err := f.env.API.Update(setup, cp); err != nil {
		t.Fatal(err)
	}
	f.actions()
	c := NewReplicaSetController(f.env)
	c.Reconcile("default/web")
	var deleted []string
	for _, e := range f.events() {
		if strings.HasPrefix(e, "SuccessfulDelete: Deleted pod: ") {
			deleted = append(deleted, strings.TrimPrefix(e, "SuccessfulDelete: Deleted pod: "))
		}
	}
	if got := strings.Join(deleted, " "); got != "web-unscheduled web-pending web-unready" {
		t.Errorf("deleted %s; want web-unscheduled web-pending web-unready", got)
	}
}

func TestReplicaSetAdoptsOrphans(t *testing.T) {
	f := newFixture(t)
	orphan := makePod("loner").obj()
	orphan.Labels = map[string]string{"app": "web"}
	f.create(orphan)
	f.create(makeReplicaSet("web", 1))
	c := NewReplicaSetController(f.env)
	c.Reconcile("default/web")
	f.expectActions("update pod default/loner", "update replicaset default/web")
	p := f.get(kinds.Pod, "default", "loner").(*corev1.Pod)
	if ref := metav1.GetControllerOf(p); ref == nil || ref.Name != "web" {
		t.Errorf("orphan not adopted: owner %v", ref)
	}
	if st := f.get(kinds.ReplicaSet, "default", "web").(*appsv1.ReplicaSet).Status; st.Replicas != 1 {
		t.Errorf("status replicas = %d; want 1 (the adopted pod)", st.Replicas)
	}
}

func TestReplicaSetMinReadySecondsRequeue(t *testing.T) {
	f := newFixture(t)
	in := makeReplicaSet("web", 1)
	in.Spec.MinReadySeconds = 10
	rs := f.create(in).(*appsv1.ReplicaSet)
	f.ownedPod(rs, makePod("web-a").node("n1").phase(corev1.PodRunning).ready(0))
	c := NewReplicaSetController(f.env)
	res, _ := c.Reconcile("default/web")
	st := f.get(kinds.ReplicaSet, "default", "web").(*appsv1.ReplicaSet).Status
	if st.ReadyReplicas != 1 || st.AvailableReplicas != 0 || res.RequeueAfter != 10*sim.Second {
		t.Errorf("at 0s: ready %d, available %d, requeue %s; want 1, 0, 10s", st.ReadyReplicas, st.AvailableReplicas, res.RequeueAfter)
	}
	f.env.Loop.SetNow(10*sim.Second + 1)
	res, _ = c.Reconcile("default/web")
	st = f.get(kinds.ReplicaSet, "default", "web").(*appsv1.ReplicaSet).Status
	if st.AvailableReplicas != 1 || res.RequeueAfter != 0 {
		t.Errorf("after 10s: available %d, requeue %s; want 1, 0", st.AvailableReplicas, res.RequeueAfter)
	}
}

func TestReplicaSetColumns(t *testing.T) {
	f := newFixture(t)
	c := NewReplicaSetController(f.env)
	// The ReplicaSet arrives from a Declare step (a learner's apply).
	apply := f.env.Trace.Record(trace.Event{Component: "kubectl", Column: trace.Declare, Message: "apply"})
	if _, err := f.env.API.Create(apiserver.Actor{Component: "test", Cause: apply}, makeReplicaSet("web", 2)); err != nil {
		t.Fatal(err)
	}
	f.settle(c)
	// A pod is deleted by hand: the replacement is drift, Maintain.
	p := f.env.Store.List(kinds.Pod, "default")[0]
	if _, err := f.env.API.Delete(setup, kinds.Pod, "default", p.GetName(), deleteBackground); err != nil {
		t.Fatal(err)
	}
	f.settle(c)
	var cols []string
	for _, e := range f.env.Trace.All() {
		if e.Component == ReplicaSetControllerName && strings.HasPrefix(e.Message, "Created pod: ") {
			cols = append(cols, e.Column.String())
			if e.Object != "pod/"+strings.TrimPrefix(e.Message, "Created pod: ") {
				t.Errorf("trace object %q for %q", e.Object, e.Message)
			}
		}
	}
	if got := strings.Join(cols, " "); got != "Declare Declare Maintain" {
		t.Errorf("columns of the creations = %s; want Declare Declare Maintain", got)
	}
}

// TestReplicaSetCreatesPodsInChunks creates more pods in one sync than
// podFromTemplate allocates at once: every pod is an object of its own,
// with the template's labels and the ReplicaSet as its controller.
func TestReplicaSetCreatesPodsInChunks(t *testing.T) {
	f := newFixture(t)
	n := 2*podChunk + 3
	rs := f.create(makeReplicaSet("web", int32(n))).(*appsv1.ReplicaSet)
	c := NewReplicaSetController(f.env)
	created := 0
	for created < n {
		if _, err := c.Reconcile("default/web"); err != nil {
			t.Fatal(err)
		}
		f.settle(c)
		if got := f.env.Store.Count(kinds.Pod); got == created {
			t.Fatalf("a sync created no pods; %d of %d", got, n)
		} else {
			created = got
		}
	}
	seen := map[*corev1.Pod]bool{}
	for _, o := range f.env.Store.List(kinds.Pod, "default") {
		p := o.(*corev1.Pod)
		if seen[p] {
			t.Fatalf("pod %s shares its object with another", p.Name)
		}
		seen[p] = true
		ref := metav1.GetControllerOfNoCopy(p)
		if !strings.HasPrefix(p.Name, "web-") || p.Labels["app"] != "web" || ref == nil || ref.UID != rs.UID ||
			len(p.Spec.Containers) != 1 || p.Spec.Containers[0].Image != "nginx:1.27" {
			t.Errorf("pod %s = labels %v, controller %v, containers %v", p.Name, p.Labels, ref, p.Spec.Containers)
		}
	}
	if len(seen) != n {
		t.Errorf("%d pods; want %d", len(seen), n)
	}
}

// TestReplicaSetStatusMessages formats status messages, among them counts
// that differ in one field only, first made, then shared, then made again
// after the shared messages started over, and checks each against fmt's.
func TestReplicaSetStatusMessages(t *testing.T) {
	c := NewReplicaSetController(newFixture(t).env)
	format := func(st *appsv1.ReplicaSetStatus) string {
		return fmt.Sprintf("Updated status: %d replicas, %d fully labeled, %d ready, %d available (observedGeneration %d)",
			st.Replicas, st.FullyLabeledReplicas, st.ReadyReplicas, st.AvailableReplicas, st.ObservedGeneration)
	}
	sts := []appsv1.ReplicaSetStatus{
		{},
		{Replicas: 150, FullyLabeledReplicas: 150, ReadyReplicas: 120, AvailableReplicas: 118, ObservedGeneration: 1},
		{Replicas: 150, FullyLabeledReplicas: 150, ReadyReplicas: 120, AvailableReplicas: 118, ObservedGeneration: 2},
		{Replicas: 150, FullyLabeledReplicas: 150, ReadyReplicas: 120, AvailableReplicas: 119, ObservedGeneration: 1},
		{Replicas: 150, FullyLabeledReplicas: 150, ReadyReplicas: 121, AvailableReplicas: 118, ObservedGeneration: 1},
		{Replicas: 150, FullyLabeledReplicas: 149, ReadyReplicas: 120, AvailableReplicas: 118, ObservedGeneration: 1},
		{Replicas: 151, FullyLabeledReplicas: 150, ReadyReplicas: 120, AvailableReplicas: 118, ObservedGeneration: 1},
		{Replicas: 1 << 30, FullyLabeledReplicas: 7, ReadyReplicas: 0, AvailableReplicas: 0, ObservedGeneration: 1 << 40},
	}
	for round := range 3 {
		for i := range sts {
			if got, want := c.statusMessage(&sts[i]), format(&sts[i]); got != want {
				t.Errorf("round %d: statusMessage(%+v) = %q; want %q", round, sts[i], got, want)
			}
		}
		if round == 1 {
			// Fill the shared messages with others, so that the next round
			// starts them over and makes its own again.
			clear(c.statusMessages)
			for i := int32(0); len(c.statusMessages) < maxSharedMessages; i++ {
				c.statusMessage(&appsv1.ReplicaSetStatus{Replicas: 1000 + i})
			}
		}
	}
	if len(c.statusMessages) != len(sts) {
		t.Errorf("%d shared messages after starting over; want %d", len(c.statusMessages), len(sts))
	}
}

// TestReplicaSetNames makes the queue key and trace object of ReplicaSets
// of one name in two namespaces, and of one without a UID.
func TestReplicaSetNames(t *testing.T) {
	c := NewReplicaSetController(newFixture(t).env)
	for _, rs := range []*appsv1.ReplicaSet{
		{ObjectMeta: metav1.ObjectMeta{Name: "web-5667bcf589", Namespace: "default", UID: "u1"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "web-5667bcf589", Namespace: "shop", UID: "u2"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "default"}},
	} {
		for range 2 { // made, then kept
			if n := c.namesOf(rs); n.key != Key(rs) || n.object != "replicaset/"+rs.Name {
				t.Errorf("namesOf(%s/%s) = %+v", rs.Namespace, rs.Name, n)
			}
		}
	}
}
