package apiserver

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Placement validation: k/k pkg/apis/core/validation's validateAffinity and
// validateTopologySpreadConstraints, with their messages.

const isNotPositiveErrorMsg = "must be greater than zero"

// validatePlacement checks spec.affinity and spec.topologySpreadConstraints.
func validatePlacement(s *corev1.PodSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if a := s.Affinity; a != nil {
		ap := p.Child("affinity")
		if na := a.NodeAffinity; na != nil {
			errs = append(errs, validateNodeAffinity(na, ap.Child("nodeAffinity"))...)
		}
		if pa := a.PodAffinity; pa != nil {
			fp := ap.Child("podAffinity")
			errs = append(errs, validatePodAffinityTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution, fp.Child("requiredDuringSchedulingIgnoredDuringExecution"))...)
			errs = append(errs, validateWeightedPodAffinityTerms(pa.PreferredDuringSchedulingIgnoredDuringExecution, fp.Child("preferredDuringSchedulingIgnoredDuringExecution"))...)
		}
		if pa := a.PodAntiAffinity; pa != nil {
			fp := ap.Child("podAntiAffinity")
			errs = append(errs, validatePodAffinityTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution, fp.Child("requiredDuringSchedulingIgnoredDuringExecution"))...)
			errs = append(errs, validateWeightedPodAffinityTerms(pa.PreferredDuringSchedulingIgnoredDuringExecution, fp.Child("preferredDuringSchedulingIgnoredDuringExecution"))...)
		}
	}
	if len(s.TopologySpreadConstraints) > 0 { // as in validatePodSpec: no path for an empty list
		errs = append(errs, validateTopologySpreadConstraints(s.TopologySpreadConstraints, p.Child("topologySpreadConstraints"))...)
	}
	return errs
}

func validateNodeAffinity(na *corev1.NodeAffinity, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if r := na.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
		rp := p.Child("requiredDuringSchedulingIgnoredDuringExecution")
		if len(r.NodeSelectorTerms) == 0 {
			errs = append(errs, field.Required(rp.Child("nodeSelectorTerms"), "must have at least one node selector term"))
		}
		for i := range r.NodeSelectorTerms {
			errs = append(errs, validateNodeSelectorTerm(&r.NodeSelectorTerms[i], rp.Child("nodeSelectorTerms").Index(i))...)
		}
	}
	for i, t := range na.PreferredDuringSchedulingIgnoredDuringExecution {
		ip := p.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
		if t.Weight <= 0 || t.Weight > 100 {
			errs = append(errs, field.Invalid(ip.Child("weight"), t.Weight, "must be in the range 1-100"))
		}
		errs = append(errs, validateNodeSelectorTerm(&t.Preference, ip.Child("preference"))...)
	}
	return errs
}

func validateNodeSelectorTerm(t *corev1.NodeSelectorTerm, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, r := range t.MatchExpressions {
		errs = append(errs, validateNodeSelectorRequirement(r, p.Child("matchExpressions").Index(i))...)
	}
	for i, r := range t.MatchFields {
		ip := p.Child("matchFields").Index(i)
		switch {
		case r.Key != "metadata.name":
			errs = append(errs, field.Invalid(ip.Child("key"), r.Key, "not a valid field selector key"))
		case r.Operator != corev1.NodeSelectorOpIn && r.Operator != corev1.NodeSelectorOpNotIn:
			errs = append(errs, field.Invalid(ip.Child("operator"), r.Operator, "not a valid selector operator"))
		case len(r.Values) != 1:
			errs = append(errs, field.Required(ip.Child("values"), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
		}
	}
	return errs
}

func validateNodeSelectorRequirement(r corev1.NodeSelectorRequirement, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch r.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		if len(r.Values) == 0 {
			errs = append(errs, field.Required(p.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
		}
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		if len(r.Values) > 0 {
			errs = append(errs, field.Forbidden(p.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if len(r.Values) != 1 {
			errs = append(errs, field.Required(p.Child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'"))
		}
	default:
		errs = append(errs, field.Invalid(p.Child("operator"), r.Operator, "not a valid selector operator"))
	}
	return append(errs, metav1validation.ValidateLabelName(r.Key, p.Child("key"))...)
}

func validatePodAffinityTerms(ts []corev1.PodAffinityTerm, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i := range ts {
		errs = append(errs, validatePodAffinityTerm(&ts[i], p.Index(i))...)
	}
	return errs
}

func validateWeightedPodAffinityTerms(ts []corev1.WeightedPodAffinityTerm, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i := range ts {
		ip := p.Index(i)
		if ts[i].Weight <= 0 || ts[i].Weight > 100 {
			errs = append(errs, field.Invalid(ip.Child("weight"), ts[i].Weight, "must be in the range 1-100"))
		}
		errs = append(errs, validatePodAffinityTerm(&ts[i].PodAffinityTerm, ip.Child("podAffinityTerm"))...)
	}
	return errs
}

// validatePodAffinityTerm is kube's: selectors, namespaces, and a
// topologyKey that is required and a valid label name.
func validatePodAffinityTerm(t *corev1.PodAffinityTerm, p *field.Path) field.ErrorList {
	opts := metav1validation.LabelSelectorValidationOptions{}
	errs := metav1validation.ValidateLabelSelector(t.LabelSelector, opts, p.Child("labelSelector"))
	errs = append(errs, metav1validation.ValidateLabelSelector(t.NamespaceSelector, opts, p.Child("namespaceSelector"))...)
	for _, ns := range t.Namespaces {
		for _, msg := range apimachineryvalidation.ValidateNamespaceName(ns, false) {
			errs = append(errs, field.Invalid(p.Child("namespace"), ns, msg))
		}
	}
	if t.TopologyKey == "" {
		errs = append(errs, field.Required(p.Child("topologyKey"), "can not be empty"))
	}
	return append(errs, metav1validation.ValidateLabelName(t.TopologyKey, p.Child("topologyKey"))...)
}

var (
	supportedWhenUnsatisfiable = []string{string(corev1.DoNotSchedule), string(corev1.ScheduleAnyway)}
	supportedInclusionPolicies = []string{string(corev1.NodeInclusionPolicyHonor), string(corev1.NodeInclusionPolicyIgnore)}
)

// validateTopologySpreadConstraints is kube's, in its order per constraint.
func validateTopologySpreadConstraints(cs []corev1.TopologySpreadConstraint, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, c := range cs {
		ip := p.Index(i)
		if c.MaxSkew <= 0 {
			errs = append(errs, field.Invalid(ip.Child("maxSkew"), c.MaxSkew, isNotPositiveErrorMsg))
		}
		if c.TopologyKey == "" {
			errs = append(errs, field.Required(ip.Child("topologyKey"), "can not be empty"))
		}
		if !hasValue(supportedWhenUnsatisfiable, string(c.WhenUnsatisfiable)) {
			errs = append(errs, field.NotSupported(ip.Child("whenUnsatisfiable"), c.WhenUnsatisfiable, supportedWhenUnsatisfiable))
		}
		for _, r := range cs[i+1:] {
			if c.TopologyKey == r.TopologyKey && c.WhenUnsatisfiable == r.WhenUnsatisfiable {
				errs = append(errs, field.Duplicate(ip.Child("{topologyKey, whenUnsatisfiable}"), fmt.Sprintf("{%v, %v}", c.TopologyKey, c.WhenUnsatisfiable)))
				break
			}
		}
		if c.MinDomains != nil {
			if *c.MinDomains <= 0 {
				errs = append(errs, field.Invalid(ip.Child("minDomains"), c.MinDomains, isNotPositiveErrorMsg))
			}
			if c.WhenUnsatisfiable != corev1.DoNotSchedule {
				errs = append(errs, field.Invalid(ip.Child("minDomains"), c.MinDomains,
					fmt.Sprintf("can only use minDomains if whenUnsatisfiable=%s, not %s", corev1.DoNotSchedule, c.WhenUnsatisfiable)))
			}
		}
		if c.NodeAffinityPolicy != nil && !hasValue(supportedInclusionPolicies, string(*c.NodeAffinityPolicy)) {
			errs = append(errs, field.NotSupported(ip.Child("nodeAffinityPolicy"), c.NodeAffinityPolicy, supportedInclusionPolicies))
		}
		if c.NodeTaintsPolicy != nil && !hasValue(supportedInclusionPolicies, string(*c.NodeTaintsPolicy)) {
			errs = append(errs, field.NotSupported(ip.Child("nodeTaintsPolicy"), c.NodeTaintsPolicy, supportedInclusionPolicies))
		}
		errs = append(errs, metav1validation.ValidateLabelSelector(c.LabelSelector, metav1validation.LabelSelectorValidationOptions{}, ip.Child("labelSelector"))...)
	}
	return errs
}
