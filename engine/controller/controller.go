package controller

import (
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/component"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/store"
	"github.com/kubeloop/kubeloop/engine/trace"
	"github.com/kubeloop/kubeloop/engine/workqueue"
)

// Result is what a Reconcile asks of its queue besides success or failure,
// in the shape of controller-runtime's reconcile.Result.
type Result struct {
	// RequeueAfter, if positive, reconciles the key again after that much
	// virtual time (a progress-deadline check, a minReadySeconds wait).
	RequeueAfter sim.Tick
	// RateLimited queues the key again through the rate limiter, as a
	// sync's queue.AddRateLimited does (the Deployment controller's "check
	// progress now"): 5 ms at first, but at most 10 a second once the
	// controller's burst of 100 is spent.
	RateLimited bool
}

// Store indexes the controllers add. Their names are prefixed so that they
// cannot collide with other components' indexes.
const (
	// IndexOwnerUID files every object under the UIDs of its owners
	// (ownerReferences): pods by ReplicaSet, ReplicaSets by Deployment,
	// EndpointSlices by Service. The garbage collector's dependency graph.
	IndexOwnerUID = "controller/owner-uid"
	// IndexOrphan files pods and ReplicaSets that have no controller under
	// their namespace, so that adoption never scans every pod.
	IndexOrphan = "controller/orphan"
	// IndexPodLabel files pods under "namespace/key=value" for each label,
	// so that a Service's selector finds its pods without a scan. It is
	// added when the first Service with a selector appears.
	IndexPodLabel = "controller/pod-label"
)

// EnsureIndexes adds the owner and orphan indexes if they are missing.
func EnsureIndexes(st *store.Store) {
	for _, k := range kinds.All {
		if k == kinds.Event || st.HasIndex(k, IndexOwnerUID) {
			continue
		}
		var last oneValue // per index: each is called by its own store, single-threaded
		st.AddIndex(k, IndexOwnerUID, func(obj store.Object) []string { return ownerUIDs(obj, &last) })
	}
	for _, k := range []*kinds.Kind{kinds.Pod, kinds.ReplicaSet} {
		if !st.HasIndex(k, IndexOrphan) {
			st.AddIndex(k, IndexOrphan, orphanNamespace)
		}
	}
}

// ownerUIDs files an object under its owners' UIDs. The list for an
// object with one owner comes through last.
func ownerUIDs(obj store.Object, last *oneValue) []string {
	refs := obj.GetOwnerReferences()
	switch len(refs) {
	case 0:
		return nil
	case 1:
		return last.list(string(refs[0].UID))
	}
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = string(r.UID)
	}
	return out
}

// oneValue hands out an index function's one-value list ([]string{v}),
// reusing the list it made last when v is the same value. The store asks
// an index function for an object's values at every write, for the
// version it replaces and then for the new one (index.update), and for
// a status write both are the same: the second call then costs a string
// comparison (of one string with itself, for versions that share their
// owner references) instead of an allocation. The store only reads the
// lists, and a list is never changed once handed out, so sharing one is
// safe.
type oneValue struct{ last []string }

func (o *oneValue) list(v string) []string {
	if o.last != nil && o.last[0] == v {
		return o.last
	}
	o.last = []string{v}
	return o.last
}

func orphanNamespace(obj store.Object) []string {
	if metav1.GetControllerOfNoCopy(obj) != nil {
		return nil
	}
	return []string{obj.GetNamespace()}
}

func ensurePodLabelIndex(st *store.Store) {
	if !st.HasIndex(kinds.Pod, IndexPodLabel) {
		st.AddIndex(kinds.Pod, IndexPodLabel, podLabelValues)
	}
}

// podLabelValues files a pod under each of its labels, as
// "<namespace>/<key>=<value>", in order: a write that leaves the labels as
// they were (a status write) then gives the same list as the version
// before it, and the store keeps the pod where it is rather than refiling
// it, which it would do half the time for two labels in map order.
func podLabelValues(obj store.Object) []string {
	ls := obj.GetLabels()
	if len(ls) == 0 {
		return nil
	}
	out := make([]string, 0, len(ls))
	for k, v := range ls {
		out = append(out, obj.GetNamespace()+"/"+k+"="+v)
	}
	slices.Sort(out)
	return out
}

// controlled returns the objects of kind k whose controller (the owner
// reference with controller: true) has the given UID.
func controlled(st *store.Store, k *kinds.Kind, owner metav1.Object) []store.Object {
	all := st.ByIndex(k, IndexOwnerUID, string(owner.GetUID()))
	out := all[:0]
	for _, o := range all {
		if ref := metav1.GetControllerOfNoCopy(o); ref != nil && ref.UID == owner.GetUID() {
			out = append(out, o)
		}
	}
	return out
}

// Key is the work queue key of a namespaced object, as client-go's
// MetaNamespaceKeyFunc makes it: "namespace/name".
func Key(obj metav1.Object) string { return obj.GetNamespace() + "/" + obj.GetName() }

// sharedMessages makes each trace message of a kind once per key, the few
// numbers it is made from, and shares it: such messages recur from write
// to write and object to object, and the trace ring keeps one copy where
// it kept one per write. It starts over when it holds maxSharedMessages.
type sharedMessages[K comparable] map[K]string

// maxSharedMessages bounds a sharedMessages.
const maxSharedMessages = 4096

// get returns the message for key, made by format if it is new.
func (m sharedMessages[K]) get(key K, format func() string) string {
	if msg, ok := m[key]; ok {
		return msg
	}
	if len(m) == maxSharedMessages {
		clear(m)
	}
	msg := format()
	m[key] = msg
	return msg
}

// SplitKey splits a "namespace/name" key.
func SplitKey(key string) (namespace, name string) {
	if i := strings.IndexByte(key, '/'); i >= 0 {
		return key[:i], key[i+1:]
	}
	return "", key
}

// worker is the part every controller shares: its queue and the loop that
// pops keys and reconciles them (sample-controller's processNextWorkItem).
type worker struct {
	name    string
	env     component.Env
	queue   *workqueue.Queue
	workers int // keys popped per Work, as kube-controller-manager's worker count
	// cause is the trace seq that queued the key being reconciled; the
	// reconcile's trace events cite it.
	cause     uint64
	reconcile func(key string) (Result, error)
	// events is the controller's event recorder's correlator (events.go).
	events *correlator
}

func newWorker(name string, env component.Env, workers int) worker {
	return worker{name: name, env: env, queue: workqueue.New(name, env.Loop), workers: workers, events: &correlator{}}
}

// Name is the controller's name in the trace.
func (w *worker) Name() string { return w.name }

// Work reconciles up to w.workers queued keys and reports whether it popped
// any. A failed key is retried with client-go's rate limit; the error goes
// in the trace, as kube-controller-manager logs it.
func (w *worker) Work() bool {
	n := 0
	for ; n < w.workers; n++ {
		key, cause, ok := w.queue.Get()
		if !ok {
			break
		}
		w.cause = cause
		res, err := w.reconcile(key)
		switch {
		case err != nil:
			w.queue.AddRateLimited(key, cause)
			ns, name := SplitKey(key)
			w.env.Trace.Record(trace.Event{Component: w.name, Lane: trace.ControlPlane, Column: trace.Maintain,
				Namespace: ns, Object: name, Cause: cause,
				Message: "error syncing " + key + ": " + err.Error() + "; retrying",
				Why:     "Controllers retry failed reconciles with backoff: the desired state still stands, so they try again."})
		default:
			if res.RateLimited {
				// kube's sync calls AddRateLimited itself, before its
				// worker forgets the key's failures.
				w.queue.AddRateLimited(key, cause)
			}
			w.queue.Forget(key)
			if res.RequeueAfter > 0 {
				w.queue.AddAfter(key, cause, res.RequeueAfter)
			}
		}
		w.queue.Done(key)
	}
	w.cause = 0
	return n > 0
}

// Enqueue queues key with a cause, for tests and callers outside Observe.
func (w *worker) Enqueue(key string, cause uint64) { w.queue.Add(key, cause) }

// QueueLen is the number of keys ready to be reconciled.
func (w *worker) QueueLen() int { return w.queue.Len() }

// record adds a trace event for a step this controller is about to take and
// returns its seq, to be passed as the cause of the write.
func (w *worker) record(col trace.Column, namespace, object, message, why string) uint64 {
	return w.env.Trace.Record(trace.Event{Component: w.name, Lane: trace.ControlPlane, Column: col,
		Namespace: namespace, Object: object, Message: message, Cause: w.cause, Why: why})
}

func (w *worker) actor(seq uint64) apiserver.Actor {
	return apiserver.Actor{Component: w.name, Cause: seq}
}

// event records a Kubernetes Event about obj, caused by trace event seq,
// without moving the revision stamped on seq (which names the write the
// step made, not the Event's own).
func (w *worker) event(seq uint64, source string, obj kinds.Object, eventType, reason, message string) {
	rev := int64(0)
	if e, ok := w.env.Trace.Get(seq); ok {
		rev = e.Rev
	}
	w.events.event(w.env.API, w.actor(seq), w.env.Loop.Now(), source, obj, eventType, reason, message)
	if rev != 0 {
		w.env.Trace.SetRev(seq, rev)
	}
}

// columnOf is the column of trace event seq, or def if it has left the ring.
func (w *worker) columnOf(seq uint64, def trace.Column) trace.Column {
	if e, ok := w.env.Trace.Get(seq); ok && seq != 0 {
		return e.Column
	}
	return def
}

// statusColumn is the column of a status write. A controller reporting on
// what it has just declared (a new ReplicaSet, the pods it asked for) is
// still in the Declare column; reporting on what the nodes did (pods
// running, ready, gone) is comparing observed with desired: Maintain. So
// the trace of a new Deployment reads left to right, Declare → Schedule →
// Run → Maintain.
func (w *worker) statusColumn() trace.Column {
	if w.columnOf(w.cause, trace.Maintain) == trace.Declare {
		return trace.Declare
	}
	return trace.Maintain
}

// deleteBackground is a DELETE with the default propagation.
var deleteBackground = apiserver.DeleteOptions{Propagation: metav1.DeletePropagationBackground}

func secondsDuration(s int32) time.Duration { return sim.Seconds(int64(s)).Duration() }

func (w *worker) now() metav1.Time { return metav1.NewTime(w.env.Loop.Now().Time()) }

// IsPodReady reports whether the pod's Ready condition is True
// (k8s.io/kubernetes/pkg/api/v1/pod IsPodReady).
func IsPodReady(p *corev1.Pod) bool {
	c := podReadyCondition(p)
	return c != nil && c.Status == corev1.ConditionTrue
}

func podReadyCondition(p *corev1.Pod) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.PodReady {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// IsPodAvailable reports whether the pod has been Ready for more than
// minReadySeconds at now (pkg/api/v1/pod IsPodAvailable): with 0 it is just
// Ready.
func IsPodAvailable(p *corev1.Pod, minReadySeconds int32, now metav1.Time) bool {
	if !IsPodReady(p) {
		return false
	}
	if minReadySeconds == 0 {
		return true
	}
	c := podReadyCondition(p)
	d := sim.Seconds(int64(minReadySeconds)).Duration()
	// The API server stores times in RFC 3339, whole seconds: kube's
	// controller reads lastTransitionTime truncated, so its requeue after
	// exactly minReadySeconds finds the pod available.
	ltt := c.LastTransitionTime.Truncate(time.Second)
	return !ltt.IsZero() && ltt.Add(d).Before(now.Time)
}

// IsPodActive reports whether a pod counts toward a ReplicaSet: not
// Succeeded or Failed, and not being deleted (controller.IsPodActive).
func IsPodActive(p *corev1.Pod) bool {
	return p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed && p.DeletionTimestamp == nil
}

func selectorOf(ls *metav1.LabelSelector) labels.Selector {
	if ls == nil {
		return labels.Nothing()
	}
	s, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		return labels.Nothing()
	}
	return s
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
