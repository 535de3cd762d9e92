package printers

import (
	"io"

	corev1 "k8s.io/api/core/v1"
)

// DescribePodTemplate writes a pod template as kubectl's
// describe.DescribePodTemplate does for `kubectl rollout history
// --revision=N`: through a bare PrefixWriter, without a tabwriter, so the
// tabs between a field and its value are printed as they are.
func DescribePodTemplate(w io.Writer, t *corev1.PodTemplateSpec) error {
	d := &describer{w: w}
	d.podTemplate(t)
	return nil
}
