package apiserver

import (
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// ControlPlaneHost is the host kubeloop's control plane runs on, as its
// components report it (kube-scheduler's Events name their reporting
// instance "default-scheduler-<hostname>").
const ControlPlaneHost = "control-plane"

// EventV1 is an event as an events.k8s.io/v1 recorder (client-go's
// tools/events, which kube-scheduler uses) describes it: what happened
// (Action) to which object (Regarding), and why (Reason, Note), reported
// by a controller and the instance of it that acted.
type EventV1 struct {
	Regarding kinds.Object
	Related   kinds.Object // a second object involved, or nil: the preemptor of a preempted pod
	Type      string       // Normal or Warning
	Reason    string       // why the action was taken: "Scheduled", "FailedScheduling"
	Action    string       // what was done: "Binding", "Scheduling"
	Note      string       // in the reporting controller's own words
	// ReportingController and ReportingInstance name who acted:
	// "default-scheduler", "default-scheduler-control-plane".
	ReportingController, ReportingInstance string
	// Keep asks RecordEventV1 for a copy of the Event it created, for a
	// recorder that keeps the events that may recur (to count a series).
	Keep bool
}

// RecordEventV1 creates e as kube-apiserver stores an Event posted to
// events.k8s.io/v1: one object in etcd, which core/v1 serves too, with
// the new API's fields in their core names (regarding is involvedObject,
// note is message) and none of the old ones (no source, first and last
// timestamps or count: eventTime says when, a series how often). If
// e.Keep, it returns a copy of the Event created, for the recorder to
// keep; nil if it did not ask or the API server refused the Event
// (events are best-effort).
func (s *Server) RecordEventV1(a Actor, e EventV1) *corev1.Event {
	// Built in the space recordEvent uses: the store keeps only its bytes.
	ev := &s.eventBody
	defer func() { *ev = corev1.Event{} }()
	*ev = corev1.Event{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Event"},
		ObjectMeta: metav1.ObjectMeta{
			// client-go's makeEvent: the regarding object's name, a dot,
			// the time in hex nanoseconds.
			Name:      s.eventName(e.Regarding.GetName()),
			Namespace: eventNamespace(e.Regarding),
		},
		InvolvedObject:      s.reference(e.Regarding),
		Reason:              e.Reason,
		Message:             e.Note,
		Type:                e.Type,
		EventTime:           metav1.NewMicroTime(s.clock.Now().Time()),
		Action:              e.Action,
		ReportingController: e.ReportingController,
		ReportingInstance:   e.ReportingInstance,
	}
	if e.Related != nil {
		ref := s.reference(e.Related)
		ev.Related = &ref
	}
	if !s.createEvent(a, ev) || !e.Keep {
		return nil
	}
	return ev.DeepCopy()
}

// PatchEventSeries writes ev's series onto the Event it names, as the
// recorder's strategic-merge patch of series does; if the Event is gone
// (its hour is up), it creates ev again, as the recorder does on
// NotFound. ev is the recorder's copy of the Event; it is not changed.
func (s *Server) PatchEventSeries(a Actor, ev *corev1.Event) {
	if cur, ok := s.store.Lookup(kinds.Event, ev.Namespace, ev.Name); ok {
		upd := cur.(*corev1.Event) // decoded anew: the Event's bytes are the store's
		upd.Series = ev.Series.DeepCopy()
		if _, err := s.Update(a, upd); err == nil || !apierrors.IsNotFound(err) {
			return
		}
	}
	// Its name is free: eventName made it, and the Event is gone.
	again := ev.DeepCopy()
	again.ResourceVersion, again.UID, again.CreationTimestamp = "", "", metav1.Time{}
	s.createEvent(a, again)
}
