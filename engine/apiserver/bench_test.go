package apiserver

import (
	"fmt"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// BenchmarkCreatePod is the write every ReplicaSet controller makes per
// replica: defaulting, admission, validation and the store write.
func BenchmarkCreatePod(b *testing.B) {
	ts := newTestServer(b)
	a := Actor{Component: "replicaset-controller", Cause: 1}
	tmpl := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: "api-7d9f8c6b5-", Namespace: "default",
		Labels: map[string]string{"app": "api", "pod-template-hash": "7d9f8c6b5"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "api", Image: "shop/api:v2.1",
			Ports: []corev1.ContainerPort{{ContainerPort: 8080}},
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("500Mi")}}}}}}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := ts.Create(a, tmpl.DeepCopy()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApply is `kubectl apply` of a Deployment and a Service, then the
// unchanged re-apply.
func BenchmarkApply(b *testing.B) {
	data := []byte(apiDeployment + "---\n" + apiService)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		ts := newTestServer(b)
		for j := 0; j < 2; j++ {
			if _, err := ts.Apply(Actor{Component: Kubectl}, "app.yaml", data, ApplyOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkRecordEvent is one Event, as the scheduler records Scheduled for
// every pod it binds: name, validation, the store write.
func BenchmarkRecordEvent(b *testing.B) {
	ts := newTestServer(b)
	a := Actor{Component: "scheduler", Cause: 1}
	pod, err := ts.Create(a, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api-7d9f8c6b5-x2k4q", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "api", Image: "nginx:1.27"}}}})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		ts.RecordEvent(a, corev1.EventSource{Component: "default-scheduler"}, pod, corev1.EventTypeNormal, "Scheduled",
			"Successfully assigned default/api-7d9f8c6b5-x2k4q to n1")
		ts.store.Seal(ts.store.Rev()) // as the engine does once its components have seen the write
	}
}

// BenchmarkLeaseRenew is a kubelet's renewal of its node Lease, every ten
// seconds per node: the steady load of a settled cluster.
func BenchmarkLeaseRenew(b *testing.B) {
	ts := newTestServer(b)
	a := Actor{Component: "kubelet", Cause: 1}
	holder, d := "n1", int32(40)
	renew := metav1.NewMicroTime(time.Unix(0, 0))
	o, err := ts.Create(a, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "n1", Namespace: "kube-node-lease"},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &d, RenewTime: &renew}})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		upd := o.(*coordinationv1.Lease).DeepCopy()
		t := metav1.NewMicroTime(time.Unix(int64(i+1)*10, 0))
		upd.Spec.RenewTime = &t
		if o, err = ts.Update(a, upd); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpdatePodStatus is a kubelet's status write to one of many
// pods, owned in runs of 150 as a ReplicaSet's and indexed by owner and
// node as the engine's components index them: most of a large cluster's
// writes.
func BenchmarkUpdatePodStatus(b *testing.B) {
	const pods, perOwner = 30_000, 150
	ts := newTestServer(b)
	ts.store.AddIndex(kinds.Pod, "owner", func(o kinds.Object) []string {
		return []string{string(o.GetOwnerReferences()[0].UID)}
	})
	ts.store.AddIndex(kinds.Pod, "node", func(o kinds.Object) []string {
		return []string{o.(*corev1.Pod).Spec.NodeName}
	})
	a := Actor{Component: "kubelet", Cause: 1}
	names := make([]string, pods)
	for i := range names {
		owner := types.UID(fmt.Sprintf("rs-%d", i/perOwner))
		p, err := ts.Create(a, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: "api-7d9f8c6b5-", Namespace: "default",
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "api", UID: owner}}},
			Spec: corev1.PodSpec{NodeName: fmt.Sprintf("n%d", i%500), Containers: []corev1.Container{{Name: "api", Image: "nginx:1.27"}}}})
		if err != nil {
			b.Fatal(err)
		}
		names[i] = p.GetName()
	}
	ts.store.Seal(ts.store.Rev())
	body := &corev1.Pod{}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		body.Name, body.Namespace = names[(i*7919)%pods], "default" // a stride through the pods, as writes come
		body.Status.Phase = []corev1.PodPhase{corev1.PodRunning, corev1.PodPending}[i/pods%2]
		if _, err := ts.UpdateStatus(a, body); err != nil {
			b.Fatal(err)
		}
		if i%1000 == 999 { // what the engine does as its components catch up; not what is measured
			b.StopTimer()
			ts.store.Seal(ts.store.Rev())
			ts.store.Compact(ts.store.Rev() - 1000)
			b.StartTimer()
		}
	}
}
