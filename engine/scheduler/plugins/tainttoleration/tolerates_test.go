package tainttoleration_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine/scheduler/plugins/tainttoleration"
)

// TestTolerates is the matching rule of k8s-facts §5: key equal (or an
// empty key with Exists, which tolerates every taint), effect equal or
// empty, and Exists or Equal with the same value.
func TestTolerates(t *testing.T) {
	taint := corev1.Taint{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}
	noExec := corev1.Taint{Key: "node.kubernetes.io/not-ready", Effect: corev1.TaintEffectNoExecute}
	sec := int64(300)
	for _, tc := range []struct {
		name  string
		tol   corev1.Toleration
		taint corev1.Taint
		want  bool
	}{
		{"Equal, same key, value and effect", corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "gpu", Effect: corev1.TaintEffectNoSchedule}, taint, true},
		{"empty operator means Equal", corev1.Toleration{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}, taint, true},
		{"Equal, other value", corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "cpu", Effect: corev1.TaintEffectNoSchedule}, taint, false},
		{"Equal, empty value vs non-empty", corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Effect: corev1.TaintEffectNoSchedule}, taint, false},
		{"Exists ignores the value", corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}, taint, true},
		{"empty effect matches every effect", corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpExists}, taint, true},
		{"other effect", corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectPreferNoSchedule}, taint, false},
		{"other key", corev1.Toleration{Key: "team", Operator: corev1.TolerationOpExists}, taint, false},
		{"empty key with Exists tolerates everything", corev1.Toleration{Operator: corev1.TolerationOpExists}, taint, true},
		{"empty key with Exists and an effect: that effect only", corev1.Toleration{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}, taint, false},
		{"NoExecute with tolerationSeconds still tolerates for scheduling", corev1.Toleration{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &sec}, noExec, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tainttoleration.Tolerates([]corev1.Toleration{tc.tol}, &tc.taint); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestUntoleratedTaint: NoSchedule and NoExecute block, PreferNoSchedule
// never does; the first untolerated taint in node order is reported.
func TestUntoleratedTaint(t *testing.T) {
	taints := []corev1.Taint{
		{Key: "soft", Effect: corev1.TaintEffectPreferNoSchedule},
		{Key: "a", Value: "1", Effect: corev1.TaintEffectNoExecute},
		{Key: "b", Effect: corev1.TaintEffectNoSchedule},
	}
	got, bad := tainttoleration.UntoleratedTaint(taints, nil)
	if !bad || got.Key != "a" || tainttoleration.Reason(got) != "node(s) had untolerated taint {a: 1}" {
		t.Errorf("got %v %v (%s)", got, bad, tainttoleration.Reason(got))
	}
	got, bad = tainttoleration.UntoleratedTaint(taints, []corev1.Toleration{{Key: "a", Operator: corev1.TolerationOpExists}})
	if !bad || got.Key != "b" || tainttoleration.Reason(got) != "node(s) had untolerated taint {b: }" {
		t.Errorf("got %v %v", got, bad)
	}
	if _, bad = tainttoleration.UntoleratedTaint(taints[:1], nil); bad {
		t.Error("PreferNoSchedule must not block")
	}
}
