package controller

import (
	"reflect"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// TestTolerationEqual checks tolerationEqual, through slices.EqualFunc,
// against equality.Semantic.DeepEqual, and that PodIP is still a struct
// slices.Equal compares as Semantic does.
func TestTolerationEqual(t *testing.T) {
	if n := reflect.TypeOf(corev1.Toleration{}).NumField(); n != 5 {
		t.Fatalf("Toleration has %d fields; tolerationEqual compares 5", n)
	}
	if n := reflect.TypeOf(corev1.PodIP{}).NumField(); n != 1 {
		t.Fatalf("PodIP has %d fields; slices.Equal compares them all, Semantic may not", n)
	}
	s300, s300b, s60 := int64(300), int64(300), int64(60)
	base := func() []corev1.Toleration {
		return []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists, Value: "v", Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &s300}}
	}
	changes := map[string]func([]corev1.Toleration) []corev1.Toleration{
		"same":        func(l []corev1.Toleration) []corev1.Toleration { return l },
		"nil":         func([]corev1.Toleration) []corev1.Toleration { return nil },
		"empty":       func([]corev1.Toleration) []corev1.Toleration { return []corev1.Toleration{} },
		"longer":      func(l []corev1.Toleration) []corev1.Toleration { return append(l, l[0]) },
		"key":         func(l []corev1.Toleration) []corev1.Toleration { l[0].Key = "j"; return l },
		"operator":    func(l []corev1.Toleration) []corev1.Toleration { l[0].Operator = corev1.TolerationOpEqual; return l },
		"value":       func(l []corev1.Toleration) []corev1.Toleration { l[0].Value = "w"; return l },
		"effect":      func(l []corev1.Toleration) []corev1.Toleration { l[0].Effect = corev1.TaintEffectNoSchedule; return l },
		"seconds":     func(l []corev1.Toleration) []corev1.Toleration { l[0].TolerationSeconds = &s60; return l },
		"secondsCopy": func(l []corev1.Toleration) []corev1.Toleration { l[0].TolerationSeconds = &s300b; return l },
		"secondsNil":  func(l []corev1.Toleration) []corev1.Toleration { l[0].TolerationSeconds = nil; return l },
	}
	for name, change := range changes {
		for _, a := range [][]corev1.Toleration{base(), nil, {}} {
			b := change(base())
			want := equality.Semantic.DeepEqual(a, b)
			if got := slices.EqualFunc(a, b, tolerationEqual); got != want {
				t.Errorf("%s (from %d tolerations): equal = %v; Semantic.DeepEqual = %v", name, len(a), got, want)
			}
		}
	}
}
