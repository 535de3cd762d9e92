package apiserver

import (
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/store"
)

// TestEventTTL: an Event is gone when the etcd lease of its last write
// expires, an hour and a minute after the lease was granted, not before; a
// write in between (a correlated repeat) renews it on a new lease; the
// expiry is one etcd step in the trace, and a deleted Event's lease is
// harmless.
func TestEventTTL(t *testing.T) {
	ts := newTestServer(t)
	loop := ts.clock
	a := Actor{Component: "kubelet", Cause: 1}
	pod, err := ts.Create(a, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}}})
	if err != nil {
		t.Fatal(err)
	}
	ts.RecordEvent(a, corev1.EventSource{Component: "kubelet", Host: "n1"}, pod, corev1.EventTypeNormal, "Pulling", `Pulling image "nginx:1.27"`)
	ts.RecordEventCorrelated(a, corev1.EventSource{Component: "kubelet", Host: "n1"}, pod, corev1.EventTypeWarning, "BackOff", "Back-off restarting failed container web")
	ts.RecordEvent(a, corev1.EventSource{Component: "kubelet", Host: "n1"}, pod, corev1.EventTypeNormal, "Killing", "Stopping container web")
	advance := func(to sim.Tick) {
		for loop.FireNext(to) {
		}
		loop.SetNow(to)
	}
	reasons := func() []string {
		var out []string
		for _, o := range ts.store.List(kinds.Event, "default") {
			out = append(out, o.(*corev1.Event).Reason)
		}
		return out
	}
	advance(30 * sim.Minute)
	ts.RecordEventCorrelated(a, corev1.EventSource{Component: "kubelet", Host: "n1"}, pod, corev1.EventTypeWarning, "BackOff", "Back-off restarting failed container web")
	if _, _, err := ts.store.Delete(kinds.Event, "default", findEvent(t, ts, "Killing"), "", 0); err != nil {
		t.Fatal(err) // a deleted Event's lease must not trip the expiry
	}
	// The first lease was granted at 0 for an hour and a minute
	// (--lease-reuse-duration-seconds); the renewal at 30m got a new one.
	advance(sim.Hour + sim.Minute - 1)
	if got := reasons(); len(got) != 2 {
		t.Fatalf("before the lease expires: events %v; want Pulling and BackOff", got)
	}
	advance(sim.Hour + sim.Minute)
	if got := reasons(); len(got) != 1 || got[0] != "BackOff" {
		t.Fatalf("when the lease expires: events %v; want only the renewed BackOff", got)
	}
	last, _ := ts.trace.Get(ts.trace.NextSeq() - 1)
	if want := "deleted 1 Event whose etcd lease expired (kube-apiserver --event-ttl 1h: an Event lives an hour after its last write)"; last.Component != "etcd" || last.Message != want {
		t.Errorf("trace step: %s: %s; want etcd: %s", last.Component, last.Message, want)
	}
	advance(30*sim.Minute + sim.Hour + sim.Minute)
	if got := reasons(); len(got) != 0 {
		t.Fatalf("when the renewal's lease expires: events %v; want none", got)
	}
	if loop.Pending() != 0 {
		t.Errorf("%d timers left; the expiry timer should stop when no Event is left", loop.Pending())
	}
}

func findEvent(t *testing.T, ts *testServer, reason string) string {
	t.Helper()
	for _, o := range ts.store.List(kinds.Event, "default") {
		if o.(*corev1.Event).Reason == reason {
			return o.GetName()
		}
	}
	t.Fatalf("no %s event", reason)
	return ""
}

// TestEventLeaseSharing: writes within the reuse minute share a lease (and
// expire together); a write past it gets a new one, and so does one that
// finds 1,001 keys on the lease (kube reuses while the count is at most
// --lease-max-object-count, then counts the new key).
func TestEventLeaseSharing(t *testing.T) {
	ts := newTestServer(t)
	write := func(at sim.Tick) sim.Tick {
		ts.clock.SetNow(at)
		ts.noteEventVersion(store.Version{}) // sharing looks at the clock alone
		return ts.eventLeases.lastExpiry()
	}
	first := write(0)
	if first != sim.Hour+sim.Minute {
		t.Fatalf("first lease expires at %v; want 1h1m", first)
	}
	if got := write(59 * sim.Second); got != first {
		t.Errorf("a write 59s later expires at %v; want the shared %v", got, first)
	}
	second := write(61 * sim.Second)
	if second != 61*sim.Second+sim.Hour+sim.Minute {
		t.Errorf("a write 61s later expires at %v; want a new lease at 1h2m1s", second)
	}
	for i := 0; i < leaseMaxObjectCount-1; i++ {
		write(62 * sim.Second)
	}
	if got := write(62 * sim.Second); got != second {
		t.Errorf("the 1,001st write of a lease expires at %v; want %v", got, second)
	}
	if got := write(62 * sim.Second); got == second {
		t.Errorf("the 1,002nd write reused a full lease")
	}
}

// TestEventQueue compares the block queue with a plain slice through
// pushes and pops across block boundaries.
func TestEventQueue(t *testing.T) {
	// Leases are told apart by their versions: 97 Events' (a prime, so
	// that an entry misplaced across a 512-entry block shows).
	ts := newTestServer(t)
	a := Actor{Component: "kubelet", Cause: 1}
	pod, err := ts.Create(a, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}}})
	if err != nil {
		t.Fatal(err)
	}
	var versions []store.Version
	for range 97 {
		ts.RecordEvent(a, corev1.EventSource{Component: "kubelet", Host: "n1"}, pod, corev1.EventTypeNormal, "Pulling", `Pulling image "nginx:1.27"`)
		v, ok := ts.store.VersionAt(ts.store.Rev())
		if !ok || v.Rev(kinds.Event) != ts.store.Rev() {
			t.Fatalf("the Event just written has no version at its revision")
		}
		versions = append(versions, v)
	}
	var q eventQueue
	var model []eventLease
	n := 0
	for round := 0; round < 40; round++ {
		for range (round * 97) % 700 {
			n++
			q.push(eventLease{versions[n%len(versions)]})
			model = append(model, eventLease{versions[n%len(versions)]})
		}
		for range (round * 61) % 650 {
			if len(model) == 0 {
				break
			}
			if f := q.front(); f == nil || *f != model[0] {
				t.Fatalf("round %d: front %v; want %v", round, f, model[0])
			}
			q.pop()
			model = model[1:]
		}
		if len(model) == 0 {
			if q.front() != nil {
				t.Fatalf("round %d: the empty queue has a front", round)
			}
			continue
		}
		if f := q.front(); f == nil || *f != model[0] {
			t.Fatalf("round %d: front %v; want %v", round, f, model[0])
		}
	}
}

// TestRecorderNamesStayUnique: the recorder skips etcd's existence check
// only while its names cannot be taken. Once a learner has created an
// Event (which may bear any name, even the recorder's next), every
// recorded Event is checked, and one whose name is taken is dropped, as
// client-go drops an Event the API refuses, instead of overwriting.
func TestRecorderNamesStayUnique(t *testing.T) {
	ts := newTestServer(t)
	a := Actor{Component: "kubelet", Cause: 1}
	pod, err := ts.Create(a, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if !ts.namesUnique() {
		t.Fatal("a new server checks its Event names")
	}
	// The name the recorder gives its next Event about web at this instant.
	next := "web." + strconv.FormatInt(ts.clock.Now().Time().UnixNano()+ts.eventsInTick+1, 16)
	mine := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: next, Namespace: "default"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "web", Namespace: "default"},
		Reason:         "Mine", Message: "a learner's Event", Type: corev1.EventTypeNormal}
	if _, err := ts.Create(Actor{Component: Kubectl}, mine); err != nil {
		t.Fatal(err)
	}
	if ts.namesUnique() {
		t.Fatal("names are still taken as unique after a learner created an Event")
	}
	ts.RecordEvent(a, corev1.EventSource{Component: "kubelet", Host: "n1"}, pod, corev1.EventTypeNormal, "Pulling", `Pulling image "nginx:1.27"`)
	o, ok := ts.store.Lookup(kinds.Event, "default", next)
	if !ok || o.(*corev1.Event).Reason != "Mine" {
		t.Fatalf("the learner's Event %s was overwritten by the recorder's: %v", next, o)
	}

	// A million Events in one millisecond would run into the next
	// millisecond's names: from then on, every name is checked.
	ts2 := newTestServer(t)
	ts2.eventsInTick = 999_999
	ts2.eventTick = ts2.clock.Now()
	ts2.RecordEvent(a, corev1.EventSource{Component: "kubelet", Host: "n1"}, pod, corev1.EventTypeNormal, "Pulling", `Pulling image "nginx:1.27"`)
	if ts2.namesUnique() {
		t.Error("names are still taken as unique after a millisecond's millionth Event")
	}
}
