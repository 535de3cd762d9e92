package controller

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestPodLabelValuesInOrder checks that a pod's label index values come
// in one order, whatever order its labels map gives, so that a status
// write (labels unchanged) gives the store the very list it filed the
// pod under.
func TestPodLabelValuesInOrder(t *testing.T) {
	tests := []struct {
		labels map[string]string
		want   []string
	}{
		{nil, nil},
		{map[string]string{"app": "web"}, []string{"shop/app=web"}},
		{map[string]string{"tier": "front", "app": "web", "pod-template-hash": "5d8f9c7b6", "a": ""},
			[]string{"shop/a=", "shop/app=web", "shop/pod-template-hash=5d8f9c7b6", "shop/tier=front"}},
	}
	for _, tt := range tests {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "p", Labels: tt.labels}}
		for range 20 { // map order differs from one range to the next
			if got := podLabelValues(pod); !slices.Equal(got, tt.want) {
				t.Fatalf("podLabelValues(%v) = %q; want %q", tt.labels, got, tt.want)
			}
		}
	}
}
