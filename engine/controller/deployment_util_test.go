package controller

import (
	"fmt"
	"maps"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubeloop/kubeloop/engine/sim"
)

func TestResolveFenceposts(t *testing.T) {
	tests := []struct {
		surge, unavail string
		replicas       int32
		wantS, wantU   int32
	}{
		// k8s-facts §3.2 examples at the 25%/25% default.
		{"25%", "25%", 1, 1, 0},
		{"25%", "25%", 3, 1, 0},
		{"25%", "25%", 4, 1, 1},
		{"25%", "25%", 10, 3, 2},
		{"25%", "25%", 0, 0, 1}, // both 0: unavailable becomes 1
		// ResolveFenceposts' own comment cases.
		{"0%", "1%", 2, 0, 1},
		{"1%", "25%", 2, 1, 0},
		{"1%", "0%", 1, 1, 0},
		{"0", "0", 5, 0, 1},
		{"2", "3", 5, 2, 3},
		{"50%", "50%", 5, 3, 2},
	}
	for _, tt := range tests {
		s, u := intstr.Parse(tt.surge), intstr.Parse(tt.unavail)
		gotS, gotU, err := ResolveFenceposts(&s, &u, tt.replicas)
		if err != nil || gotS != tt.wantS || gotU != tt.wantU {
			t.Errorf("ResolveFenceposts(%s, %s, %d) = %d, %d, %v; want %d, %d", tt.surge, tt.unavail, tt.replicas, gotS, gotU, err, tt.wantS, tt.wantU)
		}
	}
}

func TestMaxUnavailableCaps(t *testing.T) {
	tests := []struct {
		name     string
		d        *appsv1.Deployment
		wantU    int32
		wantSurg int32
	}{
		{"recreate", makeDeployment("a", 4).recreate().obj(), 0, 0},
		{"zero replicas", makeDeployment("a", 0).surge("25%", "25%").obj(), 0, 0},
		{"capped at replicas", makeDeployment("a", 2).surge("0", "5").obj(), 2, 0},
		{"default when unset", makeDeployment("a", 10).surge("25%", "25%").obj(), 2, 3},
	}
	for _, tt := range tests {
		if got := MaxUnavailable(tt.d); got != tt.wantU {
			t.Errorf("%s: MaxUnavailable = %d; want %d", tt.name, got, tt.wantU)
		}
		if got := MaxSurge(tt.d); got != tt.wantSurg {
			t.Errorf("%s: MaxSurge = %d; want %d", tt.name, got, tt.wantSurg)
		}
	}
}

func rsOf(name string, spec int32, created sim.Tick) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name),
		CreationTimestamp: metav1.NewTime(created.Time())}, Spec: appsv1.ReplicaSetSpec{Replicas: &spec}}
}

func TestNewRSNewReplicas(t *testing.T) {
	tests := []struct {
		name             string
		replicas         int32
		surge            string
		newSize, oldSize int32
		want             int32
	}{
		{"fresh deployment gets all replicas", 3, "25%", 0, 0, 3},
		{"rollout starts with the surge", 10, "25%", 0, 10, 3},
		{"no room left", 10, "25%", 3, 10, 3},
		{"room after old scaled down", 10, "25%", 3, 8, 5},
		{"never above replicas", 4, "100%", 2, 0, 4},
		{"surge 0 waits for scale-down", 4, "0", 0, 4, 0},
		{"surge 0 after one old pod went", 4, "0", 0, 3, 1},
		{"surge as a number", 5, "2", 1, 5, 2},
	}
	for _, tt := range tests {
		d := makeDeployment("a", tt.replicas).surge(tt.surge, "25%").obj()
		newRS, oldRS := rsOf("new", tt.newSize, 2), rsOf("old", tt.oldSize, 1)
		got, err := NewRSNewReplicas(d, []*appsv1.ReplicaSet{oldRS, newRS}, newRS)
		if err != nil || got != tt.want {
			t.Errorf("%s: NewRSNewReplicas = %d, %v; want %d", tt.name, got, err, tt.want)
		}
	}
	d := makeDeployment("a", 7).recreate().obj()
	if got, _ := NewRSNewReplicas(d, nil, rsOf("new", 0, 0)); got != 7 {
		t.Errorf("Recreate: NewRSNewReplicas = %d; want 7", got)
	}
}

func TestGetProportion(t *testing.T) {
	// A 10-replica rollout (max 13 with surge) is scaled to 20 (max 25):
	// old RS of 8 and new RS of 5 share the 12 new replicas.
	d := makeDeployment("a", 20).surge("25%", "25%").obj()
	old, nw := rsOf("old", 8, 1), rsOf("new", 5, 2)
	for _, rs := range []*appsv1.ReplicaSet{old, nw} {
		rs.Annotations = map[string]string{MaxReplicasAnnotation: "13"}
	}
	toAdd := int32(25 - 13)
	po := GetProportion(old, d, toAdd, 0)
	pn := GetProportion(nw, d, toAdd, po)
	if po != 7 || pn != 5 {
		// old: round(8*25/13)=15 → +7; new: round(5*25/13)=10 → +5
		t.Errorf("GetProportion = old %d, new %d; want 7, 5", po, pn)
	}
	if got := GetProportion(old, d, toAdd, toAdd); got != 0 {
		t.Errorf("nothing left to add: GetProportion = %d; want 0", got)
	}
	d0 := makeDeployment("a", 0).obj()
	if got := GetProportion(old, d0, -13, 0); got != -8 {
		t.Errorf("scaling to zero: GetProportion = %d; want -8", got)
	}
}

func TestDeploymentCompleteAndProgressing(t *testing.T) {
	d := makeDeployment("a", 3).obj()
	d.Generation = 2
	done := appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 3, UpdatedReplicas: 3, AvailableReplicas: 3}
	if !DeploymentComplete(d, &done) {
		t.Error("DeploymentComplete = false for 3/3/3 at the observed generation")
	}
	stale := done
	stale.ObservedGeneration = 1
	if DeploymentComplete(d, &stale) {
		t.Error("DeploymentComplete = true before the generation was observed")
	}
	d.Status = appsv1.DeploymentStatus{Replicas: 4, UpdatedReplicas: 1, ReadyReplicas: 3, AvailableReplicas: 3}
	for _, tt := range []struct {
		name string
		st   appsv1.DeploymentStatus
		want bool
	}{
		{"no change", d.Status, false},
		{"more updated", appsv1.DeploymentStatus{Replicas: 4, UpdatedReplicas: 2, ReadyReplicas: 3, AvailableReplicas: 3}, true},
		{"fewer old", appsv1.DeploymentStatus{Replicas: 3, UpdatedReplicas: 1, ReadyReplicas: 3, AvailableReplicas: 3}, true},
		{"more available", appsv1.DeploymentStatus{Replicas: 4, UpdatedReplicas: 1, ReadyReplicas: 3, AvailableReplicas: 4}, true},
		{"fewer ready", appsv1.DeploymentStatus{Replicas: 4, UpdatedReplicas: 1, ReadyReplicas: 2, AvailableReplicas: 2}, false},
	} {
		if got := DeploymentProgressing(d, &tt.st); got != tt.want {
			t.Errorf("%s: DeploymentProgressing = %v; want %v", tt.name, got, tt.want)
		}
	}
}

func TestDeploymentTimedOut(t *testing.T) {
	d := makeDeployment("a", 3).obj()
	deadline := int32(600)
	d.Spec.ProgressDeadlineSeconds = &deadline
	at := func(s int64) metav1.Time { return metav1.NewTime(sim.Seconds(s).Time()) }
	st := appsv1.DeploymentStatus{}
	SetDeploymentCondition(&st, *NewDeploymentCondition(appsv1.DeploymentProgressing, "True", ReplicaSetUpdatedReason, "", at(100)))
	if DeploymentTimedOut(d, &st, at(700)) {
		t.Error("timed out exactly at the deadline; kube needs it strictly past")
	}
	if !DeploymentTimedOut(d, &st, at(701)) {
		t.Error("not timed out one second past the deadline")
	}
	SetDeploymentCondition(&st, *NewDeploymentCondition(appsv1.DeploymentProgressing, "True", NewRSAvailableReason, "", at(100)))
	if DeploymentTimedOut(d, &st, at(10000)) {
		t.Error("a completed rollout timed out")
	}
}

func TestSetDeploymentConditionKeepsTransitionTime(t *testing.T) {
	at := func(s int64) metav1.Time { return metav1.NewTime(sim.Seconds(s).Time()) }
	st := appsv1.DeploymentStatus{}
	SetDeploymentCondition(&st, *NewDeploymentCondition(appsv1.DeploymentAvailable, "False", MinimumReplicasUnavailable, "", at(1)))
	SetDeploymentCondition(&st, *NewDeploymentCondition(appsv1.DeploymentAvailable, "False", MinimumReplicasUnavailable, "", at(5)))
	if c := GetDeploymentCondition(st, appsv1.DeploymentAvailable); !c.LastUpdateTime.Equal(ptrTime(at(1))) {
		t.Errorf("same status and reason rewrote the condition: lastUpdateTime %v", c.LastUpdateTime)
	}
	SetDeploymentCondition(&st, *NewDeploymentCondition(appsv1.DeploymentAvailable, "True", MinimumReplicasAvailable, "", at(9)))
	if c := GetDeploymentCondition(st, appsv1.DeploymentAvailable); !c.LastTransitionTime.Equal(ptrTime(at(9))) || len(st.Conditions) != 1 {
		t.Errorf("status change: %+v", st.Conditions)
	}
}

func ptrTime(t metav1.Time) *metav1.Time { return &t }

func TestSetNewReplicaSetAnnotations(t *testing.T) {
	d := makeDeployment("a", 4).surge("25%", "25%").obj()
	d.Annotations = map[string]string{"team": "shop", "kubectl.kubernetes.io/last-applied-configuration": "{}", RevisionAnnotation: "9"}
	rs := rsOf("a-1", 0, 0)
	if !SetNewReplicaSetAnnotations(d, rs, "3", false) {
		t.Fatal("no change reported for a new ReplicaSet")
	}
	want := map[string]string{"team": "shop", RevisionAnnotation: "3", DesiredReplicasAnnotation: "4", MaxReplicasAnnotation: "5"}
	if len(rs.Annotations) != len(want) {
		t.Errorf("annotations = %v; want %v", rs.Annotations, want)
	}
	for k, v := range want {
		if rs.Annotations[k] != v {
			t.Errorf("annotation %s = %q; want %q", k, rs.Annotations[k], v)
		}
	}
	// A rollback to this ReplicaSet: revision 3 becomes 7, history keeps 3.
	SetNewReplicaSetAnnotations(d, rs, "7", true)
	if rs.Annotations[RevisionAnnotation] != "7" || rs.Annotations[RevisionHistoryAnnotation] != "3" {
		t.Errorf("after rollback: revision %q, history %q; want 7, 3", rs.Annotations[RevisionAnnotation], rs.Annotations[RevisionHistoryAnnotation])
	}
	SetNewReplicaSetAnnotations(d, rs, "8", true)
	if rs.Annotations[RevisionHistoryAnnotation] != "3,7" {
		t.Errorf("history = %q; want 3,7", rs.Annotations[RevisionHistoryAnnotation])
	}

	// The map rs starts with may be a stored ReplicaSet's: a change goes
	// to a copy, and no change keeps the map rs has.
	shared := rs.Annotations
	before := maps.Clone(shared)
	if SetNewReplicaSetAnnotations(d, rs, "8", true) {
		t.Error("a change reported for annotations already in place")
	}
	if reflect.ValueOf(rs.Annotations).UnsafePointer() != reflect.ValueOf(shared).UnsafePointer() {
		t.Error("no change, but the annotations were copied")
	}
	d.Annotations["team"] = "cart"
	if !SetNewReplicaSetAnnotations(d, rs, "9", true) {
		t.Fatal("no change reported for a new annotation value and revision")
	}
	if !maps.Equal(shared, before) {
		t.Errorf("the shared annotations changed to %v; want %v", shared, before)
	}
	if rs.Annotations["team"] != "cart" || rs.Annotations[RevisionAnnotation] != "9" || rs.Annotations[RevisionHistoryAnnotation] != "3,7,8" {
		t.Errorf("annotations = %v; want team cart, revision 9, history 3,7,8", rs.Annotations)
	}
}

func TestFindNewReplicaSetIgnoresHashLabel(t *testing.T) {
	d := makeDeployment("a", 1).obj()
	same := rsOf("a-new", 1, 5)
	same.Spec.Template = *d.Spec.Template.DeepCopy()
	same.Spec.Template.Labels["pod-template-hash"] = "abc"
	older := same.DeepCopy()
	older.Name, older.UID, older.CreationTimestamp = "a-older", "uid-older", metav1.NewTime(sim.Tick(1).Time())
	other := rsOf("a-old", 1, 0)
	other.Spec.Template = *makeDeployment("a", 1).image("nginx:1.26").obj().Spec.Template.DeepCopy()
	got := FindNewReplicaSet(d, []*appsv1.ReplicaSet{same, other, older})
	if got == nil || got.Name != "a-older" {
		t.Errorf("FindNewReplicaSet = %v; want the oldest matching, a-older", got)
	}
	if olds := FindOldReplicaSets(d, []*appsv1.ReplicaSet{same, other, older}); len(olds) != 2 {
		t.Errorf("FindOldReplicaSets = %d; want 2", len(olds))
	}
}

// TestProgressMessage checks progressMessage against the fmt.Sprintf it
// stands for, names with characters %q escapes included.
func TestProgressMessage(t *testing.T) {
	for _, name := range []string{"web", "web-7d9f8c6b5", `a"b`, "a\\b", "é\n"} {
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name + "-d"}}
		rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name}}
		for _, what := range []string{" is progressing.", " has successfully progressed."} {
			if got, want := progressMessage(d, rs, what), fmt.Sprintf("ReplicaSet %q"+what, rs.Name); got != want {
				t.Errorf("progressMessage(rs %q) = %q; want %q", name, got, want)
			}
			if got, want := progressMessage(d, nil, what), fmt.Sprintf("Deployment %q"+what, d.Name); got != want {
				t.Errorf("progressMessage(d %q) = %q; want %q", d.Name, got, want)
			}
		}
	}
}
