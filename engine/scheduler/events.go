package scheduler

import (
	"cmp"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/trace"
)

// kube-scheduler records its Events through the events.k8s.io/v1 API
// (client-go's tools/events), not core/v1's recorder that controllers and
// kubelets use. The Event says what the scheduler did (action: Binding,
// Scheduling, Preempting) and when (eventTime, to the microsecond), and
// names the scheduler as reporting controller and instance, with no
// source, no first and last timestamps and no count.
//
// Repeats are counted the new API's way, by the recorder, in memory: an
// event isomorphic to one it recorded in the last six minutes (same type,
// action, reason, reporter, regarding object at the same resourceVersion,
// related object) makes the Event a series of 2, written at once; later
// repeats only count up in memory. Every 30 minutes the recorder writes
// the series it holds, and 6 minutes after a series' last repeat it writes
// its final count and forgets it. So `kubectl describe` shows a pod that
// failed to schedule ten times in five minutes as "(x2 over 5m)" until
// one of those writes: what a learner sees on a real cluster.

const (
	// eventSeriesFinish and eventSeriesRefresh are client-go's finishTime
	// and refreshTime (tools/events/event_broadcaster.go).
	eventSeriesFinish  = 6 * sim.Minute
	eventSeriesRefresh = 30 * sim.Minute
)

// reportingInstance is what the scheduler's Events name as the instance
// that acted: client-go's NewRecorder makes it "<controller>-<hostname>".
const reportingInstance = SchedulerName + "-" + apiserver.ControlPlaneHost

// eventKey is client-go's eventKey: what makes two events isomorphic.
type eventKey struct {
	eventType, action, reason string
	regarding, related        corev1.ObjectReference
}

// keptEvent is an event the recorder remembers: the Event as written, and
// the order it was first recorded in (the recorder's periodic passes go
// through its cache in this order, where client-go's go in a map's).
type keptEvent struct {
	ev  *corev1.Event
	seq uint64
	// last is the trace event of the latest occurrence: what a later
	// write of the series cites as its cause.
	last uint64
}

// eventRecorder is kube-scheduler's events.k8s.io/v1 event recorder.
type eventRecorder struct {
	s     *Scheduler
	start sim.Tick // when the recorder started: its passes run every period from then
	cache map[eventKey]*keptEvent
	seq   uint64

	finishTimer, refreshTimer *sim.Timer
	finishDue, refreshDue     bool
}

func newEventRecorder(s *Scheduler) *eventRecorder {
	return &eventRecorder{s: s, start: s.env.Loop.Now(), cache: map[eventKey]*keptEvent{}}
}

// eventf records an event about regarding (and related, or nil), caused
// by trace event cause. An event that may recur is kept, to count its
// repeats; one that cannot (a pod is bound, or preempted, once) is not,
// where client-go keeps every event for six minutes: nothing could ever
// match it.
func (r *eventRecorder) eventf(cause uint64, regarding, related kinds.Object, eventType, reason, action, note string, mayRecur bool) {
	actor := apiserver.Actor{Component: Component, Cause: cause}
	e := apiserver.EventV1{Regarding: regarding, Related: related, Type: eventType, Reason: reason, Action: action,
		Note: note, ReportingController: SchedulerName, ReportingInstance: reportingInstance, Keep: mayRecur}
	if !mayRecur {
		r.s.env.API.RecordEventV1(actor, e)
		return
	}
	key := eventKey{eventType: eventType, action: action, reason: reason, regarding: reference(regarding)}
	if related != nil {
		key.related = reference(related)
	}
	now := metav1.NewMicroTime(r.s.env.Loop.Now().Time())
	if kept, ok := r.cache[key]; ok {
		kept.last = cause
		if kept.ev.Series != nil {
			kept.ev.Series.Count++
			kept.ev.Series.LastObservedTime = now
			return
		}
		kept.ev.Series = &corev1.EventSeries{Count: 2, LastObservedTime: now}
		r.s.env.API.PatchEventSeries(actor, kept.ev)
		r.armRefresh()
		return
	}
	ev := r.s.env.API.RecordEventV1(actor, e)
	if ev == nil {
		// Refused (its namespace is going away). client-go would keep it
		// in its cache all the same, and a repeat would try to create it
		// again, to be refused again: kubeloop keeps nothing.
		return
	}
	r.seq++
	r.cache[key] = &keptEvent{ev: ev, seq: r.seq, last: cause}
	r.armFinish()
}

// reference is the part of client-go's GetReference that makes two
// events' regarding objects equal.
func reference(obj kinds.Object) corev1.ObjectReference {
	return corev1.ObjectReference{Kind: kinds.Of(obj).Kind, Namespace: obj.GetNamespace(), Name: obj.GetName(),
		UID: obj.GetUID(), ResourceVersion: obj.GetResourceVersion()}
}

// nextPass is the first run after now of a pass every period since start.
func (r *eventRecorder) nextPass(period sim.Tick) sim.Tick {
	now := r.s.env.Loop.Now()
	return r.start + ((now-r.start)/period+1)*period
}

// armFinish and armRefresh schedule the recorder's passes while it keeps
// something for them to do (so an idle cluster has no timers pending).
func (r *eventRecorder) armFinish() {
	if !r.finishTimer.Pending() {
		r.finishTimer = r.s.env.Loop.At(r.nextPass(eventSeriesFinish), "scheduler: finish event series",
			func() { r.finishDue = true })
	}
}

func (r *eventRecorder) armRefresh() {
	if !r.refreshTimer.Pending() {
		r.refreshTimer = r.s.env.Loop.At(r.nextPass(eventSeriesRefresh), "scheduler: refresh event series",
			func() { r.refreshDue = true })
	}
}

// work runs a pass that came due; it reports whether it had one.
func (r *eventRecorder) work() bool {
	switch {
	case r.finishDue:
		r.finishDue = false
		r.finishSeries()
	case r.refreshDue:
		r.refreshDue = false
		r.refreshSeries()
	default:
		return false
	}
	return true
}

// kept is the recorder's cache in the order its events were first
// recorded.
func (r *eventRecorder) kept() []eventKey {
	keys := make([]eventKey, 0, len(r.cache))
	for k := range r.cache {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b eventKey) int { return cmp.Compare(r.cache[a].seq, r.cache[b].seq) })
	return keys
}

// finishSeries is client-go's: a series whose last repeat is over six
// minutes old has its final count written and is forgotten; so is an
// event that never repeated, without a write.
func (r *eventRecorder) finishSeries() {
	cutoff := r.s.env.Loop.Now() - eventSeriesFinish
	for _, key := range r.kept() {
		kept := r.cache[key]
		switch series := kept.ev.Series; {
		case series != nil && sim.FromTime(series.LastObservedTime.Time) < cutoff:
			r.writeSeries(kept, "finished: its last repeat was over 6 minutes ago")
			delete(r.cache, key)
		case series == nil && sim.FromTime(kept.ev.EventTime.Time) < cutoff:
			delete(r.cache, key)
		}
	}
	if len(r.cache) > 0 {
		r.armFinish()
	}
}

// refreshSeries is client-go's refreshExistingEventSeries: every series
// the recorder keeps has its count written.
func (r *eventRecorder) refreshSeries() {
	any := false
	for _, key := range r.kept() {
		if kept := r.cache[key]; kept.ev.Series != nil {
			r.writeSeries(kept, "refreshed, as every 30 minutes")
			any = true
		}
	}
	if any {
		r.armRefresh()
	}
}

const whyEventSeries = "kube-scheduler's event recorder counts an event's repeats in memory and writes the count when a series starts, every 30 minutes, and 6 minutes after its last repeat: Events are best-effort, kept cheap for etcd."

// writeSeries writes a kept event's series, traced as caused by its
// latest occurrence.
func (r *eventRecorder) writeSeries(kept *keptEvent, what string) {
	ev := kept.ev
	obj := "pod/" + ev.InvolvedObject.Name // the scheduler's Events are all about pods
	seq := r.s.env.Trace.Record(trace.Event{Component: Component, Lane: trace.ControlPlane, Column: trace.Maintain,
		Namespace: ev.InvolvedObject.Namespace, Object: obj, Cause: kept.last,
		Message: "event series " + ev.Reason + " x" + itoa(int(ev.Series.Count)) + " " + what, Why: whyEventSeries})
	r.s.env.API.PatchEventSeries(apiserver.Actor{Component: Component, Cause: seq}, ev)
}
