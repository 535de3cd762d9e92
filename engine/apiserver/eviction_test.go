package apiserver

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// TestEvict checks the Eviction subresource's decisions: with no budget,
// with a budget that allows or refuses a disruption, for pods a budget
// does not protect, and with two budgets.
func TestEvict(t *testing.T) {
	type pdbSpec struct {
		name     string
		allowed  int32
		current  int32
		desired  int32
		selector map[string]string
		stale    bool
	}
	for _, tc := range []struct {
		name    string
		phase   corev1.PodPhase
		ready   bool
		pdbs    []pdbSpec
		wantErr string // "" = evicted
		want429 bool
	}{
		{name: "no budget", phase: corev1.PodRunning, ready: true},
		{name: "budget allows one", phase: corev1.PodRunning, ready: true,
			pdbs: []pdbSpec{{name: "b", allowed: 1, current: 3, desired: 2, selector: map[string]string{"app": "web"}}}},
		{name: "budget allows none", phase: corev1.PodRunning, ready: true,
			pdbs:    []pdbSpec{{name: "b", allowed: 0, current: 2, desired: 2, selector: map[string]string{"app": "web"}}},
			wantErr: "Cannot evict pod as it would violate the pod's disruption budget.", want429: true},
		{name: "budget of other pods", phase: corev1.PodRunning, ready: true,
			pdbs: []pdbSpec{{name: "b", allowed: 0, selector: map[string]string{"app": "db"}}}},
		{name: "pending pod ignores the budget", phase: corev1.PodPending, ready: false,
			pdbs: []pdbSpec{{name: "b", allowed: 0, current: 2, desired: 2, selector: map[string]string{"app": "web"}}}},
		{name: "unready pod, healthy budget", phase: corev1.PodRunning, ready: false,
			pdbs: []pdbSpec{{name: "b", allowed: 0, current: 2, desired: 2, selector: map[string]string{"app": "web"}}}},
		{name: "unready pod, unhealthy budget", phase: corev1.PodRunning, ready: false,
			pdbs:    []pdbSpec{{name: "b", allowed: 0, current: 1, desired: 2, selector: map[string]string{"app": "web"}}},
			wantErr: "Cannot evict pod as it would violate the pod's disruption budget.", want429: true},
		{name: "budget not yet processed", phase: corev1.PodRunning, ready: true,
			pdbs:    []pdbSpec{{name: "b", allowed: 1, stale: true, selector: map[string]string{"app": "web"}}},
			wantErr: "Cannot evict pod as it would violate the pod's disruption budget.", want429: true},
		{name: "two budgets", phase: corev1.PodRunning, ready: true,
			pdbs: []pdbSpec{{name: "a", allowed: 1, selector: map[string]string{"app": "web"}},
				{name: "b", allowed: 1, selector: map[string]string{}}},
			wantErr: "Internal error occurred: This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTestServer(t)
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "default", Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
			if _, err := ts.Create(system, pod); err != nil {
				t.Fatal(err)
			}
			p := ts.mustGet(t, kinds.Pod, "default", "web-1").(*corev1.Pod).DeepCopy()
			p.Status.Phase = tc.phase
			status := corev1.ConditionFalse
			if tc.ready {
				status = corev1.ConditionTrue
			}
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}
			if _, err := ts.UpdateStatus(system, p); err != nil {
				t.Fatal(err)
			}
			for _, ps := range tc.pdbs {
				one := intstr.FromInt32(1)
				b := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: ps.name, Namespace: "default"},
					Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &one, Selector: &metav1.LabelSelector{MatchLabels: ps.selector}}}
				if _, err := ts.Create(system, b); err != nil {
					t.Fatal(err)
				}
				cur := ts.mustGet(t, kinds.PDB, "default", ps.name).(*policyv1.PodDisruptionBudget).DeepCopy()
				cur.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: cur.Generation, DisruptionsAllowed: ps.allowed,
					CurrentHealthy: ps.current, DesiredHealthy: ps.desired}
				if ps.stale {
					cur.Status.ObservedGeneration = 0
				}
				if _, err := ts.UpdateStatus(system, cur); err != nil {
					t.Fatal(err)
				}
			}
			err := ts.Evict(ts.learner("drain n1"), "default", "web-1", DeleteOptions{})
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("Evict = %v; want the pod evicted", err)
			case tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr):
				t.Fatalf("Evict = %v; want %q", err, tc.wantErr)
			case tc.want429 && !apierrors.IsTooManyRequests(err):
				t.Fatalf("Evict = %v; want 429 TooManyRequests", err)
			}
			got, _ := ts.store.Lookup(kinds.Pod, "default", "web-1")
			if tc.wantErr == "" {
				// A pod not bound to a node goes at once.
				if got != nil {
					t.Errorf("pod still stored after eviction")
				}
				if len(tc.pdbs) == 1 && tc.pdbs[0].selector["app"] == "web" && tc.phase == corev1.PodRunning && tc.ready {
					b := ts.mustGet(t, kinds.PDB, "default", "b").(*policyv1.PodDisruptionBudget)
					if b.Status.DisruptionsAllowed != tc.pdbs[0].allowed-1 || !hasKey(b.Status.DisruptedPods, "web-1") {
						t.Errorf("budget after eviction: %d allowed, disruptedPods %v; want one fewer and web-1 recorded",
							b.Status.DisruptionsAllowed, b.Status.DisruptedPods)
					}
				}
			} else if got == nil {
				t.Errorf("pod deleted although the eviction was refused")
			}
		})
	}
	t.Run("missing pod", func(t *testing.T) {
		ts := newTestServer(t)
		err := ts.Evict(system, "default", "nope", DeleteOptions{})
		if !apierrors.IsNotFound(err) || err.Error() != `pods "nope" not found` {
			t.Errorf("Evict(missing) = %v; want NotFound", err)
		}
	})
}

func TestValidatePDB(t *testing.T) {
	i := intstr.FromInt32(1)
	neg := intstr.FromInt32(-1)
	big := intstr.FromString("150%")
	bad := intstr.FromString("ten")
	policy := policyv1.UnhealthyPodEvictionPolicyType("Sometimes")
	for _, tc := range []struct {
		name string
		spec policyv1.PodDisruptionBudgetSpec
		want string
	}{
		{"valid", policyv1.PodDisruptionBudgetSpec{MinAvailable: &i}, ""},
		{"both", policyv1.PodDisruptionBudgetSpec{MinAvailable: &i, MaxUnavailable: &i},
			"spec: Invalid value: minAvailable and maxUnavailable cannot be both set"},
		{"negative", policyv1.PodDisruptionBudgetSpec{MinAvailable: &neg},
			"spec.minAvailable: Invalid value: -1: must be greater than or equal to 0"},
		{"over 100%", policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &big},
			`spec.maxUnavailable: Invalid value: "150%": must not be greater than 100%`},
		{"not a percent", policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &bad},
			`spec.maxUnavailable: Invalid value: "ten": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`},
		{"policy", policyv1.PodDisruptionBudgetSpec{UnhealthyPodEvictionPolicy: &policy},
			`spec.unhealthyPodEvictionPolicy: Unsupported value: "Sometimes": supported values: "AlwaysAllow", "IfHealthyBudget"`},
	} {
		errs := validatePDBSpec(&tc.spec, fieldPath("spec"))
		got := ""
		if len(errs) > 0 {
			got = errs[0].Error()
		}
		if got != tc.want {
			t.Errorf("%s: validatePDBSpec = %q; want %q", tc.name, got, tc.want)
		}
	}
}

func fieldPath(s string) *field.Path { return field.NewPath(s) }

func hasKey(m map[string]metav1.Time, k string) bool { _, ok := m[k]; return ok }
