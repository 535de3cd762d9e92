package engine

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/controller"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/store"
)

func TestDefaultClusterRunsKubelets(t *testing.T) {
	e := New(Config{Nodes: DefaultNodes(3)})
	if got := strings.Join(e.Kubelets().Nodes(), ","); got != "n1,n2,n3" {
		t.Fatalf("kubelets = %s; want n1,n2,n3", got)
	}
	if got := e.Store.Count(kinds.Lease); got != 3 {
		t.Errorf("node leases = %d; want 3", got)
	}
	for _, o := range e.Store.List(kinds.Node, "") {
		n := o.(*corev1.Node)
		if len(n.Status.Conditions) != 4 || n.Status.Conditions[3].Type != corev1.NodeReady ||
			n.Status.Conditions[3].Status != corev1.ConditionTrue || n.Spec.PodCIDR == "" {
			t.Errorf("node %s: conditions %v, podCIDR %q; want Ready and a pod CIDR", n.Name, n.Status.Conditions, n.Spec.PodCIDR)
		}
	}

	// A pod created with spec.nodeName goes straight to that node's kubelet.
	pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: corev1.PodSpec{NodeName: "n2", Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27",
			ImagePullPolicy: corev1.PullIfNotPresent}}}}
	if _, err := e.API.Create(e.Command("apply -f web.yaml"), pod); err != nil {
		t.Fatal(err)
	}
	e.Advance(30 * sim.Second)
	o, _ := e.Store.Lookup(kinds.Pod, "default", "web")
	got := o.(*corev1.Pod)
	if got.Status.Phase != corev1.PodRunning || got.Status.PodIP != "10.244.1.2" || got.Status.HostIP != "172.18.0.3" {
		t.Errorf("pod web: phase %s, podIP %s, hostIP %s; want Running on n2 (10.244.1.2, 172.18.0.3)",
			got.Status.Phase, got.Status.PodIP, got.Status.HostIP)
	}
	lines, err := e.Kubelets().Logs("default", "web", "", false)
	if err != nil || len(lines) == 0 {
		t.Errorf("logs of web: %d lines, %v", len(lines), err)
	}
	for _, n := range []string{"n1", "n3"} {
		if k, _ := e.Kubelets().Kubelet(n); k.Stats().PodEvents != 0 {
			t.Errorf("%s saw %d events of a pod on n2", n, k.Stats().PodEvents)
		}
	}
}

// BenchmarkIdleCluster100NodesHour is one hour of virtual time for 100
// idle nodes in a full engine: lease renewals and status reports, each
// delivered to every component.
func BenchmarkIdleCluster100NodesHour(b *testing.B) {
	controller.VerifyTallies, store.VerifyEncoding, framework.VerifyNodesScorers = false, false, false // measure the engine, not the tests' checks
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		e := New(Config{Nodes: DefaultNodes(100)})
		b.StartTimer()
		e.Advance(sim.Hour)
		b.StopTimer()
		if got := e.Kubelets().Stats().LeaseRenewals; got != 36000 {
			b.Fatalf("%d lease renewals; want 36000", got)
		}
	}
}
