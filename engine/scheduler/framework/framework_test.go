package framework_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/scheduler/internal/st"
)

func TestPodRequests(t *testing.T) {
	const mi = 1024 * 1024
	tests := []struct {
		name                   string
		pod                    *st.PodWrapper
		cpu, mem, nzCPU, nzMem int64
	}{
		{"one container", st.MakePod().Name("p").Req("100m", "500Mi"), 100, 500 * mi, 100, 500 * mi},
		{"no requests: 0 to fit, 100m/200Mi to score", st.MakePod().Name("p"), 0, 0, 100, 200 * mi},
		{"only cpu requested", st.MakePod().Name("p").Req("250m", ""), 250, 0, 250, 200 * mi},
		{"containers add up", st.MakePod().Name("p").Req("100m", "100Mi").Container("x", "200m", "300Mi"), 300, 400 * mi, 300, 400 * mi},
		// kube's example: init 2/1G and 2/3G, app 2/1G and 1/1G → 3 cpu, 3G.
		{"init containers: max of the largest and the sum", st.MakePod().Name("p").Req("2", "1G").Container("x", "1", "1G").
			InitReq("2", "1G", false).InitReq("2", "3G", false), 3000, 3_000_000_000, 3000, 3_000_000_000},
		// A sidecar runs beside the app (1 + 0.5) and beside later init
		// containers (0.5 + 2 = 2.5 > 1.5).
		{"sidecars", st.MakePod().Name("p").Req("1", "").InitReq("500m", "", true).InitReq("2", "", false), 2500, 0, 2500, 2*200*mi + 0},
		{"overhead is added", st.MakePod().Name("p").Req("100m", "100Mi").Overhead("250m", "120Mi"), 350, 220 * mi, 350, 220 * mi},
	}
	for _, tt := range tests {
		pi := framework.NewPodInfo(tt.pod.Obj())
		if pi.Requests.MilliCPU != tt.cpu || pi.Requests.Memory != tt.mem || pi.NonZeroMilliCPU != tt.nzCPU || pi.NonZeroMemory != tt.nzMem {
			t.Errorf("%s: requests %dm/%d, non-zero %dm/%d; want %dm/%d, %dm/%d", tt.name,
				pi.Requests.MilliCPU, pi.Requests.Memory, pi.NonZeroMilliCPU, pi.NonZeroMemory, tt.cpu, tt.mem, tt.nzCPU, tt.nzMem)
		}
	}
}

func TestDefaultNormalizeScore(t *testing.T) {
	tests := []struct {
		in      []int64
		reverse bool
		want    []int64
	}{
		{[]int64{0, 50, 200}, false, []int64{0, 25, 100}},
		{[]int64{0, 50, 200}, true, []int64{100, 75, 0}},
		{[]int64{0, 0}, false, []int64{0, 0}},
		{[]int64{0, 0}, true, []int64{100, 100}},
		{[]int64{3, 7}, false, []int64{42, 100}},
	}
	for _, tt := range tests {
		l := make(framework.NodeScoreList, len(tt.in))
		for i, s := range tt.in {
			l[i].Score = s
		}
		framework.DefaultNormalizeScore(framework.MaxNodeScore, tt.reverse, l)
		for i := range l {
			if l[i].Score != tt.want[i] {
				t.Errorf("DefaultNormalizeScore(%v, reverse=%v) = %v; want %v", tt.in, tt.reverse, l, tt.want)
				break
			}
		}
		got := append([]int64(nil), tt.in...)
		framework.DefaultNormalizeNodeScores(framework.MaxNodeScore, tt.reverse, got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("DefaultNormalizeNodeScores(%v, reverse=%v) = %v; want %v", tt.in, tt.reverse, got, tt.want)
		}
	}
}

// TestFitErrorMessage reproduces k8s-facts §4.7's example: reasons counted
// per node, sorted as strings, the preemption part appended.
func TestFitErrorMessage(t *testing.T) {
	var nodes []*framework.NodeInfo
	for _, n := range []string{"cp", "n1", "n2"} {
		nodes = append(nodes, framework.NewNodeInfo(st.MakeNode().Name(n).Obj()))
	}
	m := framework.NewNodeToStatus()
	m.Set(nodes[0], framework.NewStatus(framework.UnschedulableAndUnresolvable, "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"))
	m.Set(nodes[1], framework.NewStatus(framework.Unschedulable, "Insufficient cpu"))
	m.Set(nodes[2], framework.NewStatus(framework.Unschedulable, "Insufficient cpu"))
	fe := &framework.FitError{NumAllNodes: 3, Diagnosis: framework.Diagnosis{NodeToStatus: m,
		PostFilterMsg: "preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."}}
	want := "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. " +
		"preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."
	if got := fe.Error(); got != want {
		t.Errorf("Error() =\n%s\nwant\n%s", got, want)
	}

	// A node short of two resources counts under both; "10 x" sorts before "2 y".
	m = framework.NewNodeToStatus()
	for i := 0; i < 10; i++ {
		m.Set(nodes[0], framework.NewStatus(framework.Unschedulable, "Insufficient memory"))
	}
	m.Set(nodes[1], framework.NewStatus(framework.Unschedulable, "Insufficient cpu", "Insufficient memory"))
	m.Set(nodes[2], framework.NewStatus(framework.Unschedulable, "Insufficient cpu"))
	fe = &framework.FitError{NumAllNodes: 12, Diagnosis: framework.Diagnosis{NodeToStatus: m}}
	if got, want := fe.Error(), "0/12 nodes are available: 11 Insufficient memory, 2 Insufficient cpu."; got != want {
		t.Errorf("Error() = %q; want %q", got, want)
	}

	// A PreFilter rejection replaces the histogram.
	fe = &framework.FitError{NumAllNodes: 3, Diagnosis: framework.Diagnosis{NodeToStatus: framework.NewNodeToStatus(),
		PreFilterMsg: "pod affinity terms conflict"}}
	if got, want := fe.Error(), "0/3 nodes are available: pod affinity terms conflict."; got != want {
		t.Errorf("Error() = %q; want %q", got, want)
	}
}

func TestCodeString(t *testing.T) {
	for c, want := range map[framework.Code]string{framework.Success: "Success", framework.Unschedulable: "Unschedulable",
		framework.UnschedulableAndUnresolvable: "UnschedulableAndUnresolvable", framework.Skip: "Skip", framework.Code(42): "Code(42)"} {
		if got := c.String(); got != want {
			t.Errorf("Code(%d).String() = %q; want %q", int(c), got, want)
		}
	}
	var nilStatus *framework.Status
	if !nilStatus.IsSuccess() || nilStatus.Code() != framework.Success {
		t.Error("a nil Status is not Success")
	}
}

// TestPodInfoUpdate follows a PodInfo through versions of a pod: a status
// write (a shallow copy, sharing the containers) keeps the requests, and
// any version whose containers or overhead differ has them summed again.
func TestPodInfoUpdate(t *testing.T) {
	pod := st.MakePod().Name("p").Req("100m", "200Mi").Obj()
	pi := framework.NewPodInfo(pod)
	check := func(what string, p *corev1.Pod) {
		t.Helper()
		pi.Update(p)
		want := framework.NewPodInfo(p)
		if pi.Pod != p || !reflect.DeepEqual(pi.Requests, want.Requests) || pi.NonZeroMilliCPU != want.NonZeroMilliCPU ||
			pi.NonZeroMemory != want.NonZeroMemory || pi.Priority() != want.Priority() {
			t.Errorf("%s: PodInfo %+v; want %+v", what, *pi, *want)
		}
	}
	status := *pod // what the API server stores for a status write: the spec shared
	status.Status.Phase = corev1.PodRunning
	check("status write", &status)
	resized := status.DeepCopy()
	resized.Spec.Containers[0].Resources.Requests = st.MakePod().Req("300m", "1Gi").Obj().Spec.Containers[0].Resources.Requests
	check("resized", resized)
	prio := int32(7)
	withPrio := *resized
	withPrio.Spec.Priority = &prio
	check("priority", &withPrio)
	overhead := withPrio
	overhead.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m")}
	check("overhead", &overhead)
	sidecar := overhead.DeepCopy()
	sidecar.Spec.Overhead = nil
	always := corev1.ContainerRestartPolicyAlways
	sidecar.Spec.InitContainers = []corev1.Container{{Name: "s", RestartPolicy: &always,
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")}}}}
	check("sidecar", sidecar)
	noInit := *sidecar
	noInit.Spec.InitContainers = nil
	check("sidecar gone", &noInit)
}

// TestDemandsShare checks that pods asking for equal requests share one
// Demand, that pods asking for different ones (or for scalar resources)
// do not, and that a new version of one pod's spec leaves the Demand it
// shared unchanged for the others.
func TestDemandsShare(t *testing.T) {
	gpu := func(p *corev1.Pod) *corev1.Pod {
		p.Spec.Containers[0].Resources.Requests["example.com/gpu"] = resource.MustParse("1")
		return p
	}
	tests := []struct {
		name  string
		a, b  *corev1.Pod
		share bool
	}{
		{"equal requests", st.MakePod().Name("a").Req("100m", "200Mi").Obj(), st.MakePod().Name("b").Req("100m", "200Mi").Obj(), true},
		{"equal sums of different containers", st.MakePod().Name("a").Req("100m", "200Mi").Obj(),
			st.MakePod().Name("b").Req("50m", "100Mi").Container("x", "50m", "100Mi").Obj(), true},
		{"no requests", st.MakePod().Name("a").Obj(), st.MakePod().Name("b").Obj(), true},
		{"different cpu", st.MakePod().Name("a").Req("100m", "200Mi").Obj(), st.MakePod().Name("b").Req("200m", "200Mi").Obj(), false},
		// 100m requested and none requested fit alike but score apart.
		{"different non-zero requests", st.MakePod().Name("a").Req("100m", "").Obj(), st.MakePod().Name("b").Req("", "").Obj(), false},
		{"scalar resources", gpu(st.MakePod().Name("a").Req("100m", "200Mi").Obj()), gpu(st.MakePod().Name("b").Req("100m", "200Mi").Obj()), false},
	}
	for _, tt := range tests {
		var shared framework.Demands
		var a, b framework.PodInfo
		shared.Update(&a, tt.a)
		shared.Update(&b, tt.b)
		if got := a.Demand == b.Demand; got != tt.share {
			t.Errorf("%s: shared %v, want %v", tt.name, got, tt.share)
		}
		for _, pi := range []*framework.PodInfo{&a, &b} {
			if want := framework.NewPodInfo(pi.Pod); !reflect.DeepEqual(*pi.Demand, *want.Demand) {
				t.Errorf("%s: pod %s asks for %+v, want %+v", tt.name, pi.Pod.Name, *pi.Demand, *want.Demand)
			}
		}
		before := *b.Demand
		shared.Update(&a, st.MakePod().Name("a").Req("300m", "1Gi").Obj())
		if !reflect.DeepEqual(*b.Demand, before) {
			t.Errorf("%s: resizing pod a changed pod b's Demand to %+v", tt.name, *b.Demand)
		}
	}
}

// TestNodeInfoUpdatePod checks that updating a pod leaves a node as
// removing it and adding the new version would: the same pods in the same
// order (the updated one last) and the same sums, whether the write kept
// the pod's requests (a status write) or changed them (a resize).
func TestNodeInfoUpdatePod(t *testing.T) {
	mk := func(name, cpu, mem string) *corev1.Pod { return st.MakePod().Name(name).Req(cpu, mem).Obj() }
	status := func(p *corev1.Pod) *corev1.Pod {
		c := *p // the spec shared, as the API server stores a status write
		c.Status.Phase = corev1.PodRunning
		return &c
	}
	tests := []struct {
		name string
		at   int // which of the three pods is updated
		to   func(p *corev1.Pod) *corev1.Pod
	}{
		{"status write of the first", 0, status},
		{"status write of the middle one", 1, status},
		{"status write of the last", 2, status},
		{"resize of the first", 0, func(p *corev1.Pod) *corev1.Pod { return mk(p.Name, "300m", "1Gi") }},
		{"resize to nothing", 1, func(p *corev1.Pod) *corev1.Pod { return mk(p.Name, "", "") }},
	}
	for _, tt := range tests {
		var shared framework.Demands
		build := func() (*framework.NodeInfo, []*framework.PodInfo) {
			ni := framework.NewNodeInfo(st.MakeNode().Name("n").Obj())
			var pis []*framework.PodInfo
			for i, req := range []string{"100m", "200m", "400m"} {
				pi := &framework.PodInfo{}
				shared.Update(pi, mk(fmt.Sprintf("p%d", i), req, "100Mi"))
				ni.AddPod(pi)
				pis = append(pis, pi)
			}
			return ni, pis
		}
		got, gotPods := build()
		want, wantPods := build()
		next := tt.to(gotPods[tt.at].Pod)
		if !got.UpdatePod(gotPods[tt.at], next, &shared) {
			t.Errorf("%s: the pod was not found", tt.name)
		}
		want.RemovePod(wantPods[tt.at])
		shared.Update(wantPods[tt.at], next)
		want.AddPod(wantPods[tt.at])
		var gotNames, wantNames []string
		for i := range got.Pods {
			gotNames, wantNames = append(gotNames, got.Pods[i].Pod.Name), append(wantNames, want.Pods[i].Pod.Name)
		}
		if !slices.Equal(gotNames, wantNames) || !reflect.DeepEqual(got.Requested, want.Requested) ||
			got.NonZeroRequested != want.NonZeroRequested {
			t.Errorf("%s: pods %v, requested %+v, non-zero %+v; want %v, %+v, %+v", tt.name, gotNames, got.Requested,
				got.NonZeroRequested, wantNames, want.Requested, want.NonZeroRequested)
		}
		if got.UpdatePod(&framework.PodInfo{}, next, &shared) {
			t.Errorf("%s: a pod not on the node was updated", tt.name)
		}
	}
}
