package framework

import (
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Defaults the scheduler assumes, for scoring only, for a container that
// requests no cpu or no memory (k/k pkg/scheduler/util/pod_resources.go):
// without them, pods without requests would all land on one node.
const (
	DefaultMilliCPURequest int64 = 100               // 0.1 core
	DefaultMemoryRequest   int64 = 200 * 1024 * 1024 // 200 MiB
)

// ScalarResource is an amount of an extended resource (nvidia.com/gpu) or of
// huge pages.
type ScalarResource struct {
	Name  corev1.ResourceName
	Value int64
}

// Resource is an amount of compute resources, in the units the scheduler
// compares: millicores, bytes, a pod count. Scalar resources are kept sorted
// by name so that iterating them never depends on map order.
type Resource struct {
	MilliCPU         int64
	Memory           int64
	EphemeralStorage int64
	AllowedPodNumber int
	Scalar           []ScalarResource
}

// IsZero reports whether no resource is requested.
func (r *Resource) IsZero() bool {
	return r.MilliCPU == 0 && r.Memory == 0 && r.EphemeralStorage == 0 && len(r.Scalar) == 0
}

// ScalarValue is the amount of a scalar resource (0 if absent).
func (r *Resource) ScalarValue(name corev1.ResourceName) int64 {
	for _, s := range r.Scalar {
		if s.Name == name {
			return s.Value
		}
	}
	return 0
}

func (r *Resource) setScalar(name corev1.ResourceName, v int64) {
	i := sort.Search(len(r.Scalar), func(i int) bool { return r.Scalar[i].Name >= name })
	if i < len(r.Scalar) && r.Scalar[i].Name == name {
		r.Scalar[i].Value = v
		return
	}
	r.Scalar = append(r.Scalar, ScalarResource{})
	copy(r.Scalar[i+1:], r.Scalar[i:])
	r.Scalar[i] = ScalarResource{Name: name, Value: v}
}

// Add adds o to r (pod counts included).
func (r *Resource) Add(o *Resource) { r.addSigned(o, 1) }

// Sub subtracts o from r.
func (r *Resource) Sub(o *Resource) { r.addSigned(o, -1) }

func (r *Resource) addSigned(o *Resource, sign int64) {
	r.MilliCPU += sign * o.MilliCPU
	r.Memory += sign * o.Memory
	r.EphemeralStorage += sign * o.EphemeralStorage
	r.AllowedPodNumber += int(sign) * o.AllowedPodNumber
	for _, s := range o.Scalar {
		r.setScalar(s.Name, r.ScalarValue(s.Name)+sign*s.Value)
	}
}

// setMax raises every resource of r to at least o's.
func (r *Resource) setMax(o *Resource) {
	r.MilliCPU = max(r.MilliCPU, o.MilliCPU)
	r.Memory = max(r.Memory, o.Memory)
	r.EphemeralStorage = max(r.EphemeralStorage, o.EphemeralStorage)
	for _, s := range o.Scalar {
		r.setScalar(s.Name, max(r.ScalarValue(s.Name), s.Value))
	}
}

// ResourceFromList converts a ResourceList (node allocatable, a container's
// requests) to a Resource.
func ResourceFromList(rl corev1.ResourceList) Resource {
	var r Resource
	r.addList(rl)
	return r
}

func (r *Resource) addList(rl corev1.ResourceList) {
	for name, q := range rl {
		switch name {
		case corev1.ResourceCPU:
			r.MilliCPU += q.MilliValue()
		case corev1.ResourceMemory:
			r.Memory += q.Value()
		case corev1.ResourceEphemeralStorage:
			r.EphemeralStorage += q.Value()
		case corev1.ResourcePods:
			r.AllowedPodNumber += int(q.Value())
		default:
			if IsScalarResourceName(name) {
				r.setScalar(name, r.ScalarValue(name)+q.Value())
			}
		}
	}
}

// IsScalarResourceName reports whether name is an extended resource
// (example.com/foo), huge pages (hugepages-2Mi) or an attachable-volumes
// count: the resources NodeResourcesFit checks besides cpu, memory and
// ephemeral-storage.
func IsScalarResourceName(name corev1.ResourceName) bool {
	s := string(name)
	if strings.HasPrefix(s, corev1.ResourceHugePagesPrefix) || strings.HasPrefix(s, corev1.ResourceAttachableVolumesPrefix) {
		return true
	}
	// Extended resources: a domain-qualified name outside kubernetes.io.
	return strings.Contains(s, "/") && !strings.Contains(s, "kubernetes.io/") &&
		!strings.HasPrefix(s, corev1.DefaultResourceRequestsPrefix)
}

// PodRequests computes what a pod requests, as resourcehelper.PodRequests
// does: the sum over app containers and sidecars (init containers with
// restartPolicy Always), raised to the largest need while an init container
// runs (that init container plus the sidecars started before it), plus the
// pod overhead. withDefaults substitutes 100m cpu and 200Mi memory for each
// container that does not request them: the "non-zero" request scoring uses.
func PodRequests(pod *corev1.Pod, withDefaults bool) Resource {
	var sum Resource
	for i := range pod.Spec.Containers {
		c := containerRequests(pod.Spec.Containers[i].Resources.Requests, withDefaults)
		sum.Add(&c)
	}
	var sidecars, initMax Resource
	for i := range pod.Spec.InitContainers {
		ic := &pod.Spec.InitContainers[i]
		c := containerRequests(ic.Resources.Requests, withDefaults)
		if ic.RestartPolicy != nil && *ic.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sum.Add(&c)
			sidecars.Add(&c)
			initMax.setMax(&sidecars)
			continue
		}
		c.Add(&sidecars) // while it runs, the sidecars before it run too
		initMax.setMax(&c)
	}
	sum.setMax(&initMax)
	if pod.Spec.Overhead != nil {
		o := ResourceFromList(pod.Spec.Overhead)
		o.AllowedPodNumber = 0
		sum.Add(&o)
	}
	return sum
}

// sameRequestSources reports whether two versions of a pod share every
// field PodRequests reads (keep the two in step): the same containers and
// init containers (the same backing arrays, not equal copies: objects from
// the store are never changed in place) and no overhead. PodRequests
// would then give b what it gave a.
func sameRequestSources(a, b *corev1.Pod) bool {
	return sameArray(a.Spec.Containers, b.Spec.Containers) && sameArray(a.Spec.InitContainers, b.Spec.InitContainers) &&
		a.Spec.Overhead == nil && b.Spec.Overhead == nil
}

// sameArray reports whether x and y are the same elements of the same
// backing array.
func sameArray[T any](x, y []T) bool {
	return len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
}

func containerRequests(rl corev1.ResourceList, withDefaults bool) Resource {
	var r Resource
	r.addList(rl)
	r.AllowedPodNumber = 0
	if withDefaults {
		if _, ok := rl[corev1.ResourceCPU]; !ok {
			r.MilliCPU += DefaultMilliCPURequest
		}
		if _, ok := rl[corev1.ResourceMemory]; !ok {
			r.Memory += DefaultMemoryRequest
		}
	}
	return r
}
