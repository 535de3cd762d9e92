package apiserver

import (
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// ServiceCIDR is the range cluster IPs are allocated from: kubeadm's
// default --service-cluster-ip-range.
var ServiceCIDR = netip.MustParsePrefix("10.96.0.0/12")

// Addresses a real cluster has taken before any user Service exists: the
// first address is the `kubernetes` Service's (kube-apiserver reserves it)
// and the tenth is kube-dns's in a kubeadm cluster. kubeloop keeps them
// free so that learners' Services get addresses they would plausibly see.
var reservedClusterIPs = map[netip.Addr]bool{
	netip.MustParseAddr("10.96.0.1"):  true,
	netip.MustParseAddr("10.96.0.10"): true,
}

// The NodePort range (--service-node-port-range default 30000-32767).
const (
	NodePortBase = 30000
	NodePortMax  = 32767
)

// allocateService is the Service REST storage's allocation on create: IP
// families, the cluster IP and node ports. Kubernetes picks a random free
// address; kubeloop picks the next free one, so that runs are reproducible
// and addresses read in order of creation.
func allocateService(v view, svc *corev1.Service) field.ErrorList {
	sp := &svc.Spec
	if sp.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	if sp.IPFamilyPolicy == nil {
		sp.IPFamilyPolicy = ptrTo(corev1.IPFamilyPolicySingleStack)
	}
	var errs field.ErrorList
	if *sp.IPFamilyPolicy == corev1.IPFamilyPolicyRequireDualStack {
		errs = append(errs, field.Invalid(field.NewPath("spec", "ipFamilyPolicy"), *sp.IPFamilyPolicy,
			"this cluster is not configured for dual-stack services"))
	}
	for i, f := range sp.IPFamilies {
		if f != corev1.IPv4Protocol {
			errs = append(errs, field.Invalid(field.NewPath("spec", "ipFamilies").Index(i), f, "not configured on this cluster"))
		}
	}
	if len(errs) > 0 {
		return errs
	}
	if len(sp.IPFamilies) == 0 {
		sp.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
	}
	if sp.ClusterIP == "" && len(sp.ClusterIPs) > 0 {
		sp.ClusterIP = sp.ClusterIPs[0]
	}
	if sp.ClusterIP == corev1.ClusterIPNone {
		sp.ClusterIPs = []string{corev1.ClusterIPNone}
	} else {
		usedIPs, usedPorts := allocated(v, svc)
		if sp.ClusterIP != "" {
			ip, err := netip.ParseAddr(sp.ClusterIP)
			switch {
			case err != nil:
				// Validation has already rejected unparsable addresses.
			case !ServiceCIDR.Contains(ip) || ip == ServiceCIDR.Addr():
				errs = append(errs, field.Invalid(field.NewPath("spec", "clusterIPs"), []string{sp.ClusterIP},
					fmt.Sprintf("failed to allocate IP %s: the provided IP (%s) is not in the valid range. The range of valid IPs is %s", ip, ip, ServiceCIDR)))
			case usedIPs[ip]:
				errs = append(errs, field.Invalid(field.NewPath("spec", "clusterIPs"), []string{sp.ClusterIP},
					fmt.Sprintf("failed to allocate IP %s: provided IP is already allocated", ip)))
			}
		} else {
			ip := ServiceCIDR.Addr().Next()
			for ; ServiceCIDR.Contains(ip.Next()); ip = ip.Next() {
				if !usedIPs[ip] && !reservedClusterIPs[ip] {
					break
				}
			}
			sp.ClusterIP = ip.String()
		}
		sp.ClusterIPs = []string{sp.ClusterIP}
		errs = append(errs, allocateNodePorts(sp, usedPorts)...)
	}
	return errs
}

// allocated collects the cluster IPs and node ports other Services hold.
func allocated(v view, self *corev1.Service) (map[netip.Addr]bool, map[int32]bool) {
	ips, ports := map[netip.Addr]bool{}, map[int32]bool{}
	for _, o := range v.List(kinds.Service, "") {
		svc := o.(*corev1.Service)
		if svc.Namespace == self.Namespace && svc.Name == self.Name {
			continue
		}
		for _, s := range svc.Spec.ClusterIPs {
			if ip, err := netip.ParseAddr(s); err == nil {
				ips[ip] = true
			}
		}
		for _, p := range svc.Spec.Ports {
			if p.NodePort != 0 {
				ports[p.NodePort] = true
			}
		}
	}
	return ips, ports
}

func allocateNodePorts(sp *corev1.ServiceSpec, used map[int32]bool) field.ErrorList {
	needs := sp.Type == corev1.ServiceTypeNodePort ||
		sp.Type == corev1.ServiceTypeLoadBalancer && (sp.AllocateLoadBalancerNodePorts == nil || *sp.AllocateLoadBalancerNodePorts)
	if !needs {
		return nil
	}
	var errs field.ErrorList
	for i := range sp.Ports {
		p := &sp.Ports[i]
		path := field.NewPath("spec", "ports").Index(i).Child("nodePort")
		switch {
		case p.NodePort == 0:
			for n := int32(NodePortBase); n <= NodePortMax; n++ {
				if !used[n] {
					p.NodePort = n
					break
				}
			}
		case p.NodePort < NodePortBase || p.NodePort > NodePortMax:
			errs = append(errs, field.Invalid(path, p.NodePort,
				fmt.Sprintf("provided port is not in the valid range. The range of valid ports is %d-%d", NodePortBase, NodePortMax)))
		case used[p.NodePort]:
			errs = append(errs, field.Invalid(path, p.NodePort, "provided port is already allocated"))
		}
		used[p.NodePort] = true
	}
	return errs
}

// keepServiceAllocations is the Service REST storage's patchAllocatedValues:
// an update that leaves out the cluster IP, the IP families or a port's
// node port keeps the ones already allocated (which is why re-applying a
// manifest without them works).
func keepServiceAllocations(svc, old *corev1.Service) {
	sp, op := &svc.Spec, &old.Spec
	needsIP := func(s *corev1.ServiceSpec) bool { return s.Type != corev1.ServiceTypeExternalName }
	if needsIP(sp) && needsIP(op) {
		if sp.ClusterIP == "" {
			sp.ClusterIP = op.ClusterIP
		}
		if len(sp.ClusterIPs) == 0 && len(op.ClusterIPs) > 0 {
			sp.ClusterIPs = append([]string(nil), op.ClusterIPs...)
		}
		if sp.IPFamilyPolicy == nil {
			sp.IPFamilyPolicy = op.IPFamilyPolicy
		}
		if len(sp.IPFamilies) == 0 {
			sp.IPFamilies = append([]corev1.IPFamily(nil), op.IPFamilies...)
		}
	}
	needsPorts := func(s *corev1.ServiceSpec) bool {
		return s.Type == corev1.ServiceTypeNodePort || s.Type == corev1.ServiceTypeLoadBalancer
	}
	if needsPorts(sp) && needsPorts(op) {
		inNew := map[int32]bool{}
		for _, p := range sp.Ports {
			inNew[p.NodePort] = true
		}
		byName := map[string]int32{}
		for _, p := range op.Ports {
			byName[p.Name] = p.NodePort
		}
		for i := range sp.Ports {
			if p := &sp.Ports[i]; p.NodePort == 0 {
				if old := byName[p.Name]; !inNew[old] {
					p.NodePort = old
				}
			}
		}
	}
}

// QOSClass computes a pod's quality-of-service class as the API server
// does on create (k/k pkg/apis/core/v1/helper/qos): BestEffort without any
// cpu or memory request or limit, Guaranteed when every container limits
// both and requests equal limits, Burstable otherwise.
func QOSClass(spec *corev1.PodSpec) corev1.PodQOSClass {
	// Only cpu and memory count, so the sums are kept in two arrays indexed
	// like names, not in maps; has* says whether a sum has a term.
	names := [2]corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory}
	var requests, limits [2]resource.Quantity
	var hasRequest, hasLimit [2]bool
	guaranteed := true
	for _, cs := range [2][]corev1.Container{spec.InitContainers, spec.Containers} {
		for ci := range cs {
			r := &cs[ci].Resources
			for i, name := range names {
				if q, ok := r.Requests[name]; ok && !q.IsZero() {
					requests[i].Add(q)
					hasRequest[i] = true
				}
				if q, ok := r.Limits[name]; ok && !q.IsZero() {
					limits[i].Add(q)
					hasLimit[i] = true
				} else {
					guaranteed = false
				}
			}
		}
	}
	if hasRequest == [2]bool{} && hasLimit == [2]bool{} {
		return corev1.PodQOSBestEffort
	}
	if guaranteed {
		for i := range names {
			if hasRequest[i] && (!hasLimit[i] || limits[i].Cmp(requests[i]) != 0) {
				guaranteed = false
			}
		}
	}
	if guaranteed && hasRequest == hasLimit {
		return corev1.PodQOSGuaranteed
	}
	return corev1.PodQOSBurstable
}
