// Package kinds is kubeloop's registry of the API kinds it serves: for each,
// its apiVersion, resource name, short names, scope, and where etcd keeps it
// (the same key layout as kube-apiserver). It is the one place that knows the
// mapping between what a learner types (`deploy`, `po`), what a manifest says
// (`apps/v1`, `Deployment`) and what the store holds.
package kinds

import (
	"maps"
	"reflect"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Object is what the store holds: a typed Kubernetes object from k8s.io/api
// (*corev1.Pod, *appsv1.Deployment, ...). Objects read from the store are
// shared and read-only: copy (DeepCopyObject) before changing one.
type Object interface {
	metav1.Object
	runtime.Object
}

// Kind describes one served kind.
type Kind struct {
	Kind       string   // "Deployment"
	Group      string   // "apps"; "" for the core group
	Version    string   // "v1"
	Resource   string   // "deployments": the plural, as URLs and errors name it
	Singular   string   // "deployment"
	ShortNames []string // "deploy"
	Namespaced bool
	// EtcdPrefix is where kube-apiserver keeps this resource in etcd. Most are
	// /registry/<resource>; a few keep historic names (nodes are "minions").
	EtcdPrefix string
	// New returns an empty object of this kind with TypeMeta set.
	New func() Object
	// ID numbers the served kinds from 1, in the order they are declared,
	// so that a table by kind is a slice, not a map: the store finds a
	// kind's bucket at every read and write. 0 for a Kind made elsewhere
	// (a test's), which such tables keep aside.
	ID int
}

// APIVersion is the manifest's apiVersion: "apps/v1", or "v1" for core.
func (k *Kind) APIVersion() string {
	if k.Group == "" {
		return k.Version
	}
	return k.Group + "/" + k.Version
}

// GroupResource names the resource in API errors: "pods", "deployments.apps".
func (k *Kind) GroupResource() schema.GroupResource {
	return schema.GroupResource{Group: k.Group, Resource: k.Resource}
}

// GroupVersionKind is the kind's full type.
func (k *Kind) GroupVersionKind() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}
}

// Key is the etcd key of an object of this kind: /registry/pods/default/web-1.
func (k *Kind) Key(namespace, name string) string {
	if !k.Namespaced {
		return k.EtcdPrefix + "/" + name
	}
	return k.EtcdPrefix + "/" + namespace + "/" + name
}

// KindRef is how the trace and kubectl name an object's kind in lower case:
// "pod", "deployment" (as in `pod/web-1`, `deployment.apps/api`).
func (k *Kind) KindRef() string { return k.Singular }

// AppendKey appends Key(namespace, name) to dst: the store builds lookup
// keys in a scratch buffer, so that reading an object allocates nothing.
func (k *Kind) AppendKey(dst []byte, namespace, name string) []byte {
	dst = append(append(dst, k.EtcdPrefix...), '/')
	if k.Namespaced {
		dst = append(append(dst, namespace...), '/')
	}
	return append(dst, name...)
}

// served counts the kinds newKind made: the last one's ID.
var served int

func newKind[T any, PT interface {
	*T
	Object
}](group, version, kind, resource, singular, prefix string, namespaced bool, short ...string) *Kind {
	served++
	k := &Kind{Kind: kind, Group: group, Version: version, Resource: resource, Singular: singular,
		ShortNames: short, Namespaced: namespaced, EtcdPrefix: prefix, ID: served}
	gvk := k.GroupVersionKind()
	k.New = func() Object {
		var o PT = new(T)
		o.GetObjectKind().SetGroupVersionKind(gvk)
		return o
	}
	return k
}

// The served kinds. Later kinds are added here, and only here.
var (
	Namespace     = newKind[corev1.Namespace]("", "v1", "Namespace", "namespaces", "namespace", "/registry/namespaces", false, "ns")
	Node          = newKind[corev1.Node]("", "v1", "Node", "nodes", "node", "/registry/minions", false, "no")
	Pod           = newKind[corev1.Pod]("", "v1", "Pod", "pods", "pod", "/registry/pods", true, "po")
	Service       = newKind[corev1.Service]("", "v1", "Service", "services", "service", "/registry/services/specs", true, "svc")
	Event         = newKind[corev1.Event]("", "v1", "Event", "events", "event", "/registry/events", true, "ev")
	Deployment    = newKind[appsv1.Deployment]("apps", "v1", "Deployment", "deployments", "deployment", "/registry/deployments", true, "deploy")
	ReplicaSet    = newKind[appsv1.ReplicaSet]("apps", "v1", "ReplicaSet", "replicasets", "replicaset", "/registry/replicasets", true, "rs")
	EndpointSlice = newKind[discoveryv1.EndpointSlice]("discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", "endpointslice", "/registry/endpointslices", true)
	Lease         = newKind[coordinationv1.Lease]("coordination.k8s.io", "v1", "Lease", "leases", "lease", "/registry/leases", true)
	HPA           = newKind[autoscalingv2.HorizontalPodAutoscaler]("autoscaling", "v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers", "horizontalpodautoscaler", "/registry/horizontalpodautoscalers", true, "hpa")
	PDB           = newKind[policyv1.PodDisruptionBudget]("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", "poddisruptionbudget", "/registry/poddisruptionbudgets", true, "pdb")
	PriorityClass = newKind[schedulingv1.PriorityClass]("scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", "priorityclass", "/registry/priorityclasses", false, "pc")
)

// All lists every served kind in a fixed order (the order `get all` and
// `api-resources` use).
var All = []*Kind{Namespace, Node, Pod, Service, Event, Deployment, ReplicaSet, EndpointSlice, Lease, HPA, PDB, PriorityClass}

var byName = func() map[string]*Kind {
	m := map[string]*Kind{}
	for _, k := range All {
		names := append([]string{strings.ToLower(k.Kind), k.Resource, k.Singular,
			k.Resource + "." + k.Group, k.Singular + "." + k.Group}, k.ShortNames...)
		for _, n := range names {
			m[n] = k
		}
	}
	return m
}()

// Lookup finds a kind by any name kubectl accepts: plural, singular, short
// name, Kind (any case), or with its group ("deployments.apps").
func Lookup(name string) (*Kind, bool) {
	k, ok := byName[strings.ToLower(name)]
	return k, ok
}

// ForGVK finds the kind a manifest's apiVersion and kind name.
func ForGVK(apiVersion, kind string) (*Kind, bool) {
	for _, k := range All {
		if k.Kind == kind && k.APIVersion() == apiVersion {
			return k, true
		}
	}
	return nil, false
}

// ForKindName finds a kind by its Kind alone, whatever the version; used to
// tell a learner "Deployment is apps/v1, not extensions/v1beta1".
func ForKindName(kind string) (*Kind, bool) {
	for _, k := range All {
		if k.Kind == kind {
			return k, true
		}
	}
	return nil, false
}

// Of returns the kind of a typed object.
func Of(obj Object) *Kind {
	switch obj.(type) {
	case *corev1.Namespace:
		return Namespace
	case *corev1.Node:
		return Node
	case *corev1.Pod:
		return Pod
	case *corev1.Service:
		return Service
	case *corev1.Event:
		return Event
	case *appsv1.Deployment:
		return Deployment
	case *appsv1.ReplicaSet:
		return ReplicaSet
	case *discoveryv1.EndpointSlice:
		return EndpointSlice
	case *coordinationv1.Lease:
		return Lease
	case *autoscalingv2.HorizontalPodAutoscaler:
		return HPA
	case *policyv1.PodDisruptionBudget:
		return PDB
	case *schedulingv1.PriorityClass:
		return PriorityClass
	}
	panic("kinds: unregistered object type")
}

// Names lists every accepted kind name, sorted, for tab completion.
func Names() []string {
	out := make([]string, 0, len(byName))
	for n := range byName {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Ref names an object the way kubectl and the trace do: "pod/web-1".
func Ref(obj Object) string { return Of(obj).Singular + "/" + obj.GetName() }

// KeyOf is the etcd key of obj.
func KeyOf(obj Object) string { return Of(obj).Key(obj.GetNamespace(), obj.GetName()) }

// SameLabels reports whether two label (or annotation) maps are equal as
// equality.Semantic.DeepEqual has them (nil and empty alike). Versions of
// an object that only its status told apart share their maps: those are
// told equal by identity, without reading a map that has gone cold since
// the version before was written (the scheduler and the ReplicaSet,
// disruption and EndpointSlice controllers compare them at every pod
// status write).
func SameLabels(a, b map[string]string) bool {
	return reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer() || maps.Equal(a, b)
}
