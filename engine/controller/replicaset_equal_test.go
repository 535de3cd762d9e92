package controller

import (
	"reflect"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestReplicaSetConditionEqual checks replicaSetConditionEqual, through
// slices.EqualFunc, against equality.Semantic.DeepEqual.
func TestReplicaSetConditionEqual(t *testing.T) {
	if n := reflect.TypeOf(appsv1.ReplicaSetCondition{}).NumField(); n != 5 {
		t.Fatalf("ReplicaSetCondition has %d fields; replicaSetConditionEqual compares 5", n)
	}
	at := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	base := func() []appsv1.ReplicaSetCondition {
		return []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: "True", LastTransitionTime: at, Reason: "R", Message: "m"}}
	}
	changes := map[string]func([]appsv1.ReplicaSetCondition) []appsv1.ReplicaSetCondition{
		"same":    func(c []appsv1.ReplicaSetCondition) []appsv1.ReplicaSetCondition { return c },
		"nil":     func([]appsv1.ReplicaSetCondition) []appsv1.ReplicaSetCondition { return nil },
		"empty":   func([]appsv1.ReplicaSetCondition) []appsv1.ReplicaSetCondition { return []appsv1.ReplicaSetCondition{} },
		"longer":  func(c []appsv1.ReplicaSetCondition) []appsv1.ReplicaSetCondition { return append(c, c[0]) },
		"type":    func(c []appsv1.ReplicaSetCondition) []appsv1.ReplicaSetCondition { c[0].Type = "Other"; return c },
		"status":  func(c []appsv1.ReplicaSetCondition) []appsv1.ReplicaSetCondition { c[0].Status = "False"; return c },
		"reason":  func(c []appsv1.ReplicaSetCondition) []appsv1.ReplicaSetCondition { c[0].Reason = "S"; return c },
		"message": func(c []appsv1.ReplicaSetCondition) []appsv1.ReplicaSetCondition { c[0].Message = "n"; return c },
		"time": func(c []appsv1.ReplicaSetCondition) []appsv1.ReplicaSetCondition {
			c[0].LastTransitionTime = metav1.Time{}
			return c
		},
		"instant": func(c []appsv1.ReplicaSetCondition) []appsv1.ReplicaSetCondition {
			c[0].LastTransitionTime = metav1.NewTime(at.In(time.FixedZone("x", -3600)))
			return c
		},
	}
	for name, change := range changes {
		for _, a := range [][]appsv1.ReplicaSetCondition{base(), nil, {}} {
			b := change(base())
			want := equality.Semantic.DeepEqual(a, b)
			if got := slices.EqualFunc(a, b, replicaSetConditionEqual); got != want {
				t.Errorf("%s (from %d conditions): equal = %v; Semantic.DeepEqual = %v", name, len(a), got, want)
			}
		}
	}
}
