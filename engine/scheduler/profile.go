package scheduler

import (
	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/scheduler/plugins/defaultpreemption"
	"github.com/kubeloop/kubeloop/engine/scheduler/plugins/imagelocality"
	"github.com/kubeloop/kubeloop/engine/scheduler/plugins/interpodaffinity"
	"github.com/kubeloop/kubeloop/engine/scheduler/plugins/nodeaffinity"
	"github.com/kubeloop/kubeloop/engine/scheduler/plugins/nodename"
	"github.com/kubeloop/kubeloop/engine/scheduler/plugins/noderesources"
	"github.com/kubeloop/kubeloop/engine/scheduler/plugins/nodeunschedulable"
	"github.com/kubeloop/kubeloop/engine/scheduler/plugins/podtopologyspread"
	"github.com/kubeloop/kubeloop/engine/scheduler/plugins/queuesort"
	"github.com/kubeloop/kubeloop/engine/scheduler/plugins/schedulinggates"
	"github.com/kubeloop/kubeloop/engine/scheduler/plugins/tainttoleration"
)

// DefaultPlugins is kube-scheduler's default profile (multiPoint, k/k
// pkg/scheduler/apis/config/v1/default_plugins.go), restricted to the
// plugins kubeloop models, in kube's order and with kube's score weights:
// TaintToleration 3, NodeAffinity 2, NodeResourcesFit 1,
// PodTopologySpread 2, InterPodAffinity 2 (hardPodAffinityWeight 1),
// NodeResourcesBalancedAllocation 1, ImageLocality 1. Filters run, and
// scores are listed, in this order; PodTopologySpread uses the system
// default constraints (defaultingType System).
//
// Not modelled (kubeloop has no host ports, volumes or DRA): NodePorts,
// VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone,
// DynamicResources.
func DefaultPlugins() []framework.PluginConfig {
	return []framework.PluginConfig{
		{Plugin: &schedulinggates.SchedulingGates{}},
		{Plugin: &queuesort.PrioritySort{}},
		{Plugin: &nodeunschedulable.NodeUnschedulable{}},
		{Plugin: &nodename.NodeName{}},
		{Plugin: &tainttoleration.TaintToleration{}, Weight: 3},
		{Plugin: &nodeaffinity.NodeAffinity{}, Weight: 2},
		{Plugin: &noderesources.Fit{}, Weight: 1},
		{Plugin: &podtopologyspread.PodTopologySpread{}, Weight: 2},
		{Plugin: &interpodaffinity.InterPodAffinity{HardPodAffinityWeight: interpodaffinity.DefaultHardPodAffinityWeight}, Weight: 2},
		{Plugin: &defaultpreemption.DefaultPreemption{}},
		{Plugin: &noderesources.BalancedAllocation{}, Weight: 1},
		{Plugin: &imagelocality.ImageLocality{}, Weight: 1},
	}
}
