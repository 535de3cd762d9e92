package apiserver

import (
	"math/rand"
	"reflect"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// TestStatusEqualCoversEveryField fails when k8s.io/api adds a field to a
// type that status_equal.go compares field by field: add the field to the
// comparison, then here.
func TestStatusEqualCoversEveryField(t *testing.T) {
	for typ, want := range map[reflect.Type][]string{
		reflect.TypeFor[corev1.PodStatus](): {"ObservedGeneration", "Phase", "Conditions", "Message", "Reason",
			"NominatedNodeName", "HostIP", "HostIPs", "PodIP", "PodIPs", "StartTime", "InitContainerStatuses",
			"ContainerStatuses", "QOSClass", "EphemeralContainerStatuses", "Resize", "ResourceClaimStatuses",
			"ExtendedResourceClaimStatus"},
		reflect.TypeFor[corev1.PodCondition](): {"Type", "ObservedGeneration", "Status", "LastProbeTime",
			"LastTransitionTime", "Reason", "Message"},
		reflect.TypeFor[corev1.ContainerStatus](): {"Name", "State", "LastTerminationState", "Ready", "RestartCount",
			"Image", "ImageID", "ContainerID", "Started", "AllocatedResources", "Resources", "VolumeMounts", "User",
			"AllocatedResourcesStatus", "StopSignal"},
		reflect.TypeFor[corev1.ContainerState]():           {"Waiting", "Running", "Terminated"},
		reflect.TypeFor[corev1.ContainerStateWaiting]():    {"Reason", "Message"},
		reflect.TypeFor[corev1.ContainerStateRunning]():    {"StartedAt"},
		reflect.TypeFor[corev1.ContainerStateTerminated](): {"ExitCode", "Signal", "Reason", "Message", "StartedAt", "FinishedAt", "ContainerID"},
		reflect.TypeFor[corev1.HostIP]():                   {"IP"},
		reflect.TypeFor[corev1.PodIP]():                    {"IP"},
		reflect.TypeFor[appsv1.DeploymentStatus](): {"ObservedGeneration", "Replicas", "UpdatedReplicas", "ReadyReplicas",
			"AvailableReplicas", "UnavailableReplicas", "TerminatingReplicas", "Conditions", "CollisionCount"},
		reflect.TypeFor[appsv1.DeploymentCondition](): {"Type", "Status", "LastUpdateTime", "LastTransitionTime", "Reason", "Message"},
		reflect.TypeFor[appsv1.ReplicaSetStatus](): {"Replicas", "FullyLabeledReplicas", "ReadyReplicas", "AvailableReplicas",
			"TerminatingReplicas", "ObservedGeneration", "Conditions"},
		reflect.TypeFor[appsv1.ReplicaSetCondition](): {"Type", "Status", "LastTransitionTime", "Reason", "Message"},
		reflect.TypeFor[corev1.NodeStatus](): {"Capacity", "Allocatable", "Phase", "Conditions", "Addresses",
			"DaemonEndpoints", "NodeInfo", "Images", "VolumesInUse", "VolumesAttached", "Config", "RuntimeHandlers", "Features"},
		reflect.TypeFor[corev1.NodeCondition]():       {"Type", "Status", "LastHeartbeatTime", "LastTransitionTime", "Reason", "Message"},
		reflect.TypeFor[corev1.NodeAddress]():         {"Type", "Address"},
		reflect.TypeFor[corev1.NodeDaemonEndpoints](): {"KubeletEndpoint"},
		reflect.TypeFor[corev1.DaemonEndpoint]():      {"Port"},
		reflect.TypeFor[corev1.NodeSystemInfo](): {"MachineID", "SystemUUID", "BootID", "KernelVersion", "OSImage",
			"ContainerRuntimeVersion", "KubeletVersion", "KubeProxyVersion", "OperatingSystem", "Architecture", "Swap"},
		reflect.TypeFor[corev1.ContainerImage](): {"Names", "SizeBytes"},
		reflect.TypeFor[corev1.AttachedVolume](): {"Name", "DevicePath"},
		reflect.TypeFor[coordinationv1.Lease]():  {"TypeMeta", "ObjectMeta", "Spec"},
		reflect.TypeFor[coordinationv1.LeaseSpec](): {"HolderIdentity", "LeaseDurationSeconds", "AcquireTime", "RenewTime",
			"LeaseTransitions", "Strategy", "PreferredHolder"},
		reflect.TypeFor[metav1.TypeMeta](): {"Kind", "APIVersion"},
		reflect.TypeFor[metav1.ObjectMeta](): {"Name", "GenerateName", "Namespace", "SelfLink", "UID", "ResourceVersion",
			"Generation", "CreationTimestamp", "DeletionTimestamp", "DeletionGracePeriodSeconds", "Labels", "Annotations",
			"OwnerReferences", "Finalizers", "ManagedFields"},
		reflect.TypeFor[metav1.OwnerReference](): {"APIVersion", "Kind", "Name", "UID", "Controller", "BlockOwnerDeletion"},
	} {
		var got []string
		for i := range typ.NumField() {
			got = append(got, typ.Field(i).Name)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%v has fields %v; status_equal.go compares %v", typ, got, want)
		}
	}
}

// statusGen fills values of any API type at random from tiny domains, so
// that two independently changed values are often equal, sometimes in a
// different representation (a nil or empty slice, the same instant in
// another zone, 1 and 1000m).
type statusGen struct {
	r     *rand.Rand
	times []metav1.Time
	qs    []resource.Quantity
}

func newStatusGen(seed int64) *statusGen {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return &statusGen{r: rand.New(rand.NewSource(seed)),
		times: []metav1.Time{{}, metav1.NewTime(t0), metav1.NewTime(t0.In(time.FixedZone("x", 3600))), metav1.NewTime(t0.Add(time.Second))},
		qs:    []resource.Quantity{resource.MustParse("1"), resource.MustParse("1000m"), resource.MustParse("2")},
	}
}

func (g *statusGen) fill(v reflect.Value, depth int) {
	switch v.Type() {
	case reflect.TypeFor[metav1.Time]():
		v.Set(reflect.ValueOf(g.times[g.r.Intn(len(g.times))]))
		return
	case reflect.TypeFor[resource.Quantity]():
		v.Set(reflect.ValueOf(g.qs[g.r.Intn(len(g.qs))].DeepCopy()))
		return
	case reflect.TypeFor[metav1.MicroTime]():
		v.Set(reflect.ValueOf(metav1.MicroTime(g.times[g.r.Intn(len(g.times))])))
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				g.fill(v.Field(i), depth+1)
			}
		}
	case reflect.Pointer:
		v.SetZero()
		if depth < 8 && g.r.Intn(2) == 0 {
			v.Set(reflect.New(v.Type().Elem()))
			g.fill(v.Elem(), depth+1)
		}
	case reflect.Slice:
		v.SetZero()
		if n := g.r.Intn(4) - 1; n >= 0 && depth < 8 { // nil, empty, one or two elements
			v.Set(reflect.MakeSlice(v.Type(), n, n))
			for i := range n {
				g.fill(v.Index(i), depth+1)
			}
		}
	case reflect.Map:
		v.SetZero()
		if n := g.r.Intn(4) - 1; n >= 0 && depth < 8 {
			v.Set(reflect.MakeMap(v.Type()))
			for range n {
				k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
				g.fill(k, depth+1)
				g.fill(e, depth+1)
				v.SetMapIndex(k, e)
			}
		}
	case reflect.String:
		v.SetString([]string{"", "a", "b"}[g.r.Intn(3)])
	case reflect.Bool:
		v.SetBool(g.r.Intn(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(g.r.Intn(2)))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(g.r.Intn(2)))
	default:
		panic("statusGen: no rule for " + v.Type().String())
	}
}

// mutate refills, with probability p each, parts of v in place (v must not
// share memory with anything kept).
func (g *statusGen) mutate(v reflect.Value, p float64, depth int) {
	if g.r.Float64() < p {
		g.fill(v, depth)
		return
	}
	switch v.Type() {
	case reflect.TypeFor[metav1.Time](), reflect.TypeFor[metav1.MicroTime](), reflect.TypeFor[resource.Quantity]():
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				g.mutate(v.Field(i), p, depth+1)
			}
		}
	case reflect.Pointer:
		if !v.IsNil() {
			g.mutate(v.Elem(), p, depth+1)
		}
	case reflect.Slice:
		for i := range v.Len() {
			g.mutate(v.Index(i), p, depth+1)
		}
	case reflect.Map:
		// Map elements are not addressable: refill them by replacement.
		for _, k := range v.MapKeys() {
			if g.r.Float64() < 10*p {
				e := reflect.New(v.Type().Elem()).Elem()
				g.fill(e, depth+1)
				v.SetMapIndex(k, e)
			}
		}
	}
}

// TestTypedStatusEqual compares the typed comparisons with
// Semantic.DeepEqual on pairs of random statuses that differ in a few
// places, or in representation only.
func TestTypedStatusEqual(t *testing.T) {
	g := newStatusGen(1)
	type pair struct{ a, b any }
	for _, tc := range []struct {
		name string
		gen  func() pair
	}{
		{"Pod", func() pair {
			a := &corev1.Pod{}
			g.fill(reflect.ValueOf(&a.Status).Elem(), 0)
			b := a.DeepCopy()
			g.mutate(reflect.ValueOf(&b.Status).Elem(), 0.02, 0)
			return pair{a, b}
		}},
		{"ReplicaSet", func() pair {
			a := &appsv1.ReplicaSet{}
			g.fill(reflect.ValueOf(&a.Status).Elem(), 0)
			b := a.DeepCopy()
			g.mutate(reflect.ValueOf(&b.Status).Elem(), 0.1, 0)
			return pair{a, b}
		}},
		{"Node", func() pair {
			a := &corev1.Node{}
			g.fill(reflect.ValueOf(&a.Status).Elem(), 0)
			b := a.DeepCopy()
			g.mutate(reflect.ValueOf(&b.Status).Elem(), 0.02, 0)
			return pair{a, b}
		}},
		{"Deployment", func() pair {
			a := &appsv1.Deployment{}
			g.fill(reflect.ValueOf(&a.Status).Elem(), 0)
			g.fill(reflect.ValueOf(&a.Annotations).Elem(), 0)
			b := a.DeepCopy()
			g.mutate(reflect.ValueOf(&b.Status).Elem(), 0.1, 0)
			if g.r.Intn(4) == 0 {
				g.fill(reflect.ValueOf(&b.Annotations).Elem(), 0)
			}
			return pair{a, b}
		}},
	} {
		equal, unequal := 0, 0
		for range 4000 {
			p := tc.gen()
			want := equality.Semantic.DeepEqual(reflect.ValueOf(p.a).Elem().FieldByName("Status").Interface(),
				reflect.ValueOf(p.b).Elem().FieldByName("Status").Interface())
			if tc.name == "Deployment" {
				want = want && equality.Semantic.DeepEqual(p.a.(*appsv1.Deployment).Annotations, p.b.(*appsv1.Deployment).Annotations)
			}
			got, ok := typedStatusEqual(p.a, p.b)
			if !ok {
				t.Fatalf("%s: no typed comparison", tc.name)
			}
			if got != want {
				t.Fatalf("%s: typed comparison says %v, Semantic.DeepEqual %v:\n%#v\n%#v", tc.name, got, want, p.a, p.b)
			}
			if got {
				equal++
			} else {
				unequal++
			}
		}
		t.Logf("%s: %d equal, %d unequal", tc.name, equal, unequal)
		if equal < 400 || unequal < 400 {
			t.Errorf("%s: %d equal, %d unequal pairs: the inputs must exercise both answers", tc.name, equal, unequal)
		}
	}
}

// TestLeaseEqual compares Equal's written-out comparison of Leases with
// the Semantic.DeepEqual it stands for, on random pairs of Leases that
// differ in a few places, in representation only, or in resourceVersion
// only (which Equal ignores).
func TestLeaseEqual(t *testing.T) {
	g := newStatusGen(2)
	reference := func(a, b kinds.Object) bool { // Equal without its typed case
		rv := b.GetResourceVersion()
		b.SetResourceVersion(a.GetResourceVersion())
		defer b.SetResourceVersion(rv)
		return equality.Semantic.DeepEqual(a, b)
	}
	equal, unequal := 0, 0
	for range 4000 {
		a := &coordinationv1.Lease{}
		g.fill(reflect.ValueOf(a).Elem(), 0)
		b := a.DeepCopy()
		g.mutate(reflect.ValueOf(b).Elem(), 0.015, 0)
		if g.r.Intn(2) == 0 {
			b.ResourceVersion = a.ResourceVersion + "1"
		}
		want := reference(a, b)
		if got := Equal(a, b); got != want {
			t.Fatalf("Equal = %v; Semantic.DeepEqual %v:\n%#v\n%#v", got, want, a, b)
		}
		if want {
			equal++
		} else {
			unequal++
		}
	}
	t.Logf("%d equal, %d unequal", equal, unequal)
	if equal < 400 || unequal < 400 {
		t.Errorf("%d equal, %d unequal pairs: the inputs must exercise both answers", equal, unequal)
	}
}

// TestStructFieldWithoutStatus: the kinds structField knows to have no
// status have none.
func TestStructFieldWithoutStatus(t *testing.T) {
	for _, o := range []kinds.Object{&coordinationv1.Lease{}, &corev1.Event{}, &discoveryv1.EndpointSlice{}, &schedulingv1.PriorityClass{}} {
		if reflect.ValueOf(o).Elem().FieldByName("Status").IsValid() {
			t.Errorf("%T has a Status field", o)
		}
		if _, ok := structField(o, "Status"); ok {
			t.Errorf("structField(%T, Status) found one", o)
		}
	}
}

// A status write changes nothing but the status, and the store may take
// its word for it (Store.UpdateStatusOnly), unless it is a Deployment's
// that brings new annotations; the same annotations in a new map are no
// change (protobuf encodes them the same).
func TestChangesStatusOnly(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Annotations: map[string]string{"a": "1"}}}
	podUpd := pod.DeepCopy()
	podUpd.Annotations = map[string]string{"a": "2"} // a status write ignores it
	podUpd.Status.Phase = corev1.PodRunning
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d", Annotations: map[string]string{"a": "1"}}}
	depSame := dep.DeepCopy()
	depSame.Status.Replicas = 3
	depNew := depSame.DeepCopy()
	depNew.Annotations["deployment.kubernetes.io/revision"] = "2"
	depNone := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d"}}
	depEmpty := depNone.DeepCopy()
	depEmpty.Annotations = map[string]string{}
	for _, tc := range []struct {
		name     string
		old, upd kinds.Object
		want     bool
	}{
		{"pod", pod, podUpd, true},
		{"deployment, same annotations", dep, depSame, true},
		{"deployment, new annotation", dep, depNew, false},
		{"deployment, none and empty", depNone, depEmpty, true},
	} {
		if got := changesStatusOnly(tc.old, withStatusOnly(tc.old, tc.upd)); got != tc.want {
			t.Errorf("changesStatusOnly(%s) = %v; want %v", tc.name, got, tc.want)
		}
	}
}

// TestEqualEvents checks Equal's early answer for Events against the
// reflective comparison it skips: equal but for resourceVersion, or not.
func TestEqualEvents(t *testing.T) {
	base := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "web.1", Namespace: "default", ResourceVersion: "7"},
		Reason: "SuccessfulCreate", Message: "Created pod: web-a", Count: 3}
	for name, change := range map[string]func(*corev1.Event){
		"same":             func(*corev1.Event) {},
		"resourceVersion":  func(e *corev1.Event) { e.ResourceVersion = "8" },
		"count":            func(e *corev1.Event) { e.Count++ },
		"message":          func(e *corev1.Event) { e.Message = "(combined from similar events): " + e.Message },
		"reason":           func(e *corev1.Event) { e.Reason = "FailedCreate" },
		"count and reason": func(e *corev1.Event) { e.Count, e.Reason = 4, "X" },
	} {
		b := base.DeepCopy()
		change(b)
		masked := b.DeepCopy()
		masked.ResourceVersion = base.ResourceVersion
		if got, want := Equal(base, b), equality.Semantic.DeepEqual(base, masked); got != want {
			t.Errorf("%s: Equal = %v; want %v", name, got, want)
		}
	}
}
