package st

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func term(key, value, topologyKey string) corev1.PodAffinityTerm {
	return corev1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{key: value}},
		TopologyKey: topologyKey}
}

func (p *PodWrapper) podAffinity() *corev1.PodAffinity {
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &corev1.Affinity{}
	}
	if p.Spec.Affinity.PodAffinity == nil {
		p.Spec.Affinity.PodAffinity = &corev1.PodAffinity{}
	}
	return p.Spec.Affinity.PodAffinity
}

func (p *PodWrapper) podAntiAffinity() *corev1.PodAntiAffinity {
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &corev1.Affinity{}
	}
	if p.Spec.Affinity.PodAntiAffinity == nil {
		p.Spec.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{}
	}
	return p.Spec.Affinity.PodAntiAffinity
}

// PodAffinity adds a required pod affinity term: pods labelled key=value
// in the same topologyKey domain.
func (p *PodWrapper) PodAffinity(key, value, topologyKey string) *PodWrapper {
	a := p.podAffinity()
	a.RequiredDuringSchedulingIgnoredDuringExecution = append(a.RequiredDuringSchedulingIgnoredDuringExecution, term(key, value, topologyKey))
	return p
}

// PodAntiAffinity adds a required pod anti-affinity term.
func (p *PodWrapper) PodAntiAffinity(key, value, topologyKey string) *PodWrapper {
	a := p.podAntiAffinity()
	a.RequiredDuringSchedulingIgnoredDuringExecution = append(a.RequiredDuringSchedulingIgnoredDuringExecution, term(key, value, topologyKey))
	return p
}

// PreferredPodAffinity adds a preferred pod affinity term.
func (p *PodWrapper) PreferredPodAffinity(weight int32, key, value, topologyKey string) *PodWrapper {
	a := p.podAffinity()
	a.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PreferredDuringSchedulingIgnoredDuringExecution,
		corev1.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: term(key, value, topologyKey)})
	return p
}

// PreferredPodAntiAffinity adds a preferred pod anti-affinity term.
func (p *PodWrapper) PreferredPodAntiAffinity(weight int32, key, value, topologyKey string) *PodWrapper {
	a := p.podAntiAffinity()
	a.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PreferredDuringSchedulingIgnoredDuringExecution,
		corev1.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: term(key, value, topologyKey)})
	return p
}

// NamespaceSelectorLast sets the namespaceSelector of the last term added
// by PodAffinity or PodAntiAffinity (required): nil labels mean {} (all).
func (p *PodWrapper) NamespaceSelectorLast(anti bool, labels map[string]string) *PodWrapper {
	var ts []corev1.PodAffinityTerm
	if anti {
		ts = p.podAntiAffinity().RequiredDuringSchedulingIgnoredDuringExecution
	} else {
		ts = p.podAffinity().RequiredDuringSchedulingIgnoredDuringExecution
	}
	ts[len(ts)-1].NamespaceSelector = &metav1.LabelSelector{MatchLabels: labels}
	return p
}

// Spread adds a topology spread constraint selecting pods labelled
// key=value.
func (p *PodWrapper) Spread(maxSkew int32, topologyKey string, when corev1.UnsatisfiableConstraintAction, key, value string) *PodWrapper {
	p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
		MaxSkew: maxSkew, TopologyKey: topologyKey, WhenUnsatisfiable: when,
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{key: value}}})
	return p
}

// MinDomainsLast sets minDomains on the last spread constraint.
func (p *PodWrapper) MinDomainsLast(n int32) *PodWrapper {
	c := &p.Spec.TopologySpreadConstraints[len(p.Spec.TopologySpreadConstraints)-1]
	c.MinDomains = &n
	return p
}

// Terminating marks the pod as being deleted.
func (p *PodWrapper) Terminating() *PodWrapper {
	t := metav1.Unix(0, 0)
	p.DeletionTimestamp = &t
	return p
}
