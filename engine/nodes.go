package engine

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/apiserver"
)

// NodeConfig describes a simulated worker node.
type NodeConfig struct {
	Name   string
	CPU    resource.Quantity // capacity; allocatable is the same (no reservations modelled)
	Memory resource.Quantity
	Pods   int64 // kubelet maxPods; 110 by default
	Labels map[string]string
	Taints []corev1.Taint
}

// Defaults of a node added without figures: a modest worker, and the
// kubelet's maxPods default.
var (
	DefaultNodeCPU    = resource.MustParse("4")
	DefaultNodeMemory = resource.MustParse("16Gi")
)

// DefaultNodePods is the kubelet's default maxPods.
const DefaultNodePods = 110

// Zones are the zones the default cluster spreads its nodes over, round robin.
var Zones = []string{"zone-a", "zone-b", "zone-c"}

// DefaultNodes returns the built-in cluster of n workers n1..nN, spread over
// three zones, each with DefaultNodeCPU, DefaultNodeMemory and 110 pods.
func DefaultNodes(n int) []NodeConfig {
	out := make([]NodeConfig, n)
	for i := range out {
		out[i] = NodeConfig{
			Name:   fmt.Sprintf("n%d", i+1),
			Labels: map[string]string{"topology.kubernetes.io/region": "region-1", "topology.kubernetes.io/zone": Zones[i%len(Zones)]},
		}
	}
	return out
}

// DefaultClusterSize is the number of nodes in the built-in cluster.
const DefaultClusterSize = 3

// NodeObject builds the v1 Node a kubelet registers for cfg: capacity and
// allocatable from the config, and the labels every kubelet puts on its own
// node (kubernetes.io/hostname, kubernetes.io/os, kubernetes.io/arch).
func NodeObject(cfg NodeConfig) *corev1.Node {
	cpu, mem, pods := cfg.CPU, cfg.Memory, cfg.Pods
	if cpu.IsZero() {
		cpu = DefaultNodeCPU
	}
	if mem.IsZero() {
		mem = DefaultNodeMemory
	}
	if pods == 0 {
		pods = DefaultNodePods
	}
	labels := map[string]string{}
	keys := make([]string, 0, len(cfg.Labels))
	for k := range cfg.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		labels[k] = cfg.Labels[k]
	}
	labels[corev1.LabelHostname] = cfg.Name
	labels[corev1.LabelOSStable] = "linux"
	labels[corev1.LabelArchStable] = "amd64"
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    cpu,
		corev1.ResourceMemory: mem,
		corev1.ResourcePods:   *resource.NewQuantity(pods, resource.DecimalSI),
	}
	return &corev1.Node{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: cfg.Name, Labels: labels},
		Spec:       corev1.NodeSpec{Taints: append([]corev1.Taint(nil), cfg.Taints...)},
		Status: corev1.NodeStatus{
			Capacity:    capacity,
			Allocatable: capacity.DeepCopy(),
		},
	}
}

// AddNode registers a node as its kubelet would on first start; the engine
// then starts a simulated kubelet for it.
func (e *Engine) AddNode(cfg NodeConfig) error { return e.AddNodeFor(0, cfg) }

// AddNodeFor is AddNode on behalf of a learner's command (`node add`): the
// kubelet's registration is traced back to the trace event cause.
func (e *Engine) AddNodeFor(cause uint64, cfg NodeConfig) error {
	_, err := e.API.Create(apiserver.Actor{Component: "kubelet/" + cfg.Name, Cause: cause}, NodeObject(cfg))
	return err
}
