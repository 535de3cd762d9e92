package apiserver

import (
	"fmt"
	"net/netip"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/trace"
)

// The `kubernetes` Service: every cluster has one in default, so that a pod
// reaches the API server at a stable address, https://kubernetes.default
// (10.96.0.1:443), wherever the API server runs. kube-apiserver's bootstrap
// controller keeps it (k/k pkg/controlplane/controller/kubernetesservice
// and pkg/controlplane/reconcilers): it creates the Service if it is
// missing, and resets the EndpointSlice behind it to the API servers'
// addresses, every EndpointInterval. It has no selector: no controller
// picks pods for it, the API server writes its endpoints itself.
//
// kubeloop simplifies: one API server, and no v1 Endpoints object (kubeloop
// serves EndpointSlices only).
const (
	KubernetesServiceName = "kubernetes"
	// KubernetesServicePort is the Service's port (https).
	KubernetesServicePort = 443
	// APIServerSecurePort is kube-apiserver's --secure-port, the
	// endpoint's port.
	APIServerSecurePort = 6443
	// EndpointInterval is how often the bootstrap controller reconciles
	// (kube-apiserver's DefaultEndpointReconcilerInterval).
	EndpointInterval = 10 * sim.Second
)

// APIServerAddress is the address the API server advertises
// (--advertise-address), its endpoint in the `kubernetes` Service.
// kubeloop's control plane is not one of its nodes (which take 172.18.0.2
// on, see the kubelet's nodeInternalIP), as a managed cluster's control
// plane runs off the node network.
var APIServerAddress = netip.MustParseAddr("172.16.0.2")

// KubernetesServiceIP is the `kubernetes` Service's cluster IP: the first
// address of the service range, which kube-apiserver reserves for it.
var KubernetesServiceIP = ServiceCIDR.Addr().Next()

func kubernetesService() *corev1.Service {
	return &corev1.Service{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: KubernetesServiceName, Namespace: metav1.NamespaceDefault,
			Labels: map[string]string{"provider": "kubernetes", "component": "apiserver"}},
		Spec: corev1.ServiceSpec{
			Ports: []corev1.ServicePort{{Name: "https", Protocol: corev1.ProtocolTCP,
				Port: KubernetesServicePort, TargetPort: intstr.FromInt32(APIServerSecurePort)}},
			ClusterIP:       KubernetesServiceIP.String(),
			IPFamilyPolicy:  ptrTo(corev1.IPFamilyPolicySingleStack),
			SessionAffinity: corev1.ServiceAffinityNone,
			Type:            corev1.ServiceTypeClusterIP,
		},
	}
}

// kubernetesEndpointSlice is the slice as the endpoints reconciler writes
// it: labelled with the Service's name but not managed-by, so that the
// EndpointSlice controller leaves it alone.
func kubernetesEndpointSlice() *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{
		TypeMeta: metav1.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice"},
		ObjectMeta: metav1.ObjectMeta{Name: KubernetesServiceName, Namespace: metav1.NamespaceDefault,
			Labels: map[string]string{discoveryv1.LabelServiceName: KubernetesServiceName}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{APIServerAddress.String()},
			Conditions: discoveryv1.EndpointConditions{Ready: ptrTo(true)}}},
		Ports: []discoveryv1.EndpointPort{{Name: ptrTo("https"), Protocol: ptrTo(corev1.ProtocolTCP),
			Port: ptrTo(int32(APIServerSecurePort))}},
	}
}

// CreateKubernetesService creates the `kubernetes` Service and its
// EndpointSlice on an empty cluster, as the bootstrap controller's first
// run does. Their UIDs are derived from their names, as the system
// PriorityClasses' are, so that every later UID stays what it was.
func (s *Server) CreateKubernetesService(a Actor) error {
	for _, obj := range []kinds.Object{kubernetesService(), kubernetesEndpointSlice()} {
		obj.SetCreationTimestamp(s.now())
		obj.SetUID(nameUID(kinds.Of(obj).Resource + "/" + obj.GetNamespace() + "/" + obj.GetName()))
		obj.SetGeneration(1)
		Default(obj)
		if err := s.validateCreate(s.store, obj); err != nil {
			return err
		}
		s.commitCreate(a, obj, "created")
	}
	return nil
}

// ReconcileKubernetesService is one run of the bootstrap controller's loop:
// it re-creates the `kubernetes` Service if someone deleted it, and
// re-creates or resets its EndpointSlice if it is missing or differs in
// its endpoints, ports or labels. As in Kubernetes, an existing Service is
// left as it is (its spec is only reconciled when the API server starts).
// Each repair is a step of its own in the trace. A repair the API refuses
// (a learner's Service took 10.96.0.1) is traced once, and tried again
// every run, as kube-apiserver logs and retries.
func (s *Server) ReconcileKubernetesService() {
	if _, ok := s.store.Lookup(kinds.Service, metav1.NamespaceDefault, KubernetesServiceName); !ok {
		msg := fmt.Sprintf("re-created service/%s, which was missing (ClusterIP %s, port %d/TCP)",
			KubernetesServiceName, KubernetesServiceIP, KubernetesServicePort)
		check := kubernetesService()
		Default(check)
		if err := s.validateCreate(s.store, check); err != nil {
			s.repairFailed(kinds.Service, err)
			return
		}
		if !s.repair(kinds.Service, msg, func(a Actor) error { _, err := s.Create(a, kubernetesService()); return err }) {
			return
		}
	}
	want := kubernetesEndpointSlice()
	cur, ok := s.store.Lookup(kinds.EndpointSlice, metav1.NamespaceDefault, KubernetesServiceName)
	if !ok {
		msg := fmt.Sprintf("re-created endpointslice/%s, which was missing: the API server's address %s:%d",
			KubernetesServiceName, APIServerAddress, APIServerSecurePort)
		s.repair(kinds.EndpointSlice, msg, func(a Actor) error { _, err := s.Create(a, want); return err })
		return
	}
	es := cur.(*discoveryv1.EndpointSlice)
	Default(want)
	if reflect.DeepEqual(es.Endpoints, want.Endpoints) && reflect.DeepEqual(es.Ports, want.Ports) &&
		reflect.DeepEqual(es.Labels, want.Labels) {
		s.repairErr = ""
		return
	}
	upd := es.DeepCopy()
	upd.Labels, upd.Endpoints, upd.Ports = want.Labels, want.Endpoints, want.Ports
	msg := fmt.Sprintf("reset endpointslice/%s to the API server's address %s:%d",
		KubernetesServiceName, APIServerAddress, APIServerSecurePort)
	s.repair(kinds.EndpointSlice, msg, func(a Actor) error { _, err := s.Update(a, upd); return err })
}

// repair traces one of the bootstrap controller's writes, then makes it,
// caused by that step; it reports whether the write succeeded.
func (s *Server) repair(k *kinds.Kind, message string, write func(Actor) error) bool {
	seq := s.traceRepair(k, message)
	if err := write(Actor{Component: "apiserver", Cause: seq}); err != nil {
		s.repairErr = repairMessage(k, err)
		s.trace.Amend(seq, "", s.repairErr)
		return false
	}
	s.repairErr = ""
	return true
}

// repairFailed traces a repair that validation refused, once until its
// error changes or a repair succeeds.
func (s *Server) repairFailed(k *kinds.Kind, err error) {
	if msg := repairMessage(k, err); msg != s.repairErr {
		s.repairErr = msg
		s.traceRepair(k, msg)
	}
}

func repairMessage(k *kinds.Kind, err error) string {
	return "could not repair " + k.Singular + "/" + KubernetesServiceName + ": " + err.Error() + "; retrying every 10s"
}

func (s *Server) traceRepair(k *kinds.Kind, message string) uint64 {
	return s.trace.Record(trace.Event{Component: "apiserver", Lane: trace.ControlPlane, Column: trace.Maintain,
		Namespace: metav1.NamespaceDefault, Object: k.Singular + "/" + KubernetesServiceName, Message: message,
		Why: "The API server keeps the kubernetes Service and its endpoints itself, checking every 10s, " +
			"so that pods always reach the API at kubernetes.default (10.96.0.1:443)."})
}
