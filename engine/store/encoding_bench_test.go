package store

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// runningPod is a pod as a Deployment's replica looks once Ready.
func runningPod() *corev1.Pod {
	p := typedPod("api-7d9f8c6b5-x2k4q")
	p.Labels = map[string]string{"app": "api", "pod-template-hash": "7d9f8c6b5"}
	p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "api-7d9f8c6b5",
		UID: "0b5f2b9e-8d7c-4f6a-9e1b-2c3d4e5f6a7b"}}
	p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}
	p.Spec.NodeName = "node-1234"
	p.Status.Phase = corev1.PodRunning
	p.Status.PodIP, p.Status.HostIP = "10.244.3.17", "172.18.0.5"
	for _, c := range []corev1.PodConditionType{corev1.PodScheduled, corev1.PodInitialized, corev1.ContainersReady, corev1.PodReady} {
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: c, Status: corev1.ConditionTrue, LastTransitionTime: at(4342)})
	}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "web", Image: "nginx:1.27", Ready: true,
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: at(4542)}}}}
	return p
}

// BenchmarkEncodePod is the cost of keeping one superseded pod version as
// etcd does; BenchmarkDecodePod, of reading it back.
func BenchmarkEncodePod(b *testing.B) {
	defer func(v bool) { VerifyEncoding = v }(VerifyEncoding)
	VerifyEncoding = false // the test-time check is not what is measured
	s, p := New(), runningPod()
	b.ReportAllocs()
	for range b.N {
		s.encode(kinds.Pod, p, nil, false)
	}
}

func BenchmarkDecodePod(b *testing.B) {
	s := New()
	enc := s.encode(kinds.Pod, runningPod(), nil, false)
	b.ReportAllocs()
	for range b.N {
		enc.decode(kinds.Pod)
	}
}

// BenchmarkDelta is the cost of keeping a pod's status version as a delta
// of another pod's: the diff against a reference already indexed.
func BenchmarkDelta(b *testing.B) {
	ref, p := runningPod(), runningPod()
	p.Name, p.UID, p.Status.PodIP = "api-7d9f8c6b5-zzzzz", "9fe6992d-c808-4e10-a1a4-000000000007", "10.244.3.7"
	enc := func(p *corev1.Pod) []byte {
		data, err := p.Marshal()
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	idx, version := newRefIndex(string(enc(ref))), enc(p)
	var dst []byte
	b.SetBytes(int64(len(version)))
	for range b.N {
		dst = idx.diff(dst[:0], version)
	}
	b.ReportMetric(float64(len(dst)), "delta-bytes")
}
