package st

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// PodWrapper builds a pod.
type PodWrapper struct{ corev1.Pod }

// MakePod starts a pod in namespace default with one container "c" running
// image "nginx:1.27".
func MakePod() *PodWrapper {
	return &PodWrapper{corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx:1.27"}}},
	}}
}

// Obj returns the pod.
func (p *PodWrapper) Obj() *corev1.Pod { return &p.Pod }

// Name sets the name (and a UID derived from it, for tests that never go
// through the API server).
func (p *PodWrapper) Name(n string) *PodWrapper {
	p.Pod.Name = n
	p.UID = types.UID("uid-" + n)
	return p
}

// Namespace sets the namespace.
func (p *PodWrapper) Namespace(ns string) *PodWrapper { p.Pod.Namespace = ns; return p }

// Node binds the pod to a node.
func (p *PodWrapper) Node(n string) *PodWrapper { p.Spec.NodeName = n; return p }

// Priority sets spec.priority.
func (p *PodWrapper) Priority(v int32) *PodWrapper { p.Spec.Priority = &v; return p }

// Label adds a label.
func (p *PodWrapper) Label(k, v string) *PodWrapper {
	if p.Labels == nil {
		p.Labels = map[string]string{}
	}
	p.Labels[k] = v
	return p
}

// Image sets the first container's image.
func (p *PodWrapper) Image(img string) *PodWrapper { p.Spec.Containers[0].Image = img; return p }

// Req sets the first container's cpu and memory requests ("" leaves one
// unset).
func (p *PodWrapper) Req(cpu, mem string) *PodWrapper {
	p.Spec.Containers[0].Resources.Requests = list(cpu, mem)
	return p
}

// Container adds a container with the given requests.
func (p *PodWrapper) Container(image, cpu, mem string) *PodWrapper {
	p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "c" + strconv.Itoa(len(p.Spec.Containers)),
		Image: image, Resources: corev1.ResourceRequirements{Requests: list(cpu, mem)}})
	return p
}

// InitReq adds an init container with the given requests; sidecar makes it
// a sidecar (restartPolicy Always).
func (p *PodWrapper) InitReq(cpu, mem string, sidecar bool) *PodWrapper {
	c := corev1.Container{Name: "init" + strconv.Itoa(len(p.Spec.InitContainers)), Image: "busybox:1.36",
		Resources: corev1.ResourceRequirements{Requests: list(cpu, mem)}}
	if sidecar {
		always := corev1.ContainerRestartPolicyAlways
		c.RestartPolicy = &always
	}
	p.Spec.InitContainers = append(p.Spec.InitContainers, c)
	return p
}

// Overhead sets spec.overhead.
func (p *PodWrapper) Overhead(cpu, mem string) *PodWrapper {
	p.Spec.Overhead = list(cpu, mem)
	return p
}

// NodeSelector adds a nodeSelector entry.
func (p *PodWrapper) NodeSelector(k, v string) *PodWrapper {
	if p.Spec.NodeSelector == nil {
		p.Spec.NodeSelector = map[string]string{}
	}
	p.Spec.NodeSelector[k] = v
	return p
}

// Toleration adds a toleration.
func (p *PodWrapper) Toleration(key string, op corev1.TolerationOperator, value string, effect corev1.TaintEffect) *PodWrapper {
	p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: key, Operator: op, Value: value, Effect: effect})
	return p
}

// RequiredNodeAffinity adds a required node selector term with one
// expression.
func (p *PodWrapper) RequiredNodeAffinity(key string, op corev1.NodeSelectorOperator, values ...string) *PodWrapper {
	na := p.nodeAffinity()
	if na.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		na.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{}
	}
	na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms = append(
		na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms,
		corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}}})
	return p
}

// PreferredNodeAffinity adds a preferred term with one expression.
func (p *PodWrapper) PreferredNodeAffinity(weight int32, key string, op corev1.NodeSelectorOperator, values ...string) *PodWrapper {
	na := p.nodeAffinity()
	na.PreferredDuringSchedulingIgnoredDuringExecution = append(na.PreferredDuringSchedulingIgnoredDuringExecution,
		corev1.PreferredSchedulingTerm{Weight: weight, Preference: corev1.NodeSelectorTerm{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}}}})
	return p
}

func (p *PodWrapper) nodeAffinity() *corev1.NodeAffinity {
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &corev1.Affinity{}
	}
	if p.Spec.Affinity.NodeAffinity == nil {
		p.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
	}
	return p.Spec.Affinity.NodeAffinity
}

func list(cpu, mem string) corev1.ResourceList {
	rl := corev1.ResourceList{}
	if cpu != "" {
		rl[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if mem != "" {
		rl[corev1.ResourceMemory] = resource.MustParse(mem)
	}
	return rl
}

// NodeWrapper builds a node.
type NodeWrapper struct{ corev1.Node }

// MakeNode starts a node with 4 cpus, 32Gi and 110 pods.
func MakeNode() *NodeWrapper {
	n := &NodeWrapper{corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}}}
	return n.Capacity("4", "32Gi", 110)
}

// Obj returns the node.
func (n *NodeWrapper) Obj() *corev1.Node { return &n.Node }

// Name sets the name and the hostname label.
func (n *NodeWrapper) Name(s string) *NodeWrapper {
	n.Node.Name = s
	return n.Label(corev1.LabelHostname, s)
}

// Label adds a label.
func (n *NodeWrapper) Label(k, v string) *NodeWrapper {
	if n.Labels == nil {
		n.Labels = map[string]string{}
	}
	n.Labels[k] = v
	return n
}

// Capacity sets capacity and allocatable.
func (n *NodeWrapper) Capacity(cpu, mem string, pods int64) *NodeWrapper {
	rl := list(cpu, mem)
	rl[corev1.ResourcePods] = *resource.NewQuantity(pods, resource.DecimalSI)
	n.Status.Capacity = rl
	n.Status.Allocatable = rl.DeepCopy()
	return n
}

// Taint adds a taint.
func (n *NodeWrapper) Taint(key, value string, effect corev1.TaintEffect) *NodeWrapper {
	n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: key, Value: value, Effect: effect})
	return n
}

// Unschedulable cordons the node.
func (n *NodeWrapper) Unschedulable() *NodeWrapper { n.Spec.Unschedulable = true; return n }

// Image reports an image on the node.
func (n *NodeWrapper) Image(name string, size int64) *NodeWrapper {
	n.Status.Images = append(n.Status.Images, corev1.ContainerImage{Names: []string{name}, SizeBytes: size})
	return n
}
