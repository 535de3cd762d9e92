package apiserver

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/store"
	"github.com/kubeloop/kubeloop/engine/trace"
)

// system is the actor for test fixtures: not traced.
var system = Actor{Component: "apiserver"}

// testServer is a server with the bootstrap namespaces, as engine.New
// makes it.
type testServer struct {
	*Server
	trace *trace.Trace
	store *store.Store
}

func newTestServer(t testing.TB) *testServer {
	t.Helper()
	loop := sim.NewLoop()
	st := store.New()
	tr := trace.New(loop, 0)
	s := New(st, tr, loop, sim.NewRand(1))
	for _, ns := range []string{"default", "kube-node-lease", "kube-public", "kube-system"} {
		if _, err := s.Create(system, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatalf("bootstrap namespace %s: %v", ns, err)
		}
	}
	return &testServer{Server: s, trace: tr, store: st}
}

// learner returns the actor of a learner's command, recorded as kubectl
// would be by engine.Command.
func (ts *testServer) learner(line string) Actor {
	seq := ts.trace.Record(trace.Event{Component: Kubectl, Lane: trace.ControlPlane, Column: trace.Declare, Message: line})
	return Actor{Component: Kubectl, Cause: seq}
}

func (ts *testServer) mustApply(t testing.TB, manifest string) []ApplyResult {
	t.Helper()
	res, err := ts.Apply(ts.learner("apply -f test.yaml"), "test.yaml", []byte(manifest), ApplyOptions{})
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	return res
}

func (ts *testServer) mustGet(t testing.TB, k *kinds.Kind, ns, name string) kinds.Object {
	t.Helper()
	obj, err := ts.Get(k, ns, name)
	if err != nil {
		t.Fatalf("Get %s %s/%s: %v", k.Kind, ns, name, err)
	}
	return obj
}

func toJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

const apiDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  replicas: 3
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      containers:
      - name: api
        image: shop/api:v2.1
        ports:
        - containerPort: 8080
`

const apiService = `apiVersion: v1
kind: Service
metadata:
  name: api
spec:
  selector: {app: api}
  ports:
  - port: 80
    targetPort: 8080
`
