package printers

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// t0 is the instant test objects are created at; tests print at t0 plus
// some virtual time.
var t0 = time.Date(2025, time.January, 1, 0, 0, 0, 0, time.UTC)

func at(d time.Duration) metav1.Time { return metav1.NewTime(t0.Add(d)) }

// podBuilder builds test pods fluently (kube's scheduler testing wrappers).
type podBuilder struct{ p *corev1.Pod }

func makePod(name string) *podBuilder {
	return &podBuilder{p: &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name),
			CreationTimestamp: at(0), ResourceVersion: "1"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27"}}},
	}}
}

func (b *podBuilder) obj() *corev1.Pod                    { return b.p }
func (b *podBuilder) rv(rv string) *podBuilder            { b.p.ResourceVersion = rv; return b }
func (b *podBuilder) created(d time.Duration) *podBuilder { b.p.CreationTimestamp = at(d); return b }
func (b *podBuilder) node(n string) *podBuilder           { b.p.Spec.NodeName = n; return b }
func (b *podBuilder) phase(ph corev1.PodPhase) *podBuilder {
	b.p.Status.Phase = ph
	return b
}
func (b *podBuilder) ip(ip string) *podBuilder {
	b.p.Status.PodIP = ip
	b.p.Status.PodIPs = []corev1.PodIP{{IP: ip}}
	return b
}
func (b *podBuilder) labels(kv ...string) *podBuilder {
	if b.p.Labels == nil {
		b.p.Labels = map[string]string{}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		b.p.Labels[kv[i]] = kv[i+1]
	}
	return b
}
func (b *podBuilder) containers(names ...string) *podBuilder {
	b.p.Spec.Containers = nil
	for _, n := range names {
		b.p.Spec.Containers = append(b.p.Spec.Containers, corev1.Container{Name: n, Image: "nginx:1.27"})
	}
	return b
}
func (b *podBuilder) initContainer(name string, sidecar bool) *podBuilder {
	c := corev1.Container{Name: name, Image: "busybox:1.36"}
	if sidecar {
		always := corev1.ContainerRestartPolicyAlways
		c.RestartPolicy = &always
	}
	b.p.Spec.InitContainers = append(b.p.Spec.InitContainers, c)
	return b
}
func (b *podBuilder) status(cs ...corev1.ContainerStatus) *podBuilder {
	b.p.Status.ContainerStatuses = cs
	return b
}
func (b *podBuilder) initStatus(cs ...corev1.ContainerStatus) *podBuilder {
	b.p.Status.InitContainerStatuses = cs
	return b
}
func (b *podBuilder) cond(t corev1.PodConditionType, s corev1.ConditionStatus) *podBuilder {
	b.p.Status.Conditions = append(b.p.Status.Conditions, corev1.PodCondition{Type: t, Status: s})
	return b
}
func (b *podBuilder) reason(r string) *podBuilder { b.p.Status.Reason = r; return b }
func (b *podBuilder) deleting(d time.Duration) *podBuilder {
	ts := at(d)
	grace := int64(30)
	b.p.DeletionTimestamp = &ts
	b.p.DeletionGracePeriodSeconds = &grace
	return b
}
func (b *podBuilder) owner(kind, name string) *podBuilder {
	t := true
	b.p.OwnerReferences = append(b.p.OwnerReferences, metav1.OwnerReference{
		APIVersion: "apps/v1", Kind: kind, Name: name, UID: types.UID("uid-" + name), Controller: &t, BlockOwnerDeletion: &t})
	return b
}
func (b *podBuilder) requests(cpu, mem string) *podBuilder {
	c := &b.p.Spec.Containers[0]
	if c.Resources.Requests == nil {
		c.Resources.Requests = corev1.ResourceList{}
	}
	if cpu != "" {
		c.Resources.Requests[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if mem != "" {
		c.Resources.Requests[corev1.ResourceMemory] = resource.MustParse(mem)
	}
	return b
}
func (b *podBuilder) limits(cpu, mem string) *podBuilder {
	c := &b.p.Spec.Containers[0]
	if c.Resources.Limits == nil {
		c.Resources.Limits = corev1.ResourceList{}
	}
	if cpu != "" {
		c.Resources.Limits[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if mem != "" {
		c.Resources.Limits[corev1.ResourceMemory] = resource.MustParse(mem)
	}
	return b
}

// Container states.
func running(name string, ready bool, restarts int32, startedAt time.Duration) corev1.ContainerStatus {
	started := true
	return corev1.ContainerStatus{Name: name, Ready: ready, RestartCount: restarts, Image: "nginx:1.27",
		Started: &started, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: at(startedAt)}}}
}
func waiting(name, reason string, restarts int32) corev1.ContainerStatus {
	started := false
	return corev1.ContainerStatus{Name: name, RestartCount: restarts, Image: "nginx:1.27", Started: &started,
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason}}}
}
func terminated(name, reason string, exit, signal int32, restarts int32) corev1.ContainerStatus {
	started := false
	return corev1.ContainerStatus{Name: name, RestartCount: restarts, Image: "nginx:1.27", Started: &started,
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: reason, ExitCode: exit, Signal: signal,
			StartedAt: at(time.Second), FinishedAt: at(2 * time.Second)}}}
}
func lastTerminated(cs corev1.ContainerStatus, finished time.Duration) corev1.ContainerStatus {
	cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
		Reason: "Error", ExitCode: 1, StartedAt: at(finished - time.Second), FinishedAt: at(finished)}}
	return cs
}

// benchPods makes n realistic pods of one Deployment spread over 1,000 nodes.
func benchPods(n int) []kinds.Object {
	out := make([]kinds.Object, n)
	for i := range out {
		name := fmt.Sprintf("api-7d9f8c6b5-%05d", i)
		p := makePod(name).labels("app", "api", "pod-template-hash", "7d9f8c6b5").owner("ReplicaSet", "api-7d9f8c6b5").
			node(fmt.Sprintf("n%d", i%1000+1)).phase(corev1.PodRunning).ip(fmt.Sprintf("10.%d.%d.%d", 244+i/65536, i/256%256, i%256)).
			requests("100m", "128Mi").limits("500m", "256Mi").
			cond(corev1.PodReadyToStartContainers, corev1.ConditionTrue).cond(corev1.PodInitialized, corev1.ConditionTrue).
			cond(corev1.PodReady, corev1.ConditionTrue).cond(corev1.ContainersReady, corev1.ConditionTrue).
			cond(corev1.PodScheduled, corev1.ConditionTrue).
			status(running("app", true, int32(i%3), 5*time.Second)).created(time.Duration(i) * time.Millisecond).obj()
		p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}
		p.Spec.Containers[0].ReadinessProbe = &corev1.Probe{
			ProbeHandler:   corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080), Scheme: corev1.URISchemeHTTP}},
			TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3}
		p.Status.HostIP = "192.168.0.1"
		p.Status.StartTime = &p.CreationTimestamp
		p.Status.QOSClass = corev1.PodQOSBurstable
		out[i] = p
	}
	return out
}
