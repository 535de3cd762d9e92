package controller

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
)

// defaultedNginx is the Kubernetes documentation's nginx Deployment
// template as kube-apiserver 1.34 stores it after defaulting.
func defaultedNginx() *corev1.PodTemplateSpec {
	grace := int64(30)
	return &corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "nginx"}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name: "nginx", Image: "nginx:1.14.2",
				Ports:                    []corev1.ContainerPort{{ContainerPort: 80, Protocol: corev1.ProtocolTCP}},
				TerminationMessagePath:   corev1.TerminationMessagePathDefault,
				TerminationMessagePolicy: corev1.TerminationMessageReadFile,
				ImagePullPolicy:          corev1.PullIfNotPresent,
			}},
			RestartPolicy:                 corev1.RestartPolicyAlways,
			TerminationGracePeriodSeconds: &grace,
			DNSPolicy:                     corev1.DNSClusterFirst,
			SecurityContext:               &corev1.PodSecurityContext{},
			SchedulerName:                 corev1.DefaultSchedulerName,
		},
	}
}

func TestComputeHash(t *testing.T) {
	// Pinned: this is the pod-template-hash kube-controller-manager 1.34
	// computes for this template (same printer, same k8s.io/api fields).
	// It changes whenever k8s.io/api adds a PodSpec field; review such a
	// change against the k8s.io/api version, do not just re-pin.
	const want = "7c4ccf47b7"
	if got := ComputeHash(defaultedNginx(), nil); got != want {
		t.Errorf("ComputeHash(nginx) = %s; want %s", got, want)
	}
	if a, b := ComputeHash(defaultedNginx(), nil), ComputeHash(defaultedNginx(), nil); a != b {
		t.Errorf("ComputeHash is not stable: %s, %s", a, b)
	}
	zero, one := int32(0), int32(1)
	h0, h1 := ComputeHash(defaultedNginx(), &zero), ComputeHash(defaultedNginx(), &one)
	if h0 == want || h1 == want || h0 == h1 {
		t.Errorf("collisionCount does not change the hash: nil %s, 0 %s, 1 %s", want, h0, h1)
	}
	// The watch delivers protobuf: an empty list arrives as nil.
	withEmpty := defaultedNginx()
	withEmpty.Spec.Containers[0].Env = []corev1.EnvVar{}
	withEmpty.Annotations = map[string]string{}
	if got := ComputeHash(withEmpty, nil); got != want {
		t.Errorf("empty env and annotations hash to %s; want %s as for nil", got, want)
	}
	changed := defaultedNginx()
	changed.Spec.Containers[0].Image = "nginx:1.16.1"
	if ComputeHash(changed, nil) == want {
		t.Error("a new image kept the hash")
	}
}

func TestSafeEncodeKnownPair(t *testing.T) {
	// Before 1.11 the label kept the raw decimal and the name the encoded
	// form; kubernetes/website#7577 shows pod-template-hash=41035808 next
	// to replica set example-deploy-85479d4d.
	if got := rand.SafeEncodeString("41035808"); got != "85479d4d" {
		t.Errorf("SafeEncodeString(41035808) = %s; want 85479d4d", got)
	}
}
