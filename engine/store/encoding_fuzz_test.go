package store

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// FuzzHistoryReadsBack drives two pods through a sequence of writes chosen
// by the input (status-only changes, spec and metadata changes, times with
// milliseconds in either zone, containers starting and ending, a delete),
// so that versions are deltas of the other pod's as well as their own,
// and checks that, once sealed, every version reads back exactly: as JSON,
// semantically and zone by zone (VerifyEncoding checks each encoding as it
// is made, too), and names its key. Status-only changes carry their writer's promise (see
// UpdateStatusOnly) when bit 4 of their op is set, as the API server's
// status writes do, so that the fast encoding and its check against the
// whole one are fuzzed too. Its seeds run with the tests; `go test -fuzz
// FuzzHistoryReadsBack ./engine/store` explores further.
func FuzzHistoryReadsBack(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7})
	f.Add([]byte{1, 1, 1, 2, 1, 1, 7})
	f.Add([]byte{3, 0, 3, 0, 5, 5, 4, 6, 9, 200, 17})
	f.Add([]byte{16, 17, 2, 20, 21, 16, 19, 23, 17, 28, 25, 16})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) == 0 {
			return
		}
		if len(ops) > 64 {
			ops = ops[:64]
		}
		s := New()
		start := s.Rev()
		latest := []*corev1.Pod{typedPod("a"), typedPod("b")}
		latest[1].UID = "b"
		var versions, olds []*corev1.Pod // in the order written
		for _, p := range latest {
			s.Create(p, 0)
			versions, olds = append(versions, p), append(olds, nil)
		}
		ms := func(i int) metav1.Time {
			t := at(int(ops[i%len(ops)])*37 + i)
			if i%3 == 0 {
				t = metav1.NewTime(t.Local())
			}
			return t
		}
		deleted := false
		for i, op := range ops {
			which := int(op>>3) & 1
			next := latest[which].DeepCopy()
			update := s.Update
			if op&16 != 0 {
				update = s.UpdateStatusOnly // true unless the change below is to the spec or metadata
			}
			switch op % 8 {
			case 0:
				next.Status.Phase = []corev1.PodPhase{corev1.PodPending, corev1.PodRunning, corev1.PodFailed}[i%3]
			case 1:
				next.Status.Conditions = append(next.Status.Conditions, corev1.PodCondition{
					Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: ms(i)})
			case 2:
				next.Spec.NodeName = "n" + string(rune('a'+i%26))
				update = s.Update
			case 3:
				next.Labels = map[string]string{"v": string(rune('a' + i%26))}
				update = s.Update
			case 4:
				st := ms(i)
				next.Status.StartTime = &st
				next.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "web",
					State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: ms(i + 1)}}}}
			case 5:
				next.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "web", RestartCount: int32(i),
					State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1,
						StartedAt: ms(i), FinishedAt: ms(i + 2)}},
					LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
						StartedAt: ms(i + 3), FinishedAt: metav1.Time{}}}}}
			case 6:
				dt := ms(i)
				next.DeletionTimestamp = &dt
				update = s.Update
			case 7:
				next.Status = corev1.PodStatus{}
			}
			if _, err := update(next, uint64(i)); err != nil {
				t.Fatal(err)
			}
			versions, olds = append(versions, next), append(olds, latest[which])
			latest[which] = next
			if i%5 == 4 {
				s.Seal(s.Rev()) // seal as the engine does, between writes
			}
		}
		if ops[0]%2 == 1 {
			s.Delete(kinds.Pod, "default", "a", "", 99)
			versions, olds = append(versions, latest[0]), append(olds, nil)
			deleted = true
		}
		s.Seal(s.Rev())
		evs, err := s.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != len(versions) {
			t.Fatalf("%d writes kept; want %d", len(evs), len(versions))
		}
		for i, v := range versions {
			got := evs[i].Object
			if key := kinds.Pod.Key(v.Namespace, v.Name); evs[i].Key() != key {
				t.Fatalf("version %d has the key %q; want %q", i, evs[i].Key(), key)
			}
			sameJSON(t, "version", got, v)
			if !equality.Semantic.DeepEqual(got, v) || !sameZones(got, v) {
				t.Fatalf("version %d differs after decoding", i)
			}
			if olds[i] != nil {
				sameJSON(t, "old version", evs[i].Old, olds[i])
			}
		}
		if deleted && evs[len(evs)-1].Type != Deleted {
			t.Fatal("the delete was not kept")
		}
	})
}
