package apiserver

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// A generated name that is already taken is drawn again, for a learner's
// request (checked before it is traced) and for a component's (whose
// create just tries, and learns from etcd's answer); neither writes twice.
func TestGeneratedNameCollisionDrawsAgain(t *testing.T) {
	newPod := func() *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: "web-", Namespace: "default"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}}}
	}
	// The same seed draws the same name first: find it.
	first, err := newTestServer(t).Create(Actor{Component: "replicaset-controller"}, newPod())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		actor func(ts *testServer) Actor
	}{
		{"component", func(*testServer) Actor { return Actor{Component: "replicaset-controller"} }},
		{"learner", func(ts *testServer) Actor { return ts.learner("create -f pod.yaml") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTestServer(t)
			squatter := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: first.GetName(), Namespace: "default"}}
			if _, err := ts.store.Create(squatter, 0); err != nil { // behind the server's back: no draws
				t.Fatal(err)
			}
			rev := ts.store.Rev()
			got, err := ts.Create(tc.actor(ts), newPod())
			if err != nil {
				t.Fatalf("Create: %v", err)
			}
			if got.GetName() == first.GetName() || len(got.GetName()) != len(first.GetName()) {
				t.Errorf("generated %q; want a new name of the same form as %q", got.GetName(), first.GetName())
			}
			if ts.store.Rev() != rev+1 || ts.store.Count(kinds.Pod) != 2 {
				t.Errorf("revision moved %d, %d pods; want one write, 2 pods", ts.store.Rev()-rev, ts.store.Count(kinds.Pod))
			}
		})
	}
}

// A component creating a name that is taken gets AlreadyExists and changes
// nothing.
func TestComponentCreateOfTakenName(t *testing.T) {
	ts := newTestServer(t)
	ev := func() *corev1.Event {
		return &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "web.1", Namespace: "default"},
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "web"},
			Reason:         "Pulled", Type: corev1.EventTypeNormal, Source: corev1.EventSource{Component: "kubelet"}}
	}
	a := Actor{Component: "kubelet/n1"}
	if _, err := ts.Create(a, ev()); err != nil {
		t.Fatal(err)
	}
	rev := ts.store.Rev()
	_, err := ts.Create(a, ev())
	if err == nil || err.Error() != `events "web.1" already exists` {
		t.Fatalf("second Create = %v; want events \"web.1\" already exists", err)
	}
	if ts.store.Rev() != rev {
		t.Errorf("a refused create moved the revision by %d", ts.store.Rev()-rev)
	}
}

// generateName appends five characters of apimachinery's alphabet to a
// base cut to 58, and gives the uid back as it was.
func TestGenerateName(t *testing.T) {
	const uid = types.UID("9fe6992d-c808-4e10-a1a4-000000000007")
	for _, base := range []string{"web-", "api-7d9f8c6b5-", strings.Repeat("a", 70), ""} {
		name, got := newTestServer(t).generateName(base, uid)
		want := base[:min(len(base), maxGeneratedNameLength)]
		if !strings.HasPrefix(name, want) || len(name) != len(want)+generateRandomLength ||
			strings.Trim(name[len(want):], generateAlphabet) != "" {
			t.Errorf("generateName(%q) = %q; want %q and %d of %q", base, name, want, generateRandomLength, generateAlphabet)
		}
		if got != uid {
			t.Errorf("generateName(%q) gave uid %q; want %q", base, got, uid)
		}
	}
}
