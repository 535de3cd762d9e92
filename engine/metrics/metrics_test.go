package metrics

import (
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/store"
	"github.com/kubeloop/kubeloop/engine/workload"
)

type podSpec struct {
	name, image string
	labels      map[string]string
	started     sim.Tick // container start; <0: not running
	ready       bool
	cpuLimit    string
	command     []string
}

func addPod(t *testing.T, st *store.Store, p podSpec) {
	t.Helper()
	pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: p.name, Namespace: "default", Labels: p.labels}}
	c := corev1.Container{Name: "main", Image: p.image, Command: p.command}
	if p.cpuLimit != "" {
		c.Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(p.cpuLimit)}
	}
	pod.Spec.Containers = []corev1.Container{c}
	pod.Spec.NodeName = "n1"
	pod.Status.Phase = corev1.PodPending
	if p.started >= 0 {
		pod.Status.Phase = corev1.PodRunning
		pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main",
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(p.started.Time())}}}}
	}
	status := corev1.ConditionFalse
	if p.ready {
		status = corev1.ConditionTrue
	}
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}
	if _, err := st.Create(pod, 0); err != nil {
		t.Fatal(err)
	}
}

func newCluster(t *testing.T) (*sim.Loop, *store.Store, *workload.Loads, *Server) {
	loop := sim.NewLoop()
	st := store.New()
	loads := workload.NewLoads()
	node := &corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}, ObjectMeta: metav1.ObjectMeta{Name: "n1"}}
	node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	late := &corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}, ObjectMeta: metav1.ObjectMeta{Name: "n2"}}
	late.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue,
		LastTransitionTime: metav1.NewTime((10 * sim.Second).Time())}}
	dep := &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec:       appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
	svc := &corev1.Service{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec:       corev1.ServiceSpec{Selector: map[string]string{"app": "web"}}}
	for _, o := range []kinds.Object{node, late, dep, svc} {
		if _, err := st.Create(o, 0); err != nil {
			t.Fatal(err)
		}
	}
	return loop, st, loads, New(loop, st, workload.DefaultRegistry(), loads)
}

func TestScrape(t *testing.T) {
	loop, st, loads, m := newCluster(t)
	web := map[string]string{"app": "web"}
	addPod(t, st, podSpec{name: "a", image: "nginx:1.27", labels: web, started: 0, ready: true})
	addPod(t, st, podSpec{name: "b", image: "nginx:1.27", labels: web, started: 0, ready: true, cpuLimit: "100m"})
	addPod(t, st, podSpec{name: "c", image: "nginx:1.27", labels: web, started: 0})                           // running, not ready
	addPod(t, st, podSpec{name: "d", image: "nginx:1.27", labels: web, started: 5 * sim.Second, ready: true}) // started after the scrape before
	addPod(t, st, podSpec{name: "e", image: "nginx:1.27", labels: web, started: -1})                          // Pending
	addPod(t, st, podSpec{name: "php", image: "registry.k8s.io/hpa-example", started: 0, ready: true})
	loads.Set("default", "web", workload.Demand{CPUMilli: 900, MemoryBytes: 30 << 20})

	if m.Available() {
		t.Fatal("available before the first scrape")
	}
	if loop.FireNext(Resolution); !m.Available() || m.LastScrape() != Resolution {
		t.Fatalf("no scrape at %s", Resolution)
	}
	// 900m over 3 ready pods (a, b, d): 300m each; b is capped at its 100m
	// limit; c is not ready and only idles; d has no sample yet; e is Pending.
	want := map[string][2]int64{"a": {300, 3<<20 + 10<<20}, "b": {100, 3<<20 + 10<<20}, "c": {0, 3 << 20}, "php": {1, 9 << 20}}
	got := m.Pods("")
	if len(got) != len(want) {
		t.Fatalf("got %d samples, want %d: %+v", len(got), len(want), got)
	}
	var sumCPU, sumMem int64
	for _, p := range got {
		w, ok := want[p.Name]
		if !ok {
			t.Errorf("unexpected sample for %s", p.Name)
			continue
		}
		if p.CPUMilli() != w[0] || p.MemoryBytes() != w[1] {
			t.Errorf("%s: %dm %d bytes, want %dm %d", p.Name, p.CPUMilli(), p.MemoryBytes(), w[0], w[1])
		}
		if p.Timestamp != Resolution || p.Window != Resolution {
			t.Errorf("%s: timestamp %s window %s", p.Name, p.Timestamp, p.Window)
		}
		sumCPU += p.CPUMilli()
		sumMem += p.MemoryBytes()
	}
	nodes := m.Nodes()
	if len(nodes) != 1 || nodes[0].Name != "n1" {
		t.Fatalf("nodes = %+v, want only n1 (n2 became ready after the previous scrape)", nodes)
	}
	if nodes[0].CPUMilli != NodeOverhead.CPUMilli+sumCPU || nodes[0].MemoryBytes != NodeOverhead.MemoryBytes+sumMem {
		t.Errorf("n1 = %+v, want overhead plus its pods", nodes[0])
	}

	// At the next scrape d has a sample, n2 too, and the demand is shared
	// the same way (d was already ready).
	loop.FireNext(2 * Resolution)
	if _, ok := m.Pod("default", "d"); !ok {
		t.Error("d has no sample at the second scrape")
	}
	if _, ok := m.Node("n2"); !ok {
		t.Error("n2 has no sample at the second scrape")
	}
}

func TestLoadGenerator(t *testing.T) {
	loop, st, _, m := newCluster(t)
	web := map[string]string{"app": "web"}
	addPod(t, st, podSpec{name: "a", image: "nginx:1.27", labels: web, started: 0, ready: true})
	addPod(t, st, podSpec{name: "b", image: "nginx:1.27", labels: web, started: 0, ready: true})
	addPod(t, st, podSpec{name: "load-generator", image: "busybox:1.28", started: 0, ready: true,
		command: []string{"/bin/sh", "-c", "while sleep 0.01; do wget -q -O- http://web; done"}})
	loop.FireNext(Resolution)
	for _, n := range []string{"a", "b"} {
		p, ok := m.Pod("default", n)
		if !ok || p.CPUMilli() != workload.LoadGeneratorCPU/2 {
			t.Errorf("%s: %+v, want half of one generator's %dm", n, p, workload.LoadGeneratorCPU)
		}
	}
}

func TestLoadTarget(t *testing.T) {
	for _, tt := range []struct {
		cmd     []string
		host    string
		svc, ns string
	}{
		{[]string{"/bin/sh", "-c", "while sleep 0.01; do wget -q -O- http://php-apache; done"}, "php-apache", "php-apache", "default"},
		{[]string{"sh", "-c", "while true; do wget -q -O- http://web.shop.svc.cluster.local:8080/x; sleep 1; done"}, "web.shop.svc.cluster.local", "web", "shop"},
		{[]string{"sh", "-c", "wget -q -O- http://web"}, "", "", ""}, // one request is no load
		{[]string{"sleep", "3600"}, "", "", ""},
	} {
		host := workload.LoadTarget(tt.cmd)
		if host != tt.host {
			t.Errorf("LoadTarget(%q) = %q, want %q", tt.cmd, host, tt.host)
			continue
		}
		if host == "" {
			continue
		}
		if svc, ns := workload.ServiceOf(host, "default"); svc != tt.svc || ns != tt.ns {
			t.Errorf("ServiceOf(%q) = %s/%s, want %s/%s", host, ns, svc, tt.ns, tt.svc)
		}
	}
}

// BenchmarkScrape10000 is one scrape of a 10,000-pod cluster with one
// loaded Deployment of 100 pods: the work the metrics-server adds every
// 15 s of virtual time.
func BenchmarkScrape10000(b *testing.B) {
	t := &testing.T{}
	loop, st, loads, m := newCluster(t)
	for i := 0; i < 10000; i++ {
		labels := map[string]string{"app": "other"}
		if i < 100 {
			labels = map[string]string{"app": "web"}
		}
		addPod(t, st, podSpec{name: fmt.Sprintf("p%05d", i), image: "nginx:1.27", labels: labels, ready: true})
	}
	loads.Set("default", "web", workload.Demand{CPUMilli: 5000})
	loop.SetNow(Resolution)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Scrape()
	}
	if len(m.Pods("")) != 10000 {
		b.Fatalf("%d samples", len(m.Pods("")))
	}
}
