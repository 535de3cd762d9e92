package printers

import (
	"time"

	policyv1 "k8s.io/api/policy/v1"

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
