package apiserver

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// DefaultTolerationSeconds adds what a pod does not already tolerate; pods
// with no tolerations of their own share one array, which an append copies.
func TestDefaultTolerationSeconds(t *testing.T) {
	own := corev1.Toleration{Key: "gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	notReady := corev1.Toleration{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}
	everything := corev1.Toleration{Operator: corev1.TolerationOpExists}
	for _, c := range []struct {
		name string
		have []corev1.Toleration
		want []string // the keys after admission, "" for tolerate-everything
	}{
		{"none", nil, []string{corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable}},
		{"its own", []corev1.Toleration{own}, []string{"gpu", corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable}},
		{"not-ready already", []corev1.Toleration{notReady}, []string{corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable}},
		{"everything", []corev1.Toleration{everything}, []string{""}},
	} {
		p := &corev1.Pod{Spec: corev1.PodSpec{Tolerations: c.have}}
		addDefaultTolerations(p)
		var got []string
		for _, tol := range p.Spec.Tolerations {
			got = append(got, tol.Key)
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: tolerations %q; want %q", c.name, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: tolerations %q; want %q", c.name, got, c.want)
				break
			}
		}
		for _, tol := range p.Spec.Tolerations[len(c.have):] {
			if tol.TolerationSeconds == nil || *tol.TolerationSeconds != DefaultTolerationSeconds {
				t.Errorf("%s: added %s without %ds", c.name, tol.Key, DefaultTolerationSeconds)
			}
		}
	}
	a, b := &corev1.Pod{}, &corev1.Pod{}
	addDefaultTolerations(a)
	addDefaultTolerations(b)
	if &a.Spec.Tolerations[0] != &b.Spec.Tolerations[0] {
		t.Error("two pods without tolerations got an array each; want them to share one")
	}
	a.Spec.Tolerations = append(a.Spec.Tolerations, own)
	if len(b.Spec.Tolerations) != 2 || &a.Spec.Tolerations[0] == &b.Spec.Tolerations[0] || defaultTolerations[0].Key != corev1.TaintNodeNotReady {
		t.Error("appending to one pod's shared tolerations changed another's, or the shared array")
	}
}
