package kubelet

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/workload"
)

// Config is the kubelet configuration every simulated node shares, with the
// real kubelet's defaults (k8s-facts §1.5, §1.7, §6) and the simulation's
// timing model.
type Config struct {
	// What the node reports in status.nodeInfo.
	KubeletVersion          string
	ContainerRuntimeVersion string
	OSImage                 string
	KernelVersion           string

	// NodeStatusUpdateFrequency is how often the kubelet computes node
	// status and posts it if it changed (nodeStatusUpdateFrequency, 10 s).
	NodeStatusUpdateFrequency sim.Tick
	// NodeStatusReportFrequency is how often it posts status even when
	// nothing changed (nodeStatusReportFrequency, 5 min).
	NodeStatusReportFrequency sim.Tick
	// NodeLeaseDurationSeconds is the node Lease's duration (40 s); the
	// kubelet renews it every LeaseRenewInterval (0.25 × 40 s = 10 s).
	NodeLeaseDurationSeconds int32
	LeaseRenewInterval       sim.Tick

	// SerializeImagePulls makes a node pull one image at a time, as the
	// kubelet does by default (serializeImagePulls: true).
	SerializeImagePulls bool
	// ImagePullBandwidth is how fast a node downloads and unpacks image
	// layers, in bytes per second.
	ImagePullBandwidth int64
	// RegistryLatency is the fixed cost of a pull: resolving the reference
	// and fetching the manifest. A pull whose layers are all on the node
	// already (imagePullPolicy Always on a cached image) takes only this.
	RegistryLatency sim.Tick
	// ImageBackOffInitial and ImageBackOffMax bound the image pull back-off
	// (10 s doubling to 300 s; reset 600 s after the last failure).
	ImageBackOffInitial sim.Tick
	ImageBackOffMax     sim.Tick

	// SandboxStartTime is how long creating a pod sandbox takes (the pause
	// container and the pod network: CNI assigns the IP).
	SandboxStartTime sim.Tick
	// ContainerCreateTime and ContainerStartTime are the runtime's
	// CreateContainer and StartContainer calls.
	ContainerCreateTime sim.Tick
	ContainerStartTime  sim.Tick
	// RelistPeriod is the pod lifecycle event generator's relist period: a
	// failed sync is looked at again this soon (1 s).
	RelistPeriod sim.Tick
	// SyncErrorBackOff is how soon a pod whose sync failed for another
	// reason (ErrImageNeverPull, InvalidImageName) is synced again (10 s).
	SyncErrorBackOff sim.Tick
	// CrashLoopBackOffInitial and CrashLoopBackOffMax bound the restart
	// back-off of a crashing container (10 s doubling to 300 s), and
	// CrashLoopBackOffReset is how long after the back-off's last update an
	// exit starts it over (600 s: "runs 10 minutes without problems").
	CrashLoopBackOffInitial sim.Tick
	CrashLoopBackOffMax     sim.Tick
	CrashLoopBackOffReset   sim.Tick
	// MinimumGracePeriod is the shortest time the kubelet gives a container
	// between the stop signal and SIGKILL (minimumGracePeriodInSeconds, 2 s).
	MinimumGracePeriod sim.Tick

	// MaxImagesInNodeStatus caps status.images (nodeStatusMaxImages, 50).
	MaxImagesInNodeStatus int
	// PreloadedImages are on every node from the start (the sandbox image).
	PreloadedImages []string
	// DefaultCapacity is what a node reports when its object carries no
	// status.capacity: the machine the simulated kubelet runs on.
	DefaultCapacity corev1.ResourceList
}

// DefaultConfig is the configuration of the built-in cluster.
func DefaultConfig() Config {
	return Config{
		KubeletVersion:          "v1.34.1",
		ContainerRuntimeVersion: "containerd://1.7.27",
		OSImage:                 "Ubuntu 24.04.2 LTS",
		KernelVersion:           "6.8.0-59-generic",

		NodeStatusUpdateFrequency: 10 * sim.Second,
		NodeStatusReportFrequency: 5 * sim.Minute,
		NodeLeaseDurationSeconds:  40,
		LeaseRenewInterval:        10 * sim.Second,

		SerializeImagePulls: true,
		ImagePullBandwidth:  20_000_000,
		RegistryLatency:     400 * sim.Millisecond,
		ImageBackOffInitial: 10 * sim.Second,
		ImageBackOffMax:     300 * sim.Second,

		SandboxStartTime:    500 * sim.Millisecond,
		ContainerCreateTime: 100 * sim.Millisecond,
		ContainerStartTime:  100 * sim.Millisecond,
		RelistPeriod:        1 * sim.Second,
		SyncErrorBackOff:    10 * sim.Second,
		MinimumGracePeriod:  2 * sim.Second,

		CrashLoopBackOffInitial: 10 * sim.Second,
		CrashLoopBackOffMax:     300 * sim.Second,
		CrashLoopBackOffReset:   600 * sim.Second,

		MaxImagesInNodeStatus: 50,
		PreloadedImages:       []string{workload.SandboxImage},
		DefaultCapacity: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("4"),
			corev1.ResourceMemory: resource.MustParse("16Gi"),
			corev1.ResourcePods:   resource.MustParse("110"),
		},
	}
}

// pullTime is how long pulling img takes on a node that has none, some or
// all of its layers.
func (c *Config) pullTime(img *workload.Image, layersPresent bool) sim.Tick {
	if img == nil || layersPresent {
		return c.RegistryLatency
	}
	return c.RegistryLatency + sim.Tick(img.SizeBytes*int64(sim.Second)/c.ImagePullBandwidth)
}
