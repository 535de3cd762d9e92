package store

import (
	"fmt"
	"slices"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

func pod(ns, name, node string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: corev1.PodSpec{NodeName: node}}
}

func TestRevisionsAndResourceVersions(t *testing.T) {
	s := New()
	if s.Rev() != 1 {
		t.Fatalf("new store at revision %d; want 1 (etcd starts at 1)", s.Rev())
	}
	rev, err := s.Create(pod("default", "a", ""), 0)
	if err != nil || rev != 2 {
		t.Fatalf("Create = %d, %v; want 2, nil", rev, err)
	}
	got, _ := s.Get(kinds.Pod, "default", "a")
	if got.GetResourceVersion() != "2" {
		t.Errorf("resourceVersion = %q; want \"2\"", got.GetResourceVersion())
	}
	if _, err := s.Create(pod("default", "a", ""), 0); !apierrors.IsAlreadyExists(err) {
		t.Errorf("second Create err = %v; want AlreadyExists", err)
	}
	upd := got.DeepCopyObject().(*corev1.Pod)
	upd.Spec.NodeName = "n1"
	if rev, err := s.Update(upd, 0); err != nil || rev != 3 {
		t.Fatalf("Update = %d, %v; want 3, nil", rev, err)
	}
	stale := got.DeepCopyObject().(*corev1.Pod) // still at resourceVersion 2
	stale.Spec.NodeName = "n2"
	_, err = s.Update(stale, 0)
	if !apierrors.IsConflict(err) {
		t.Fatalf("stale Update err = %v; want Conflict", err)
	}
	want := `Operation cannot be fulfilled on pods "a": the object has been modified; please apply your changes to the latest version and try again`
	if err.Error() != want {
		t.Errorf("conflict message:\n got %s\nwant %s", err, want)
	}
	if _, err := s.Get(kinds.Pod, "default", "nope"); err == nil || err.Error() != `pods "nope" not found` {
		t.Errorf("Get missing = %v; want pods \"nope\" not found", err)
	}
}

func TestListIsOrderedAndScopedByNamespace(t *testing.T) {
	s := New()
	for _, p := range []*corev1.Pod{pod("b", "z", ""), pod("a", "y", ""), pod("b", "a", ""), pod("ab", "x", "")} {
		if _, err := s.Create(p, 0); err != nil {
			t.Fatal(err)
		}
	}
	names := func(objs []Object) (out []string) {
		for _, o := range objs {
			out = append(out, o.GetNamespace()+"/"+o.GetName())
		}
		return out
	}
	if got, want := names(s.List(kinds.Pod, "")), []string{"a/y", "ab/x", "b/a", "b/z"}; !slices.Equal(got, want) {
		t.Errorf("List all = %v; want %v", got, want)
	}
	if got, want := names(s.List(kinds.Pod, "a")), []string{"a/y"}; !slices.Equal(got, want) {
		t.Errorf("List a = %v; want %v (namespace a must not match ab)", got, want)
	}
}

func TestWatchHistoryAndCompaction(t *testing.T) {
	s := New()
	s.Create(pod("default", "a", ""), 11)
	s.Create(pod("default", "b", ""), 12)
	s.Delete(kinds.Pod, "default", "a", "", 13)
	evs, err := s.Since(2)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || evs[0].Type != Added || evs[1].Type != Deleted || evs[1].Cause != 13 {
		t.Fatalf("Since(2) = %+v", evs)
	}
	s.Compact(3)
	if _, err := s.Since(2); err == nil {
		t.Error("Since(2) after Compact(3) succeeded; want compacted")
	}
	if evs, _ := s.Since(3); len(evs) != 1 || evs[0].Rev != 4 {
		t.Errorf("Since(3) = %v; want the delete at revision 4", evs)
	}
}

func TestIndexFollowsUpdatesAndDeletes(t *testing.T) {
	s := New()
	s.AddIndex(kinds.Pod, "node", func(o Object) []string { return []string{o.(*corev1.Pod).Spec.NodeName} })
	s.Create(pod("default", "a", "n1"), 0)
	s.Create(pod("default", "b", "n1"), 0)
	cur, _ := s.Get(kinds.Pod, "default", "b")
	moved := cur.DeepCopyObject().(*corev1.Pod)
	moved.Spec.NodeName = "n2"
	s.Update(moved, 0)
	s.Delete(kinds.Pod, "default", "a", "", 0)
	if n := s.CountByIndex(kinds.Pod, "node", "n1"); n != 0 {
		t.Errorf("pods on n1 = %d; want 0", n)
	}
	if got := s.ByIndex(kinds.Pod, "node", "n2"); len(got) != 1 || got[0].GetName() != "b" {
		t.Errorf("pods on n2 = %v; want [b]", got)
	}
}

// ByIndex keeps each value's objects between calls: an update that leaves
// the value alone must still hand out the new version, in key order.
func TestIndexHandsOutLatestVersions(t *testing.T) {
	s := New()
	s.AddIndex(kinds.Pod, "node", func(o Object) []string { return []string{o.(*corev1.Pod).Spec.NodeName} })
	for _, name := range []string{"c", "a", "b"} {
		s.Create(pod("default", name, "n1"), 0)
	}
	_ = s.ByIndex(kinds.Pod, "node", "n1") // builds the sorted cache
	cur, _ := s.Get(kinds.Pod, "default", "b")
	upd := cur.DeepCopyObject().(*corev1.Pod)
	upd.Labels = map[string]string{"v": "2"}
	s.Update(upd, 0)
	got := s.ByIndex(kinds.Pod, "node", "n1")
	if len(got) != 3 || got[0].GetName() != "a" || got[1] != Object(upd) || got[2].GetName() != "c" {
		t.Fatalf("pods on n1 = %v; want a, the updated b, c", got)
	}
	got[0] = nil // the caller's slice: must not reach the index
	if again := s.ByIndex(kinds.Pod, "node", "n1"); again[0] == nil {
		t.Error("ByIndex returned the index's own slice")
	}
}

func TestUpdateWithStoredObjectPanics(t *testing.T) {
	s := New()
	s.Create(pod("default", "a", ""), 0)
	cur, _ := s.Get(kinds.Pod, "default", "a")
	defer func() {
		if recover() == nil {
			t.Error("updating with the shared stored object did not panic")
		}
	}()
	s.Update(cur, 0)
}

// TestHistoryAcrossBlocks writes more than two blocks of history, reads it
// back from revisions in every block, compacts into the middle of a block
// and checks what is left and what is refused; with none of it sealed,
// part of it, and all of it (sealed history is kept apart, compactly).
func TestHistoryAcrossBlocks(t *testing.T) {
	const writes = 2*historyChunk + 100
	for _, sealTo := range []int64{0, historyChunk + 10, writes + 1} {
		t.Run(fmt.Sprintf("sealed-to-%d", sealTo), func(t *testing.T) {
			s := New()
			for i := 0; i < writes; i++ {
				p := pod("default", "p"+strconv.Itoa(i%(writes/3)), "")
				if i >= writes/3 { // later writes update the earlier pods
					old, _ := s.Lookup(kinds.Pod, "default", p.Name)
					p = old.(*corev1.Pod).DeepCopy()
					p.Labels = map[string]string{"write": strconv.Itoa(i)}
				}
				var err error
				if i < writes/3 {
					_, err = s.Create(p, uint64(i))
				} else {
					_, err = s.Update(p, uint64(i))
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			s.Seal(sealTo)
			check := func(from int64) {
				t.Helper()
				evs, err := s.Since(from)
				if err != nil {
					t.Fatalf("Since(%d): %v", from, err)
				}
				if want := int(s.Rev() - from); len(evs) != want {
					t.Fatalf("Since(%d) = %d events; want %d", from, len(evs), want)
				}
				for i, ev := range evs {
					if ev.Rev != from+1+int64(i) || ev.Cause != uint64(ev.Rev-2) || ev.Object == nil {
						t.Fatalf("Since(%d)[%d] = rev %d, cause %d; want %d, %d", from, i, ev.Rev, ev.Cause, from+1+int64(i), from-1+int64(i))
					}
					if ev.Type == Modified && (ev.Old == nil || ev.Old.GetResourceVersion() == ev.Object.GetResourceVersion()) {
						t.Fatalf("Since(%d)[%d]: the version it superseded is missing", from, i)
					}
				}
			}
			for _, from := range []int64{1, 2, historyChunk, historyChunk + 1, 2*historyChunk + 50, s.Rev()} {
				check(from)
			}
			compactTo := int64(historyChunk + 77)
			s.Compact(compactTo)
			if _, err := s.Since(compactTo - 1); err == nil {
				t.Fatalf("Since(%d) after compaction to %d: want ErrCompacted", compactTo-1, compactTo)
			}
			check(compactTo)
			check(s.Rev() - 3)
			if s.HistoryLen() != int(s.Rev()-compactTo) {
				t.Fatalf("HistoryLen = %d; want %d", s.HistoryLen(), s.Rev()-compactTo)
			}
			// Writes after compaction keep appending where the log left off.
			if _, err := s.Create(pod("default", "after", ""), uint64(s.Rev()-1)); err != nil {
				t.Fatal(err)
			}
			check(compactTo)
			s.Seal(s.Rev())
			check(compactTo)
			// What sealed history keeps typed is the current version of
			// each object, and nothing of what compaction dropped.
			live := 0
			for i := 0; i < s.history.n; i++ {
				if s.history.sealed(i).typed() != 0 {
					live++
				}
			}
			if kept := s.history.typedSlotsKept(); kept != live { // a pod's current version: one slot
				t.Errorf("history keeps %d typed slots; %d sealed entries use one", kept, live)
			}
			if live > s.Count(kinds.Pod) {
				t.Errorf("sealed history keeps %d typed versions; want at most one for each of the %d pods", live, s.Count(kinds.Pod))
			}
		})
	}
}

// An Event, kept at rest, is updated as any object: its resourceVersion,
// read from its bytes, is the precondition, and the watch sees the write.
func TestEventUpdateChecksTheResourceVersionItKeeps(t *testing.T) {
	s := New()
	ev := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "web.1", Namespace: "default"},
		InvolvedObject: corev1.ObjectReference{Kind: "ReplicaSet", Namespace: "default", Name: "web"},
		Reason:         "SuccessfulCreate", Message: "Created pod: web-abcde", Count: 1, Type: corev1.EventTypeNormal}
	if _, err := s.Create(ev, 0); err != nil {
		t.Fatal(err)
	}
	cur, _ := s.Get(kinds.Event, "default", "web.1")
	upd := cur.DeepCopyObject().(*corev1.Event)
	upd.Count, upd.Message = 12, "(combined from similar events): Created pod: web-fghij"
	rev, err := s.Update(upd, 0)
	if err != nil {
		t.Fatalf("Update at the current resourceVersion: %v", err)
	}
	stale := cur.DeepCopyObject().(*corev1.Event) // at the version before
	stale.Count = 13
	if _, err := s.Update(stale, 0); !apierrors.IsConflict(err) {
		t.Fatalf("Update at a stale resourceVersion: err = %v; want Conflict", err)
	}
	got, _ := s.Get(kinds.Event, "default", "web.1")
	if e := got.(*corev1.Event); e.Count != 12 || e.ResourceVersion != strconv.FormatInt(rev, 10) {
		t.Errorf("stored Event: count %d at %s; want 12 at %d", e.Count, e.ResourceVersion, rev)
	}
	evs, _ := s.Since(rev - 1)
	if len(evs) != 1 || evs[0].Type != Modified || evs[0].Old.(*corev1.Event).Count != 1 {
		t.Errorf("the watch saw %+v; want one MODIFIED from count 1", evs)
	}
}
