package apiserver

import (
	policyv1 "k8s.io/api/policy/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// resetStatusOnCreateMore clears the status of kinds added after the
// first ones (PrepareForCreate of their registry strategies).
func resetStatusOnCreateMore(obj kinds.Object) {
	if p, ok := obj.(*policyv1.PodDisruptionBudget); ok {
		// The disruption controller fills it; until then no disruption is allowed.
		p.Status = policyv1.PodDisruptionBudgetStatus{}
	}
}

// validatePDBSpec is ValidatePodDisruptionBudgetSpec (pkg/apis/policy/validation):
// minAvailable or maxUnavailable, not both, each a non-negative integer or
// a percentage up to 100%; a valid label selector; a known
// unhealthyPodEvictionPolicy.
func validatePDBSpec(s *policyv1.PodDisruptionBudgetSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.MinAvailable != nil && s.MaxUnavailable != nil {
		errs = append(errs, field.Invalid(p, field.OmitValueType{}, "minAvailable and maxUnavailable cannot be both set"))
	}
	for _, f := range []struct {
		name string
		v    *intstr.IntOrString
	}{{"minAvailable", s.MinAvailable}, {"maxUnavailable", s.MaxUnavailable}} {
		if f.v == nil {
			continue
		}
		fp := p.Child(f.name)
		errs = append(errs, validateIntOrPercent(*f.v, fp)...)
		if n, ok := percentValue(*f.v); ok && n > 100 {
			errs = append(errs, field.Invalid(fp, *f.v, "must not be greater than 100%"))
		}
	}
	errs = append(errs, metav1validation.ValidateLabelSelector(s.Selector,
		metav1validation.LabelSelectorValidationOptions{}, p.Child("selector"))...)
	if s.UnhealthyPodEvictionPolicy != nil {
		switch *s.UnhealthyPodEvictionPolicy {
		case policyv1.AlwaysAllow, policyv1.IfHealthyBudget:
		default:
			errs = append(errs, field.NotSupported(p.Child("unhealthyPodEvictionPolicy"), *s.UnhealthyPodEvictionPolicy,
				[]string{string(policyv1.AlwaysAllow), string(policyv1.IfHealthyBudget)}))
		}
	}
	return errs
}
