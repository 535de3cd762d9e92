package apiserver

import (
	"maps"
	"reflect"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// withStatusOnly returns a copy of old carrying upd's status: what a write to
// the /status subresource persists.
//
// The copy is shallow: the new version shares old's metadata maps and
// slices and its whole spec. Store objects are read-only, so versions may
// share what a status write cannot change; this is what keeps etcd's
// history of a pod's status writes (five or so before it is Ready) from
// costing five deep copies of its spec. Only the top-level fields below
// are set on the copy, never anything it shares.
func withStatusOnly(old, upd kinds.Object) kinds.Object {
	out := shallowCopy(old)
	if !copyStatus(out, upd) {
		if src, ok := structField(upd, "Status"); ok {
			dst, _ := structField(out, "Status")
			dst.Set(src)
		}
	}
	if kinds.Of(old) == kinds.Deployment {
		// The Deployment status strategy keeps metadata (all but labels):
		// the deployment controller sets deployment.kubernetes.io/revision
		// through /status, without moving the generation.
		out.SetAnnotations(upd.GetAnnotations())
	}
	out.SetResourceVersion(upd.GetResourceVersion())
	return out
}

// copyStatus sets dst's status to src's, for the kinds whose status
// writes are most of a cluster's writes (as typedStatusEqual compares
// them), where structField would search the struct's fields by name on
// every write; false, having done nothing, for any other kind.
func copyStatus(dst, src kinds.Object) bool {
	switch d := dst.(type) {
	case *corev1.Pod:
		d.Status = src.(*corev1.Pod).Status
	case *appsv1.ReplicaSet:
		d.Status = src.(*appsv1.ReplicaSet).Status
	case *appsv1.Deployment:
		d.Status = src.(*appsv1.Deployment).Status
	case *corev1.Node:
		d.Status = src.(*corev1.Node).Status
	default:
		return false
	}
	return true
}

// changesStatusOnly reports whether upd, made by withStatusOnly from old,
// differs from old in nothing but its status and resourceVersion, so that
// the store may keep the version it supersedes by its status alone
// without comparing (Store.UpdateStatusOnly). Only a Deployment's status
// write carries other metadata: its annotations. Maps with the same
// entries encode the same (protobuf sorts their keys), so maps.Equal is
// the test.
func changesStatusOnly(old, upd kinds.Object) bool {
	return kinds.Of(old) != kinds.Deployment || maps.Equal(old.GetAnnotations(), upd.GetAnnotations())
}

// withoutStatus returns upd with old's status: a PUT to the main resource of
// a kind with a status subresource cannot change status.
func withoutStatus(old, upd kinds.Object) kinds.Object {
	if kinds.Of(old) == kinds.Namespace || kinds.Of(old) == kinds.Node {
		// Namespace and Node status are written by their controllers and
		// kubelets through the same resource in kubeloop's teaching model.
		return upd
	}
	if src, ok := structField(old, "Status"); ok {
		dst, _ := structField(upd, "Status")
		dst.Set(src)
	}
	return upd
}

// generationMoves reports whether an update moves metadata.generation: a
// spec change, and for a Deployment also an annotation change (its
// strategy bumps it because annotations are copied to its ReplicaSets).
func generationMoves(old, upd kinds.Object) bool {
	if !tracksGeneration(kinds.Of(old)) {
		return false
	}
	if kinds.Of(old) == kinds.EndpointSlice {
		// The EndpointSlice strategy bumps on any change of what the slice
		// says: its endpoints, ports, address type or labels.
		a, b := old.(*discoveryv1.EndpointSlice), upd.(*discoveryv1.EndpointSlice)
		return !equality.Semantic.DeepEqual(a.Endpoints, b.Endpoints) || !equality.Semantic.DeepEqual(a.Ports, b.Ports) ||
			a.AddressType != b.AddressType || !equality.Semantic.DeepEqual(a.Labels, b.Labels)
	}
	if specChanged(old, upd) {
		return true
	}
	if kinds.Of(old) == kinds.Deployment {
		return !equality.Semantic.DeepEqual(old.GetAnnotations(), upd.GetAnnotations())
	}
	return false
}

// specChanged reports whether the object's spec differs: what moves
// metadata.generation.
func specChanged(old, upd kinds.Object) bool {
	a, ok := structField(old, "Spec")
	if !ok {
		return false
	}
	b, _ := structField(upd, "Spec")
	return !equality.Semantic.DeepEqual(a.Interface(), b.Interface())
}

// shallowCopy returns a new object of obj's type whose fields are obj's:
// maps, slices and pointers are shared with obj.
func shallowCopy(obj kinds.Object) kinds.Object {
	v := reflect.ValueOf(obj).Elem()
	out := reflect.New(v.Type())
	out.Elem().Set(v)
	return out.Interface().(kinds.Object)
}

// statusEqual is Equal for an update made by withStatusOnly from old: the
// new version shares everything with old except its status (and, for a
// Deployment, its annotations), so comparing those is Equal, at the cost
// of the status alone.
func statusEqual(old, upd kinds.Object) bool {
	if equal, ok := typedStatusEqual(old, upd); ok {
		return equal // Pod, ReplicaSet, Deployment: see status_equal.go
	}
	a, ok := structField(old, "Status")
	if !ok {
		return Equal(old, upd)
	}
	b, _ := structField(upd, "Status")
	if !equality.Semantic.DeepEqual(a.Interface(), b.Interface()) {
		return false
	}
	if kinds.Of(old) == kinds.Deployment {
		return equality.Semantic.DeepEqual(old.GetAnnotations(), upd.GetAnnotations())
	}
	return true
}

// Equal reports whether two versions of an object differ in nothing but
// resourceVersion: a write of such an object is a no-op.
//
// It compares in place: b's resourceVersion is set to a's for the
// comparison and restored after, so that the kubelets' status writes and
// lease renewals (most of the engine's writes) pay for no deep copies.
// a may be a shared object from the store; it is never changed.
func Equal(a, b kinds.Object) bool {
	if x, ok := a.(*coordinationv1.Lease); ok {
		if y, ok := b.(*coordinationv1.Lease); ok {
			return leaseEqual(x, y) // written out: see status_equal.go
		}
	}
	if x, ok := a.(*corev1.Event); ok {
		if y, ok := b.(*corev1.Event); ok && (x.Count != y.Count || x.Message != y.Message) {
			// A recorder's repeat of an Event (most Event updates) moves
			// its count, and an aggregate's its message: compared first,
			// they answer without walking both Events by reflection.
			return false
		}
	}
	rv := b.GetResourceVersion()
	b.SetResourceVersion(a.GetResourceVersion())
	defer b.SetResourceVersion(rv)
	return equality.Semantic.DeepEqual(a, b)
}

// tracksGeneration reports whether the kind's registry strategy maintains
// metadata.generation: 1 on create, +1 on every spec change. Kinds without
// it (Service, Node, Namespace, Lease, Event) leave it unset, as in
// Kubernetes. Pods have it since PodObservedGenerationTracking (beta, on in
// 1.34).
func tracksGeneration(k *kinds.Kind) bool {
	switch k {
	case kinds.Pod, kinds.Deployment, kinds.ReplicaSet, kinds.HPA, kinds.EndpointSlice, kinds.PDB, kinds.PriorityClass:
		return true
	}
	return false
}

func structField(obj kinds.Object, name string) (reflect.Value, bool) {
	switch obj.(type) {
	case *coordinationv1.Lease, *corev1.Event, *discoveryv1.EndpointSlice, *schedulingv1.PriorityClass:
		if name == "Status" {
			// These kinds have no status. FieldByName would find none
			// either, after searching the embedded TypeMeta and ObjectMeta,
			// allocating as it goes (Lease renewals come here).
			return reflect.Value{}, false
		}
	}
	v := reflect.ValueOf(obj).Elem().FieldByName(name)
	return v, v.IsValid()
}
