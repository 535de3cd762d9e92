package apiserver

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

func applyErr(ts *testServer, manifest string) string {
	_, err := ts.Apply(ts.learner("apply -f test.yaml"), "test.yaml", []byte(manifest), ApplyOptions{})
	if err != nil {
		return err.Error()
	}
	return ""
}

const pcHigh = `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
globalDefault: true
description: the web tier
`

func podWithClass(name, class string) string {
	return `apiVersion: v1
kind: Pod
metadata: {name: ` + name + `}
spec:
  priorityClassName: ` + class + `
  containers: [{name: c, image: nginx:1.27}]
`
}

// TestPriorityAdmission: the Priority plugin copies a class's value and
// preemptionPolicy into the pod; the globalDefault class applies to pods
// that name none; the system classes exist from bootstrap.
func TestPriorityAdmission(t *testing.T) {
	ts := newTestServer(t)
	if err := ts.CreateSystemPriorityClasses(system); err != nil {
		t.Fatal(err)
	}
	ts.mustApply(t, pcHigh)
	pc := ts.mustGet(t, kinds.PriorityClass, "", "high").(*schedulingv1.PriorityClass)
	if pc.PreemptionPolicy == nil || *pc.PreemptionPolicy != corev1.PreemptLowerPriority {
		t.Errorf("preemptionPolicy = %v; want PreemptLowerPriority (defaulted)", pc.PreemptionPolicy)
	}
	ts.mustApply(t, `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: batch}
value: -5
preemptionPolicy: Never
`)
	for _, tc := range []struct {
		name, class, wantClass string
		prio                   int32
		policy                 corev1.PreemptionPolicy
	}{
		{"a", "batch", "batch", -5, corev1.PreemptNever},
		{"b", `""`, "high", 1000, corev1.PreemptLowerPriority},
		{"c", "system-node-critical", "system-node-critical", 2000001000, corev1.PreemptLowerPriority},
	} {
		ts.mustApply(t, podWithClass(tc.name, tc.class))
		p := ts.mustGet(t, kinds.Pod, "default", tc.name).(*corev1.Pod)
		if p.Spec.PriorityClassName != tc.wantClass || *p.Spec.Priority != tc.prio || *p.Spec.PreemptionPolicy != tc.policy {
			t.Errorf("pod %s: class %q priority %d policy %s; want %q %d %s", tc.name, p.Spec.PriorityClassName,
				*p.Spec.Priority, *p.Spec.PreemptionPolicy, tc.wantClass, tc.prio, tc.policy)
		}
	}
}

// TestPriorityClassErrors: what kube-apiserver refuses, in its words.
func TestPriorityClassErrors(t *testing.T) {
	ts := newTestServer(t)
	if err := ts.CreateSystemPriorityClasses(system); err != nil {
		t.Fatal(err)
	}
	ts.mustApply(t, pcHigh)
	for _, tc := range []struct{ name, manifest, want string }{
		{"unknown class", podWithClass("p", "nope"),
			`error when creating "test.yaml": pods "p" is forbidden: no PriorityClass with name nope was found`},
		{"value too big", `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: huge}
value: 1000000001
`, `The PriorityClass "huge" is invalid: value: Forbidden: maximum allowed value of a user defined priority is 1000000000`},
		{"system- prefix", `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: system-mine}
value: 10
`, `The PriorityClass "system-mine" is invalid: metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class`},
		{"second globalDefault", `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: other}
value: 5
globalDefault: true
`, `error when creating "test.yaml": priorityclasses.scheduling.k8s.io "other" is forbidden: PriorityClass high is already marked as default. Only one default can exist`},
		{"value is immutable", `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 2000
globalDefault: true
`, `The PriorityClass "high" is invalid: value: Forbidden: may not be changed in an update.`},
		{"priority set by hand", `apiVersion: v1
kind: Pod
metadata: {name: q}
spec:
  priority: 7
  containers: [{name: c, image: nginx:1.27}]
`, `error when creating "test.yaml": pods "q" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name`},
	} {
		got := applyErr(ts, tc.manifest)
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// TestSystemPriorityClassDelete: the built-in classes stay.
func TestSystemPriorityClassDelete(t *testing.T) {
	ts := newTestServer(t)
	if err := ts.CreateSystemPriorityClasses(system); err != nil {
		t.Fatal(err)
	}
	_, err := ts.Delete(system, kinds.PriorityClass, "", SystemNodeCritical, DeleteOptions{})
	want := `priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: this is a system priority class and cannot be deleted`
	if err == nil || err.Error() != want {
		t.Errorf("Delete(system-node-critical) = %v; want %s", err, want)
	}
}
