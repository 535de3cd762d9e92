package repl

import (
	"fmt"
	"io"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine"
	"github.com/kubeloop/kubeloop/engine/controller"
	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/store"
)

// bigSession is a session on 1,000 nodes with 10,000 pods (ten per node),
// built once for the benchmarks: the size issue 3 sets its figures at.
var bigSession = sync.OnceValue(newBigSession)

func newBigSession() *Session {
	s := NewSession(io.Discard, io.Discard, Config{Nodes: 1000})
	for i := 0; i < 10_000; i++ {
		p := &corev1.Pod{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("web-%05d", i), Namespace: "default",
				Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{
				NodeName:   fmt.Sprintf("n%d", i%1000+1),
				Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}},
			},
		}
		if _, err := s.Eng.API.Create(engine.System, p); err != nil {
			panic(err)
		}
	}
	s.Eng.Settle()
	return s
}

// benchmarking turns off the test-time cross-checks (the ReplicaSet
// tallies' recount, the store's encoding round trip): a benchmark measures
// kubeloop, not its tests.
func benchmarking() {
	controller.VerifyTallies, store.VerifyEncoding, framework.VerifyNodesScorers = false, false, false
}

func benchCommand(b *testing.B, line string) {
	benchmarking()
	s := bigSession()
	var n countingWriter
	s.Out, s.Err = &n, &n
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.Exec(line); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	s.Out, s.Err = io.Discard, io.Discard
	b.ReportMetric(float64(n)/float64(b.N), "bytes/op")
}

type countingWriter int

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}

// BenchmarkGetPod is `get pod X` at 10,000 pods on 1,000 nodes (target:
// 5 ms).
func BenchmarkGetPod(b *testing.B) { benchCommand(b, "get pod web-05000") }

// BenchmarkGetPodsAllNamespaces is `get pods -A` at 10,000 pods on 1,000
// nodes (target: 100 ms).
func BenchmarkGetPodsAllNamespaces(b *testing.B) { benchCommand(b, "get pods -A") }

// BenchmarkGetPodJSON is `get pod X -o json`.
func BenchmarkGetPodJSON(b *testing.B) { benchCommand(b, "get pod web-05000 -o json") }

// BenchmarkTraceLast is `trace --last 20` over the trace of that cluster.
func BenchmarkTraceLast(b *testing.B) { benchCommand(b, "trace --last 20") }

// BenchmarkWhyPod is `why pod/X` at that size.
func BenchmarkWhyPod(b *testing.B) { benchCommand(b, "why pod/web-05000") }

// steadyBig is bigSession's cluster after two virtual minutes: containers
// running, each pod with its five kubelet and scheduler events, so that
// describe and logs have something to read. Built once.
var steadyBig = sync.OnceValue(func() *Session {
	s := newBigSession()
	if err := s.Exec("advance 2m -q"); err != nil {
		panic(err)
	}
	return s
})

func benchSteady(b *testing.B, line string) {
	benchmarking()
	s := steadyBig()
	var n countingWriter
	s.Out, s.Err = &n, &n
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.Exec(line); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	s.Out, s.Err = io.Discard, io.Discard
	b.ReportMetric(float64(n)/float64(b.N), "bytes/op")
}

// BenchmarkDescribePod is `describe pod X` at 10,000 running pods on 1,000
// nodes, with its events (target: 5 ms).
func BenchmarkDescribePod(b *testing.B) { benchSteady(b, "describe pod web-05000") }

// BenchmarkDescribeNode is `describe node X` there: its ten pods, its
// lease and its events.
func BenchmarkDescribeNode(b *testing.B) { benchSteady(b, "describe node n500") }

// BenchmarkDescribePodsPrefix is `describe pods web-0500`: no pod
// has that name, so every pod whose name starts with it is described (ten).
func BenchmarkDescribePodsPrefix(b *testing.B) { benchSteady(b, "describe pods web-0500") }

// BenchmarkLogsPod is `logs X` there.
func BenchmarkLogsPod(b *testing.B) { benchSteady(b, "logs web-05000") }

// BenchmarkAPIResources is `api-resources`.
func BenchmarkAPIResources(b *testing.B) { benchCommand(b, "api-resources") }
