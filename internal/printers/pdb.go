package printers

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// PodDisruptionBudget's columns (printers.go printPodDisruptionBudget):
// MIN AVAILABLE and MAX UNAVAILABLE are the spec's values or N/A.
func init() {
	register(kinds.PDB, &table{columns: []column{
		{name: "Name"}, {name: "Min Available"}, {name: "Max Unavailable"}, {name: "Allowed Disruptions"}, {name: "Age"},
	}, row: func(o kinds.Object, now time.Time) []string {
		p := o.(*policyv1.PodDisruptionBudget)
		minA, maxU := "N/A", "N/A"
		if p.Spec.MinAvailable != nil {
			minA = p.Spec.MinAvailable.String()
		}
		if p.Spec.MaxUnavailable != nil {
			maxU = p.Spec.MaxUnavailable.String()
		}
		return []string{p.Name, minA, maxU, itoa(p.Status.DisruptionsAllowed), since(p.CreationTimestamp.Time, now)}
	}})
}

// pdb is kubectl's describePodDisruptionBudget.
func (d *describer) pdb(p *policyv1.PodDisruptionBudget, events []*corev1.Event) {
	d.write(0, "Name:\t%s\n", p.Name)
	d.write(0, "Namespace:\t%s\n", p.Namespace)
	if p.Spec.MinAvailable != nil {
		d.write(0, "Min available:\t%s\n", p.Spec.MinAvailable.String())
	} else if p.Spec.MaxUnavailable != nil {
		d.write(0, "Max unavailable:\t%s\n", p.Spec.MaxUnavailable.String())
	}
	if sel, err := metav1.LabelSelectorAsSelector(p.Spec.Selector); err == nil {
		d.write(0, "Selector:\t%s\n", sel)
	} else {
		d.write(0, "Selector:\t<unset>\n")
	}
	d.write(0, "Status:\n")
	d.write(2, "Allowed disruptions:\t%d\n", p.Status.DisruptionsAllowed)
	d.write(2, "Current:\t%d\n", p.Status.CurrentHealthy)
	d.write(2, "Desired:\t%d\n", p.Status.DesiredHealthy)
	d.write(2, "Total:\t%d\n", p.Status.ExpectedPods)
	d.events(events)
}
