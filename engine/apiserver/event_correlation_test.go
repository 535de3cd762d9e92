package apiserver

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
)

// An Event names its recorder as client-go's recorder does: source, then
// the same again as reporting controller and instance. A repeat from the
// same recorder bumps the first one's count; the same words from another
// kubelet, or another reason, are Events of their own.
func TestRecordEventSourceAndCorrelation(t *testing.T) {
	ts := newTestServer(t)
	a := Actor{Component: "kubelet/n1", Cause: 1}
	pod, err := ts.Create(a, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}}})
	if err != nil {
		t.Fatal(err)
	}
	n1, n2 := corev1.EventSource{Component: "kubelet", Host: "n1"}, corev1.EventSource{Component: "kubelet", Host: "n2"}
	probe := "Liveness probe failed: HTTP probe failed with statuscode: 500"
	ts.RecordEvent(a, n1, pod, corev1.EventTypeWarning, "Unhealthy", probe)
	ts.RecordEventCorrelated(a, n1, pod, corev1.EventTypeWarning, "Unhealthy", probe)
	ts.RecordEventCorrelated(a, n1, pod, corev1.EventTypeWarning, "Unhealthy", probe)
	ts.RecordEventCorrelated(a, n2, pod, corev1.EventTypeWarning, "Unhealthy", probe)
	ts.RecordEventCorrelated(a, n1, pod, corev1.EventTypeNormal, "Killing", "Container web failed liveness probe, will be restarted")
	// The same words about two containers are two Events (the correlator
	// keys on the field path).
	present := `Container image "busybox:1.37" already present on machine`
	for _, c := range []string{"spec.containers{a}", "spec.containers{b}", "spec.containers{a}"} {
		ts.RecordEventWith(a, n1, pod, corev1.EventTypeNormal, "Pulled", present, Occurrence{FieldPath: c, Correlate: true})
	}
	// Occurrences held back arrive together: a new Event starts at their
	// count, seen first at the first.
	ts.RecordEventWith(a, n1, pod, corev1.EventTypeWarning, "BackOff", "Back-off restarting failed container web", Occurrence{Correlate: true, Count: 4, First: 1000})
	type seen struct {
		host, reason, fieldPath string
		count                   int32
	}
	var got []seen
	for _, o := range ts.store.List(kinds.Event, "default") {
		ev := o.(*corev1.Event)
		if ev.ReportingController != ev.Source.Component || ev.ReportingInstance != ev.Source.Host {
			t.Errorf("Event %s: source %+v, reporting %s/%s; want the source named again", ev.Name, ev.Source, ev.ReportingController, ev.ReportingInstance)
		}
		got = append(got, seen{ev.Source.Host, ev.Reason, ev.InvolvedObject.FieldPath, ev.Count})
		if ev.Reason == "BackOff" && (sim.FromTime(ev.FirstTimestamp.Time) != 1000 || ev.LastTimestamp.Time != ts.now().Time) {
			t.Errorf("held-back BackOff first seen %s, last %s; want 1s and now", ev.FirstTimestamp, ev.LastTimestamp)
		}
	}
	want := []seen{{"n1", "Unhealthy", "", 3}, {"n2", "Unhealthy", "", 1}, {"n1", "Killing", "", 1},
		{"n1", "Pulled", "spec.containers{a}", 2}, {"n1", "Pulled", "spec.containers{b}", 1}, {"n1", "BackOff", "", 4}}
	if len(got) != len(want) {
		t.Fatalf("Events %v; want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Event %d: %v; want %v", i, got[i], want[i])
		}
	}
}
