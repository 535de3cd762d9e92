package controller

import (
	"reflect"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestDeploymentStatusEqual checks deploymentStatusEqual against
// equality.Semantic.DeepEqual, which it stands in for, on a status with
// every field set and on one change of each field.
func TestDeploymentStatusEqual(t *testing.T) {
	// A new field in DeploymentStatus or DeploymentCondition must be
	// compared too.
	if n := reflect.TypeOf(appsv1.DeploymentStatus{}).NumField(); n != 9 {
		t.Fatalf("DeploymentStatus has %d fields; deploymentStatusEqual compares 9", n)
	}
	if n := reflect.TypeOf(appsv1.DeploymentCondition{}).NumField(); n != 6 {
		t.Fatalf("DeploymentCondition has %d fields; deploymentConditionEqual compares 6", n)
	}
	i32 := func(n int32) *int32 { return &n }
	at := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	base := func() appsv1.DeploymentStatus {
		return appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 2,
			AvailableReplicas: 2, UnavailableReplicas: 1, TerminatingReplicas: i32(1), CollisionCount: i32(1),
			Conditions: []appsv1.DeploymentCondition{
				{Type: appsv1.DeploymentAvailable, Status: "True", LastUpdateTime: at, LastTransitionTime: at, Reason: "A", Message: "a"},
				{Type: appsv1.DeploymentProgressing, Status: "True", LastUpdateTime: at, LastTransitionTime: at, Reason: "P", Message: "p"},
			}}
	}
	changes := map[string]func(*appsv1.DeploymentStatus){
		"same":                   func(*appsv1.DeploymentStatus) {},
		"observedGeneration":     func(s *appsv1.DeploymentStatus) { s.ObservedGeneration++ },
		"replicas":               func(s *appsv1.DeploymentStatus) { s.Replicas++ },
		"updatedReplicas":        func(s *appsv1.DeploymentStatus) { s.UpdatedReplicas++ },
		"readyReplicas":          func(s *appsv1.DeploymentStatus) { s.ReadyReplicas++ },
		"availableReplicas":      func(s *appsv1.DeploymentStatus) { s.AvailableReplicas++ },
		"unavailableReplicas":    func(s *appsv1.DeploymentStatus) { s.UnavailableReplicas++ },
		"terminatingReplicas":    func(s *appsv1.DeploymentStatus) { s.TerminatingReplicas = i32(2) },
		"terminatingReplicasNil": func(s *appsv1.DeploymentStatus) { s.TerminatingReplicas = nil },
		"collisionCount":         func(s *appsv1.DeploymentStatus) { s.CollisionCount = i32(2) },
		"collisionCountNil":      func(s *appsv1.DeploymentStatus) { s.CollisionCount = nil },
		"collisionCountSame":     func(s *appsv1.DeploymentStatus) { s.CollisionCount = i32(1) },
		"conditionsNil":          func(s *appsv1.DeploymentStatus) { s.Conditions = nil },
		"conditionsShorter":      func(s *appsv1.DeploymentStatus) { s.Conditions = s.Conditions[:1] },
		"conditionsSwapped": func(s *appsv1.DeploymentStatus) {
			s.Conditions[0], s.Conditions[1] = s.Conditions[1], s.Conditions[0]
		},
		"type":    func(s *appsv1.DeploymentStatus) { s.Conditions[1].Type = appsv1.DeploymentReplicaFailure },
		"status":  func(s *appsv1.DeploymentStatus) { s.Conditions[1].Status = "False" },
		"reason":  func(s *appsv1.DeploymentStatus) { s.Conditions[1].Reason = "Q" },
		"message": func(s *appsv1.DeploymentStatus) { s.Conditions[1].Message = "q" },
		"lastUpdateTime": func(s *appsv1.DeploymentStatus) {
			s.Conditions[1].LastUpdateTime = metav1.NewTime(at.Add(time.Second))
		},
		"lastTransitionTime": func(s *appsv1.DeploymentStatus) {
			s.Conditions[0].LastTransitionTime = metav1.NewTime(at.Add(time.Nanosecond))
		},
		"sameInstantElsewhere": func(s *appsv1.DeploymentStatus) {
			s.Conditions[0].LastUpdateTime = metav1.NewTime(at.In(time.FixedZone("x", 3600)))
		},
		"zeroTime": func(s *appsv1.DeploymentStatus) { s.Conditions[0].LastUpdateTime = metav1.Time{} },
	}
	for name, change := range changes {
		a, b := base(), base()
		change(&b)
		want := equality.Semantic.DeepEqual(a, b)
		if got := deploymentStatusEqual(&a, &b); got != want {
			t.Errorf("%s: deploymentStatusEqual = %v; Semantic.DeepEqual = %v", name, got, want)
		}
		if got := deploymentStatusEqual(&b, &a); got != want {
			t.Errorf("%s, reversed: deploymentStatusEqual = %v; Semantic.DeepEqual = %v", name, got, want)
		}
	}
	empty, none := appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{}}, appsv1.DeploymentStatus{}
	if !deploymentStatusEqual(&empty, &none) || !equality.Semantic.DeepEqual(empty, none) {
		t.Error("nil and empty condition lists differ")
	}
}

// TestConditionListsAreNotChangedInPlace checks what the working copy
// relies on (see workingCopy): setting or removing a condition leaves the
// list it started from as it was.
func TestConditionListsAreNotChangedInPlace(t *testing.T) {
	at := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	shared := make([]appsv1.DeploymentCondition, 2, 4) // spare room an append could write into
	shared[0] = appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: "True", Reason: "A"}
	shared[1] = appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: "True", Reason: "P"}
	before := append([]appsv1.DeploymentCondition(nil), shared[:4]...)
	st := appsv1.DeploymentStatus{Conditions: shared}
	SetDeploymentCondition(&st, *NewDeploymentCondition(appsv1.DeploymentReplicaFailure, "True", "F", "", at))
	SetDeploymentCondition(&st, *NewDeploymentCondition(appsv1.DeploymentAvailable, "False", "U", "", at))
	RemoveDeploymentCondition(&st, appsv1.DeploymentProgressing)
	RemoveDeploymentCondition(&st, appsv1.DeploymentProgressing)
	if !reflect.DeepEqual(shared[:4], before) {
		t.Errorf("the shared list changed: %+v", shared[:4])
	}
	if len(st.Conditions) != 2 || st.Conditions[0].Type != appsv1.DeploymentReplicaFailure || st.Conditions[1].Reason != "U" {
		t.Errorf("conditions = %+v", st.Conditions)
	}
	st = appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{}}
	if RemoveDeploymentCondition(&st, appsv1.DeploymentProgressing); st.Conditions != nil {
		t.Error("removing from an empty list should leave nil, as kube's filterOutCondition does")
	}
	st = appsv1.DeploymentStatus{Conditions: shared[1:2]}
	if RemoveDeploymentCondition(&st, appsv1.DeploymentProgressing); st.Conditions != nil {
		t.Error("removing the only condition should leave nil")
	}
}
