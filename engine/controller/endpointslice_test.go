package controller

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/trace"
)

func makeService(name string, selector map[string]string) *corev1.Service {
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"team": "shop"}},
		Spec: corev1.ServiceSpec{Selector: selector,
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("web")}}},
	}
}

func (c *cluster) slices(svc string) []*discoveryv1.EndpointSlice {
	var out []*discoveryv1.EndpointSlice
	for _, o := range c.env.Store.List(kinds.EndpointSlice, "default") {
		if es := o.(*discoveryv1.EndpointSlice); es.Labels[discoveryv1.LabelServiceName] == svc {
			out = append(out, es)
		}
	}
	return out
}

func withNamedPort(b *deployBuilder) *deployBuilder {
	b.d.Spec.Template.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "web", ContainerPort: 8080}}
	return b
}

func TestEndpointSlicePlaceholderThenEndpoints(t *testing.T) {
	c := newCluster(t)
	c.create(&corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{corev1.LabelTopologyZone: "zone-a"}}})
	svc := c.create(makeService("api", map[string]string{"app": "api"})).(*corev1.Service)
	c.run()
	ss := c.slices("api")
	if len(ss) != 1 {
		t.Fatalf("%d slices for a Service without pods; want 1 placeholder", len(ss))
	}
	ph := ss[0]
	if !strings.HasPrefix(ph.Name, "api-") || ph.GenerateName != "api-" || ph.AddressType != discoveryv1.AddressTypeIPv4 ||
		len(ph.Ports) != 0 || len(ph.Endpoints) != 0 {
		t.Errorf("placeholder = %s (%s) %s ports %v endpoints %v", ph.Name, ph.GenerateName, ph.AddressType, ph.Ports, ph.Endpoints)
	}
	wantLabels := map[string]string{"team": "shop", discoveryv1.LabelServiceName: "api", discoveryv1.LabelManagedBy: EndpointSliceManagedBy}
	for k, v := range wantLabels {
		if ph.Labels[k] != v {
			t.Errorf("label %s = %q; want %q", k, ph.Labels[k], v)
		}
	}
	if ref := metav1.GetControllerOf(ph); ref == nil || ref.UID != svc.UID || ref.Kind != "Service" {
		t.Errorf("controller reference %+v", ref)
	}

	c.create(withNamedPort(makeDeployment("api", 2)).obj())
	c.run()
	if ss := c.slices("api"); len(ss[0].Endpoints) != 0 {
		t.Errorf("pods without IPs are endpoints: %v", ss[0].Endpoints)
	}
	for _, o := range c.env.Store.List(kinds.Pod, "default") {
		cp := o.(*corev1.Pod).DeepCopy()
		cp.Spec.NodeName = "n1"
		c.env.Store.Update(cp, 0)
	}
	c.startPods()
	c.run()
	ss = c.slices("api")
	if len(ss) != 1 || ss[0].Name != ph.Name {
		t.Fatalf("slices %d (first %s); want the placeholder %s reused", len(ss), ss[0].Name, ph.Name)
	}
	es := ss[0]
	if len(es.Ports) != 1 || *es.Ports[0].Port != 8080 || *es.Ports[0].Name != "http" || *es.Ports[0].Protocol != corev1.ProtocolTCP {
		t.Errorf("ports %+v; want http 8080/TCP resolved from the named targetPort", es.Ports)
	}
	if len(es.Endpoints) != 2 {
		t.Fatalf("endpoints = %d; want 2", len(es.Endpoints))
	}
	for _, ep := range es.Endpoints {
		if !*ep.Conditions.Ready || !*ep.Conditions.Serving || *ep.Conditions.Terminating ||
			*ep.NodeName != "n1" || *ep.Zone != "zone-a" || ep.TargetRef.Kind != "Pod" || len(ep.Addresses) != 1 {
			t.Errorf("endpoint %+v", ep)
		}
	}
	var ready []trace.Event
	for _, e := range c.env.Trace.All() {
		if strings.Contains(e.Message, "is now a ready endpoint of service/api") {
			ready = append(ready, e)
		}
	}
	if len(ready) != 2 {
		t.Fatalf("%d 'ready endpoint' trace events; want 2", len(ready))
	}
	for _, e := range ready {
		if e.Column != trace.Run || e.Lane != trace.ControlPlane || e.Rev == 0 || !strings.HasPrefix(e.Object, "pod/api-") || e.Why == "" {
			t.Errorf("trace %+v; want Run, control-plane, a revision, the pod and a why", e)
		}
	}

	for _, e := range c.env.Trace.All() {
		if strings.Contains(e.Message, "no longer") {
			t.Errorf("spurious transition while every pod stays ready: %s", e.Message)
		}
	}
	// A pod is deleted while bound: it terminates, not ready but serving.
	victim := es.Endpoints[0].TargetRef.Name
	if _, err := c.env.API.Delete(setup, kinds.Pod, "default", victim, deleteBackground); err != nil {
		t.Fatal(err)
	}
	c.run()
	for _, ep := range c.slices("api")[0].Endpoints {
		if ep.TargetRef.Name == victim && (*ep.Conditions.Ready || !*ep.Conditions.Serving || !*ep.Conditions.Terminating) {
			t.Errorf("terminating endpoint %+v; want ready=false serving=true terminating=true", ep.Conditions)
		}
	}
	found := false
	for _, e := range c.env.Trace.All() {
		if e.Message == "pod/"+victim+" is no longer a ready endpoint of service/api (terminating)" && e.Column == trace.Maintain {
			found = true
		}
	}
	if !found {
		t.Error("no Maintain trace for the terminating endpoint")
	}
	// Converged.
	c.actions()
	c.esc.Reconcile("default/api")
	c.expectActions()
}

func TestEndpointSliceSplitsAt100(t *testing.T) {
	c := newCluster(t)
	c.create(makeService("api", map[string]string{"app": "api"}))
	c.create(withNamedPort(makeDeployment("api", 130)).obj())
	c.run()
	c.startPods()
	c.run()
	ss := c.slices("api")
	n := 0
	for _, s := range ss {
		if len(s.Endpoints) > MaxEndpointsPerSlice {
			t.Errorf("slice %s has %d endpoints", s.Name, len(s.Endpoints))
		}
		n += len(s.Endpoints)
	}
	if len(ss) != 2 || n != 130 {
		t.Errorf("%d slices with %d endpoints; want 2 with 130", len(ss), n)
	}
}

func TestEndpointPortsAndPodToEndpoint(t *testing.T) {
	svc := makeService("api", nil)
	svc.Spec.Ports = append(svc.Spec.Ports,
		corev1.ServicePort{Name: "metrics", Port: 9090, TargetPort: intstr.FromInt32(9100)},
		corev1.ServicePort{Name: "missing", Port: 81, TargetPort: intstr.FromString("nope")})
	p := makePod("p").obj()
	p.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "web", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}
	svc.Spec.Ports[0].Protocol = corev1.ProtocolTCP
	ports := EndpointPorts(svc, p)
	if len(ports) != 2 || *ports[0].Port != 8080 || *ports[1].Port != 9100 {
		t.Errorf("EndpointPorts = %d ports; want 8080 and 9100, the unresolvable one left out", len(ports))
	}
	svc.Spec.PublishNotReadyAddresses = true
	ep := PodToEndpoint(p, nil, svc)
	if !*ep.Conditions.Ready || *ep.Conditions.Serving {
		t.Errorf("publishNotReadyAddresses: ready %v serving %v; want true, false", *ep.Conditions.Ready, *ep.Conditions.Serving)
	}
	if ShouldPodBeInEndpoints(p, true) {
		t.Error("a pod without an IP is an endpoint")
	}
	p.Status.PodIPs = []corev1.PodIP{{IP: "10.0.0.9"}}
	p.Status.Phase = corev1.PodSucceeded
	if ShouldPodBeInEndpoints(p, true) {
		t.Error("a Succeeded pod is an endpoint")
	}
}
