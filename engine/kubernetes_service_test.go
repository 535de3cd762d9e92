package engine

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/trace"
)

func kubernetesService(t *testing.T, e *Engine) (*corev1.Service, bool) {
	t.Helper()
	o, ok := e.Store.Lookup(kinds.Service, "default", "kubernetes")
	if !ok {
		return nil, false
	}
	return o.(*corev1.Service), true
}

func kubernetesSlice(t *testing.T, e *Engine) (*discoveryv1.EndpointSlice, bool) {
	t.Helper()
	o, ok := e.Store.Lookup(kinds.EndpointSlice, "default", "kubernetes")
	if !ok {
		return nil, false
	}
	return o.(*discoveryv1.EndpointSlice), true
}

// apiserverSteps is the trace's messages from the API server's own
// repairs (the Maintain column).
func apiserverSteps(e *Engine) []string {
	var out []string
	for _, ev := range e.Trace.All() {
		if ev.Component == "apiserver" && ev.Column == trace.Maintain {
			out = append(out, ev.Message)
		}
	}
	return out
}

func TestEveryClusterHasTheKubernetesService(t *testing.T) {
	e := New(Config{Nodes: DefaultNodes(3)})
	svc, ok := kubernetesService(t, e)
	if !ok {
		t.Fatal("no service/kubernetes in default")
	}
	if svc.Spec.ClusterIP != "10.96.0.1" || svc.Spec.Selector != nil || len(svc.Spec.Ports) != 1 {
		t.Fatalf("spec = %+v; want ClusterIP 10.96.0.1, no selector, one port", svc.Spec)
	}
	if p := svc.Spec.Ports[0]; p.Name != "https" || p.Port != 443 || p.TargetPort.IntVal != 6443 || p.Protocol != corev1.ProtocolTCP {
		t.Errorf("port = %+v; want https 443 → 6443/TCP", p)
	}
	if svc.Labels["component"] != "apiserver" || svc.Labels["provider"] != "kubernetes" {
		t.Errorf("labels = %v", svc.Labels)
	}
	es, ok := kubernetesSlice(t, e)
	if !ok {
		t.Fatal("no endpointslice/kubernetes")
	}
	if es.Labels[discoveryv1.LabelServiceName] != "kubernetes" || es.Labels[discoveryv1.LabelManagedBy] != "" {
		t.Errorf("slice labels = %v; want the service name and no managed-by", es.Labels)
	}
	if len(es.Endpoints) != 1 || es.Endpoints[0].Addresses[0] != apiserver.APIServerAddress.String() ||
		es.Endpoints[0].Conditions.Ready == nil || !*es.Endpoints[0].Conditions.Ready {
		t.Errorf("endpoints = %+v; want the API server's address, ready", es.Endpoints)
	}
	if len(es.Ports) != 1 || *es.Ports[0].Port != 6443 {
		t.Errorf("ports = %+v; want 6443", es.Ports)
	}
	// The bootstrap writes are not steps of the trace, as the namespaces'
	// are not; a cluster left alone never repairs anything.
	e.Advance(2 * sim.Minute)
	if steps := apiserverSteps(e); len(steps) != 0 {
		t.Errorf("repairs on an untouched cluster: %q", steps)
	}
}

func TestTheAPIServerPutsTheKubernetesServiceBack(t *testing.T) {
	e := New(Config{Nodes: DefaultNodes(3)})
	learner := apiserver.Actor{Component: apiserver.Kubectl}
	if _, err := e.API.Delete(learner, kinds.Service, "default", "kubernetes", apiserver.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.API.Delete(learner, kinds.EndpointSlice, "default", "kubernetes", apiserver.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.Advance(9 * sim.Second)
	if _, ok := kubernetesService(t, e); ok {
		t.Fatal("re-created before the loop's 10s")
	}
	e.Advance(1 * sim.Second)
	svc, ok := kubernetesService(t, e)
	if !ok || svc.Spec.ClusterIP != "10.96.0.1" {
		t.Fatalf("service/kubernetes not re-created at 10s with 10.96.0.1: %v", svc)
	}
	if _, ok := kubernetesSlice(t, e); !ok {
		t.Fatal("endpointslice/kubernetes not re-created")
	}
	if got := apiserverSteps(e); len(got) != 2 || !strings.HasPrefix(got[0], "re-created service/kubernetes") ||
		!strings.HasPrefix(got[1], "re-created endpointslice/kubernetes") {
		t.Fatalf("trace = %q; want the two re-creations", got)
	}

	// A learner's edit of the slice is undone; the Service's spec is not
	// reconciled after start-up, so an edit of it stays.
	es, _ := kubernetesSlice(t, e)
	es = es.DeepCopy()
	es.Endpoints[0].Addresses = []string{"10.0.0.9"}
	if _, err := e.API.Update(learner, es); err != nil {
		t.Fatal(err)
	}
	svc = svc.DeepCopy()
	svc.Spec.Ports[0].Port = 8443
	if _, err := e.API.Update(learner, svc); err != nil {
		t.Fatal(err)
	}
	e.Advance(10 * sim.Second)
	es, _ = kubernetesSlice(t, e)
	if es.Endpoints[0].Addresses[0] != apiserver.APIServerAddress.String() {
		t.Errorf("slice endpoints = %v; want reset to the API server's", es.Endpoints[0].Addresses)
	}
	if svc, _ := kubernetesService(t, e); svc.Spec.Ports[0].Port != 8443 {
		t.Errorf("service port = %d; the edit should stay", svc.Spec.Ports[0].Port)
	}
	if got := apiserverSteps(e); len(got) != 3 || !strings.HasPrefix(got[2], "reset endpointslice/kubernetes") {
		t.Fatalf("trace = %q; want the slice's reset", got)
	}
}

func TestARefusedRepairIsTracedOnceAndRetried(t *testing.T) {
	e := New(Config{Nodes: DefaultNodes(3)})
	learner := apiserver.Actor{Component: apiserver.Kubectl}
	if _, err := e.API.Delete(learner, kinds.Service, "default", "kubernetes", apiserver.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	grab := &corev1.Service{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: "grab", Namespace: "default"},
		Spec:       corev1.ServiceSpec{ClusterIP: "10.96.0.1", Ports: []corev1.ServicePort{{Port: 80}}}}
	if _, err := e.API.Create(learner, grab); err != nil {
		t.Fatal(err)
	}
	e.Advance(30 * sim.Second)
	got := apiserverSteps(e)
	if len(got) != 1 || !strings.Contains(got[0], "provided IP is already allocated") || !strings.Contains(got[0], "retrying every 10s") {
		t.Fatalf("trace = %q; want one refusal naming the taken IP", got)
	}
	if _, err := e.API.Delete(learner, kinds.Service, "default", "grab", apiserver.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.Advance(10 * sim.Second)
	if svc, ok := kubernetesService(t, e); !ok || svc.Spec.ClusterIP != "10.96.0.1" {
		t.Fatal("service/kubernetes not re-created once its IP was free")
	}
	if got := apiserverSteps(e); len(got) != 2 || !strings.HasPrefix(got[1], "re-created service/kubernetes") {
		t.Fatalf("trace = %q", got)
	}
}
