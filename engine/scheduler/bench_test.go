package scheduler

import (
	"fmt"
	"syscall"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeloop/kubeloop/engine/component"
	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/scheduler/internal/st"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/store"
	"github.com/kubeloop/kubeloop/engine/trace"
)

// newBareScheduler builds a scheduler with no API server, for driving the
// cycle directly.
func newBareScheduler(cfg Config) *Scheduler {
	loop := sim.NewLoop()
	env := component.Env{Loop: loop, Rand: sim.NewRand(1), Trace: trace.New(loop, 0), Store: store.New()}
	return New(env, cfg)
}

// benchNodes are scheduler_perf's SchedulingBasic nodes: 4 cpus, 32Gi, 110
// pods, spread over three zones.
func benchNodes(s *Scheduler, n int) {
	for i := 0; i < n; i++ {
		s.cache.AddNode(st.MakeNode().Name(fmt.Sprintf("node-%d", i)).Capacity("4", "32Gi", 110).
			Label(corev1.LabelTopologyZone, fmt.Sprintf("zone-%d", i%3)).Obj())
	}
}

// BenchmarkSchedulingCycle measures the pure scheduling cycle, as
// scheduler_perf's SchedulingBasic/5000Nodes_10000Pods shape does at 50,000
// pods: 5,000 nodes (4 cpu, 32Gi, 110 pods), pods of 100m and 500Mi, each
// cycle filtering and scoring, then assuming the pod onto its node (what the
// cache does on the bind's watch event). Reported: pods/s.
func BenchmarkSchedulingCycle(b *testing.B) {
	const nodes, pods = 5000, 50000
	var cpu float64
	for range b.N {
		b.StopTimer()
		s := newBareScheduler(Config{})
		benchNodes(s, nodes)
		objs := make([]*corev1.Pod, pods)
		qps := make([]*framework.QueuedPodInfo, pods)
		for i := range objs {
			p := st.MakePod().Name(fmt.Sprintf("pod-%d", i)).Req("100m", "500Mi").Obj()
			p.UID = types.UID(fmt.Sprintf("uid-%d", i))
			objs[i] = p
			qps[i] = &framework.QueuedPodInfo{PodInfo: framework.NewPodInfo(p), Attempts: 1}
		}
		b.StartTimer()
		cpu0 := cpuSeconds()
		for i, qp := range qps {
			a := s.schedulePod(qp)
			if a.err != nil {
				b.Fatalf("pod %d: %v", i, a.err)
			}
			s.explain.add(qp.Pod, a.decision)
			objs[i].Spec.NodeName = a.node // the bound pod, as the watch delivers it
			s.cache.AddPod(objs[i])
		}
		cpu += cpuSeconds() - cpu0
	}
	reportPods(b, b.N*pods, cpu)
}

// reportPods reports pods/s over the timed part of all b.N iterations
// (b.Elapsed sums them) and pods per CPU second.
func reportPods(b *testing.B, pods int, cpu float64) {
	b.ReportMetric(float64(pods)/b.Elapsed().Seconds(), "pods/s")
	b.ReportMetric(float64(pods)/cpu, "pods/cpu-s")
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
