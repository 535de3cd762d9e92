package scheduler_test

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeloop/kubeloop/engine"
	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/scheduler/internal/st"
)

// BenchmarkEndToEnd schedules 50,000 pods (100m, 500Mi) onto 5,000 nodes
// (4 cpu, 32Gi, 110 pods) through the whole engine: the pods are created
// through the API server, and Settle delivers every write to the scheduler,
// which binds each pod through the API server and records its Scheduled
// Event. Reported: pods/s for Settle alone (scheduling), and for creation
// plus Settle.
func BenchmarkEndToEnd(b *testing.B) {
	framework.VerifyNodesScorers = false // measure the scheduler, not the tests' check
	const nodes, pods = 5000, 50000
	for range b.N {
		b.StopTimer()
		cfgs := make([]engine.NodeConfig, nodes)
		for i := range cfgs {
			cfgs[i] = engine.NodeConfig{Name: fmt.Sprintf("node-%d", i), CPU: resource.MustParse("4"),
				Memory: resource.MustParse("32Gi"), Pods: 110,
				Labels: map[string]string{corev1.LabelTopologyZone: engine.Zones[i%3]}}
		}
		e := engine.New(engine.Config{Nodes: cfgs})
		objs := make([]*corev1.Pod, pods)
		for i := range objs {
			objs[i] = st.MakePod().Name(fmt.Sprintf("pod-%d", i)).Req("100m", "500Mi").Obj()
			objs[i].UID = ""
		}
		b.StartTimer()
		start := time.Now()
		actor := e.Command("create 50000 pods")
		for _, p := range objs {
			if _, err := e.API.Create(actor, p); err != nil {
				b.Fatal(err)
			}
		}
		created, cpu0 := time.Now(), cpuSeconds()
		if !e.Settle() {
			b.Fatal("did not settle")
		}
		done, cpu1 := time.Now(), cpuSeconds()
		b.StopTimer()
		if a, bo, u := e.Scheduler().Queued(); a+bo+u != 0 {
			b.Fatalf("queue not empty: %d %d %d", a, bo, u)
		}
		b.ReportMetric(float64(pods)/done.Sub(created).Seconds(), "pods/s-settle")
		b.ReportMetric(float64(pods)/done.Sub(start).Seconds(), "pods/s-total")
		b.ReportMetric(float64(pods)/(cpu1-cpu0), "pods/cpu-s-settle")
	}
}

// BenchmarkAPIAndScheduler is BenchmarkEndToEnd with only the API server,
// the store and the scheduler: the same watch delivery and Work loop as
// engine.Settle, without the controllers and kubelets that the full engine
// also runs for every bound pod. It isolates what scheduling costs end to
// end (cycle, bind through the API server, Scheduled Event).
func BenchmarkAPIAndScheduler(b *testing.B) {
	framework.VerifyNodesScorers = false // measure the scheduler, not the tests' check
	const nodes, pods = 5000, 50000
	for range b.N {
		b.StopTimer()
		h := newHarness()
		for i := 0; i < nodes; i++ {
			h.create(engine.NodeObject(engine.NodeConfig{Name: fmt.Sprintf("node-%d", i), CPU: resource.MustParse("4"),
				Memory: resource.MustParse("32Gi"), Pods: 110,
				Labels: map[string]string{corev1.LabelTopologyZone: engine.Zones[i%3]}}))
		}
		h.settle()
		objs := make([]*corev1.Pod, pods)
		for i := range objs {
			objs[i] = st.MakePod().Name(fmt.Sprintf("pod-%d", i)).Req("100m", "500Mi").Obj()
			objs[i].UID = ""
		}
		b.StartTimer()
		start := time.Now()
		for _, p := range objs {
			h.create(p)
		}
		created, cpu0 := time.Now(), cpuSeconds()
		h.settle()
		done, cpu1 := time.Now(), cpuSeconds()
		b.StopTimer()
		if a, bo, u := h.sched.Queued(); a+bo+u != 0 {
			b.Fatalf("queue not empty: %d %d %d", a, bo, u)
		}
		b.ReportMetric(float64(pods)/done.Sub(created).Seconds(), "pods/s-settle")
		b.ReportMetric(float64(pods)/done.Sub(start).Seconds(), "pods/s-total")
		b.ReportMetric(float64(pods)/(cpu1-cpu0), "pods/cpu-s-settle")
	}
}

// cpuSeconds is the process's user+system CPU time: on a shared machine
// wall-clock throughput swings with the load, CPU throughput much less.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
