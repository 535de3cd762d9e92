package apiserver

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
)

// TestEventV1: an events.k8s.io/v1 Event is stored in core/v1's shape with
// the new API's fields only; a series patch writes the series onto it, and
// re-creates it, same name, once its hour is up.
func TestEventV1(t *testing.T) {
	ts := newTestServer(t)
	a := Actor{Component: "scheduler", Cause: 1}
	pod, err := ts.Create(a, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}}})
	if err != nil {
		t.Fatal(err)
	}
	preemptor := pod.(*corev1.Pod).DeepCopy()
	preemptor.Name, preemptor.UID = "urgent", "u-2"
	ts.clock.SetNow(1500)
	e := EventV1{Regarding: pod, Related: preemptor, Type: corev1.EventTypeWarning, Reason: "FailedScheduling",
		Action: "Scheduling", Note: "0/3 nodes are available", ReportingController: "default-scheduler",
		ReportingInstance: "default-scheduler-control-plane"}
	if got := ts.RecordEventV1(a, e); got != nil {
		t.Errorf("RecordEventV1 without Keep returned %v", got)
	}
	e.Keep = true
	kept := ts.RecordEventV1(a, e)
	if kept == nil {
		t.Fatal("RecordEventV1 with Keep returned nil")
	}
	o, ok := ts.store.Lookup(kinds.Event, "default", kept.Name)
	if !ok {
		t.Fatalf("Event %s not stored", kept.Name)
	}
	ev := o.(*corev1.Event)
	want := corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "web", UID: pod.GetUID(), APIVersion: "v1",
		ResourceVersion: pod.GetResourceVersion()}
	if ev.InvolvedObject != want || ev.Related == nil || ev.Related.Name != "urgent" ||
		ev.Message != e.Note || ev.Action != "Scheduling" || ev.ReportingController != "default-scheduler" ||
		ev.ReportingInstance != "default-scheduler-control-plane" || ev.Source != (corev1.EventSource{}) ||
		ev.Count != 0 || !ev.FirstTimestamp.IsZero() || !ev.LastTimestamp.IsZero() || ev.Series != nil ||
		sim.FromTime(ev.EventTime.Time) != 1500 {
		t.Errorf("stored Event = %+v", ev)
	}

	kept.Series = &corev1.EventSeries{Count: 2, LastObservedTime: metav1.NewMicroTime(sim.Tick(2500).Time())}
	ts.PatchEventSeries(a, kept)
	o, _ = ts.store.Lookup(kinds.Event, "default", kept.Name)
	if s := o.(*corev1.Event).Series; s == nil || s.Count != 2 || o.GetUID() != ev.UID {
		t.Errorf("after the patch: series %+v, uid %s; want 2 on the same Event", s, o.GetUID())
	}

	// Its hour is up: the patch finds nothing and creates it again.
	if _, _, err := ts.store.Delete(kinds.Event, "default", kept.Name, "", 1); err != nil {
		t.Fatal(err)
	}
	kept.Series.Count = 9
	ts.PatchEventSeries(a, kept)
	o, ok = ts.store.Lookup(kinds.Event, "default", kept.Name)
	if !ok {
		t.Fatal("the patch of a deleted Event did not create it again")
	}
	if s := o.(*corev1.Event).Series; s == nil || s.Count != 9 || o.GetUID() == ev.UID || o.(*corev1.Event).Reason != "FailedScheduling" {
		t.Errorf("re-created Event: series %+v, uid %s (was %s)", s, o.GetUID(), ev.UID)
	}
	if kept.Series.Count != 9 || kept.ResourceVersion != ev.ResourceVersion {
		t.Errorf("PatchEventSeries changed the recorder's copy: %+v", kept)
	}
}
