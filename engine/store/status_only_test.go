package store

import (
	"fmt"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// statusKind builds objects of one kind and changes one part of a copy:
// its status, its spec or its metadata (step varies what is written).
type statusKind struct {
	k      *kinds.Kind
	obj    func(i int) Object
	status func(o Object, step int)
	spec   func(o Object, step int)
	meta   func(o Object, step int)
}

// zoned is at(ms) in the local zone for every third step, as the fuzzer
// does: times keep their zone apart from the protobuf bytes.
func zoned(ms int) metav1.Time {
	t := at(ms)
	if ms%3 == 0 {
		t = metav1.NewTime(t.Local())
	}
	return t
}

var statusKinds = []statusKind{
	{
		k: kinds.Pod,
		obj: func(i int) Object {
			p := runningPod()
			p.Name, p.UID = fmt.Sprintf("api-7d9f8c6b5-%05d", i), types.UID(fmt.Sprintf("uid-%d", i))
			return p
		},
		status: func(o Object, step int) {
			p := o.(*corev1.Pod)
			p.Status.Phase = []corev1.PodPhase{corev1.PodPending, corev1.PodRunning, corev1.PodSucceeded}[step%3]
			p.Status.PodIP = fmt.Sprintf("10.244.0.%d", step%250)
			p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady,
				Status: corev1.ConditionTrue, LastTransitionTime: zoned(step*37 + 1)})
			if step%11 == 10 { // larger than the scratch buffer: the status is marshalled the whole way
				p.Status.Message = strings.Repeat("x", encScratch+100)
			} else {
				p.Status.Message = ""
			}
		},
		spec: func(o Object, step int) { o.(*corev1.Pod).Spec.NodeName = fmt.Sprintf("node-%d", step) },
		meta: func(o Object, step int) { o.SetLabels(map[string]string{"step": fmt.Sprint(step)}) },
	},
	{
		k: kinds.Node,
		obj: func(i int) Object {
			n := kinds.Node.New().(*corev1.Node)
			n.Name, n.CreationTimestamp = fmt.Sprintf("node-%d", i), at(1500)
			n.Labels = map[string]string{"kubernetes.io/hostname": n.Name}
			return n
		},
		status: func(o Object, step int) {
			n := o.(*corev1.Node)
			n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue,
				LastHeartbeatTime: zoned(step * 41), LastTransitionTime: zoned(step*41 + 2)}}
		},
		spec: func(o Object, step int) { o.(*corev1.Node).Spec.Unschedulable = step%2 == 1 },
		meta: func(o Object, step int) { o.SetAnnotations(map[string]string{"step": fmt.Sprint(step)}) },
	},
	{
		k: kinds.Deployment,
		obj: func(i int) Object {
			d := kinds.Deployment.New().(*appsv1.Deployment)
			d.Namespace, d.Name, d.CreationTimestamp = "default", fmt.Sprintf("api-%d", i), at(1500)
			d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "api"}}
			d.Spec.Template.Labels = map[string]string{"app": "api"}
			d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "web", Image: "nginx:1.27"}}
			return d
		},
		status: func(o Object, step int) {
			d := o.(*appsv1.Deployment)
			d.Status.Replicas, d.Status.ReadyReplicas, d.Status.ObservedGeneration = int32(step), int32(step/2), int64(step)
			d.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue,
				LastUpdateTime: zoned(step * 43), LastTransitionTime: zoned(step*43 + 1)}}
		},
		spec: func(o Object, step int) { r := int32(step); o.(*appsv1.Deployment).Spec.Replicas = &r },
		meta: func(o Object, step int) {
			o.SetAnnotations(map[string]string{"deployment.kubernetes.io/revision": fmt.Sprint(step)})
		},
	},
	{
		k: kinds.ReplicaSet,
		obj: func(i int) Object {
			rs := kinds.ReplicaSet.New().(*appsv1.ReplicaSet)
			rs.Namespace, rs.Name, rs.CreationTimestamp = "default", fmt.Sprintf("api-7d9f8c6b5-%d", i), at(1500)
			rs.Spec.Template.Spec.Containers = []corev1.Container{{Name: "web", Image: "nginx:1.27"}}
			return rs
		},
		status: func(o Object, step int) {
			rs := o.(*appsv1.ReplicaSet)
			rs.Status.Replicas, rs.Status.AvailableReplicas = int32(step), int32(step/3)
			if step%4 == 0 {
				rs.Status.Conditions = []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure,
					Status: corev1.ConditionTrue, LastTransitionTime: zoned(step * 47)}}
			}
		},
		spec: func(o Object, step int) { r := int32(step); o.(*appsv1.ReplicaSet).Spec.Replicas = &r },
		meta: func(o Object, step int) { o.SetLabels(map[string]string{"step": fmt.Sprint(step)}) },
	},
}

// writeHistory makes the same history in a store for a kind, promising
// status-only writes as such if promise: three objects written in turn
// (mostly status writes, some spec and metadata ones), sealed every few
// writes as the engine does, compacted once midway (so that some versions
// lose the entry that wrote them, and with it their base), and one object
// deleted at the end. It returns the number of status-only writes.
func writeHistory(t *testing.T, s *Store, sk statusKind, promise bool) int {
	t.Helper()
	const objects, steps = 3, 120
	latest := make([]Object, objects)
	for i := range latest {
		latest[i] = sk.obj(i)
		if _, err := s.Create(latest[i], 0); err != nil {
			t.Fatal(err)
		}
	}
	statusWrites := 0
	for step := range steps {
		i := step % objects
		next := latest[i].DeepCopyObject().(Object)
		update := s.Update
		switch (step * 7) % 10 {
		case 6, 7:
			sk.spec(next, step)
		case 8:
			sk.meta(next, step)
		default:
			sk.status(next, step)
			statusWrites++
			if promise {
				update = s.UpdateStatusOnly
			}
		}
		if _, err := update(next, uint64(step)); err != nil {
			t.Fatal(err)
		}
		latest[i] = next
		if step%4 == 3 {
			s.Seal(s.Rev())
		}
		if step == steps/2 {
			s.Compact(s.Rev() - 10)
		}
	}
	o := latest[0]
	if _, _, err := s.Delete(sk.k, o.GetNamespace(), o.GetName(), "", 0); err != nil {
		t.Fatal(err)
	}
	s.Seal(s.Rev())
	return statusWrites
}

// sameBlob says whether a and b are the same bytes with the same chain:
// base and reference alike.
func sameBlob(a, b *blob) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.data == b.data && sameBlob(a.base, b.base) && sameBlob(a.ref, b.ref)
}

// A status-only version encoded by its status alone, on its writer's
// promise, is byte for byte the version the whole path makes by comparing
// it with its base: the same history, written with and without the
// promise, keeps the same blobs (a delta against the same reference, its
// base the same version), whatever the kind, the zones of its times, its
// size or compaction's bites out of history.
func TestStatusOnlyPromiseEncodesTheSame(t *testing.T) {
	for _, sk := range statusKinds {
		t.Run(sk.k.Kind, func(t *testing.T) {
			promised, compared := New(), New()
			n := writeHistory(t, promised, sk, true)
			writeHistory(t, compared, sk, false)
			if promised.history.n != compared.history.n || promised.history.first != compared.history.first {
				t.Fatalf("histories differ in length: %d from %d, %d from %d",
					promised.history.n, promised.history.first, compared.history.n, compared.history.first)
			}
			statusOnly := 0
			for i := range promised.history.n {
				p, c := promised.history.sealed(i), compared.history.sealed(i)
				if !sameBlob(p.obj, c.obj) || !sameBlob(p.old, c.old) {
					t.Errorf("revision %d: the promised write's versions are not byte for byte the compared one's",
						promised.history.first+int64(i))
				}
				if p.old != nil && p.old.base != nil && p.old.from() == 3 {
					statusOnly++
				}
			}
			// Compaction and the versions still typed leave some out, but
			// most status writes must have been kept by their status.
			if statusOnly < n/2 {
				t.Errorf("%d of %d status writes kept by their status alone; want at least half", statusOnly, n)
			}
		})
	}
}

// A promise of a status-only write that changed more is caught when the
// version is sealed, while VerifyEncoding is on (as in every test): it
// would otherwise keep the version's status alone, and history would read
// back its base's metadata or spec.
func TestFalseStatusOnlyPromisePanics(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sk     int // index in statusKinds
		change func(sk statusKind, o Object)
	}{
		{"pod metadata", 0, func(sk statusKind, o Object) { sk.meta(o, 1) }},
		{"pod spec", 0, func(sk statusKind, o Object) { sk.spec(o, 1) }},
		{"node spec", 1, func(sk statusKind, o Object) { sk.spec(o, 1) }},
		{"deployment annotations", 2, func(sk statusKind, o Object) { sk.meta(o, 1) }},
		{"replicaset spec", 3, func(sk statusKind, o Object) { sk.spec(o, 1) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sk := statusKinds[tc.sk]
			s := New()
			v1 := sk.obj(0)
			s.Create(v1, 0)
			v2 := v1.DeepCopyObject().(Object)
			sk.status(v2, 1)
			s.Update(v2, 0)
			v3 := v2.DeepCopyObject().(Object)
			sk.status(v3, 2)
			tc.change(sk, v3)
			s.UpdateStatusOnly(v3, 0) // false: the version sealed against v2's
			v4 := v3.DeepCopyObject().(Object)
			sk.status(v4, 3)
			s.Update(v4, 0)
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "status-only") {
					t.Errorf("sealing a false status-only promise: recovered %v; want a panic naming it", r)
				}
			}()
			s.Seal(s.Rev())
		})
	}
}
