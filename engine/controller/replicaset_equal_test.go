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

// TestOwnerRefEqual checks ownerRefEqual against equality.Semantic.DeepEqual.
func TestOwnerRefEqual(t *testing.T) {
	if n := reflect.TypeOf(metav1.OwnerReference{}).NumField(); n != 6 {
		t.Fatalf("OwnerReference has %d fields; ownerRefEqual compares 6", n)
	}
	yes, no := true, false
	base := func() *metav1.OwnerReference {
		y := true
		return &metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "a", UID: "u", Controller: &y, BlockOwnerDeletion: &y}
	}
	changes := map[string]func(*metav1.OwnerReference) *metav1.OwnerReference{
		"same":                    func(r *metav1.OwnerReference) *metav1.OwnerReference { return r },
		"nil":                     func(*metav1.OwnerReference) *metav1.OwnerReference { return nil },
		"apiVersion":              func(r *metav1.OwnerReference) *metav1.OwnerReference { r.APIVersion = "v1"; return r },
		"kind":                    func(r *metav1.OwnerReference) *metav1.OwnerReference { r.Kind = "Job"; return r },
		"name":                    func(r *metav1.OwnerReference) *metav1.OwnerReference { r.Name = "b"; return r },
		"uid":                     func(r *metav1.OwnerReference) *metav1.OwnerReference { r.UID = "v"; return r },
		"controllerFalse":         func(r *metav1.OwnerReference) *metav1.OwnerReference { r.Controller = &no; return r },
		"controllerNil":           func(r *metav1.OwnerReference) *metav1.OwnerReference { r.Controller = nil; return r },
		"controllerOtherTrue":     func(r *metav1.OwnerReference) *metav1.OwnerReference { r.Controller = &yes; return r },
		"blockOwnerDeletionFalse": func(r *metav1.OwnerReference) *metav1.OwnerReference { r.BlockOwnerDeletion = &no; return r },
		"blockOwnerDeletionNil":   func(r *metav1.OwnerReference) *metav1.OwnerReference { r.BlockOwnerDeletion = nil; return r },
	}
	for name, change := range changes {
		for _, a := range []*metav1.OwnerReference{base(), nil} {
			b := change(base())
			want := equality.Semantic.DeepEqual(a, b)
			if got := ownerRefEqual(a, b); got != want {
				t.Errorf("%s (from %v): ownerRefEqual = %v; Semantic.DeepEqual = %v", name, a, got, want)
			}
		}
	}
}
