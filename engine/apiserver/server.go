// Package apiserver is kubeloop's kube-apiserver: the only component that
// writes to the store. Every request passes the same pipeline as in
// Kubernetes: decode, default, validate, admit, then persist to etcd (the
// store), which is the commit point. Controllers, the scheduler and kubelets
// are clients like the learner is; they differ only in the Actor they pass.
package apiserver

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/store"
	"github.com/kubeloop/kubeloop/engine/trace"
)

// Actor says who makes a request and why: the component's name as the trace
// shows it, and the trace event that led to the request. The store event the
// write produces carries Cause, so whoever reacts can cite it.
type Actor struct {
	Component string
	Cause     uint64
}

// Server is the API server.
type Server struct {
	store *store.Store
	trace *trace.Trace
	clock *sim.Loop
	rand  *sim.Rand
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
	return types.UID(fmt.Sprintf("%08x-%04x-%04x-%04x-%012x",
		hi>>32, (hi>>16)&0xffff, hi&0xffff, lo>>48, lo&0xffffffffffff))
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

func (s *Server) generateName(base string) string {
	if len(base) > maxGeneratedNameLength {
		base = base[:maxGeneratedNameLength]
	}
	return base + s.rand.String(generateAlphabet, generateRandomLength)
}

// Create stores a new object on behalf of a. It applies Kubernetes'
// defaults, validates, runs admission, fills in the server-set metadata
// (uid, creationTimestamp, generation, a generated name) and persists. The
// object passed in becomes the store's; the stored object is returned.
func (s *Server) Create(a Actor, obj kinds.Object) (kinds.Object, error) {
	k := kinds.Of(obj)
	if k.Namespaced && obj.GetNamespace() == "" {
		obj.SetNamespace(metav1.NamespaceDefault)
	}
	if !k.Namespaced {
		obj.SetNamespace("")
	}
	if err := s.checkNamespace(k, obj.GetNamespace()); err != nil {
		return nil, err
	}
	s.prepareCreate(obj)
	Default(obj)
	Admit(obj)
	generate := obj.GetName() == "" && obj.GetGenerateName() != ""
	for attempt := 1; ; attempt++ {
		if generate {
			obj.SetName(s.generateName(obj.GetGenerateName()))
		}
		if errs := Validate(obj); len(errs) > 0 {
			return nil, apierrors.NewInvalid(k.GroupVersionKind().GroupKind(), obj.GetName(), errs)
		}
		rev, err := s.store.Create(obj, a.Cause)
		if apierrors.IsAlreadyExists(err) && generate {
			if attempt < maxGenerateAttempts {
				continue
			}
			return nil, apierrors.NewAlreadyExists(k.GroupResource(), obj.GetName()+
				", the server was not able to generate a unique name for the object")
		}
		if err != nil {
			return nil, err
		}
		s.noteRev(a, rev)
		return obj, nil
	}
}

// prepareCreate sets what the server owns on create.
func (s *Server) prepareCreate(obj kinds.Object) {
	obj.SetUID(s.newUID())
	obj.SetCreationTimestamp(s.now())
	obj.SetResourceVersion("")
	obj.SetDeletionTimestamp(nil)
	obj.SetDeletionGracePeriodSeconds(nil)
	obj.SetGeneration(1)
	obj.SetManagedFields(nil)
}

func (s *Server) checkNamespace(k *kinds.Kind, ns string) error {
	if !k.Namespaced {
		return nil
	}
	if _, ok := s.store.Lookup(kinds.Namespace, "", ns); !ok {
		return apierrors.NewNotFound(kinds.Namespace.GroupResource(), ns)
	}
	return nil
}

func (s *Server) noteRev(a Actor, rev int64) {
	if a.Cause != 0 {
		s.trace.SetRev(a.Cause, rev)
	}
}

// Update replaces an object's spec and metadata on behalf of a, as a PUT
// does: status changes in obj are ignored for kinds with a status
// subresource (use UpdateStatus), metadata.generation moves when the spec
// changes, and a stale resourceVersion fails with Conflict.
func (s *Server) Update(a Actor, obj kinds.Object) (kinds.Object, error) {
	return s.update(a, obj, false)
}

// UpdateStatus writes only an object's status, as the /status subresource
// does; spec and metadata changes in obj are ignored.
func (s *Server) UpdateStatus(a Actor, obj kinds.Object) (kinds.Object, error) {
	return s.update(a, obj, true)
}

func (s *Server) update(a Actor, obj kinds.Object, status bool) (kinds.Object, error) {
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
	if status {
		obj = withStatusOnly(old, obj)
	} else {
		obj = withoutStatus(old, obj)
		Default(obj)
	}
	// Server-owned metadata cannot be changed by clients.
	obj.SetUID(old.GetUID())
	obj.SetCreationTimestamp(old.GetCreationTimestamp())
	obj.SetDeletionTimestamp(old.GetDeletionTimestamp())
	obj.SetDeletionGracePeriodSeconds(old.GetDeletionGracePeriodSeconds())
	obj.SetGeneration(old.GetGeneration())
	if !status && specChanged(old, obj) {
		obj.SetGeneration(old.GetGeneration() + 1)
	}
	if errs := ValidateUpdate(obj, old); len(errs) > 0 {
		return nil, apierrors.NewInvalid(k.GroupVersionKind().GroupKind(), obj.GetName(), errs)
	}
	if Equal(old, obj) {
		return old, nil // a no-op write does not move the revision, as in kube-apiserver
	}
	rev, err := s.store.Update(obj, a.Cause)
	if err != nil {
		return nil, err
	}
	s.noteRev(a, rev)
	// An object that was waiting only for its last finalizer goes now.
	if obj.GetDeletionTimestamp() != nil && len(obj.GetFinalizers()) == 0 && !isGracefulPod(obj) {
		if _, _, err := s.store.Delete(k, obj.GetNamespace(), obj.GetName(), "", a.Cause); err != nil {
			return nil, err
		}
	}
	return obj, nil
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
	if grace == 0 && len(finalizers) == 0 {
		_, rev, err := s.store.Delete(k, namespace, name, "", a.Cause)
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
		// Graceful deletion bumps generation (apiserver rest.BeforeDelete).
		upd.SetGeneration(cur.GetGeneration() + 1)
	}
	upd.SetDeletionGracePeriodSeconds(&grace)
	upd.SetFinalizers(finalizers)
	rev, err := s.store.Update(upd, a.Cause)
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
	upd := p.DeepCopy()
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
// reporting component's own words.
func (s *Server) RecordEvent(a Actor, source string, obj kinds.Object, eventType, reason, message string) {
	k := kinds.Of(obj)
	ts := s.now()
	ev := &corev1.Event{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Event"},
		ObjectMeta: metav1.ObjectMeta{
			// client-go names events <object>.<hex nanoseconds>; the counter
			// keeps names unique within one virtual instant.
			Name:      obj.GetName() + "." + strconv.FormatInt(int64(s.clock.Now())*1_000_000+int64(s.store.Rev()%1_000_000), 16),
			Namespace: eventNamespace(obj),
		},
		InvolvedObject: corev1.ObjectReference{
			Kind: k.Kind, Namespace: obj.GetNamespace(), Name: obj.GetName(), UID: obj.GetUID(),
			APIVersion: k.APIVersion(), ResourceVersion: obj.GetResourceVersion(),
		},
		Reason: reason, Message: message, Type: eventType,
		Source:         corev1.EventSource{Component: source},
		FirstTimestamp: ts, LastTimestamp: ts, Count: 1,
		ReportingController: source,
	}
	if _, err := s.Create(a, ev); err != nil {
		panic("apiserver: recording event: " + err.Error())
	}
}

func eventNamespace(obj kinds.Object) string {
	if ns := obj.GetNamespace(); ns != "" {
		return ns
	}
	return metav1.NamespaceDefault
}
