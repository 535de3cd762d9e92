package repl

import (
	"fmt"
	"io"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine"
)

// BenchmarkStartup is what the REPL does before its first prompt: build the
// built-in cluster and settle it (target: well under 100 ms; the binary's
// whole start-up is BenchmarkStartToPrompt in cmd/kubeloop).
func BenchmarkStartup(b *testing.B) {
	benchmarking()
	cpu := startCPU(b)
	for b.Loop() {
		NewSession(io.Discard, io.Discard, Config{})
	}
	cpu()
}

// startCPU reports, besides wall time, the process's CPU time per op when
// the returned function is called: on a machine shared with other builds
// it is the steadier figure.
func startCPU(b *testing.B) func() {
	start := processCPU()
	return func() {
		b.ReportMetric(float64(processCPU()-start)/float64(b.N)/1e6, "cpu-ms/op")
	}
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// steadySession is a session on 1,000 nodes running 10,000 pods (ten per
// node, bound directly as a scheduler would), after two virtual minutes:
// containers started, heartbeats and leases ticking.
func steadySession(b *testing.B) *Session {
	start := time.Now()
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
			b.Fatal(err)
		}
	}
	if err := s.Exec("advance 2m -q"); err != nil {
		b.Fatal(err)
	}
	b.Logf("set-up of 10,000 pods on 1,000 nodes and 2m of virtual time: %v", time.Since(start).Round(time.Millisecond))
	return s
}

// BenchmarkAdvance10s is `advance 10s` at 10,000 pods on 1,000 nodes in a
// steady state (target: 50 ms).
func BenchmarkAdvance10s(b *testing.B) {
	benchmarking()
	s := steadySession(b)
	cpu := startCPU(b)
	for b.Loop() {
		if err := s.Exec("advance 10s"); err != nil {
			b.Fatal(err)
		}
	}
	cpu()
}

// BenchmarkUntil10s is `until` over 10,000 pods for 10 virtual seconds: the
// expression is re-evaluated after every write, over the pods list only.
func BenchmarkUntil10s(b *testing.B) {
	benchmarking()
	s := steadySession(b)
	cpu := startCPU(b)
	for b.Loop() {
		_ = s.Exec(`until count(pods, .status.phase == "Succeeded") > 0 --timeout 10s -q`)
	}
	cpu()
}

// BenchmarkAssert10kPods is one assert over 10,000 pods.
func BenchmarkAssert10kPods(b *testing.B) {
	benchmarking()
	s := steadySession(b)
	cpu := startCPU(b)
	for b.Loop() {
		if err := s.Exec(`assert count(pods, .status.phase == "Running") == 10000`); err != nil {
			b.Fatal(err)
		}
	}
	cpu()
}
