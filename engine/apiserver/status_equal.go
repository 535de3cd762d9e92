package apiserver

import (
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Typed status comparisons.
//
// statusEqual decides whether a status write is a no-op. Done with
// equality.Semantic.DeepEqual, each status write boxed two copies of the
// status (a few hundred bytes each) and walked them by reflection. Pod,
// ReplicaSet and Deployment status writes are most of the writes of a
// large rollout, and Node status writes follow every image pull, so for
// them the comparison is written out here, field by field, with the rules
// of Semantic.DeepEqual:
//
//   - nil and empty slices and maps are equal (Semantic.DeepEqual treats
//     them alike); elements are compared in order;
//   - pointers are equal when both are nil or both point to equal values;
//   - metav1.Time values are equal when a.UTC() == b.UTC() (Semantic's own
//     rule: the same instant, whatever the zone), quantities when
//     a.Cmp(b) == 0 (the same amount, whatever the format);
//   - everything else is compared with ==.
//
// Fields that kubeloop never sets (resize and DRA status, volume mounts,
// ...) are compared with Semantic.DeepEqual itself, which costs nothing when
// they are empty. status_equal_test.go checks these functions against
// Semantic.DeepEqual on many statuses, and that every field of each type
// is covered: a new field in k8s.io/api makes it fail until it is added.
//
// Equal, for a whole object, has the same treatment for the Lease: the
// kubelets renew their node's Lease every ten seconds, the steady load of
// a cluster that has settled.

// semanticEqual compares rarely set fields the slow way.
func semanticEqual(a, b any) bool { return equality.Semantic.DeepEqual(a, b) }

func timeEqual(a, b *metav1.Time) bool { return a.UTC() == b.UTC() }

func microTimePtrEqual(a, b *metav1.MicroTime) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.UTC() == b.UTC()
}

func timePtrEqual(a, b *metav1.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return timeEqual(a, b)
}

func ptrEqual[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// slicesEqual is Semantic.DeepEqual's rule for slices, with eq for the
// elements.
func slicesEqual[T any](a, b []T, eq func(a, b *T) bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !eq(&a[i], &b[i]) {
			return false
		}
	}
	return true
}

// typedStatusEqual compares the statuses of old and upd, two versions of
// the same object, for the kinds with a typed comparison; ok is false for
// the others.
func typedStatusEqual(old, upd any) (equal, ok bool) {
	switch a := old.(type) {
	case *corev1.Pod:
		return podStatusEqual(&a.Status, &upd.(*corev1.Pod).Status), true
	case *appsv1.ReplicaSet:
		return replicaSetStatusEqual(&a.Status, &upd.(*appsv1.ReplicaSet).Status), true
	case *corev1.Node:
		return nodeStatusEqual(&a.Status, &upd.(*corev1.Node).Status), true
	case *appsv1.Deployment:
		b := upd.(*appsv1.Deployment)
		// A Deployment's status write also carries its annotations
		// (withStatusOnly). maps.Equal treats nil and empty alike, as
		// Semantic.DeepEqual does.
		return deploymentStatusEqual(&a.Status, &b.Status) && maps.Equal(a.Annotations, b.Annotations), true
	}
	return false, false
}

func deploymentStatusEqual(a, b *appsv1.DeploymentStatus) bool {
	return a.ObservedGeneration == b.ObservedGeneration && a.Replicas == b.Replicas &&
		a.UpdatedReplicas == b.UpdatedReplicas && a.ReadyReplicas == b.ReadyReplicas &&
		a.AvailableReplicas == b.AvailableReplicas && a.UnavailableReplicas == b.UnavailableReplicas &&
		ptrEqual(a.TerminatingReplicas, b.TerminatingReplicas) && ptrEqual(a.CollisionCount, b.CollisionCount) &&
		slicesEqual(a.Conditions, b.Conditions, func(a, b *appsv1.DeploymentCondition) bool {
			return a.Type == b.Type && a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message &&
				timeEqual(&a.LastUpdateTime, &b.LastUpdateTime) && timeEqual(&a.LastTransitionTime, &b.LastTransitionTime)
		})
}

func replicaSetStatusEqual(a, b *appsv1.ReplicaSetStatus) bool {
	return a.Replicas == b.Replicas && a.FullyLabeledReplicas == b.FullyLabeledReplicas &&
		a.ReadyReplicas == b.ReadyReplicas && a.AvailableReplicas == b.AvailableReplicas &&
		ptrEqual(a.TerminatingReplicas, b.TerminatingReplicas) && a.ObservedGeneration == b.ObservedGeneration &&
		slicesEqual(a.Conditions, b.Conditions, func(a, b *appsv1.ReplicaSetCondition) bool {
			return a.Type == b.Type && a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message &&
				timeEqual(&a.LastTransitionTime, &b.LastTransitionTime)
		})
}

func podStatusEqual(a, b *corev1.PodStatus) bool {
	return a.ObservedGeneration == b.ObservedGeneration && a.Phase == b.Phase && a.Message == b.Message &&
		a.Reason == b.Reason && a.NominatedNodeName == b.NominatedNodeName && a.HostIP == b.HostIP &&
		a.PodIP == b.PodIP && a.QOSClass == b.QOSClass && a.Resize == b.Resize &&
		slices.Equal(a.HostIPs, b.HostIPs) && slices.Equal(a.PodIPs, b.PodIPs) &&
		timePtrEqual(a.StartTime, b.StartTime) &&
		slicesEqual(a.Conditions, b.Conditions, podConditionEqual) &&
		slicesEqual(a.InitContainerStatuses, b.InitContainerStatuses, containerStatusEqual) &&
		slicesEqual(a.ContainerStatuses, b.ContainerStatuses, containerStatusEqual) &&
		slicesEqual(a.EphemeralContainerStatuses, b.EphemeralContainerStatuses, containerStatusEqual) &&
		(len(a.ResourceClaimStatuses)+len(b.ResourceClaimStatuses) == 0 || semanticEqual(a.ResourceClaimStatuses, b.ResourceClaimStatuses)) &&
		(a.ExtendedResourceClaimStatus == nil && b.ExtendedResourceClaimStatus == nil ||
			semanticEqual(a.ExtendedResourceClaimStatus, b.ExtendedResourceClaimStatus))
}

func podConditionEqual(a, b *corev1.PodCondition) bool {
	return a.Type == b.Type && a.ObservedGeneration == b.ObservedGeneration && a.Status == b.Status &&
		a.Reason == b.Reason && a.Message == b.Message &&
		timeEqual(&a.LastProbeTime, &b.LastProbeTime) && timeEqual(&a.LastTransitionTime, &b.LastTransitionTime)
}

func containerStatusEqual(a, b *corev1.ContainerStatus) bool {
	return a.Name == b.Name && a.Ready == b.Ready && a.RestartCount == b.RestartCount && a.Image == b.Image &&
		a.ImageID == b.ImageID && a.ContainerID == b.ContainerID && ptrEqual(a.Started, b.Started) &&
		ptrEqual(a.StopSignal, b.StopSignal) &&
		containerStateEqual(&a.State, &b.State) && containerStateEqual(&a.LastTerminationState, &b.LastTerminationState) &&
		(len(a.AllocatedResources)+len(b.AllocatedResources) == 0 || semanticEqual(a.AllocatedResources, b.AllocatedResources)) &&
		(a.Resources == nil && b.Resources == nil || semanticEqual(a.Resources, b.Resources)) &&
		(len(a.VolumeMounts)+len(b.VolumeMounts) == 0 || semanticEqual(a.VolumeMounts, b.VolumeMounts)) &&
		(a.User == nil && b.User == nil || semanticEqual(a.User, b.User)) &&
		(len(a.AllocatedResourcesStatus)+len(b.AllocatedResourcesStatus) == 0 ||
			semanticEqual(a.AllocatedResourcesStatus, b.AllocatedResourcesStatus))
}

func containerStateEqual(a, b *corev1.ContainerState) bool {
	if (a.Waiting == nil) != (b.Waiting == nil) || (a.Running == nil) != (b.Running == nil) ||
		(a.Terminated == nil) != (b.Terminated == nil) {
		return false
	}
	if a.Waiting != nil && *a.Waiting != *b.Waiting { // two strings
		return false
	}
	if a.Running != nil && !timeEqual(&a.Running.StartedAt, &b.Running.StartedAt) {
		return false
	}
	if t, u := a.Terminated, b.Terminated; t != nil {
		return t.ExitCode == u.ExitCode && t.Signal == u.Signal && t.Reason == u.Reason && t.Message == u.Message &&
			t.ContainerID == u.ContainerID && timeEqual(&t.StartedAt, &u.StartedAt) && timeEqual(&t.FinishedAt, &u.FinishedAt)
	}
	return true
}

// resourceListEqual is Semantic.DeepEqual's rule for maps, with its rule
// for quantities.
func resourceListEqual(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for name, q := range a {
		r, ok := b[name]
		if !ok || q.Cmp(r) != 0 {
			return false
		}
	}
	return true
}

func nodeStatusEqual(a, b *corev1.NodeStatus) bool {
	return a.Phase == b.Phase && a.DaemonEndpoints == b.DaemonEndpoints &&
		resourceListEqual(a.Capacity, b.Capacity) && resourceListEqual(a.Allocatable, b.Allocatable) &&
		slicesEqual(a.Conditions, b.Conditions, func(a, b *corev1.NodeCondition) bool {
			return a.Type == b.Type && a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message &&
				timeEqual(&a.LastHeartbeatTime, &b.LastHeartbeatTime) && timeEqual(&a.LastTransitionTime, &b.LastTransitionTime)
		}) &&
		slices.Equal(a.Addresses, b.Addresses) &&
		nodeSystemInfoEqual(&a.NodeInfo, &b.NodeInfo) &&
		slicesEqual(a.Images, b.Images, func(a, b *corev1.ContainerImage) bool {
			return a.SizeBytes == b.SizeBytes && slices.Equal(a.Names, b.Names)
		}) &&
		slices.Equal(a.VolumesInUse, b.VolumesInUse) && slices.Equal(a.VolumesAttached, b.VolumesAttached) &&
		(a.Config == nil && b.Config == nil || semanticEqual(a.Config, b.Config)) &&
		(len(a.RuntimeHandlers)+len(b.RuntimeHandlers) == 0 || semanticEqual(a.RuntimeHandlers, b.RuntimeHandlers)) &&
		(a.Features == nil && b.Features == nil || semanticEqual(a.Features, b.Features))
}

func nodeSystemInfoEqual(a, b *corev1.NodeSystemInfo) bool {
	return a.MachineID == b.MachineID && a.SystemUUID == b.SystemUUID && a.BootID == b.BootID &&
		a.KernelVersion == b.KernelVersion && a.OSImage == b.OSImage &&
		a.ContainerRuntimeVersion == b.ContainerRuntimeVersion && a.KubeletVersion == b.KubeletVersion &&
		a.KubeProxyVersion == b.KubeProxyVersion && a.OperatingSystem == b.OperatingSystem &&
		a.Architecture == b.Architecture &&
		(a.Swap == nil && b.Swap == nil || semanticEqual(a.Swap, b.Swap))
}

// leaseEqual is Equal for two Leases: everything but resourceVersion.
func leaseEqual(a, b *coordinationv1.Lease) bool {
	x, y := &a.Spec, &b.Spec
	return a.TypeMeta == b.TypeMeta && objectMetaEqual(&a.ObjectMeta, &b.ObjectMeta) &&
		ptrEqual(x.HolderIdentity, y.HolderIdentity) && ptrEqual(x.LeaseDurationSeconds, y.LeaseDurationSeconds) &&
		microTimePtrEqual(x.AcquireTime, y.AcquireTime) && microTimePtrEqual(x.RenewTime, y.RenewTime) &&
		ptrEqual(x.LeaseTransitions, y.LeaseTransitions) && ptrEqual(x.Strategy, y.Strategy) &&
		ptrEqual(x.PreferredHolder, y.PreferredHolder)
}

// objectMetaEqual compares metadata but for resourceVersion.
func objectMetaEqual(a, b *metav1.ObjectMeta) bool {
	return a.Name == b.Name && a.GenerateName == b.GenerateName && a.Namespace == b.Namespace &&
		a.SelfLink == b.SelfLink && a.UID == b.UID && a.Generation == b.Generation &&
		timeEqual(&a.CreationTimestamp, &b.CreationTimestamp) && timePtrEqual(a.DeletionTimestamp, b.DeletionTimestamp) &&
		ptrEqual(a.DeletionGracePeriodSeconds, b.DeletionGracePeriodSeconds) &&
		maps.Equal(a.Labels, b.Labels) && maps.Equal(a.Annotations, b.Annotations) &&
		slicesEqual(a.OwnerReferences, b.OwnerReferences, func(a, b *metav1.OwnerReference) bool {
			return a.APIVersion == b.APIVersion && a.Kind == b.Kind && a.Name == b.Name && a.UID == b.UID &&
				ptrEqual(a.Controller, b.Controller) && ptrEqual(a.BlockOwnerDeletion, b.BlockOwnerDeletion)
		}) &&
		slices.Equal(a.Finalizers, b.Finalizers) &&
		(len(a.ManagedFields)+len(b.ManagedFields) == 0 || semanticEqual(a.ManagedFields, b.ManagedFields))
}
