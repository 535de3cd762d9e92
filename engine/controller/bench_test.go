package controller

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"syscall"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// cpuTime is the process's user+system CPU time: a steadier figure than
// wall time on a shared machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkDeployments1000x150 creates 1,000 Deployments of 150 replicas
// each and lets the controllers (and only them: no scheduler, no kubelets)
// settle: 1,000 ReplicaSets and 150,000 pods. It reports wall time per
// run, the CPU time it took (all cores, GC included) and the heap left in
// use per pod, everything included (store,
// history since the last compaction, trace, Events, indexes, queues).
func BenchmarkDeployments1000x150(b *testing.B) { benchmarkDeployments(b, 1000, 150) }

// BenchmarkDeployments100x150 is BenchmarkDeployments1000x150 at a tenth
// of the size (15,000 pods), small enough to run with -benchmem and
// -memprofile on a shared machine.
func BenchmarkDeployments100x150(b *testing.B) { benchmarkDeployments(b, 100, 150) }

func benchmarkDeployments(b *testing.B, deployments, replicas int) {
	VerifyTallies = false // measure the controller, not its test-time cross-check
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		cpu0 := cpuTime()
		b.StartTimer()

		c := newCluster(b)
		for j := 0; j < deployments; j++ {
			d := makeDeployment(fmt.Sprintf("app-%04d", j), int32(replicas)).obj()
			c.create(d)
		}
		c.run()

		b.StopTimer()
		b.ReportMetric((cpuTime() - cpu0).Seconds(), "cpu-s/op")
		if n := c.env.Store.Count(kinds.Pod); n != deployments*replicas {
			b.Fatalf("%d pods; want %d", n, deployments*replicas)
		}
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(deployments*replicas), "heapB/pod")
		if path := os.Getenv("KUBELOOP_HEAPPROFILE"); path != "" {
			// The live heap with the cluster still in it, for go tool pprof.
			if f, err := os.Create(path); err == nil {
				pprof.WriteHeapProfile(f)
				f.Close()
			}
		}
		runtime.KeepAlive(c)
		b.StartTimer()
	}
}
