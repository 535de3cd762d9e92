package apiserver

import (
	"fmt"
	"math"
	"net/netip"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// The validation here is a faithful subset of k/k pkg/apis/core/validation,
// pkg/apis/apps/validation, pkg/apis/autoscaling/validation and
// pkg/apis/discovery/validation, written against the v1 types kubeloop
// stores: the same checks, field paths and messages for everything
// kubeloop models. Checks of features kubeloop does not model (volumes'
// sources, security contexts, ...) are left out; those fields are reported
// as not simulated instead (see Unsimulated).

// specPath is the path of every object's spec. A field.Path is never
// changed once built (Child, Index and Key make new ones), so one serves
// every request instead of one allocated per object created.
var specPath = field.NewPath("spec")

// Validate checks a new object as kube-apiserver's create validation does.
// It expects a defaulted object whose name has been generated.
func Validate(obj kinds.Object) field.ErrorList {
	switch o := obj.(type) {
	case *corev1.Pod:
		errs := validateMeta(&o.ObjectMeta, true, nameIsDNSSubdomain)
		return append(errs, validatePodSpec(&o.Spec, specPath)...)
	case *appsv1.Deployment:
		errs := validateMeta(&o.ObjectMeta, true, nameIsDNSSubdomain)
		return append(errs, validateDeploymentSpec(&o.Spec, specPath)...)
	case *appsv1.ReplicaSet:
		errs := validateMeta(&o.ObjectMeta, true, nameIsDNSSubdomain)
		return append(errs, validateReplicaSetSpec(&o.Spec, specPath)...)
	case *corev1.Service:
		errs := validateMeta(&o.ObjectMeta, true, apimachineryvalidation.NameIsDNS1035Label)
		return append(errs, validateServiceSpec(o, specPath)...)
	case *corev1.Namespace:
		return validateMeta(&o.ObjectMeta, false, apimachineryvalidation.NameIsDNSLabel)
	case *corev1.Node:
		errs := validateMeta(&o.ObjectMeta, false, nameIsDNSSubdomain)
		errs = append(errs, validateTaints(o.Spec.Taints, field.NewPath("spec", "taints"))...)
		return append(errs, validateResourceList(o.Status.Capacity, field.NewPath("status", "capacity"))...)
	case *corev1.Event:
		return validateMeta(&o.ObjectMeta, true, nameIsDNSSubdomain)
	case *discoveryv1.EndpointSlice:
		errs := validateMeta(&o.ObjectMeta, true, nameIsDNSSubdomain)
		return append(errs, validateEndpointSlice(o)...)
	case *coordinationv1.Lease:
		return validateMeta(&o.ObjectMeta, true, nameIsDNSSubdomain)
	case *autoscalingv2.HorizontalPodAutoscaler:
		errs := validateMeta(&o.ObjectMeta, true, nameIsDNSSubdomain)
		return append(errs, validateHPASpec(&o.Spec, specPath)...)
	case *policyv1.PodDisruptionBudget:
		errs := validateMeta(&o.ObjectMeta, true, nameIsDNSSubdomain)
		return append(errs, validatePDBSpec(&o.Spec, specPath)...)
	case *schedulingv1.PriorityClass:
		return validatePriorityClass(o)
	}
	panic(fmt.Sprintf("apiserver: no validation for %T", obj))
}

// ValidateUpdate checks an update of old to obj as kube-apiserver's update
// validation does: obj must be valid, server-owned metadata must not move,
// and each kind's immutable fields must not change (a Deployment's or
// ReplicaSet's selector, a Service's cluster IP, most of a pod's spec).
func ValidateUpdate(obj, old kinds.Object) field.ErrorList {
	errs := metaUpdate(obj, old)
	errs = append(errs, Validate(obj)...)
	switch o := obj.(type) {
	case *appsv1.Deployment:
		errs = append(errs, apimachineryvalidation.ValidateImmutableField(o.Spec.Selector,
			old.(*appsv1.Deployment).Spec.Selector, field.NewPath("spec", "selector"))...)
	case *appsv1.ReplicaSet:
		errs = append(errs, apimachineryvalidation.ValidateImmutableField(o.Spec.Selector,
			old.(*appsv1.ReplicaSet).Spec.Selector, field.NewPath("spec", "selector"))...)
	case *corev1.Pod:
		errs = append(errs, validatePodSpecUpdate(&o.Spec, &old.(*corev1.Pod).Spec)...)
	case *corev1.Service:
		errs = append(errs, validateServiceUpdate(o, old.(*corev1.Service))...)
	case *schedulingv1.PriorityClass:
		errs = append(errs, validatePriorityClassUpdate(o, old.(*schedulingv1.PriorityClass))...)
	}
	return errs
}

// ValidateStatusUpdate checks a write to an object's /status: only the
// metadata rules apply (the spec is the stored one).
func ValidateStatusUpdate(obj, old kinds.Object) field.ErrorList {
	return metaUpdate(obj, old)
}

func metaUpdate(obj, old kinds.Object) field.ErrorList {
	if metaUpdateValid(obj, old) {
		return nil // what the full validation returns when it finds nothing (validation_fast.go)
	}
	return apimachineryvalidation.ValidateObjectMetaAccessorUpdate(obj, old, field.NewPath("metadata"))
}

func validateMeta(m *metav1.ObjectMeta, namespaced bool, nameFn apimachineryvalidation.ValidateNameFunc) field.ErrorList {
	if metaValid(m, namespaced, nameFn) {
		return nil // what the full validation returns when it finds nothing (validation_fast.go)
	}
	return apimachineryvalidation.ValidateObjectMeta(m, namespaced, nameFn, field.NewPath("metadata"))
}

var (
	supportedPortProtocols = []corev1.Protocol{corev1.ProtocolSCTP, corev1.ProtocolTCP, corev1.ProtocolUDP}
	supportedRestart       = []corev1.RestartPolicy{corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever}
	supportedDNSPolicies   = []corev1.DNSPolicy{corev1.DNSClusterFirstWithHostNet, corev1.DNSClusterFirst, corev1.DNSDefault, corev1.DNSNone}
	supportedPullPolicies  = []corev1.PullPolicy{corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever}
	supportedTermMsg       = []corev1.TerminationMessagePolicy{corev1.TerminationMessageReadFile, corev1.TerminationMessageFallbackToLogsOnError}
	supportedTaintEffects  = []corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}
	supportedServiceTypes  = []corev1.ServiceType{corev1.ServiceTypeClusterIP, corev1.ServiceTypeExternalName, corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeNodePort}
	supportedAffinities    = []corev1.ServiceAffinity{corev1.ServiceAffinityClientIP, corev1.ServiceAffinityNone}
)

func hasValue[T comparable](list []T, v T) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// validatePodSpec is the modelled part of ValidatePodSpec.
//
// Every pod created passes here, and a field path costs an allocation, so
// the pod spec checks build a path only where they report an error, and
// skip a check of a list or map that is empty or a probe that is not set
// (there is nothing for it to report): the errors, and their order, are
// those of checking everything with eagerly built paths.
func validatePodSpec(s *corev1.PodSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	if len(s.InitContainers) > 0 {
		errs = append(errs, validateContainers(s.InitContainers, names, p, "initContainers", false)...)
	}
	errs = append(errs, validateContainers(s.Containers, names, p, "containers", true)...)
	switch {
	case s.RestartPolicy == "":
		errs = append(errs, field.Required(p.Child("restartPolicy"), ""))
	case !hasValue(supportedRestart, s.RestartPolicy):
		errs = append(errs, field.NotSupported(p.Child("restartPolicy"), s.RestartPolicy, supportedRestart))
	}
	switch {
	case s.DNSPolicy == "":
		errs = append(errs, field.Required(p.Child("dnsPolicy"), ""))
	case !hasValue(supportedDNSPolicies, s.DNSPolicy):
		errs = append(errs, field.NotSupported(p.Child("dnsPolicy"), s.DNSPolicy, supportedDNSPolicies))
	}
	if !labelsValid(s.NodeSelector) {
		errs = append(errs, metav1validation.ValidateLabels(s.NodeSelector, p.Child("nodeSelector"))...)
	}
	if s.NodeName != "" {
		for _, msg := range nameIsDNSSubdomain(s.NodeName, false) {
			errs = append(errs, field.Invalid(p.Child("nodeName"), s.NodeName, msg))
		}
	}
	if s.ActiveDeadlineSeconds != nil {
		if v := *s.ActiveDeadlineSeconds; v < 1 || v > math.MaxInt32 {
			errs = append(errs, field.Invalid(p.Child("activeDeadlineSeconds"), v, validation.InclusiveRangeError(1, math.MaxInt32)))
		}
	}
	if s.Hostname != "" {
		for _, msg := range dns1123Label(s.Hostname) {
			errs = append(errs, field.Invalid(p.Child("hostname"), s.Hostname, msg))
		}
	}
	if s.Subdomain != "" {
		for _, msg := range dns1123Label(s.Subdomain) {
			errs = append(errs, field.Invalid(p.Child("subdomain"), s.Subdomain, msg))
		}
	}
	if len(s.Tolerations) > 0 {
		errs = append(errs, validateTolerations(s.Tolerations, p)...)
	}
	errs = append(errs, validatePlacement(s, p)...)
	if s.Overhead != nil {
		errs = append(errs, validateResourceList(s.Overhead, p.Child("overhead"))...)
	}
	return errs
}

// validateContainers checks containers (regular or init; names are unique
// across both), the list named list in the pod spec at spec.
func validateContainers(cs []corev1.Container, names map[string]bool, spec *field.Path, list string, required bool) field.ErrorList {
	var errs field.ErrorList
	if required && len(cs) == 0 {
		return append(errs, field.Required(spec.Child(list), ""))
	}
	for i := range cs {
		c := &cs[i]
		ip := func() *field.Path { return spec.Child(list).Index(i) } // built only for an error
		switch {
		case c.Name == "":
			errs = append(errs, field.Required(ip().Child("name"), ""))
		default:
			for _, msg := range dns1123Label(c.Name) {
				errs = append(errs, field.Invalid(ip().Child("name"), c.Name, msg))
			}
			if names[c.Name] {
				errs = append(errs, field.Duplicate(ip().Child("name"), c.Name))
			}
			names[c.Name] = true
		}
		if c.Image == "" {
			errs = append(errs, field.Required(ip().Child("image"), ""))
		} else if strings.TrimSpace(c.Image) != c.Image {
			errs = append(errs, field.Invalid(ip().Child("image"), c.Image, "must not have leading or trailing whitespace"))
		}
		if len(c.Ports) > 0 {
			errs = append(errs, validateContainerPorts(c.Ports, func() *field.Path { return ip().Child("ports") })...)
		}
		for j, e := range c.Env {
			if e.Name == "" {
				errs = append(errs, field.Required(ip().Child("env").Index(j).Child("name"), ""))
			} else {
				for _, msg := range validation.IsRelaxedEnvVarName(e.Name) {
					errs = append(errs, field.Invalid(ip().Child("env").Index(j).Child("name"), e.Name, msg))
				}
			}
		}
		if len(c.Resources.Limits) > 0 || len(c.Resources.Requests) > 0 {
			errs = append(errs, validateResources(&c.Resources, func() *field.Path { return ip().Child("resources") })...)
		}
		switch {
		case c.ImagePullPolicy == "":
			errs = append(errs, field.Required(ip().Child("imagePullPolicy"), ""))
		case !hasValue(supportedPullPolicies, c.ImagePullPolicy):
			errs = append(errs, field.NotSupported(ip().Child("imagePullPolicy"), c.ImagePullPolicy, supportedPullPolicies))
		}
		switch {
		case c.TerminationMessagePolicy == "":
			errs = append(errs, field.Required(ip().Child("terminationMessagePolicy"), ""))
		case !hasValue(supportedTermMsg, c.TerminationMessagePolicy):
			errs = append(errs, field.NotSupported(ip().Child("terminationMessagePolicy"), c.TerminationMessagePolicy, supportedTermMsg))
		}
		if c.LivenessProbe != nil {
			errs = append(errs, validateProbe(c.LivenessProbe, ip().Child("livenessProbe"))...)
		}
		if c.ReadinessProbe != nil {
			errs = append(errs, validateProbe(c.ReadinessProbe, ip().Child("readinessProbe"))...)
		}
		if c.StartupProbe != nil {
			errs = append(errs, validateProbe(c.StartupProbe, ip().Child("startupProbe"))...)
		}
		if c.LivenessProbe != nil && c.LivenessProbe.SuccessThreshold != 1 {
			errs = append(errs, field.Invalid(ip().Child("livenessProbe", "successThreshold"), c.LivenessProbe.SuccessThreshold, "must be 1"))
		}
		if c.StartupProbe != nil && c.StartupProbe.SuccessThreshold != 1 {
			errs = append(errs, field.Invalid(ip().Child("startupProbe", "successThreshold"), c.StartupProbe.SuccessThreshold, "must be 1"))
		}
	}
	return errs
}

// validateContainerPorts checks a container's ports; p builds their path
// (for an error only, as in validatePodSpec).
func validateContainerPorts(ports []corev1.ContainerPort, p func() *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	for i, port := range ports {
		ip := func() *field.Path { return p().Index(i) }
		if port.Name != "" {
			if msgs := validation.IsValidPortName(port.Name); len(msgs) != 0 {
				for _, msg := range msgs {
					errs = append(errs, field.Invalid(ip().Child("name"), port.Name, msg))
				}
			} else if names[port.Name] {
				errs = append(errs, field.Duplicate(ip().Child("name"), port.Name))
			} else {
				names[port.Name] = true
			}
		}
		if port.ContainerPort == 0 {
			errs = append(errs, field.Required(ip().Child("containerPort"), ""))
		} else {
			for _, msg := range validation.IsValidPortNum(int(port.ContainerPort)) {
				errs = append(errs, field.Invalid(ip().Child("containerPort"), port.ContainerPort, msg))
			}
		}
		if port.HostPort != 0 {
			for _, msg := range validation.IsValidPortNum(int(port.HostPort)) {
				errs = append(errs, field.Invalid(ip().Child("hostPort"), port.HostPort, msg))
			}
		}
		switch {
		case port.Protocol == "":
			errs = append(errs, field.Required(ip().Child("protocol"), ""))
		case !hasValue(supportedPortProtocols, port.Protocol):
			errs = append(errs, field.NotSupported(ip().Child("protocol"), port.Protocol, supportedPortProtocols))
		}
	}
	return errs
}

// validateResources is validateContainerResourceRequirements: known
// resource names, non-negative quantities, requests not above limits.
// p builds the path of r (for an error only, as in validatePodSpec).
func validateResources(r *corev1.ResourceRequirements, p func() *field.Path) field.ErrorList {
	var errs field.ErrorList
	limPath := func() *field.Path { return p().Child("limits") }
	reqPath := func() *field.Path { return p().Child("requests") }
	var buf [4]corev1.ResourceName // cpu, memory, ...: names in order without an allocation
	for _, name := range sortedNames(buf[:0], r.Limits) {
		key := func() *field.Path { return limPath().Key(string(name)) }
		errs = append(errs, validateResourceName(name, key)...)
		errs = append(errs, validateQuantity(name, r.Limits[name], key)...)
	}
	for _, name := range sortedNames(buf[:0], r.Requests) {
		q := r.Requests[name]
		key := func() *field.Path { return reqPath().Key(string(name)) }
		errs = append(errs, validateResourceName(name, key)...)
		errs = append(errs, validateQuantity(name, q, key)...)
		if limit, ok := r.Limits[name]; ok {
			if q.Cmp(limit) != 0 && !overcommitAllowed(name) {
				errs = append(errs, field.Invalid(reqPath(), q.String(), fmt.Sprintf("must be equal to %s limit of %s", name, limit.String())))
			} else if q.Cmp(limit) > 0 {
				errs = append(errs, field.Invalid(reqPath(), q.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", name, limit.String())))
			}
		} else if !overcommitAllowed(name) {
			errs = append(errs, field.Required(limPath(), "Limit must be set for non overcommitable resources"))
		}
	}
	return errs
}

func validateResourceList(l corev1.ResourceList, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	var buf [4]corev1.ResourceName
	for _, name := range sortedNames(buf[:0], l) {
		errs = append(errs, validateQuantity(name, l[name], func() *field.Path { return p.Key(string(name)) })...)
	}
	return errs
}

// sortedNames appends l's names to out, in order: errors are reported
// in that order.
func sortedNames(out []corev1.ResourceName, l corev1.ResourceList) []corev1.ResourceName {
	for n := range l {
		out = append(out, n)
	}
	slices.Sort(out) // the names are distinct, so any sort gives this order; sort.Slice allocated a swapper
	return out
}

func overcommitAllowed(name corev1.ResourceName) bool {
	return !strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix) && (!strings.Contains(string(name), "/") ||
		strings.Contains(string(name), "kubernetes.io/"))
}

// validateResourceName checks a resource name; p builds its path (for an
// error only).
func validateResourceName(name corev1.ResourceName, p func() *field.Path) field.ErrorList {
	var errs field.ErrorList
	if !qualifiedNameValid(string(name)) { // IsQualifiedName has messages exactly when this is false
		for _, msg := range validation.IsQualifiedName(string(name)) {
			errs = append(errs, field.Invalid(p(), name, msg))
		}
		return errs
	}
	if !strings.Contains(string(name), "/") {
		switch {
		case name == corev1.ResourceCPU, name == corev1.ResourceMemory, name == corev1.ResourceEphemeralStorage,
			strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix):
		default:
			errs = append(errs, field.Invalid(p(), name, "must be a standard resource for containers"))
		}
	} else if !strings.Contains(string(name), "kubernetes.io/") && strings.HasPrefix(string(name), "requests.") {
		errs = append(errs, field.Invalid(p(), name, "doesn't follow extended resource name standard"))
	}
	return errs
}

// validateQuantity checks a quantity; p builds its path (for an error
// only).
func validateQuantity(name corev1.ResourceName, q resource.Quantity, p func() *field.Path) field.ErrorList {
	if q.Cmp(resource.Quantity{}) < 0 {
		return field.ErrorList{field.Invalid(p(), q.String(), apimachineryvalidation.IsNegativeErrorMsg)}
	}
	if name == corev1.ResourcePods && q.MilliValue()%1000 != 0 {
		return field.ErrorList{field.Invalid(p(), q.String(), "must be an integer")}
	}
	return nil
}

// validateProbe is validateProbe and validateHandler of k/k.
func validateProbe(pr *corev1.Probe, p *field.Path) field.ErrorList {
	if pr == nil {
		return nil
	}
	var errs field.ErrorList
	n := 0
	h := &pr.ProbeHandler
	one := func(set bool, name string, check func(*field.Path) field.ErrorList) {
		if !set {
			return
		}
		if n > 0 {
			errs = append(errs, field.Forbidden(p.Child(name), "may not specify more than 1 handler type"))
			return
		}
		n++
		errs = append(errs, check(p.Child(name))...)
	}
	one(h.Exec != nil, "exec", func(fp *field.Path) field.ErrorList {
		if len(h.Exec.Command) == 0 {
			return field.ErrorList{field.Required(fp.Child("command"), "")}
		}
		return nil
	})
	one(h.HTTPGet != nil, "httpGet", func(fp *field.Path) field.ErrorList {
		var es field.ErrorList
		if h.HTTPGet.Path == "" {
			es = append(es, field.Required(fp.Child("path"), ""))
		}
		es = append(es, validatePortNumOrName(h.HTTPGet.Port, fp.Child("port"))...)
		if s := h.HTTPGet.Scheme; s != corev1.URISchemeHTTP && s != corev1.URISchemeHTTPS {
			es = append(es, field.NotSupported(fp.Child("scheme"), s, []corev1.URIScheme{corev1.URISchemeHTTP, corev1.URISchemeHTTPS}))
		}
		return es
	})
	one(h.TCPSocket != nil, "tcpSocket", func(fp *field.Path) field.ErrorList {
		return validatePortNumOrName(h.TCPSocket.Port, fp.Child("port"))
	})
	one(h.GRPC != nil, "grpc", func(fp *field.Path) field.ErrorList {
		var es field.ErrorList
		for _, msg := range validation.IsValidPortNum(int(h.GRPC.Port)) {
			es = append(es, field.Invalid(fp.Child("port"), h.GRPC.Port, msg))
		}
		return es
	})
	if n == 0 {
		errs = append(errs, field.Required(p, "must specify a handler type"))
	}
	errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(int64(pr.InitialDelaySeconds), p.Child("initialDelaySeconds"))...)
	errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(int64(pr.TimeoutSeconds), p.Child("timeoutSeconds"))...)
	errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(int64(pr.PeriodSeconds), p.Child("periodSeconds"))...)
	errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(int64(pr.SuccessThreshold), p.Child("successThreshold"))...)
	errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(int64(pr.FailureThreshold), p.Child("failureThreshold"))...)
	if g := pr.TerminationGracePeriodSeconds; g != nil && *g <= 0 {
		errs = append(errs, field.Invalid(p.Child("terminationGracePeriodSeconds"), *g, "must be greater than 0"))
	}
	return errs
}

func validatePortNumOrName(port intstr.IntOrString, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if port.Type == intstr.Int {
		for _, msg := range validation.IsValidPortNum(port.IntValue()) {
			errs = append(errs, field.Invalid(p, port.IntValue(), msg))
		}
		return errs
	}
	for _, msg := range validation.IsValidPortName(port.StrVal) {
		errs = append(errs, field.Invalid(p, port.StrVal, msg))
	}
	return errs
}

// validateTolerations is ValidateTolerations of k/k, for the tolerations
// of the pod spec at spec.
func validateTolerations(ts []corev1.Toleration, spec *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range ts {
		// The path is built only for an error: every pod has tolerations
		// (DefaultTolerationSeconds adds two), and almost every one is valid.
		ip := func() *field.Path { return spec.Child("tolerations").Index(i) }
		if t.Key != "" && !qualifiedNameValid(t.Key) { // ValidateLabelName reports IsQualifiedName's messages
			errs = append(errs, metav1validation.ValidateLabelName(t.Key, ip().Child("key"))...)
		}
		if t.Key == "" && t.Operator != corev1.TolerationOpExists {
			errs = append(errs, field.Invalid(ip().Child("operator"), t.Operator,
				"operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}
		if t.TolerationSeconds != nil && t.Effect != corev1.TaintEffectNoExecute {
			errs = append(errs, field.Invalid(ip().Child("effect"), t.Effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}
		switch t.Operator {
		case corev1.TolerationOpEqual, "":
			for _, msg := range validation.IsValidLabelValue(t.Value) {
				errs = append(errs, field.Invalid(ip().Child("operator"), t.Value, msg))
			}
		case corev1.TolerationOpExists:
			if t.Value != "" {
				errs = append(errs, field.Invalid(ip().Child("operator"), t, "value must be empty when `operator` is 'Exists'"))
			}
		default:
			errs = append(errs, field.NotSupported(ip().Child("operator"), t.Operator,
				[]corev1.TolerationOperator{corev1.TolerationOpEqual, corev1.TolerationOpExists}))
		}
		if t.Effect != "" && !hasValue(supportedTaintEffects, t.Effect) {
			errs = append(errs, field.NotSupported(ip().Child("effect"), t.Effect, supportedTaintEffects))
		}
	}
	return errs
}

// validateTaints is validateNodeTaints of k/k.
func validateTaints(ts []corev1.Taint, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[corev1.TaintEffect]map[string]bool{}
	for i, t := range ts {
		ip := p.Index(i)
		errs = append(errs, metav1validation.ValidateLabelName(t.Key, ip.Child("key"))...)
		if msgs := validation.IsValidLabelValue(t.Value); len(msgs) != 0 {
			errs = append(errs, field.Invalid(ip.Child("value"), t.Value, strings.Join(msgs, ";")))
		}
		switch {
		case t.Effect == "":
			errs = append(errs, field.Required(ip.Child("effect"), ""))
		case !hasValue(supportedTaintEffects, t.Effect):
			errs = append(errs, field.NotSupported(ip.Child("effect"), t.Effect, supportedTaintEffects))
		}
		if seen[t.Effect][t.Key] {
			e := field.Duplicate(ip, t)
			e.Detail = "taints must be unique by key and effect pair"
			errs = append(errs, e)
			continue
		}
		if seen[t.Effect] == nil {
			seen[t.Effect] = map[string]bool{}
		}
		seen[t.Effect][t.Key] = true
	}
	return errs
}

// validatePodTemplate is ValidatePodTemplateSpecForReplicaSet: the
// selector must match the template's labels, the pod spec must be valid,
// and the pods must restart Always. A spec without a selector is checked
// too, as kube checks it: LabelSelectorAsSelector(nil) matches nothing, so
// the labels are reported beside the missing selector, with every other
// error of the template in the same answer.
func validatePodTemplate(t *corev1.PodTemplateSpec, selector *metav1.LabelSelector, spec *field.Path, kindWord string) field.ErrorList {
	var errs field.ErrorList
	p := spec.Child("template")
	sel, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil {
		return append(errs, field.Invalid(spec.Child("selector"), selector, "invalid label selector"))
	}
	if !sel.Empty() && !sel.Matches(labels.Set(t.Labels)) {
		errs = append(errs, field.Invalid(p.Child("metadata", "labels"), t.Labels, "`selector` does not match template `labels`"))
	}
	errs = append(errs, metav1validation.ValidateLabels(t.Labels, p.Child("labels"))...)
	errs = append(errs, apimachineryvalidation.ValidateAnnotations(t.Annotations, p.Child("annotations"))...)
	errs = append(errs, validatePodSpec(&t.Spec, p.Child("spec"))...)
	if t.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		errs = append(errs, field.NotSupported(p.Child("spec", "restartPolicy"), t.Spec.RestartPolicy,
			[]corev1.RestartPolicy{corev1.RestartPolicyAlways}))
	}
	if t.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Forbidden(p.Child("spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in "+kindWord+" is not Supported"))
	}
	return errs
}

func validateSelector(sel *metav1.LabelSelector, p *field.Path, kindWord string) field.ErrorList {
	if sel == nil {
		return field.ErrorList{field.Required(p, "")}
	}
	errs := metav1validation.ValidateLabelSelector(sel, metav1validation.LabelSelectorValidationOptions{}, p)
	if len(sel.MatchLabels)+len(sel.MatchExpressions) == 0 {
		errs = append(errs, field.Invalid(p, sel, "empty selector is invalid for "+kindWord))
	}
	return errs
}

// validateDeploymentSpec is ValidateDeploymentSpec of k/k.
func validateDeploymentSpec(s *appsv1.DeploymentSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.Replicas != nil {
		errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(int64(*s.Replicas), p.Child("replicas"))...)
	}
	errs = append(errs, validateSelector(s.Selector, p.Child("selector"), "deployment")...)
	errs = append(errs, validatePodTemplate(&s.Template, s.Selector, p, "ReplicaSet")...)
	st := s.Strategy
	sp := p.Child("strategy")
	switch st.Type {
	case appsv1.RecreateDeploymentStrategyType:
		if st.RollingUpdate != nil {
			errs = append(errs, field.Forbidden(sp.Child("rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'"))
		}
	case appsv1.RollingUpdateDeploymentStrategyType:
		if st.RollingUpdate == nil {
			errs = append(errs, field.Required(sp.Child("rollingUpdate"), "this should be defaulted and never be nil"))
		} else {
			errs = append(errs, validateRollingUpdate(st.RollingUpdate, sp.Child("rollingUpdate"))...)
		}
	default:
		errs = append(errs, field.NotSupported(sp, st, []appsv1.DeploymentStrategyType{
			appsv1.RecreateDeploymentStrategyType, appsv1.RollingUpdateDeploymentStrategyType}))
	}
	errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(int64(s.MinReadySeconds), p.Child("minReadySeconds"))...)
	if s.RevisionHistoryLimit != nil {
		errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(int64(*s.RevisionHistoryLimit), p.Child("revisionHistoryLimit"))...)
	}
	if s.ProgressDeadlineSeconds != nil {
		errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(int64(*s.ProgressDeadlineSeconds), p.Child("progressDeadlineSeconds"))...)
		if *s.ProgressDeadlineSeconds <= s.MinReadySeconds {
			errs = append(errs, field.Invalid(p.Child("progressDeadlineSeconds"), s.ProgressDeadlineSeconds, "must be greater than minReadySeconds"))
		}
	}
	return errs
}

func validateRollingUpdate(ru *appsv1.RollingUpdateDeployment, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	var mu, ms intstr.IntOrString
	if ru.MaxUnavailable != nil {
		mu = *ru.MaxUnavailable
	}
	if ru.MaxSurge != nil {
		ms = *ru.MaxSurge
	}
	errs = append(errs, validateIntOrPercent(mu, p.Child("maxUnavailable"))...)
	errs = append(errs, validateIntOrPercent(ms, p.Child("maxSurge"))...)
	if intOrPercentValue(mu) == 0 && intOrPercentValue(ms) == 0 {
		errs = append(errs, field.Invalid(p.Child("maxUnavailable"), mu, "may not be 0 when `maxSurge` is 0"))
	}
	if v, ok := percentValue(mu); ok && v > 100 {
		errs = append(errs, field.Invalid(p.Child("maxUnavailable"), mu, "must not be greater than 100%"))
	}
	return errs
}

func validateIntOrPercent(v intstr.IntOrString, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if v.Type == intstr.String {
		for _, msg := range validation.IsValidPercent(v.StrVal) {
			errs = append(errs, field.Invalid(p, v, msg))
		}
		return errs
	}
	return apimachineryvalidation.ValidateNonnegativeField(int64(v.IntValue()), p)
}

func percentValue(v intstr.IntOrString) (int, bool) {
	if v.Type != intstr.String || len(validation.IsValidPercent(v.StrVal)) != 0 {
		return 0, false
	}
	n := 0
	for _, c := range v.StrVal[:len(v.StrVal)-1] {
		n = n*10 + int(c-'0')
	}
	return n, true
}

func intOrPercentValue(v intstr.IntOrString) int {
	if n, ok := percentValue(v); ok {
		return n
	}
	return v.IntValue()
}

// validateReplicaSetSpec is ValidateReplicaSetSpec of k/k (whose empty
// selector message does say "deployment").
func validateReplicaSetSpec(s *appsv1.ReplicaSetSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.Replicas != nil {
		errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(int64(*s.Replicas), p.Child("replicas"))...)
	}
	errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(int64(s.MinReadySeconds), p.Child("minReadySeconds"))...)
	errs = append(errs, validateSelector(s.Selector, p.Child("selector"), "deployment")...)
	errs = append(errs, validatePodTemplate(&s.Template, s.Selector, p, "ReplicaSet")...)
	return errs
}

// validateServiceSpec is the modelled part of ValidateService.
func validateServiceSpec(svc *corev1.Service, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	s := &svc.Spec
	headless := s.ClusterIP == corev1.ClusterIPNone
	if len(s.Ports) == 0 && !headless && s.Type != corev1.ServiceTypeExternalName {
		errs = append(errs, field.Required(p.Child("ports"), ""))
	}
	if s.Type == corev1.ServiceTypeExternalName {
		if len(s.ClusterIPs) > 0 {
			errs = append(errs, field.Forbidden(p.Child("clusterIPs"), "may not be set for ExternalName services"))
		}
		cname := strings.TrimSuffix(s.ExternalName, ".")
		if cname == "" {
			errs = append(errs, field.Required(p.Child("externalName"), ""))
		} else {
			for _, msg := range validation.IsDNS1123Subdomain(cname) {
				errs = append(errs, field.Invalid(p.Child("externalName"), cname, msg))
			}
		}
	}
	names := map[string]bool{}
	for i := range s.Ports {
		sp := &s.Ports[i]
		ip := p.Child("ports").Index(i)
		if len(s.Ports) > 1 && sp.Name == "" {
			errs = append(errs, field.Required(ip.Child("name"), ""))
		} else if sp.Name != "" {
			for _, msg := range dns1123Label(sp.Name) {
				errs = append(errs, field.Invalid(ip.Child("name"), sp.Name, msg))
			}
			if names[sp.Name] {
				errs = append(errs, field.Duplicate(ip.Child("name"), sp.Name))
			}
			names[sp.Name] = true
		}
		for _, msg := range validation.IsValidPortNum(int(sp.Port)) {
			errs = append(errs, field.Invalid(ip.Child("port"), sp.Port, msg))
		}
		switch {
		case sp.Protocol == "":
			errs = append(errs, field.Required(ip.Child("protocol"), ""))
		case !hasValue(supportedPortProtocols, sp.Protocol):
			errs = append(errs, field.NotSupported(ip.Child("protocol"), sp.Protocol, supportedPortProtocols))
		}
		errs = append(errs, validatePortNumOrName(sp.TargetPort, ip.Child("targetPort"))...)
		if s.Type == corev1.ServiceTypeClusterIP && sp.NodePort != 0 {
			errs = append(errs, field.Forbidden(ip.Child("nodePort"), "may not be used when `type` is 'ClusterIP'"))
		}
	}
	if s.Selector != nil {
		errs = append(errs, metav1validation.ValidateLabels(s.Selector, p.Child("selector"))...)
	}
	switch {
	case s.SessionAffinity == "":
		errs = append(errs, field.Required(p.Child("sessionAffinity"), ""))
	case !hasValue(supportedAffinities, s.SessionAffinity):
		errs = append(errs, field.NotSupported(p.Child("sessionAffinity"), s.SessionAffinity, supportedAffinities))
	}
	switch {
	case s.Type == "":
		errs = append(errs, field.Required(p.Child("type"), ""))
	case !hasValue(supportedServiceTypes, s.Type):
		errs = append(errs, field.NotSupported(p.Child("type"), s.Type, supportedServiceTypes))
	}
	if s.ClusterIP != "" && s.ClusterIP != corev1.ClusterIPNone {
		if _, err := netip.ParseAddr(s.ClusterIP); err != nil {
			errs = append(errs, field.Invalid(p.Child("clusterIPs").Index(0), s.ClusterIP,
				"must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"))
		}
	}
	type portKey struct {
		proto corev1.Protocol
		port  int32
	}
	seen := map[portKey]bool{}
	for i, sp := range s.Ports {
		k := portKey{sp.Protocol, sp.Port}
		if seen[k] {
			errs = append(errs, field.Duplicate(p.Child("ports").Index(i), corev1.ServicePort{Protocol: sp.Protocol, Port: sp.Port}))
		}
		seen[k] = true
	}
	return errs
}

// validateServiceUpdate: a Service's cluster IP is immutable (k/k
// validateUpgradeDowngradeClusterIPs), except to or from ExternalName.
func validateServiceUpdate(svc, old *corev1.Service) field.ErrorList {
	if svc.Spec.Type == corev1.ServiceTypeExternalName || old.Spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	if len(old.Spec.ClusterIPs) > 0 && len(svc.Spec.ClusterIPs) > 0 && svc.Spec.ClusterIPs[0] != old.Spec.ClusterIPs[0] {
		return field.ErrorList{field.Invalid(field.NewPath("spec", "clusterIPs").Index(0), svc.Spec.ClusterIPs, "may not change once set")}
	}
	if old.Spec.ClusterIP != "" && svc.Spec.ClusterIP != old.Spec.ClusterIP {
		return field.ErrorList{field.Invalid(field.NewPath("spec", "clusterIP"), svc.Spec.ClusterIP, "field is immutable")}
	}
	return nil
}

// updatablePodSpecFields is how ValidatePodUpdate names what a pod update
// may change.
const updatablePodSpecFields = "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`," +
	"`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` " +
	"(allow it to be set to 1 if it was previously negative)"

// validatePodSpecUpdate is the heart of ValidatePodUpdate: apart from
// images, the active deadline, added tolerations and a negative grace
// period, a pod's spec is immutable. (Kubernetes appends a diff of the
// internal PodSpec; kubeloop names the changed fields in the locating line
// instead.)
func validatePodSpecUpdate(s, old *corev1.PodSpec) field.ErrorList {
	munged := s.DeepCopy()
	for i := range munged.Containers {
		if i < len(old.Containers) {
			munged.Containers[i].Image = old.Containers[i].Image
		}
	}
	for i := range munged.InitContainers {
		if i < len(old.InitContainers) {
			munged.InitContainers[i].Image = old.InitContainers[i].Image
		}
	}
	munged.ActiveDeadlineSeconds = old.ActiveDeadlineSeconds
	var errs field.ErrorList
	// Tolerations may only be added to.
	if tolerationsAdded(s.Tolerations, old.Tolerations) {
		munged.Tolerations = old.Tolerations
	}
	if g := old.TerminationGracePeriodSeconds; g != nil && *g < 0 && s.TerminationGracePeriodSeconds != nil && *s.TerminationGracePeriodSeconds == 1 {
		munged.TerminationGracePeriodSeconds = old.TerminationGracePeriodSeconds
	}
	if !equality.Semantic.DeepEqual(munged, old) {
		errs = append(errs, field.Forbidden(field.NewPath("spec"), "pod updates may not change fields other than "+updatablePodSpecFields))
	}
	return errs
}

func tolerationsAdded(now, old []corev1.Toleration) bool {
	for _, o := range old {
		found := false
		for _, n := range now {
			if equality.Semantic.DeepEqual(o, n) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// validateEndpointSlice is the modelled part of ValidateEndpointSlice.
func validateEndpointSlice(es *discoveryv1.EndpointSlice) field.ErrorList {
	var errs field.ErrorList
	types := []discoveryv1.AddressType{discoveryv1.AddressTypeFQDN, discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6}
	switch {
	case es.AddressType == "":
		errs = append(errs, field.Required(field.NewPath("addressType"), ""))
	case !hasValue(types, es.AddressType):
		errs = append(errs, field.NotSupported(field.NewPath("addressType"), es.AddressType, types))
	}
	for i, ep := range es.Endpoints {
		ap := field.NewPath("endpoints").Index(i).Child("addresses")
		if len(ep.Addresses) == 0 {
			errs = append(errs, field.Required(ap, "must contain at least 1 address"))
		} else if len(ep.Addresses) > 100 {
			errs = append(errs, field.TooMany(ap, len(ep.Addresses), 100))
		}
	}
	return errs
}

// validateHPASpec is the modelled part of validateHorizontalPodAutoscalerSpec.
func validateHPASpec(s *autoscalingv2.HorizontalPodAutoscalerSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.MinReplicas != nil && *s.MinReplicas < 1 {
		errs = append(errs, field.Invalid(p.Child("minReplicas"), *s.MinReplicas, "must be greater than or equal to 1"))
	}
	if s.MaxReplicas < 1 {
		errs = append(errs, field.Invalid(p.Child("maxReplicas"), s.MaxReplicas, "must be greater than 0"))
	}
	if s.MinReplicas != nil && s.MaxReplicas < *s.MinReplicas {
		errs = append(errs, field.Invalid(p.Child("maxReplicas"), s.MaxReplicas, "must be greater than or equal to `minReplicas`"))
	}
	rp := p.Child("scaleTargetRef")
	if s.ScaleTargetRef.Kind == "" {
		errs = append(errs, field.Required(rp.Child("kind"), ""))
	}
	if s.ScaleTargetRef.Name == "" {
		errs = append(errs, field.Required(rp.Child("name"), ""))
	}
	for i, m := range s.Metrics {
		mp := p.Child("metrics").Index(i)
		if m.Type == "" {
			errs = append(errs, field.Required(mp.Child("type"), "must specify a metric source type"))
			continue
		}
		if m.Type == autoscalingv2.ResourceMetricSourceType {
			if m.Resource == nil {
				errs = append(errs, field.Required(mp.Child("resource"), "must populate information for the given metric source"))
				continue
			}
			tp := mp.Child("resource", "target")
			if u := m.Resource.Target.AverageUtilization; u != nil && *u < 1 {
				errs = append(errs, field.Invalid(tp.Child("averageUtilization"), *u, "must be greater than 0"))
			}
			if m.Resource.Target.Type == "" {
				errs = append(errs, field.Required(tp.Child("type"), "must specify a metric target type"))
			}
		}
	}
	return errs
}
