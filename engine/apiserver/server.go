package apiserver

import (
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/store"
	"github.com/kubeloop/kubeloop/engine/trace"
)

// Actor says who makes a request and why: the component's name as the trace
// shows it, and the trace event that led to the request. The store event the
// write produces carries Cause, so whoever reacts can cite it.
//
// Requests from the learner's client (Component == Kubectl, the actor
// engine.Command returns) are traced by the API server itself: one
// "apiserver" event per object (`deployment.apps/api created`) and one
// "etcd" event for the commit, whose seq the store write carries. Writes by
// controllers, the scheduler and kubelets are not: their own trace event,
// recorded before the request, is the record.
type Actor struct {
	Component string
	Cause     uint64
}

// Kubectl is the component name of the learner's client.
const Kubectl = "kubectl"

func (a Actor) learner() bool { return a.Component == Kubectl }

// Server is the API server.
type Server struct {
	store *store.Store
	trace *trace.Trace
	clock *sim.Loop
	rand  *sim.Rand

	eventTick    sim.Tick // the tick of the last recorded event
	eventsInTick int64    // events recorded in it so far
	eventLeases  eventLeases
	repairErr    string // the bootstrap controller's last refused repair (kubernetes_service.go)
	// Events created other than by the recorder, and whether a millisecond
	// ever had a million Events: either makes the recorder check its
	// names (namesUnique).
	otherEvents       int
	eventNamesSpilled bool
	apiVersions       map[*kinds.Kind]string // Kind.APIVersion() of the kinds Events were recorded about
	eventBody         corev1.Event           // where RecordEvent builds each Event (the store keeps none)
}

// New returns an API server in front of st.
func New(st *store.Store, tr *trace.Trace, clock *sim.Loop, rnd *sim.Rand) *Server {
	return &Server{store: st, trace: tr, clock: clock, rand: rnd}
}

// Store is the store behind the server, for reads.
func (s *Server) Store() *store.Store { return s.store }

func (s *Server) now() metav1.Time { return metav1.NewTime(s.clock.Now().Time()) }

// newUID draws a version-4 UUID from the server's seeded source.
func (s *Server) newUID() types.UID {
	hi, lo := s.rand.Uint64(), s.rand.Uint64()
	hi = hi&^0xf000 | 0x4000     // version 4
	lo = lo&^(0xc<<60) | 0x8<<60 // RFC 4122 variant
	// fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", hi>>32, hi>>16&0xffff,
	// hi&0xffff, lo>>48, lo&0xffffffffffff), written out: every object
	// created gets one, and Sprintf allocates for each of its arguments.
	var b [36]byte
	putHex(b[0:8], hi>>32)
	putHex(b[9:13], hi>>16)
	putHex(b[14:18], hi)
	putHex(b[19:23], lo>>48)
	putHex(b[24:36], lo)
	b[8], b[13], b[18], b[23] = '-', '-', '-', '-'
	return types.UID(b[:])
}

// putHex writes the len(dst) lowest hex digits of v into dst, zero-padded.
func putHex(dst []byte, v uint64) {
	for i := len(dst) - 1; i >= 0; i-- {
		dst[i] = "0123456789abcdef"[v&0xf]
		v >>= 4
	}
}

// Name generation, as in apiserver pkg/storage/names: the base is cut to 58
// characters and five characters from apimachinery's consonant-and-digit
// alphabet are appended.
const (
	generateAlphabet       = "bcdfghjklmnpqrstvwxz2456789"
	generateRandomLength   = 5
	maxGeneratedNameLength = 63 - generateRandomLength
	maxGenerateAttempts    = 8 // RetryGenerateName, GA in 1.32
)

// generateName is a generated name for base, made in one allocation
// with the object's uid, which follows it there. Every component that
// takes up a pod (the scheduler's cache and queue, its node's kubelet,
// the Events about it) reads both, long after the pod was created, and
// then finds them in one place rather than two cold ones. Versions of
// the object share the two strings.
func (s *Server) generateName(base string, uid types.UID) (string, types.UID) {
	if len(base) > maxGeneratedNameLength {
		base = base[:maxGeneratedNameLength]
	}
	var buf [128]byte
	b := s.rand.AppendString(append(buf[:0], base...), generateAlphabet, generateRandomLength)
	n := len(b)
	both := string(append(b, uid...))
	return both[:n], types.UID(both[n:])
}

// Create stores a new object on behalf of a. It applies Kubernetes'
// defaults, runs admission, fills in the server-set metadata (uid,
// creationTimestamp, generation, a generated name), validates, allocates
// what the server allocates (a Service's cluster IP) and persists. The
// object passed in becomes the store's; the stored object is returned.
func (s *Server) Create(a Actor, obj kinds.Object) (kinds.Object, error) {
	if err := s.prepareCreate(s.store, obj); err != nil {
		return nil, err
	}
	k := kinds.Of(obj)
	generate := obj.GetName() == "" && obj.GetGenerateName() != ""
	for attempt := 1; ; attempt++ {
		if generate {
			name, uid := s.generateName(obj.GetGenerateName(), obj.GetUID())
			obj.SetName(name)
			obj.SetUID(uid)
		}
		if err := s.validateCreate(s.store, obj); err != nil {
			return nil, err
		}
		// etcd's create is a transaction that fails if the key exists. A
		// learner's request is traced before it is stored, so it is checked
		// first; any other create just tries (one map lookup, not two, for
		// the million Events of a big cluster).
		taken := false
		if a.learner() {
			_, taken = s.store.Lookup(k, obj.GetNamespace(), obj.GetName())
		}
		if !taken {
			if _, err := s.tryCommitCreate(a, obj, "created"); err == nil {
				return obj, nil
			}
		}
		if generate && attempt < maxGenerateAttempts {
			continue
		}
		if generate {
			return nil, apierrors.NewAlreadyExists(k.GroupResource(), obj.GetName()+
				", the server was not able to generate a unique name for the object")
		}
		return nil, apierrors.NewAlreadyExists(k.GroupResource(), obj.GetName())
	}
}

// view is what request preparation reads: the store, or the store with
// the earlier documents of an apply laid over it.
type view interface {
	Lookup(k *kinds.Kind, namespace, name string) (kinds.Object, bool)
	List(k *kinds.Kind, namespace string) []kinds.Object
}

// prepareCreate is everything before a create's validation: scope, the
// NamespaceLifecycle check, server-owned metadata, status reset,
// defaulting and mutating admission.
func (s *Server) prepareCreate(v view, obj kinds.Object) error {
	k := kinds.Of(obj)
	if k.Namespaced && obj.GetNamespace() == "" {
		obj.SetNamespace(metav1.NamespaceDefault)
	}
	if !k.Namespaced {
		obj.SetNamespace("")
	}
	if err := admitNamespace(v, k, obj); err != nil {
		return err
	}
	obj.SetUID(s.newUID())
	obj.SetCreationTimestamp(s.now())
	obj.SetResourceVersion("")
	obj.SetDeletionTimestamp(nil)
	obj.SetDeletionGracePeriodSeconds(nil)
	obj.SetGeneration(0)
	if tracksGeneration(kinds.Of(obj)) {
		obj.SetGeneration(1)
	}
	obj.SetManagedFields(nil)
	Default(obj)
	resetStatusOnCreate(obj)
	return admit(v, obj, nil)
}

// validateCreate validates a prepared object and allocates what the
// server allocates for it.
func (s *Server) validateCreate(v view, obj kinds.Object) error {
	k := kinds.Of(obj)
	if errs := Validate(obj); len(errs) > 0 {
		return apierrors.NewInvalid(k.GroupVersionKind().GroupKind(), obj.GetName(), errs)
	}
	if svc, ok := obj.(*corev1.Service); ok {
		if errs := allocateService(v, svc); len(errs) > 0 {
			return apierrors.NewInvalid(k.GroupVersionKind().GroupKind(), obj.GetName(), errs)
		}
	}
	return nil
}

// commitCreate writes a validated object. Nothing can fail here: every
// check was made against the same state.
func (s *Server) commitCreate(a Actor, obj kinds.Object, verb string) int64 {
	rev, err := s.tryCommitCreate(a, obj, verb)
	if err != nil {
		panic("apiserver: create after validation failed: " + err.Error())
	}
	return rev
}

// tryCommitCreate is commitCreate for a caller that has not checked that
// the name is free: it returns the store's AlreadyExists, having written
// nothing. A learner's request must be checked first (it is traced before
// the store is asked).
func (s *Server) tryCommitCreate(a Actor, obj kinds.Object, verb string) (int64, error) {
	k := kinds.Of(obj)
	cause := a.Cause
	if a.learner() { // only a learner's request is traced here (declare), so only it needs the message
		cause = s.declare(a, k, obj.GetNamespace(), obj.GetName(), KubectlRef(k, obj.GetName())+" "+verb, "stored")
	}
	rev, err := s.store.Create(obj, cause)
	if err != nil {
		if apierrors.IsAlreadyExists(err) && !a.learner() {
			return 0, err
		}
		panic("apiserver: create after validation failed: " + err.Error())
	}
	if k == kinds.Event {
		s.otherEvents++ // not the recorder's own path (recordEvent)
		s.noteEventWrite(rev)
	}
	s.noteRev(a, rev)
	return rev, nil
}

// resetStatusOnCreate is what each kind's PrepareForCreate does to status:
// a client cannot create an object with a status, except the kubelet's
// Node, a Namespace's phase and Events. A pod starts Pending with its QoS
// class.
func resetStatusOnCreate(obj kinds.Object) {
	switch o := obj.(type) {
	case *corev1.Pod:
		o.Status = corev1.PodStatus{Phase: corev1.PodPending, QOSClass: QOSClass(&o.Spec)}
	case *appsv1.Deployment:
		o.Status = appsv1.DeploymentStatus{}
	case *appsv1.ReplicaSet:
		o.Status = appsv1.ReplicaSetStatus{}
	case *corev1.Service:
		o.Status = corev1.ServiceStatus{}
	case *autoscalingv2.HorizontalPodAutoscaler:
		o.Status = autoscalingv2.HorizontalPodAutoscalerStatus{}
	default:
		resetStatusOnCreateMore(obj)
	}
}

// declare records a learner's request in the trace, in the Declare column:
// the API server's step and etcd's commit, and returns the cause the store
// write must carry. For other actors it returns a.Cause and records
// nothing (their own event is the record). writeVerb is "stored" or
// "deleted".
func (s *Server) declare(a Actor, k *kinds.Kind, ns, name, message, writeVerb string) uint64 {
	if !a.learner() {
		return a.Cause
	}
	api := s.traceAPIServer(a, k, ns, name, message)
	rev := s.store.Rev() + 1 // the store is single-threaded: the next write gets this revision
	return s.trace.Record(trace.Event{Component: "etcd", Lane: trace.ControlPlane, Column: trace.Declare,
		Namespace: ns, Object: k.Singular + "/" + name,
		Message: fmt.Sprintf("%s %s at revision %d", writeVerb, k.Key(ns, name), rev),
		Cause:   api, Rev: rev,
		Why: "etcd is the commit point: once it holds the object, it is desired state that every controller works toward."})
}

// traceAPIServer records the API server's step of a learner's request.
func (s *Server) traceAPIServer(a Actor, k *kinds.Kind, ns, name, message string) uint64 {
	return s.trace.Record(trace.Event{Component: "apiserver", Lane: trace.ControlPlane, Column: trace.Declare,
		Namespace: ns, Object: k.Singular + "/" + name, Message: message, Cause: a.Cause,
		Why: "The API server validates, defaults and admits every request before anything is stored."})
}

// KubectlRef names an object as kubectl's output does: "pod/web-1",
// "deployment.apps/api".
func KubectlRef(k *kinds.Kind, name string) string {
	if k.Group == "" {
		return k.Singular + "/" + name
	}
	return k.Singular + "." + k.Group + "/" + name
}

// kubectlQuoted names an object as kubectl delete does: `deployment.apps "api"`.
func kubectlQuoted(k *kinds.Kind, name string) string {
	if k.Group == "" {
		return fmt.Sprintf("%s %q", k.Singular, name)
	}
	return fmt.Sprintf("%s.%s %q", k.Singular, k.Group, name)
}

func (s *Server) noteRev(a Actor, rev int64) {
	// A learner's writes are stamped on their etcd events instead.
	if a.Cause != 0 && !a.learner() {
		s.trace.SetRev(a.Cause, rev)
	}
}

// Update replaces an object's spec and metadata on behalf of a, as a PUT
// does: status changes in obj are ignored for kinds with a status
// subresource (use UpdateStatus), metadata.generation moves when the spec
// changes, and a stale resourceVersion fails with Conflict (an empty one is
// an unconditional update).
func (s *Server) Update(a Actor, obj kinds.Object) (kinds.Object, error) {
	return s.update(a, obj, false, "replaced")
}

// UpdateStatus writes only an object's status, as the /status subresource
// does; spec and metadata changes in obj are ignored.
//
// The server never keeps obj itself: it stores a copy of the stored object
// carrying obj's status (and, for a Deployment, its annotations). Callers
// rely on that to send every status write from one reused body (the kubelet,
// the Deployment and ReplicaSet controllers); what they must not change in
// place afterwards are the lists and maps inside the status, which the new
// version shares.
func (s *Server) UpdateStatus(a Actor, obj kinds.Object) (kinds.Object, error) {
	return s.update(a, obj, true, "status updated")
}

func (s *Server) update(a Actor, obj kinds.Object, status bool, verb string) (kinds.Object, error) {
	k := kinds.Of(obj)
	if !k.Namespaced {
		obj.SetNamespace("")
	} else if obj.GetNamespace() == "" {
		obj.SetNamespace(metav1.NamespaceDefault)
	}
	old, err := s.store.Get(k, obj.GetNamespace(), obj.GetName())
	if err != nil {
		return nil, err
	}
	obj, err = s.prepareUpdate(s.store, old, obj, status)
	if err != nil {
		return nil, err
	}
	if status && statusEqual(old, obj) || !status && Equal(old, obj) {
		return old, nil // a no-op write does not move the revision, as in kube-apiserver
	}
	s.commitUpdate(a, obj, verb, status && changesStatusOnly(old, obj))
	return obj, nil
}

// prepareUpdate is everything an update does before the write: keeping
// what the client may not change, defaulting, admission, generation and
// validation. It returns the object to store.
func (s *Server) prepareUpdate(v view, old, obj kinds.Object, status bool) (kinds.Object, error) {
	k := kinds.Of(obj)
	if rv := obj.GetResourceVersion(); rv != "" && rv != old.GetResourceVersion() {
		return nil, apierrors.NewConflict(k.GroupResource(), obj.GetName(),
			fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
	}
	if status {
		obj = withStatusOnly(old, obj)
	} else {
		obj = withoutStatus(old, obj)
		Default(obj)
		if svc, ok := obj.(*corev1.Service); ok {
			keepServiceAllocations(svc, old.(*corev1.Service))
		}
		if err := admit(v, obj, old); err != nil {
			return nil, err
		}
	}
	// Server-owned metadata cannot be changed by clients.
	obj.SetUID(old.GetUID())
	obj.SetCreationTimestamp(old.GetCreationTimestamp())
	obj.SetDeletionTimestamp(old.GetDeletionTimestamp())
	obj.SetDeletionGracePeriodSeconds(old.GetDeletionGracePeriodSeconds())
	obj.SetGeneration(old.GetGeneration())
	if !status && generationMoves(old, obj) {
		obj.SetGeneration(old.GetGeneration() + 1)
	}
	// An unconditional update is checked as one at the stored version. (An
	// object created earlier in the same apply has no version yet.)
	rv := old.GetResourceVersion()
	obj.SetResourceVersion(rv)
	if rv == "" {
		obj.SetResourceVersion("0")
	}
	var errs field.ErrorList
	if status {
		// A status write keeps the stored metadata (withStatusOnly), which
		// was valid when stored, so validating it again cannot fail; only a
		// Deployment's status write carries new metadata (its revision
		// annotations). Status writes are most of a large cluster's writes.
		if k == kinds.Deployment {
			errs = ValidateStatusUpdate(obj, old)
		}
	} else {
		errs = ValidateUpdate(obj, old)
	}
	obj.SetResourceVersion(rv)
	if svc, ok := obj.(*corev1.Service); ok && len(errs) == 0 && !status {
		errs = allocateService(v, svc) // a type change may need new node ports
	}
	if len(errs) > 0 {
		return nil, apierrors.NewInvalid(k.GroupVersionKind().GroupKind(), obj.GetName(), errs)
	}
	return obj, nil
}

// commitUpdate writes a prepared update. statusOnly says it changes
// nothing but the status (see changesStatusOnly).
func (s *Server) commitUpdate(a Actor, obj kinds.Object, verb string, statusOnly bool) {
	k := kinds.Of(obj)
	cause := a.Cause
	if a.learner() { // as in commitCreate
		cause = s.declare(a, k, obj.GetNamespace(), obj.GetName(), KubectlRef(k, obj.GetName())+" "+verb, "stored")
	}
	var rev int64
	var err error
	if statusOnly {
		rev, err = s.store.UpdateStatusOnly(obj, cause)
	} else {
		rev, err = s.store.Update(obj, cause)
	}
	if err != nil {
		panic("apiserver: update after validation failed: " + err.Error())
	}
	if k == kinds.Event {
		s.noteEventWrite(rev)
	}
	s.noteRev(a, rev)
	// An object that was waiting only for its last finalizer goes now.
	if obj.GetDeletionTimestamp() != nil && len(obj.GetFinalizers()) == 0 && !isGracefulPod(obj) {
		if _, _, err := s.store.Delete(k, obj.GetNamespace(), obj.GetName(), "", cause); err != nil {
			panic("apiserver: finalized delete failed: " + err.Error())
		}
	}
}

func isGracefulPod(obj kinds.Object) bool {
	p, ok := obj.(*corev1.Pod)
	return ok && p.DeletionGracePeriodSeconds != nil && *p.DeletionGracePeriodSeconds > 0
}

// DeleteOptions are the options of a DELETE request that kubeloop models.
type DeleteOptions struct {
	// GracePeriodSeconds overrides the pod's terminationGracePeriodSeconds;
	// 0 deletes at once (kubectl delete --grace-period=0 --force).
	GracePeriodSeconds *int64
	// Propagation is Background (the default), Foreground or Orphan.
	Propagation metav1.DeletionPropagation
	// ResourceVersion, if set, is a precondition.
	ResourceVersion string
}

// Delete deletes an object on behalf of a. A pod bound to a node is deleted
// gracefully: it gets a deletionTimestamp and stays, Terminating, until its
// kubelet has stopped its containers and deletes it with grace period 0. An
// object with finalizers also stays until they are removed. Background
// propagation deletes the object now and leaves its dependents to the
// garbage collector; Foreground and Orphan add the finalizers Kubernetes
// adds. It returns the object's state after the request (nil if gone).
func (s *Server) Delete(a Actor, k *kinds.Kind, namespace, name string, opts DeleteOptions) (kinds.Object, error) {
	if !k.Namespaced {
		namespace = ""
	} else if namespace == "" {
		namespace = metav1.NamespaceDefault
	}
	if err := admitDelete(k, name); err != nil {
		return nil, err
	}
	cur, err := s.store.Get(k, namespace, name)
	if err != nil {
		return nil, err
	}
	if opts.ResourceVersion != "" && opts.ResourceVersion != cur.GetResourceVersion() {
		return nil, apierrors.NewConflict(k.GroupResource(), name,
			fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
	}
	grace := int64(0)
	if p, ok := cur.(*corev1.Pod); ok && p.Spec.NodeName != "" {
		// Unscheduled pods have no kubelet to wait for and go at once.
		grace = corev1.DefaultTerminationGracePeriodSeconds
		if p.Spec.TerminationGracePeriodSeconds != nil {
			grace = *p.Spec.TerminationGracePeriodSeconds
		}
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			grace = 0
		}
	}
	if opts.GracePeriodSeconds != nil {
		grace = *opts.GracePeriodSeconds
	}
	finalizers := cur.GetFinalizers()
	switch opts.Propagation {
	case metav1.DeletePropagationForeground:
		finalizers = addString(finalizers, metav1.FinalizerDeleteDependents)
	case metav1.DeletePropagationOrphan:
		finalizers = addString(finalizers, metav1.FinalizerOrphanDependents)
	}
	message := "" // what declare traces, for a learner's request only
	if a.learner() {
		message = kubectlQuoted(k, name) + " deleted"
	}
	if grace == 0 && len(finalizers) == 0 {
		cause := s.declare(a, k, namespace, name, message, "deleted")
		_, rev, err := s.store.Delete(k, namespace, name, "", cause)
		if err != nil {
			return nil, err
		}
		s.noteRev(a, rev)
		return nil, nil
	}
	if cur.GetDeletionTimestamp() != nil && len(finalizers) == len(cur.GetFinalizers()) {
		// Already terminating: a second delete can only shorten the grace period.
		if g := cur.GetDeletionGracePeriodSeconds(); g == nil || grace >= *g {
			return cur, nil
		}
	}
	upd := cur.DeepCopyObject().(kinds.Object)
	ts := s.now()
	if cur.GetDeletionTimestamp() == nil {
		upd.SetDeletionTimestamp(&ts)
		// Graceful deletion bumps a tracked generation (apiserver rest.BeforeDelete).
		if g := cur.GetGeneration(); g > 0 {
			upd.SetGeneration(g + 1)
		}
	}
	upd.SetDeletionGracePeriodSeconds(&grace)
	upd.SetFinalizers(finalizers)
	rev, err := s.store.Update(upd, s.declare(a, k, namespace, name, message, "stored"))
	if err != nil {
		return nil, err
	}
	s.noteRev(a, rev)
	return upd, nil
}

func addString(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(append([]string(nil), list...), s)
}

// Bind assigns a pod to a node through the pods/binding subresource, as the
// scheduler does: it fails with Conflict if the pod is already bound.
func (s *Server) Bind(a Actor, namespace, podName, nodeName string) (*corev1.Pod, error) {
	cur, err := s.store.Get(kinds.Pod, namespace, podName)
	if err != nil {
		return nil, err
	}
	p := cur.(*corev1.Pod)
	if p.Spec.NodeName != "" {
		return nil, apierrors.NewConflict(kinds.Pod.GroupResource(), podName,
			fmt.Errorf("pod %s is already assigned to node %q", podName, p.Spec.NodeName))
	}
	if p.DeletionTimestamp != nil {
		return nil, apierrors.NewConflict(kinds.Pod.GroupResource(), podName,
			fmt.Errorf("pod %s is being deleted, cannot be assigned to a host", podName))
	}
	if _, ok := s.store.Lookup(kinds.Node, "", nodeName); !ok {
		return nil, apierrors.NewNotFound(kinds.Node.GroupResource(), nodeName)
	}
	// The bound version shares the pod's metadata and spec contents (store
	// objects are read-only); only nodeName and the conditions are new.
	upd := new(corev1.Pod)
	*upd = *p
	upd.Status.Conditions = append(make([]corev1.PodCondition, 0, len(p.Status.Conditions)+1), p.Status.Conditions...)
	upd.Spec.NodeName = nodeName
	setPodCondition(&upd.Status, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue,
		LastTransitionTime: s.now()})
	rev, err := s.store.Update(upd, a.Cause)
	if err != nil {
		return nil, err
	}
	s.noteRev(a, rev)
	return upd, nil
}

func setPodCondition(st *corev1.PodStatus, c corev1.PodCondition) {
	for i := range st.Conditions {
		if st.Conditions[i].Type == c.Type {
			if st.Conditions[i].Status == c.Status {
				return
			}
			st.Conditions[i] = c
			return
		}
	}
	st.Conditions = append(st.Conditions, c)
}

// RecordEvent creates a Kubernetes Event about obj (what `kubectl get
// events` and `describe` show), as client-go's event recorder does:
// eventType is Normal or Warning, reason a CamelCase word, message in the
// reporting component's own words. source is the recorder's: the
// component, and the node for a kubelet's; the Event names it again as
// its reporting controller and instance. Like client-go, it drops an
// event the API server refuses (its namespace is gone, say): events are
// best-effort and never fail the action they describe.
func (s *Server) RecordEvent(a Actor, source corev1.EventSource, obj kinds.Object, eventType, reason, message string) {
	s.RecordEventWith(a, source, obj, eventType, reason, message, Occurrence{})
}

// recordEvent creates an Event about the part of obj at fieldPath, of
// count occurrences, the first at first (now for one).
func (s *Server) recordEvent(a Actor, source corev1.EventSource, obj kinds.Object, fieldPath, eventType, reason, message string, count int32, first sim.Tick) {
	s.recordEventNamed(a, source, obj, s.eventName(obj.GetName()), fieldPath, eventType, reason, message, count, first)
}

// recordEventNamed is recordEvent of an Event the recorder named.
func (s *Server) recordEventNamed(a Actor, source corev1.EventSource, obj kinds.Object, name, fieldPath, eventType, reason, message string, count int32, first sim.Tick) {
	ts := s.now()
	// The store keeps Events only encoded (etcd's bytes; no component
	// watches them), so every Event is built in the same reused space.
	ev := &s.eventBody
	defer func() { *ev = corev1.Event{} }()
	*ev = corev1.Event{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Event"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: eventNamespace(obj),
		},
		InvolvedObject: s.reference(obj),
		Reason:         reason, Message: message, Type: eventType,
		Source:         source,
		FirstTimestamp: metav1.NewTime(first.Time()), LastTimestamp: ts, Count: count,
		ReportingController: source.Component, ReportingInstance: source.Host,
	}
	ev.InvolvedObject.FieldPath = fieldPath
	s.createEvent(a, ev)
}

// createEvent creates ev, named by eventName, for a recorder: best-effort,
// as client-go's, so a create that fails records nothing. The name is
// unique unless something else made an Event (see namesUnique), so etcd's
// existence check is skipped. It reports whether ev was created.
func (s *Server) createEvent(a Actor, ev *corev1.Event) bool {
	if s.namesUnique() {
		if s.prepareCreate(s.store, ev) != nil || s.validateCreate(s.store, ev) != nil {
			return false
		}
		rev := s.store.CreateNew(ev, a.Cause)
		s.noteEventWrite(rev)
		s.noteRev(a, rev)
		return true
	}
	_, err := s.Create(a, ev)
	return err == nil
}

// namesUnique reports whether the names eventName makes are sure to be
// free: no Event was created but by the recorder (a learner's apply could
// take any name), and no millisecond has had a million Events (the
// nanoseconds that count them would run into the next millisecond's).
func (s *Server) namesUnique() bool {
	return s.otherEvents == 0 && !s.eventNamesSpilled
}

// eventName is the name client-go gives an Event about the object named
// name: name, a dot and a suffix, the event's time in Unix nanoseconds, in
// hex (fixed width, so that etcd's key order is time order). Virtual time
// has millisecond resolution, so the nanoseconds within a millisecond
// count the events recorded in it, keeping names unique. (The name is
// built in a stack buffer and allocated once: every pod has six Events.)
func (s *Server) eventName(name string) string {
	now := s.clock.Now()
	if now != s.eventTick {
		s.eventTick, s.eventsInTick = now, 0
	}
	s.eventsInTick++
	if s.eventsInTick >= 1_000_000 {
		s.eventNamesSpilled = true // from now on, every Event create checks its name
	}
	var buf [96]byte
	b := append(append(buf[:0], name...), '.')
	return string(strconv.AppendInt(b, now.Time().UnixNano()+s.eventsInTick, 16))
}

// apiVersion is k.APIVersion(), which builds "apps/v1" anew on every call,
// kept per kind: Events name their object's apiVersion.
func (s *Server) apiVersion(k *kinds.Kind) string {
	v, ok := s.apiVersions[k]
	if !ok {
		if s.apiVersions == nil {
			s.apiVersions = map[*kinds.Kind]string{}
		}
		v = k.APIVersion()
		s.apiVersions[k] = v
	}
	return v
}

// reference is client-go's GetReference of obj: what an Event says of the
// object it is about.
func (s *Server) reference(obj kinds.Object) corev1.ObjectReference {
	k := kinds.Of(obj)
	return corev1.ObjectReference{
		Kind: k.Kind, Namespace: obj.GetNamespace(), Name: obj.GetName(), UID: obj.GetUID(),
		APIVersion: s.apiVersion(k), ResourceVersion: obj.GetResourceVersion(),
	}
}

func eventNamespace(obj kinds.Object) string {
	if ns := obj.GetNamespace(); ns != "" {
		return ns
	}
	return metav1.NamespaceDefault
}
