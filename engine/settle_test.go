package engine

import (
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
)

// TestNodesActTogetherAndControllersCoalesce: three pods on three nodes
// that start at the same instant reach the ReplicaSet and Deployment
// controllers as one change each. The kubelets' steps due at that instant
// fire together and are all done before the controllers act, and each
// controller's work queue holds its object's key once, however many of
// its pods changed: one status write takes the ReplicaSet from 0 to 3
// ready, as a busy controller in a real cluster would.
func TestNodesActTogetherAndControllersCoalesce(t *testing.T) {
	e := New(Config{Nodes: DefaultNodes(3)})
	replicas := int32(3)
	labels := map[string]string{"app": "web"}
	d := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					// One pod per node, so that three kubelets act at once.
					TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{MaxSkew: 1,
						TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: corev1.DoNotSchedule,
						LabelSelector: &metav1.LabelSelector{MatchLabels: labels}}},
					Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}},
				},
			},
		},
	}
	rev0 := e.Store.Rev()
	if _, err := e.API.Create(e.Command("apply"), d); err != nil {
		t.Fatal(err)
	}
	available := func() bool {
		o, ok := e.Store.Lookup(kinds.Deployment, "default", "web")
		return ok && o.(*appsv1.Deployment).Status.AvailableReplicas == replicas
	}
	if !e.AdvanceUntil(available, sim.Minute) {
		t.Fatal("deployment/web not available after a minute")
	}

	evs, err := e.Store.SinceOf(rev0, kinds.Pod, kinds.ReplicaSet, kinds.Deployment)
	if err != nil {
		t.Fatal(err)
	}
	readyAt := map[string]metav1.Time{} // pod -> when it became Ready
	var nodes []string
	var rsReady, dAvailable []int32 // each status write's count
	for _, ev := range evs {
		switch o := ev.Object.(type) {
		case *corev1.Pod:
			if _, seen := readyAt[o.Name]; !seen {
				if c := readyCondition(o); c != nil && c.Status == corev1.ConditionTrue {
					readyAt[o.Name] = c.LastTransitionTime
					nodes = append(nodes, o.Spec.NodeName)
				}
			}
		case *appsv1.ReplicaSet:
			if ev.Old != nil && ev.Old.(*appsv1.ReplicaSet).Status.ReadyReplicas != o.Status.ReadyReplicas {
				rsReady = append(rsReady, o.Status.ReadyReplicas)
			}
		case *appsv1.Deployment:
			if ev.Old != nil && ev.Old.(*appsv1.Deployment).Status.AvailableReplicas != o.Status.AvailableReplicas {
				dAvailable = append(dAvailable, o.Status.AvailableReplicas)
			}
		}
	}
	slices.Sort(nodes)
	if len(readyAt) != 3 || !slices.Equal(slices.Compact(nodes), []string{"n1", "n2", "n3"}) {
		t.Fatalf("pods ready on %v; want one on each of n1, n2, n3", nodes)
	}
	var times []metav1.Time
	for _, at := range readyAt {
		times = append(times, at)
	}
	if !times[0].Equal(&times[1]) || !times[0].Equal(&times[2]) {
		t.Fatalf("pods ready at %v; want the same instant", times)
	}
	if !slices.Equal(rsReady, []int32{3}) || !slices.Equal(dAvailable, []int32{3}) {
		t.Errorf("ReplicaSet readyReplicas went %v, Deployment availableReplicas %v; want [3] and [3]: "+
			"one status write each for the three pods that became ready together", rsReady, dAvailable)
	}
}

func readyCondition(p *corev1.Pod) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.PodReady {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}
