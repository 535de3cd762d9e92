package controller_test

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine"
	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/controller"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/trace"
)

// TestDeploymentInACluster applies a Deployment to a cluster built by
// engine.New and follows it to its ReplicaSet and pods. It does not rely on
// the scheduler or kubelets: pods may or may not be bound and running.
func TestDeploymentInACluster(t *testing.T) {
	e := engine.New(engine.Config{Nodes: engine.DefaultNodes(3)})
	r := int32(3)
	d := &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: "api"},
		Spec: appsv1.DeploymentSpec{Replicas: &r, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "api"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "api"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "api", Image: "nginx:1.27",
					Ports: []corev1.ContainerPort{{ContainerPort: 8080}}}}}}}}
	if _, err := e.API.Create(e.Command("apply -f api.yaml"), d); err != nil {
		t.Fatal(err)
	}
	e.Settle()

	stored := e.Store.List(kinds.Deployment, "default")[0].(*appsv1.Deployment)
	hash := controller.ComputeHash(&stored.Spec.Template, nil)
	rss := e.Store.List(kinds.ReplicaSet, "default")
	if len(rss) != 1 || rss[0].GetName() != "api-"+hash {
		t.Fatalf("ReplicaSets %v; want api-%s", names(rss), hash)
	}
	rs := rss[0].(*appsv1.ReplicaSet)
	if ref := metav1.GetControllerOf(rs); ref == nil || ref.UID != stored.UID {
		t.Errorf("ReplicaSet owner %+v; want deployment api", ref)
	}
	pods := e.Store.List(kinds.Pod, "default")
	if len(pods) != 3 {
		t.Fatalf("%d pods; want 3", len(pods))
	}
	for _, o := range pods {
		p := o.(*corev1.Pod)
		if !strings.HasPrefix(p.Name, "api-"+hash+"-") || len(p.Name) != len("api-"+hash+"-")+5 {
			t.Errorf("pod name %s; want api-%s-<5 chars>", p.Name, hash)
		}
		if ref := metav1.GetControllerOf(p); ref == nil || ref.UID != rs.UID {
			t.Errorf("pod %s owner %+v; want replicaset %s", p.Name, ref, rs.Name)
		}
		if p.Labels[appsv1.DefaultDeploymentUniqueLabelKey] != hash {
			t.Errorf("pod %s labels %v", p.Name, p.Labels)
		}
	}

	// `why pod/X`: the chain leads back to the learner's command, through
	// the ReplicaSet controller and the Deployment controller.
	var created trace.Event
	for _, ev := range e.Trace.All() {
		if ev.Component == controller.ReplicaSetControllerName && ev.Object == "pod/"+pods[0].GetName() {
			created = ev
		}
	}
	if created.Seq == 0 || created.Column != trace.Declare || created.Message != "Created pod: "+pods[0].GetName() {
		t.Fatalf("creation of %s in the trace: %+v", pods[0].GetName(), created)
	}
	var comps []string
	for _, ev := range e.Trace.Chain(created.Seq) {
		comps = append(comps, ev.Component)
	}
	chain := strings.Join(comps, " <- ")
	if !strings.HasPrefix(chain, "replicaset-controller <- ") || !strings.Contains(chain, "deployment-controller") || !strings.HasSuffix(chain, "kubectl") {
		t.Errorf("why chain %s; want replicaset-controller <- ... deployment-controller ... <- kubectl", chain)
	}

	// Deleting the Deployment takes its ReplicaSet and pods with it (the
	// pods may linger Terminating if a kubelet has to stop them).
	if _, err := e.API.Delete(e.Command("delete deployment api"), kinds.Deployment, "default", "api", apiserver.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.Settle()
	if n := e.Store.Count(kinds.ReplicaSet); n != 0 {
		t.Errorf("%d ReplicaSets after deleting the Deployment", n)
	}
	for _, o := range e.Store.List(kinds.Pod, "default") {
		if o.GetDeletionTimestamp() == nil {
			t.Errorf("pod %s neither gone nor terminating", o.GetName())
		}
	}
}

func names(objs []kinds.Object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.GetName())
	}
	return out
}
