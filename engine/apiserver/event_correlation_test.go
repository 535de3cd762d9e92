package apiserver

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/kinds"
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
	type seen struct {
		host, reason string
		count        int32
	}
	var got []seen
	for _, o := range ts.store.List(kinds.Event, "default") {
		ev := o.(*corev1.Event)
		if ev.ReportingController != ev.Source.Component || ev.ReportingInstance != ev.Source.Host {
			t.Errorf("Event %s: source %+v, reporting %s/%s; want the source named again", ev.Name, ev.Source, ev.ReportingController, ev.ReportingInstance)
		}
		got = append(got, seen{ev.Source.Host, ev.Reason, ev.Count})
	}
	want := []seen{{"n1", "Unhealthy", 3}, {"n2", "Unhealthy", 1}, {"n1", "Killing", 1}}
	if len(got) != len(want) {
		t.Fatalf("Events %v; want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Event %d: %v; want %v", i, got[i], want[i])
		}
	}
}
