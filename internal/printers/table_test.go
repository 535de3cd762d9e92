package printers

import (
	"bytes"
	"io"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// The cell functions, case by case (k8s-facts §12; printers.go).

func TestPodCells(t *testing.T) {
	now := t0.Add(10 * time.Minute)
	tests := []struct {
		name                    string
		pod                     *corev1.Pod
		ready, status, restarts string
	}{
		{"running", makePod("p").phase(corev1.PodRunning).status(running("app", true, 0, 0)).obj(), "1/1", "Running", "0"},
		{"pending, no statuses", makePod("p").phase(corev1.PodPending).obj(), "0/1", "Pending", "0"},
		{"creating", makePod("p").phase(corev1.PodPending).status(waiting("app", "ContainerCreating", 0)).obj(), "0/1", "ContainerCreating", "0"},
		{"running but not ready", makePod("p").phase(corev1.PodRunning).status(running("app", false, 0, 0)).obj(), "0/1", "Running", "0"},
		{"crash loop, last restart 45s ago", makePod("p").phase(corev1.PodRunning).
			status(lastTerminated(waiting("app", "CrashLoopBackOff", 3), 9*time.Minute+15*time.Second)).obj(), "0/1", "CrashLoopBackOff", "3 (45s ago)"},
		{"restarts without a last state", makePod("p").phase(corev1.PodRunning).status(running("app", true, 2, 0)).obj(), "1/1", "Running", "2"},
		{"image pull", makePod("p").phase(corev1.PodPending).status(waiting("app", "ErrImagePull", 0)).obj(), "0/1", "ErrImagePull", "0"},
		{"OOMKilled", makePod("p").phase(corev1.PodRunning).status(terminated("app", "OOMKilled", 137, 0, 1)).obj(), "0/1", "OOMKilled", "1"},
		{"exit code without reason", makePod("p").phase(corev1.PodRunning).status(terminated("app", "", 3, 0, 0)).obj(), "0/1", "ExitCode:3", "0"},
		{"signal without reason", makePod("p").phase(corev1.PodRunning).status(terminated("app", "", 0, 9, 0)).obj(), "0/1", "Signal:9", "0"},
		{"succeeded", makePod("p").phase(corev1.PodSucceeded).status(terminated("app", "Completed", 0, 0, 0)).obj(), "0/1", "Completed", "0"},
		{"completed beside running, ready", makePod("p").containers("a", "b").phase(corev1.PodRunning).cond(corev1.PodReady, corev1.ConditionTrue).
			status(terminated("a", "Completed", 0, 0, 0), running("b", true, 0, 0)).obj(), "1/2", "Running", "0"},
		{"completed beside running, not ready", makePod("p").containers("a", "b").phase(corev1.PodRunning).
			status(terminated("a", "Completed", 0, 0, 0), running("b", true, 0, 0)).obj(), "1/2", "NotReady", "0"},
		{"first container in spec order wins", makePod("p").containers("a", "b").phase(corev1.PodRunning).
			status(waiting("a", "CrashLoopBackOff", 1), waiting("b", "ImagePullBackOff", 0)).obj(), "0/2", "CrashLoopBackOff", "1"},
		{"terminating", makePod("p").phase(corev1.PodRunning).status(running("app", true, 0, 0)).deleting(time.Minute).obj(), "1/1", "Terminating", "0"},
		{"terminal pods are not Terminating", makePod("p").phase(corev1.PodSucceeded).status(terminated("app", "Completed", 0, 0, 0)).deleting(time.Minute).obj(), "0/1", "Completed", "0"},
		{"node lost", makePod("p").phase(corev1.PodRunning).reason("NodeLost").deleting(time.Minute).obj(), "0/1", "Unknown", "0"},
		{"evicted", makePod("p").phase(corev1.PodFailed).reason("Evicted").obj(), "0/1", "Evicted", "0"},
		{"scheduling gated", func() *corev1.Pod {
			p := makePod("p").phase(corev1.PodPending).obj()
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonSchedulingGated}}
			return p
		}(), "0/1", "SchedulingGated", "0"},
		{"init 1 of 2", makePod("p").initContainer("i1", false).initContainer("i2", false).phase(corev1.PodPending).
			initStatus(terminated("i1", "Completed", 0, 0, 0), running("i2", false, 0, 0)).status(waiting("app", "PodInitializing", 0)).obj(), "0/1", "Init:1/2", "0"},
		{"init waiting on PodInitializing counts as a step", makePod("p").initContainer("i1", false).phase(corev1.PodPending).
			initStatus(waiting("i1", "PodInitializing", 0)).obj(), "0/1", "Init:0/1", "0"},
		{"init crash loop", makePod("p").initContainer("i1", false).phase(corev1.PodPending).
			initStatus(lastTerminated(waiting("i1", "CrashLoopBackOff", 4), 9*time.Minute)).obj(), "0/1", "Init:CrashLoopBackOff", "4 (60s ago)"},
		{"init error", makePod("p").initContainer("i1", false).phase(corev1.PodPending).
			initStatus(terminated("i1", "Error", 1, 0, 0)).obj(), "0/1", "Init:Error", "0"},
		{"init exit code", makePod("p").initContainer("i1", false).phase(corev1.PodPending).
			initStatus(terminated("i1", "", 2, 0, 0)).obj(), "0/1", "Init:ExitCode:2", "0"},
		{"init signal", makePod("p").initContainer("i1", false).phase(corev1.PodPending).
			initStatus(terminated("i1", "", 137, 9, 0)).obj(), "0/1", "Init:Signal:9", "0"},
		{"sidecar counts in READY", makePod("p").initContainer("proxy", true).phase(corev1.PodRunning).
			cond(corev1.PodInitialized, corev1.ConditionTrue).
			initStatus(running("proxy", true, 0, 0)).status(running("app", true, 0, 0)).obj(), "2/2", "Running", "0"},
		{"sidecar restarts count, app's too", makePod("p").initContainer("proxy", true).phase(corev1.PodRunning).
			cond(corev1.PodInitialized, corev1.ConditionTrue).
			initStatus(lastTerminated(running("proxy", true, 2, 0), 8*time.Minute)).
			status(lastTerminated(running("app", true, 1, 0), 9*time.Minute)).obj(), "2/2", "Running", "3 (60s ago)"},
	}
	for _, tt := range tests {
		cells := podRow(tt.pod, now)
		if cells[1] != tt.ready || cells[2] != tt.status || cells[3] != tt.restarts {
			t.Errorf("%s: READY, STATUS, RESTARTS = %q, %q, %q; want %q, %q, %q",
				tt.name, cells[1], cells[2], cells[3], tt.ready, tt.status, tt.restarts)
		}
		if got := PodStatus(tt.pod); got != tt.status {
			t.Errorf("%s: PodStatus = %q; want %q", tt.name, got, tt.status)
		}
	}
}

func TestAge(t *testing.T) {
	tests := []struct {
		age  time.Duration
		want string
	}{
		{-3 * time.Second, "<invalid>"},
		{-1500 * time.Millisecond, "0s"},
		{0, "0s"},
		{999 * time.Millisecond, "0s"},
		{90 * time.Second, "90s"},
		{119 * time.Second, "119s"},
		{2 * time.Minute, "2m"},
		{5*time.Minute + 12*time.Second, "5m12s"},
		{10 * time.Minute, "10m"},
		{179 * time.Minute, "179m"},
		{3*time.Hour + 5*time.Minute, "3h5m"},
		{7 * time.Hour, "7h"},
		{23 * time.Hour, "23h"},
		{47*time.Hour + 59*time.Minute, "47h"},
		{51 * time.Hour, "2d3h"},
		{7 * 24 * time.Hour, "7d"},
		{400 * 24 * time.Hour, "400d"},
		{3*365*24*time.Hour + 24*time.Hour, "3y1d"},
		{9 * 365 * 24 * time.Hour, "9y"},
	}
	now := t0.Add(24 * 365 * 10 * time.Hour)
	for _, tt := range tests {
		if got := since(now.Add(-tt.age), now); got != tt.want {
			t.Errorf("since(now - %v) = %q; want %q", tt.age, got, tt.want)
		}
	}
	if got := since(time.Time{}, now); got != "<unknown>" {
		t.Errorf("since(zero) = %q; want <unknown>", got)
	}
}

func TestServiceCells(t *testing.T) {
	tests := []struct {
		name     string
		spec     corev1.ServiceSpec
		lb       []corev1.LoadBalancerIngress
		external string
		ports    string
	}{
		{"cluster IP", corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, Ports: []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP}}}, nil, "<none>", "80/TCP"},
		{"node ports", corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{
			{Port: 80, NodePort: 31234, Protocol: corev1.ProtocolTCP}, {Port: 53, NodePort: 30053, Protocol: corev1.ProtocolUDP}}}, nil, "<none>", "80:31234/TCP,53:30053/UDP"},
		{"external IPs", corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ExternalIPs: []string{"1.2.3.4", "5.6.7.8"}}, nil, "1.2.3.4,5.6.7.8", ""},
		{"load balancer pending", corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer}, nil, "<pending>", ""},
		{"load balancer, sorted and never cut", corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer},
			[]corev1.LoadBalancerIngress{{IP: "203.0.113.9"}, {Hostname: "a1b2c3.elb.example.com"}, {IP: "203.0.113.10"}},
			"203.0.113.10,203.0.113.9,a1b2c3.elb.example.com", ""},
		{"load balancer with external IPs", corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, ExternalIPs: []string{"9.9.9.9"}},
			[]corev1.LoadBalancerIngress{{IP: "1.1.1.1"}}, "1.1.1.1,9.9.9.9", ""},
		{"external name", corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "db.example.com"}, nil, "db.example.com", ""},
		{"no type", corev1.ServiceSpec{}, nil, "<unknown>", ""},
	}
	for _, tt := range tests {
		svc := &corev1.Service{Spec: tt.spec, Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: tt.lb}}}
		if got := serviceExternalIP(svc); got != tt.external {
			t.Errorf("%s: EXTERNAL-IP = %q; want %q", tt.name, got, tt.external)
		}
		if got := servicePorts(tt.spec.Ports); got != tt.ports {
			t.Errorf("%s: PORT(S) = %q; want %q", tt.name, got, tt.ports)
		}
	}
}

func TestNodeStatus(t *testing.T) {
	ready := func(s corev1.ConditionStatus) []corev1.NodeCondition {
		return []corev1.NodeCondition{{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse}, {Type: corev1.NodeReady, Status: s}}
	}
	tests := []struct {
		conds  []corev1.NodeCondition
		cordon bool
		want   string
	}{
		{ready(corev1.ConditionTrue), false, "Ready"},
		{ready(corev1.ConditionFalse), false, "NotReady"},
		{ready(corev1.ConditionUnknown), false, "NotReady"},
		{nil, false, "Unknown"},
		{ready(corev1.ConditionTrue), true, "Ready,SchedulingDisabled"},
		{nil, true, "Unknown,SchedulingDisabled"},
	}
	for _, tt := range tests {
		n := &corev1.Node{Spec: corev1.NodeSpec{Unschedulable: tt.cordon}, Status: corev1.NodeStatus{Conditions: tt.conds}}
		if got := NodeStatus(n); got != tt.want {
			t.Errorf("NodeStatus(%v, cordoned %v) = %q; want %q", tt.conds, tt.cordon, got, tt.want)
		}
	}
}

func TestHPATargets(t *testing.T) {
	q := func(s string) *resource.Quantity { v := resource.MustParse(s); return &v }
	cpu := func(target int32) autoscalingv2.MetricSpec {
		return autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
			Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To(target)}}}
	}
	cpuNow := func(current int32) autoscalingv2.MetricStatus {
		return autoscalingv2.MetricStatus{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricStatus{
			Name: corev1.ResourceCPU, Current: autoscalingv2.MetricValueStatus{AverageUtilization: ptr.To(current), AverageValue: q("100m")}}}
	}
	mem := autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
		Name: corev1.ResourceMemory, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: q("200Mi")}}}
	pods := autoscalingv2.MetricSpec{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{
		Metric: autoscalingv2.MetricIdentifier{Name: "qps"}, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: q("10")}}}
	tests := []struct {
		name     string
		specs    []autoscalingv2.MetricSpec
		statuses []autoscalingv2.MetricStatus
		want     string
	}{
		{"no metrics", nil, nil, "<none>"},
		{"utilization", []autoscalingv2.MetricSpec{cpu(80)}, []autoscalingv2.MetricStatus{cpuNow(50)}, "cpu: 50%/80%"},
		{"not measured yet", []autoscalingv2.MetricSpec{cpu(80)}, nil, "cpu: <unknown>/80%"},
		{"average value", []autoscalingv2.MetricSpec{mem}, []autoscalingv2.MetricStatus{{Type: autoscalingv2.ResourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricStatus{Name: corev1.ResourceMemory, Current: autoscalingv2.MetricValueStatus{AverageValue: q("120Mi")}}}}, "memory: 120Mi/200Mi"},
		{"pods metric", []autoscalingv2.MetricSpec{pods}, nil, "<unknown>/10"},
		{"three metrics", []autoscalingv2.MetricSpec{cpu(80), mem, pods}, []autoscalingv2.MetricStatus{cpuNow(95)},
			"cpu: 95%/80%, memory: <unknown>/200Mi + 1 more..."},
	}
	for _, tt := range tests {
		if got := hpaTargets(tt.specs, tt.statuses); got != tt.want {
			t.Errorf("%s: TARGETS = %q; want %q", tt.name, got, tt.want)
		}
	}
}

func TestEndpointSliceCells(t *testing.T) {
	ep := func(addrs ...string) discoveryv1.Endpoint { return discoveryv1.Endpoint{Addresses: addrs} }
	tests := []struct {
		eps  []discoveryv1.Endpoint
		want string
	}{
		{nil, "<unset>"},
		{[]discoveryv1.Endpoint{ep("10.0.0.1")}, "10.0.0.1"},
		{[]discoveryv1.Endpoint{ep("10.0.0.1"), ep("10.0.0.2"), ep("10.0.0.3")}, "10.0.0.1,10.0.0.2,10.0.0.3"},
		{[]discoveryv1.Endpoint{ep("10.0.0.1", "10.0.0.2"), ep("10.0.0.3"), ep("10.0.0.4", "10.0.0.5")}, "10.0.0.1,10.0.0.2,10.0.0.3 + 2 more..."},
	}
	for _, tt := range tests {
		if got := endpointSliceEndpoints(tt.eps); got != tt.want {
			t.Errorf("ENDPOINTS of %v = %q; want %q", tt.eps, got, tt.want)
		}
	}
	ports := []discoveryv1.EndpointPort{{Port: ptr.To[int32](80)}, {Name: ptr.To("dns")}, {}, {Port: ptr.To[int32](9)}}
	if got, want := endpointSlicePorts(ports), "80,dns,* + 1 more..."; got != want {
		t.Errorf("PORTS = %q; want %q", got, want)
	}
}

func TestAppendCell(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"first line\nsecond", "first line..."},
		{"carriage\rreturn", "carriage..."},
		{"esc \x1b[31mred", "esc ^[[31mred"},
	}
	for _, tt := range tests {
		if got := string(appendCell(nil, tt.in)); got != tt.want {
			t.Errorf("appendCell(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestResourceName(t *testing.T) {
	for _, tt := range []struct {
		obj  kinds.Object
		want string
	}{
		{makePod("web-1").obj(), "pod/web-1"},
		{&autoscalingv2.HorizontalPodAutoscaler{}, "horizontalpodautoscaler.autoscaling/"},
	} {
		if got := ResourceName(tt.obj); got != tt.want {
			t.Errorf("ResourceName(%T) = %q; want %q", tt.obj, got, tt.want)
		}
	}
}

func BenchmarkPrintTable10kPods(b *testing.B) {
	pods := benchPods(10000)
	opts := Options{Now: t0.Add(time.Hour), AllNamespaces: true}
	reportCPU(b, func() {
		if err := PrintTable(io.Discard, kinds.Pod, pods, opts); err != nil {
			b.Fatal(err)
		}
	})
}

func BenchmarkDescribePod(b *testing.B) {
	pod := benchPods(1)[0]
	var events []*corev1.Event
	for i := 0; i < 20; i++ {
		events = append(events, &corev1.Event{InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "default",
			Name: pod.GetName(), UID: pod.GetUID()}, Type: "Normal", Reason: "Pulled", Message: "Container image already present",
			FirstTimestamp: at(time.Duration(i) * time.Second), LastTimestamp: at(time.Duration(i) * time.Second), Count: 1,
			Source: corev1.EventSource{Component: "kubelet"}})
	}
	ctx := DescribeContext{Now: t0.Add(time.Hour), Events: events}
	var buf bytes.Buffer
	reportCPU(b, func() {
		buf.Reset()
		if err := Describe(&buf, pod, ctx); err != nil {
			b.Fatal(err)
		}
	})
}
