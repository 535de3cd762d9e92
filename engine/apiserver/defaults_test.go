package apiserver

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestDefaultDeploymentTemplate compares a defaulted Deployment with what
// kube-apiserver 1.34 stores for the same manifest (`kubectl get deploy api
// -o yaml`), field by field. The pod template matters most: the
// Deployment controller hashes the defaulted template into the
// pod-template-hash, so any difference here changes every ReplicaSet name.
func TestDefaultDeploymentTemplate(t *testing.T) {
	docs, err := Decode("deploy.yaml", []byte(apiDeployment))
	if err != nil {
		t.Fatal(err)
	}
	d := docs[0].Object.(*appsv1.Deployment)
	Default(d)

	// What Kubernetes stores (spec only).
	want := appsv1.DeploymentSpec{
		Replicas:             ptrTo(int32(3)),
		Selector:             &metav1.LabelSelector{MatchLabels: map[string]string{"app": "api"}},
		RevisionHistoryLimit: ptrTo(int32(10)),
		Strategy: appsv1.DeploymentStrategy{
			Type: appsv1.RollingUpdateDeploymentStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDeployment{
				MaxUnavailable: ptrTo(intstr.FromString("25%")),
				MaxSurge:       ptrTo(intstr.FromString("25%")),
			},
		},
		ProgressDeadlineSeconds: ptrTo(int32(600)),
		Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "api"}},
			Spec: corev1.PodSpec{
				Containers: []corev1.Container{{
					Name:                     "api",
					Image:                    "shop/api:v2.1",
					Ports:                    []corev1.ContainerPort{{ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
					TerminationMessagePath:   "/dev/termination-log",
					TerminationMessagePolicy: corev1.TerminationMessageReadFile,
					ImagePullPolicy:          corev1.PullIfNotPresent,
				}},
				RestartPolicy:                 corev1.RestartPolicyAlways,
				TerminationGracePeriodSeconds: ptrTo(int64(30)),
				DNSPolicy:                     corev1.DNSClusterFirst,
				SecurityContext:               &corev1.PodSecurityContext{},
				SchedulerName:                 "default-scheduler",
			},
		},
	}
	got := d.Spec
	checks := []struct {
		field    string
		got, exp any
	}{
		{"replicas", got.Replicas, want.Replicas},
		{"selector", got.Selector, want.Selector},
		{"revisionHistoryLimit", got.RevisionHistoryLimit, want.RevisionHistoryLimit},
		{"strategy", got.Strategy, want.Strategy},
		{"progressDeadlineSeconds", got.ProgressDeadlineSeconds, want.ProgressDeadlineSeconds},
		{"minReadySeconds", got.MinReadySeconds, want.MinReadySeconds},
		{"paused", got.Paused, want.Paused},
		{"template.metadata", got.Template.ObjectMeta, want.Template.ObjectMeta},
		{"template.spec.containers", got.Template.Spec.Containers, want.Template.Spec.Containers},
		{"template.spec.restartPolicy", got.Template.Spec.RestartPolicy, want.Template.Spec.RestartPolicy},
		{"template.spec.terminationGracePeriodSeconds", got.Template.Spec.TerminationGracePeriodSeconds, want.Template.Spec.TerminationGracePeriodSeconds},
		{"template.spec.dnsPolicy", got.Template.Spec.DNSPolicy, want.Template.Spec.DNSPolicy},
		{"template.spec.securityContext", got.Template.Spec.SecurityContext, want.Template.Spec.SecurityContext},
		{"template.spec.schedulerName", got.Template.Spec.SchedulerName, want.Template.Spec.SchedulerName},
		// Defaulted only on a Pod, never on a template:
		{"template.spec.enableServiceLinks", got.Template.Spec.EnableServiceLinks, want.Template.Spec.EnableServiceLinks},
		{"template.spec.tolerations", got.Template.Spec.Tolerations, want.Template.Spec.Tolerations},
		{"template.spec.priority", got.Template.Spec.Priority, want.Template.Spec.Priority},
	}
	for _, c := range checks {
		if !equality.Semantic.DeepEqual(c.got, c.exp) {
			t.Errorf("spec.%s = %s; want %s", c.field, toJSON(c.got), toJSON(c.exp))
		}
	}
	if !equality.Semantic.DeepEqual(got, want) {
		t.Errorf("defaulted spec differs from Kubernetes':\n got %s\nwant %s", toJSON(got), toJSON(want))
	}
}

func TestDefaultPullPolicy(t *testing.T) {
	tests := []struct {
		image string
		want  corev1.PullPolicy
	}{
		{"nginx", corev1.PullAlways},
		{"nginx:latest", corev1.PullAlways},
		{"nginx:1.27", corev1.PullIfNotPresent},
		{"registry.k8s.io/pause:3.10", corev1.PullIfNotPresent},
		{"localhost:5000/shop/api", corev1.PullAlways},
		{"localhost:5000/shop/api:v2", corev1.PullIfNotPresent},
		{"nginx@sha256:0000000000000000000000000000000000000000000000000000000000000000", corev1.PullIfNotPresent},
		{"nginx:latest@sha256:0000000000000000000000000000000000000000000000000000000000000000", corev1.PullAlways},
	}
	for _, tt := range tests {
		if got := DefaultPullPolicy(tt.image); got != tt.want {
			t.Errorf("DefaultPullPolicy(%q) = %s; want %s", tt.image, got, tt.want)
		}
	}
}

func TestDefaultPodOnlyDefaults(t *testing.T) {
	limits := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("128Mi")}
	pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{
		Name: "c", Image: "nginx", Resources: corev1.ResourceRequirements{Limits: limits.DeepCopy()},
		LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(80)}}},
	}}}}
	Default(pod)
	c := pod.Spec.Containers[0]
	if !equality.Semantic.DeepEqual(c.Resources.Requests, limits) {
		t.Errorf("pod requests = %s; want the limits %s", toJSON(c.Resources.Requests), toJSON(limits))
	}
	if pod.Spec.EnableServiceLinks == nil || !*pod.Spec.EnableServiceLinks {
		t.Errorf("pod enableServiceLinks = %v; want true", pod.Spec.EnableServiceLinks)
	}
	wantProbe := corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
		Path: "/", Port: intstr.FromInt32(80), Scheme: corev1.URISchemeHTTP}},
		TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3}
	if !equality.Semantic.DeepEqual(*c.LivenessProbe, wantProbe) {
		t.Errorf("probe = %s; want %s", toJSON(c.LivenessProbe), toJSON(wantProbe))
	}

	// The same container in a template keeps requests unset: that
	// defaulting is SetDefaults_Pod's, not the pod spec's.
	rs := &appsv1.ReplicaSet{Spec: appsv1.ReplicaSetSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
		Containers: []corev1.Container{{Name: "c", Image: "nginx", Resources: corev1.ResourceRequirements{Limits: limits.DeepCopy()}}}}}}}
	Default(rs)
	if rs.Spec.Template.Spec.Containers[0].Resources.Requests != nil {
		t.Errorf("template requests = %s; want unset", toJSON(rs.Spec.Template.Spec.Containers[0].Resources.Requests))
	}
	if *rs.Spec.Replicas != 1 {
		t.Errorf("ReplicaSet replicas = %d; want 1", *rs.Spec.Replicas)
	}
}

func TestDefaultQuantitiesRoundUpToMilli(t *testing.T) {
	pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "x",
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("0.1m")}}}}}}
	Default(pod)
	if got := pod.Spec.Containers[0].Resources.Requests.Cpu().String(); got != "1m" {
		t.Errorf("cpu 0.1m defaulted to %s; want 1m", got)
	}
}

func TestDefaultService(t *testing.T) {
	svc := &corev1.Service{Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{
		{Port: 80}, {Port: 443, TargetPort: intstr.FromString("https")}}}}
	Default(svc)
	s := svc.Spec
	if s.Type != corev1.ServiceTypeClusterIP || s.SessionAffinity != corev1.ServiceAffinityNone ||
		s.InternalTrafficPolicy == nil || *s.InternalTrafficPolicy != corev1.ServiceInternalTrafficPolicyCluster {
		t.Errorf("service spec = %s; want type ClusterIP, sessionAffinity None, internalTrafficPolicy Cluster", toJSON(s))
	}
	if s.Ports[0].Protocol != corev1.ProtocolTCP || s.Ports[0].TargetPort != intstr.FromInt32(80) {
		t.Errorf("port 0 = %s; want protocol TCP, targetPort 80", toJSON(s.Ports[0]))
	}
	if s.Ports[1].TargetPort != intstr.FromString("https") {
		t.Errorf("port 1 targetPort = %s; want https kept", toJSON(s.Ports[1].TargetPort))
	}
	if s.ExternalTrafficPolicy != "" {
		t.Errorf("externalTrafficPolicy = %q; want unset for ClusterIP", s.ExternalTrafficPolicy)
	}
	np := &corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort}}
	Default(np)
	if np.Spec.ExternalTrafficPolicy != corev1.ServiceExternalTrafficPolicyCluster {
		t.Errorf("NodePort externalTrafficPolicy = %q; want Cluster", np.Spec.ExternalTrafficPolicy)
	}
}

func TestDefaultHPA(t *testing.T) {
	h := &autoscalingv2.HorizontalPodAutoscaler{}
	Default(h)
	if *h.Spec.MinReplicas != 1 {
		t.Errorf("minReplicas = %d; want 1", *h.Spec.MinReplicas)
	}
	if len(h.Spec.Metrics) != 1 || h.Spec.Metrics[0].Resource.Name != corev1.ResourceCPU ||
		*h.Spec.Metrics[0].Resource.Target.AverageUtilization != 80 {
		t.Errorf("metrics = %s; want cpu 80%% utilization", toJSON(h.Spec.Metrics))
	}
	if h.Spec.Behavior != nil {
		t.Errorf("behavior = %s; want unset when not given", toJSON(h.Spec.Behavior))
	}
	h2 := &autoscalingv2.HorizontalPodAutoscaler{Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
		Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleDown: &autoscalingv2.HPAScalingRules{
			StabilizationWindowSeconds: ptrTo(int32(60))}}}}
	Default(h2)
	up, down := h2.Spec.Behavior.ScaleUp, h2.Spec.Behavior.ScaleDown
	if *up.StabilizationWindowSeconds != 0 || len(up.Policies) != 2 || *up.SelectPolicy != autoscalingv2.MaxChangePolicySelect {
		t.Errorf("scaleUp = %s; want Kubernetes' default rules", toJSON(up))
	}
	if *down.StabilizationWindowSeconds != 60 || len(down.Policies) != 1 || down.Policies[0].Value != 100 {
		t.Errorf("scaleDown = %s; want window 60 and 100%%/15s", toJSON(down))
	}
}

func TestDefaultNamespaceNodeEndpointSlice(t *testing.T) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop"}}
	Default(ns)
	if ns.Labels["kubernetes.io/metadata.name"] != "shop" || ns.Status.Phase != corev1.NamespaceActive {
		t.Errorf("namespace = %s; want label kubernetes.io/metadata.name=shop and phase Active", toJSON(ns))
	}
	n := &corev1.Node{Status: corev1.NodeStatus{Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")}}}
	Default(n)
	if n.Status.Allocatable.Cpu().String() != "4" {
		t.Errorf("node allocatable = %s; want capacity", toJSON(n.Status.Allocatable))
	}
	es := &discoveryv1.EndpointSlice{Ports: []discoveryv1.EndpointPort{{}}}
	Default(es)
	if *es.Ports[0].Name != "" || *es.Ports[0].Protocol != corev1.ProtocolTCP {
		t.Errorf("endpoint port = %s; want name \"\" and TCP", toJSON(es.Ports[0]))
	}
}
