package apiserver

import (
	"hash/fnv"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
)

// eventCorrelationIndex files Events by a hash of what makes two events the
// same occurrence: involved object, source, type, reason and message.
const eventCorrelationIndex = "apiserver/event-correlation"

func correlationKey(uid types.UID, fieldPath string, source corev1.EventSource, eventType, reason, message string) string {
	h := fnv.New64a()
	for _, s := range []string{string(uid), fieldPath, source.Component, source.Host, eventType, reason, message} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return strconv.FormatUint(h.Sum64(), 16)
}

func eventCorrelationKeys(o kinds.Object) []string {
	ev := o.(*corev1.Event)
	return []string{correlationKey(ev.InvolvedObject.UID, ev.InvolvedObject.FieldPath, ev.Source, ev.Type, ev.Reason, ev.Message)}
}

// RecordEventCorrelated records an Event as RecordEvent does, except that an
// event identical to one already recorded (same object, source, type, reason
// and message) bumps that Event's count and lastTimestamp instead of
// creating another, as client-go's EventCorrelator does: a scheduler retrying
// an unschedulable pod leaves one FailedScheduling event whose count grows,
// not a new Event per attempt.
func (s *Server) RecordEventCorrelated(a Actor, source corev1.EventSource, obj kinds.Object, eventType, reason, message string) {
	s.RecordEventWith(a, source, obj, eventType, reason, message, Occurrence{Correlate: true})
}

// Occurrence says more of an event than RecordEvent's arguments.
type Occurrence struct {
	// FieldPath is the part of the object the event is about, as a
	// container's "spec.containers{web}" (client-go's
	// ObjectReference.FieldPath); "" for the whole object.
	FieldPath string
	// Correlate says the event may repeat one already recorded (see
	// RecordEventCorrelated).
	Correlate bool
	// Count is how many occurrences this is, 0 for one; First is when the
	// first of them happened. A recorder's correlator writes several at
	// once when its spam filter let it hold them back (client-go counts
	// every occurrence in its cache before the filter drops it): an
	// identical Event's count grows by Count, a new one starts at Count,
	// seen first at First.
	Count int32
	First sim.Tick
}

// RecordEventWith is RecordEvent with what o says.
func (s *Server) RecordEventWith(a Actor, source corev1.EventSource, obj kinds.Object, eventType, reason, message string, o Occurrence) {
	n, first := o.Count, o.First
	if n <= 1 {
		n, first = 1, s.clock.Now()
	}
	if !o.Correlate {
		s.recordEvent(a, source, obj, o.FieldPath, eventType, reason, message, n, first)
		return
	}
	if !s.store.HasIndex(kinds.Event, eventCorrelationIndex) {
		s.store.AddIndex(kinds.Event, eventCorrelationIndex, eventCorrelationKeys)
	}
	key := correlationKey(obj.GetUID(), o.FieldPath, source, eventType, reason, message)
	var latest *corev1.Event
	for _, x := range s.store.ByIndex(kinds.Event, eventCorrelationIndex, key) {
		ev := x.(*corev1.Event)
		if ev.InvolvedObject.UID != obj.GetUID() || ev.InvolvedObject.FieldPath != o.FieldPath || ev.Source != source ||
			ev.Type != eventType || ev.Reason != reason || ev.Message != message {
			continue // a hash collision
		}
		if latest == nil || latest.LastTimestamp.Before(&ev.LastTimestamp) {
			latest = ev
		}
	}
	if latest == nil {
		s.recordEvent(a, source, obj, o.FieldPath, eventType, reason, message, n, first)
		return
	}
	upd := latest.DeepCopy()
	upd.Count += n
	upd.LastTimestamp = s.now()
	_, _ = s.Update(a, upd) // best-effort, as RecordEvent
}

// EventName is the name client-go's recorder gives a new Event about the
// object named name (see eventName), for a recorder that names an Event
// before it writes it: its correlator remembers the name, to write the
// Event's repeats to it.
func (s *Server) EventName(name string) string { return s.eventName(name) }

// RecordObservedEvent writes what a recorder's correlator observed of an
// Event about obj (client-go's eventObserve): its name, count so far,
// first time and latest message, which changes when the Event combines
// similar ones (EventAggregate). A first occurrence creates it; a repeat
// updates it, or creates it again if it is gone (as client-go does when
// its patch finds none), with the count the recorder kept.
func (s *Server) RecordObservedEvent(a Actor, source corev1.EventSource, obj kinds.Object, name, eventType, reason, message string, count int32, first sim.Tick) {
	if count > 1 {
		if cur, ok := s.store.Lookup(kinds.Event, eventNamespace(obj), name); ok {
			upd := cur.(*corev1.Event) // decoded anew: the store keeps an Event's bytes
			upd.Count, upd.LastTimestamp, upd.Message = count, s.now(), message
			_, _ = s.Update(a, upd) // best-effort, as RecordEvent
			return
		}
	}
	s.recordEventNamed(a, source, obj, name, "", eventType, reason, message, count, first)
}
