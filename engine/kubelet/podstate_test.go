package kubelet

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// A kubelet keeps a podState for every pod it runs; it is 96 bytes, an
// allocator size class, so that a field more costs 16 bytes a pod (the
// next class is 112): keep a new one with the packed small fields, put
// one that only some pods need in podMore (or one that only a slow step
// needs in slowStep), or drop one that something else already says (the
// retry's time is its timer's, the store key is made from the pod's
// namespace and name, the IP string is the pod status's).
func TestPodStateIs96Bytes(t *testing.T) {
	if got := reflect.TypeFor[podState]().Size(); got != 96 {
		t.Errorf("a podState is %d bytes; want 96", got)
	}
}

// A kubelet keeps a ctr for every container it runs; it is 128 bytes
// with its process (64 without), an allocator size class (the next is
// 144). What a container needs only once something happens to it (a
// waiting reason, a stop, an exit, probes, back-offs, a process that
// wakes by itself) belongs in ctrMore, which a quiet container never
// makes.
func TestCtrIs128Bytes(t *testing.T) {
	if got := reflect.TypeFor[ctr]().Size(); got != 128 {
		t.Errorf("a ctr is %d bytes; want 128", got)
	}
}

// A pod of one container keeps its podState and its ctr in one block of
// an allocator size class.
func TestPodWithCtrIs224Bytes(t *testing.T) {
	if got := reflect.TypeFor[podWithCtr]().Size(); got != 224 {
		t.Errorf("a podWithCtr is %d bytes; want 224", got)
	}
}

// A kubelet finds its pods by namespace and name, and lists them in the
// order of their store keys, which comparePods reads from the namespaces
// and names alone.
func TestPodsByKey(t *testing.T) {
	pods := [][2]string{{"a", "x"}, {"a", "x-1"}, {"a", "y"}, {"a-b", "a"}, {"ab", "a"}, {"a0", "z"}, {"b", ""},
		{"default", "web-1"}, {"default", "web-10"}, {"default", "web-2"}, {"default-x", "web"}, {"def", "zz"}}
	for _, a := range pods {
		for _, b := range pods {
			want := strings.Compare(kinds.Pod.Key(a[0], a[1]), kinds.Pod.Key(b[0], b[1]))
			if got := comparePods(a[0], a[1], b[0], b[1]); got != want {
				t.Errorf("comparePods(%s/%s, %s/%s) = %d; want %d", a[0], a[1], b[0], b[1], got, want)
			}
		}
	}
	k := &Kubelet{}
	for _, x := range pods {
		i, found := k.podAt(x[0], x[1])
		if found {
			t.Fatalf("%s/%s found before it was added", x[0], x[1])
		}
		k.pods = slices.Insert(k.pods, i, podEntry{podHash(x[0], x[1]), &podState{pod: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: x[0], Name: x[1]}}}})
	}
	// A pod filed after another of the same hash is found.
	twin := &podState{pod: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "twin"}}}
	decoy := &podState{pod: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "decoy"}}}
	h := podHash("default", "twin")
	i, _ := k.podAt("default", "twin")
	k.pods = slices.Insert(k.pods, i, podEntry{h, decoy}, podEntry{h, twin})
	if got := k.pod("default", "twin"); got != twin {
		t.Errorf("pod(default/twin) did not find it beside another of its hash")
	}
	byKey := k.podsByKey()
	if len(byKey) != len(pods)+2 {
		t.Fatalf("podsByKey lists %d pods; want %d", len(byKey), len(pods)+2)
	}
	for i, p := range byKey {
		if i > 0 && kinds.Pod.Key(byKey[i-1].pod.Namespace, byKey[i-1].pod.Name) >= kinds.Pod.Key(p.pod.Namespace, p.pod.Name) {
			t.Errorf("pods out of order at %d: %s/%s after %s/%s", i, p.pod.Namespace, p.pod.Name, byKey[i-1].pod.Namespace, byKey[i-1].pod.Name)
		}
		if p != twin && p != decoy {
			if got := k.pod(p.pod.Namespace, p.pod.Name); got != p {
				t.Errorf("pod(%s/%s) did not find it", p.pod.Namespace, p.pod.Name)
			}
		}
	}
	if k.pod("a", "nope") != nil {
		t.Errorf("pod(a/nope) found a pod")
	}
}
