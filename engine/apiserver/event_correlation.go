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

func correlationKey(uid types.UID, source corev1.EventSource, eventType, reason, message string) string {
	h := fnv.New64a()
	for _, s := range []string{string(uid), source.Component, source.Host, eventType, reason, message} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return strconv.FormatUint(h.Sum64(), 16)
}

func eventCorrelationKeys(o kinds.Object) []string {
	ev := o.(*corev1.Event)
	return []string{correlationKey(ev.InvolvedObject.UID, ev.Source, ev.Type, ev.Reason, ev.Message)}
}

// RecordEventCorrelated records an Event as RecordEvent does, except that an
// event identical to one already recorded (same object, source, type, reason
// and message) bumps that Event's count and lastTimestamp instead of
// creating another, as client-go's EventCorrelator does: a scheduler retrying
// an unschedulable pod leaves one FailedScheduling event whose count grows,
// not a new Event per attempt.
func (s *Server) RecordEventCorrelated(a Actor, source corev1.EventSource, obj kinds.Object, eventType, reason, message string) {
	s.RecordEventOccurrences(a, source, obj, eventType, reason, message, 1, s.clock.Now())
}

// RecordEventOccurrences is RecordEventCorrelated for n occurrences, the
// first at first and the last now: what a recorder's correlator writes
// once its spam filter lets it, having counted the occurrences it held
// back (client-go counts every one in its cache before the filter drops
// it). An identical Event's count grows by n; a new one starts at n, seen
// first at first.
func (s *Server) RecordEventOccurrences(a Actor, source corev1.EventSource, obj kinds.Object, eventType, reason, message string, n int32, first sim.Tick) {
	if !s.store.HasIndex(kinds.Event, eventCorrelationIndex) {
		s.store.AddIndex(kinds.Event, eventCorrelationIndex, eventCorrelationKeys)
	}
	key := correlationKey(obj.GetUID(), source, eventType, reason, message)
	var latest *corev1.Event
	for _, o := range s.store.ByIndex(kinds.Event, eventCorrelationIndex, key) {
		ev := o.(*corev1.Event)
		if ev.InvolvedObject.UID != obj.GetUID() || ev.Source != source || ev.Type != eventType ||
			ev.Reason != reason || ev.Message != message {
			continue // a hash collision
		}
		if latest == nil || latest.LastTimestamp.Before(&ev.LastTimestamp) {
			latest = ev
		}
	}
	if latest == nil {
		s.recordEvent(a, source, obj, eventType, reason, message, n, first)
		return
	}
	upd := latest.DeepCopy()
	upd.Count += n
	upd.LastTimestamp = s.now()
	_, _ = s.Update(a, upd) // best-effort, as RecordEvent
}
