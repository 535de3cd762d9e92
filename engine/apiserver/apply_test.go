package apiserver

import (
	"errors"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/store"
	"github.com/kubeloop/kubeloop/engine/trace"
)

func actions(res []ApplyResult) string {
	parts := make([]string, len(res))
	for i, r := range res {
		parts[i] = r.String()
	}
	return strings.Join(parts, "; ")
}

func TestApplyCreatesWithLastApplied(t *testing.T) {
	ts := newTestServer(t)
	res := ts.mustApply(t, apiDeployment+"---\n"+apiService)
	if got, want := actions(res), "deployment.apps/api created; service/api created"; got != want {
		t.Fatalf("Apply = %s; want %s", got, want)
	}
	d := ts.mustGet(t, kinds.Deployment, "default", "api").(*appsv1.Deployment)
	want := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"name":"api","namespace":"default"},` +
		`"spec":{"replicas":3,"selector":{"matchLabels":{"app":"api"}},"template":{"metadata":{"labels":{"app":"api"}},` +
		`"spec":{"containers":[{"image":"shop/api:v2.1","name":"api","ports":[{"containerPort":8080}]}]}}}}` + "\n"
	if got := d.Annotations[LastAppliedAnnotation]; got != want {
		t.Errorf("last-applied =\n%s\nwant\n%s", got, want)
	}
	if d.Generation != 1 || d.UID == "" || d.CreationTimestamp.IsZero() {
		t.Errorf("server metadata: generation %d, uid %q, creationTimestamp %v; want 1, set, set", d.Generation, d.UID, d.CreationTimestamp)
	}
	svc := ts.mustGet(t, kinds.Service, "default", "api").(*corev1.Service)
	if svc.Spec.ClusterIP != "10.96.0.2" || len(svc.Spec.ClusterIPs) != 1 || svc.Spec.ClusterIPs[0] != "10.96.0.2" ||
		svc.Spec.IPFamilies[0] != corev1.IPv4Protocol || *svc.Spec.IPFamilyPolicy != corev1.IPFamilyPolicySingleStack {
		t.Errorf("service spec = %s; want clusterIP 10.96.0.2, IPv4, SingleStack", toJSON(svc.Spec))
	}
}

func TestApplyUnchangedWritesNothing(t *testing.T) {
	ts := newTestServer(t)
	ts.mustApply(t, apiDeployment+"---\n"+apiService)
	rev := ts.store.Rev()
	a := ts.learner("apply -f test.yaml")
	res, err := ts.Apply(a, "test.yaml", []byte(apiDeployment+"---\n"+apiService), ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := actions(res), "deployment.apps/api unchanged; service/api unchanged"; got != want {
		t.Errorf("re-apply = %s; want %s", got, want)
	}
	if ts.store.Rev() != rev {
		t.Errorf("store revision moved from %d to %d on an unchanged apply", rev, ts.store.Rev())
	}
	evs := ts.trace.Since(a.Cause + 1)
	if len(evs) != 2 || evs[0].Component != "apiserver" || evs[0].Message != "deployment.apps/api unchanged" || evs[0].Rev != 0 {
		t.Errorf("trace after unchanged apply = %+v; want two apiserver 'unchanged' events and no etcd event", evs)
	}
}

// TestApplyKeepsWhatOthersChanged is the point of the three-way merge: a
// manifest without replicas leaves `kubectl scale` alone, status survives,
// and a field removed from the manifest is removed from the object.
func TestApplyKeepsWhatOthersChanged(t *testing.T) {
	ts := newTestServer(t)
	noReplicas := strings.Replace(apiDeployment, "  replicas: 3\n", "", 1)
	withLabel := strings.Replace(noReplicas, "name: api\nspec", "name: api\n  labels: {tier: backend}\nspec", 1)
	ts.mustApply(t, withLabel)

	_, changed, err := ts.Patch(ts.learner("scale deployment api --replicas=5"), kinds.Deployment, "", "api",
		PatchOptions{Verb: "scaled"}, func(o kinds.Object) error {
			*o.(*appsv1.Deployment).Spec.Replicas = 5
			return nil
		})
	if err != nil || !changed {
		t.Fatalf("scale: changed %v, err %v", changed, err)
	}
	st := ts.mustGet(t, kinds.Deployment, "", "api").DeepCopyObject().(*appsv1.Deployment)
	st.Status.Replicas, st.Status.ObservedGeneration = 5, 2
	if _, err := ts.UpdateStatus(Actor{Component: "deployment-controller"}, st); err != nil {
		t.Fatal(err)
	}

	// New image, label dropped, replicas still unset in the manifest.
	res := ts.mustApply(t, strings.Replace(noReplicas, "shop/api:v2.1", "shop/api:v2.2", 1))
	if got := actions(res); got != "deployment.apps/api configured" {
		t.Fatalf("apply = %s; want configured", got)
	}
	d := ts.mustGet(t, kinds.Deployment, "", "api").(*appsv1.Deployment)
	if *d.Spec.Replicas != 5 {
		t.Errorf("replicas = %d; want 5 (set by kubectl scale, absent from the manifest)", *d.Spec.Replicas)
	}
	if d.Status.Replicas != 5 {
		t.Errorf("status.replicas = %d; want 5 kept", d.Status.Replicas)
	}
	if got := d.Spec.Template.Spec.Containers[0].Image; got != "shop/api:v2.2" {
		t.Errorf("image = %s; want shop/api:v2.2", got)
	}
	if _, ok := d.Labels["tier"]; ok {
		t.Errorf("labels = %v; want tier removed (it left the manifest)", d.Labels)
	}
	if d.Generation != 3 {
		t.Errorf("generation = %d; want 3 (create, scale, image)", d.Generation)
	}
	// The defaulted fields the manifest never set are still there.
	if d.Spec.Template.Spec.Containers[0].ImagePullPolicy != corev1.PullIfNotPresent || *d.Spec.ProgressDeadlineSeconds != 600 {
		t.Errorf("defaults lost in the merge: %s", toJSON(d.Spec))
	}
}

func TestApplyTracesLearnerRequests(t *testing.T) {
	ts := newTestServer(t)
	a := ts.learner("apply -f app.yaml")
	rev := ts.store.Rev()
	if _, err := ts.Apply(a, "app.yaml", []byte(apiDeployment), ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	evs := ts.trace.Since(a.Cause + 1)
	if len(evs) != 2 {
		t.Fatalf("trace = %+v; want apiserver and etcd events", evs)
	}
	api, etcd := evs[0], evs[1]
	if api.Component != "apiserver" || api.Column != trace.Declare || api.Lane != trace.ControlPlane ||
		api.Object != "deployment/api" || api.Message != "deployment.apps/api created" || api.Cause != a.Cause || api.Why == "" {
		t.Errorf("apiserver event = %+v", api)
	}
	wantMsg := "stored /registry/deployments/default/api at revision " + itoa(rev+1)
	if etcd.Component != "etcd" || etcd.Message != wantMsg || etcd.Cause != api.Seq || etcd.Rev != rev+1 || etcd.Why == "" {
		t.Errorf("etcd event = %+v; want %q caused by %d", etcd, wantMsg, api.Seq)
	}
	hist, _ := ts.store.Since(rev)
	if len(hist) != 1 || hist[0].Type != store.Added || hist[0].Cause != etcd.Seq {
		t.Errorf("store write = %+v; want one ADDED caused by the etcd event %d", hist, etcd.Seq)
	}
	// Controllers' writes are not traced by the API server.
	next := ts.trace.NextSeq()
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "api-1", Labels: map[string]string{"app": "api"}},
		Spec: appsv1.ReplicaSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "api"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "api"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "api", Image: "shop/api:v2.1"}}}}}}
	if _, err := ts.Create(Actor{Component: "deployment-controller", Cause: etcd.Seq}, rs); err != nil {
		t.Fatal(err)
	}
	if ts.trace.NextSeq() != next {
		t.Errorf("a controller's create added trace events")
	}
}

func itoa(n int64) string {
	return strings.TrimSpace(strings.Replace(toJSON(n), "\"", "", -1))
}

func TestApplyNamespaceInTheSameFile(t *testing.T) {
	ts := newTestServer(t)
	ns := "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n---\n"
	res, err := ts.Apply(ts.learner("apply"), "shop.yaml", []byte(ns+apiDeployment), ApplyOptions{Namespace: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(res); got != "namespace/shop created; deployment.apps/api created" {
		t.Errorf("apply = %s", got)
	}
	if _, err := ts.Get(kinds.Deployment, "shop", "api"); err != nil {
		t.Errorf("deployment not in shop: %v", err)
	}
	// -n other with an object that says shop: kubectl's error.
	inShop := strings.Replace(apiDeployment, "name: api\nspec", "name: api\n  namespace: shop\nspec", 1)
	_, err = ts.Apply(ts.learner("apply"), "shop.yaml", []byte(inShop), ApplyOptions{Namespace: "other"})
	want := "error: the namespace from the provided object \"shop\" does not match the namespace \"other\". " +
		"You must pass '--namespace=shop' to perform this operation."
	var errs RequestErrors
	if !errors.As(err, &errs) || errs[0].Kubectl() != want {
		t.Errorf("namespace mismatch error = %v; want %s", err, want)
	}
}

func TestApplyInTerminatingNamespaceIsForbidden(t *testing.T) {
	ts := newTestServer(t)
	ts.mustApply(t, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n")
	ns := ts.mustGet(t, kinds.Namespace, "", "shop").DeepCopyObject().(*corev1.Namespace)
	ns.Status.Phase = corev1.NamespaceTerminating
	if _, err := ts.UpdateStatus(system, ns); err != nil {
		t.Fatal(err)
	}
	_, err := ts.Apply(ts.learner("apply"), "d.yaml", []byte(apiDeployment), ApplyOptions{Namespace: "shop"})
	want := `Error from server (Forbidden): error when creating "d.yaml": deployments.apps "api" is forbidden: ` +
		`unable to create new content in namespace shop because it is being terminated`
	var errs RequestErrors
	if !errors.As(err, &errs) || errs[0].Kubectl() != want || !apierrors.IsForbidden(err) {
		t.Errorf("error = %v; want %s", err, want)
	}
	if _, err := ts.Delete(ts.learner("delete ns default"), kinds.Namespace, "", "default", DeleteOptions{}); !apierrors.IsForbidden(err) ||
		err.Error() != `namespaces "default" is forbidden: this namespace may not be deleted` {
		t.Errorf("deleting default: %v", err)
	}
}

func TestApplyImmutableFields(t *testing.T) {
	ts := newTestServer(t)
	ts.mustApply(t, apiDeployment)
	moved := strings.Replace(strings.Replace(apiDeployment, "matchLabels: {app: api}", "matchLabels: {app: api2}", 1),
		"labels: {app: api}", "labels: {app: api2}", 1)
	_, err := ts.Apply(ts.learner("apply"), "d.yaml", []byte(moved), ApplyOptions{})
	want := "The Deployment \"api\" is invalid: spec.selector: Invalid value: " +
		"{\"matchLabels\":{\"app\":\"api2\"}}: field is immutable"
	var errs RequestErrors
	if !errors.As(err, &errs) || errs[0].Kubectl() != want {
		t.Errorf("selector change = %v; want %s", err, want)
	}

	pod := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: web\n    image: nginx:1.27\n    ports:\n    - containerPort: 80\n"
	ts.mustApply(t, pod)
	_, err = ts.Apply(ts.learner("apply"), "pod.yaml", []byte(strings.Replace(pod, "containerPort: 80", "containerPort: 81", 1)), ApplyOptions{})
	want = "The Pod \"web\" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`," +
		"`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations)," +
		"`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"
	if !errors.As(err, &errs) || errs[0].Kubectl() != want {
		t.Errorf("pod port change = %v; want %s", err, want)
	}
	// The image may change.
	if res := ts.mustApply(t, strings.Replace(pod, "nginx:1.27", "nginx:1.28", 1)); actions(res) != "pod/web configured" {
		t.Errorf("pod image change = %s; want configured", actions(res))
	}
}

func TestApplyPodGetsAdmissionAndStatus(t *testing.T) {
	ts := newTestServer(t)
	pod := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: web\n    image: nginx\n" +
		"    resources:\n      limits: {cpu: 500m, memory: 128Mi}\n"
	ts.mustApply(t, pod)
	p := ts.mustGet(t, kinds.Pod, "", "web").(*corev1.Pod)
	if p.Status.Phase != corev1.PodPending || p.Status.QOSClass != corev1.PodQOSGuaranteed {
		t.Errorf("status = %s; want Pending, Guaranteed", toJSON(p.Status))
	}
	if len(p.Spec.Tolerations) != 2 || p.Spec.Tolerations[0].Key != corev1.TaintNodeNotReady ||
		*p.Spec.Tolerations[1].TolerationSeconds != 300 || p.Spec.Tolerations[1].Key != corev1.TaintNodeUnreachable {
		t.Errorf("tolerations = %s; want not-ready and unreachable for 300s", toJSON(p.Spec.Tolerations))
	}
	if p.Spec.Priority == nil || *p.Spec.Priority != 0 || *p.Spec.PreemptionPolicy != corev1.PreemptLowerPriority {
		t.Errorf("priority = %v, %v; want 0, PreemptLowerPriority", p.Spec.Priority, p.Spec.PreemptionPolicy)
	}
	if p.Spec.Containers[0].ImagePullPolicy != corev1.PullAlways {
		t.Errorf("imagePullPolicy = %s; want Always for an untagged image", p.Spec.Containers[0].ImagePullPolicy)
	}
	// Re-applying the same manifest is unchanged even though admission
	// added tolerations the manifest does not mention.
	if res := ts.mustApply(t, pod); actions(res) != "pod/web unchanged" {
		t.Errorf("re-apply = %s; want unchanged", actions(res))
	}
}

func TestApplyWarnsAboutUnsimulatedFields(t *testing.T) {
	ts := newTestServer(t)
	m := strings.Replace(apiDeployment, "      containers:", "      hostNetwork: true\n      volumes:\n      - name: data\n        emptyDir: {}\n      containers:", 1)
	res := ts.mustApply(t, m)
	want := []string{
		"spec.template.spec.volumes is valid Kubernetes but kubeloop does not simulate it yet; it has no effect",
		"spec.template.spec.hostNetwork is valid Kubernetes but kubeloop does not simulate it yet; it has no effect",
	}
	if got := res[0].Warnings; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings = %q; want %q", got, want)
	}
	d := ts.mustGet(t, kinds.Deployment, "", "api").(*appsv1.Deployment)
	if len(d.Spec.Template.Spec.Volumes) != 1 || !d.Spec.Template.Spec.HostNetwork {
		t.Errorf("unsimulated fields were dropped from the stored object")
	}
}

func TestApplyDryRunWritesNothing(t *testing.T) {
	ts := newTestServer(t)
	rev := ts.store.Rev()
	next := ts.trace.NextSeq()
	res, err := ts.Apply(Actor{Component: Kubectl}, "d.yaml", []byte(apiDeployment), ApplyOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(res); got != "deployment.apps/api created (server dry run)" {
		t.Errorf("dry run = %s", got)
	}
	if ts.store.Rev() != rev || ts.trace.NextSeq() != next {
		t.Errorf("dry run wrote: revision %d -> %d, trace %d -> %d", rev, ts.store.Rev(), next, ts.trace.NextSeq())
	}
}

func TestApplyListAndJSON(t *testing.T) {
	ts := newTestServer(t)
	list := "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata: {name: a}\n  spec: {ports: [{port: 80}]}\n" +
		"- apiVersion: v1\n  kind: Service\n  metadata: {name: b}\n  spec: {ports: [{port: 80}]}\n"
	if got := actions(ts.mustApply(t, list)); got != "service/a created; service/b created" {
		t.Errorf("List = %s", got)
	}
	a := ts.mustGet(t, kinds.Service, "", "a").(*corev1.Service)
	b := ts.mustGet(t, kinds.Service, "", "b").(*corev1.Service)
	if a.Spec.ClusterIP != "10.96.0.2" || b.Spec.ClusterIP != "10.96.0.3" {
		t.Errorf("cluster IPs = %s, %s; want the next free two", a.Spec.ClusterIP, b.Spec.ClusterIP)
	}
	js := `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"x"}}
{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"y"}}`
	if got := actions(ts.mustApply(t, js)); got != "namespace/x created; namespace/y created" {
		t.Errorf("JSON stream = %s", got)
	}
}

func TestPatchUnchangedAndMutateError(t *testing.T) {
	ts := newTestServer(t)
	ts.mustApply(t, apiDeployment)
	rev := ts.store.Rev()
	_, changed, err := ts.Patch(ts.learner("label"), kinds.Deployment, "", "api", PatchOptions{Verb: "labeled"},
		func(kinds.Object) error { return nil })
	if err != nil || changed || ts.store.Rev() != rev {
		t.Errorf("no-op patch: changed %v, err %v, revision %d -> %d", changed, err, rev, ts.store.Rev())
	}
	boom := errors.New("already cordoned")
	if _, _, err := ts.Patch(ts.learner("x"), kinds.Deployment, "", "api", PatchOptions{}, func(kinds.Object) error { return boom }); err != boom {
		t.Errorf("mutate error = %v; want it returned as is", err)
	}
	if _, _, err := ts.Patch(ts.learner("x"), kinds.Deployment, "", "nope", PatchOptions{}, nil); !apierrors.IsNotFound(err) ||
		err.Error() != `deployments.apps "nope" not found` {
		t.Errorf("patch of a missing object = %v", err)
	}
	_, _, err = ts.Patch(ts.learner("scale"), kinds.Deployment, "", "api", PatchOptions{Verb: "scaled"}, func(o kinds.Object) error {
		*o.(*appsv1.Deployment).Spec.Replicas = -1
		return nil
	})
	if !apierrors.IsInvalid(err) || err.Error() != `Deployment.apps "api" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0` {
		t.Errorf("invalid patch = %v", err)
	}
}
