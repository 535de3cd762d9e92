package scheduler

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/scheduler/internal/st"
)

// benchPlacement is a scheduler_perf workload on the bare cycle: nodes
// nodes over three zones, init pods scheduled first (untimed), then
// measured pods timed; every pod is assumed onto its node as the watch
// would deliver it. Reported: pods/s and pods per CPU second.
func benchPlacement(b *testing.B, nodes, init, measured int, mkInit, mkMeasured func(i int) *corev1.Pod) {
	var cpu float64
	for range b.N {
		b.StopTimer()
		s := newBareScheduler(Config{})
		benchNodes(s, nodes)
		schedule := func(p *corev1.Pod) {
			qp := &framework.QueuedPodInfo{PodInfo: framework.NewPodInfo(p), Attempts: 1}
			a := s.schedulePod(qp)
			if a.err != nil {
				b.Fatalf("%s: %v", p.Name, a.err)
			}
			s.explain.add(a.decision)
			p.Spec.NodeName = a.node
			s.cache.AddPod(p)
		}
		for i := 0; i < init; i++ {
			schedule(mkInit(i))
		}
		pods := make([]*corev1.Pod, measured)
		for i := range pods {
			pods[i] = mkMeasured(i)
		}
		b.StartTimer()
		cpu0 := cpuSeconds()
		for _, p := range pods {
			schedule(p)
		}
		cpu += cpuSeconds() - cpu0
	}
	reportPods(b, b.N*measured, cpu)
}

func benchPod(prefix string, i int) *st.PodWrapper {
	w := st.MakePod().Name(fmt.Sprintf("%s-%d", prefix, i)).Req("100m", "500Mi")
	w.UID = types.UID(fmt.Sprintf("uid-%s-%d", prefix, i))
	return w
}

// antiAffinityPod is scheduler_perf's pod-with-pod-anti-affinity template:
// labelled color=green, refusing any node with another color=green pod.
func antiAffinityPod(prefix string) func(int) *corev1.Pod {
	return func(i int) *corev1.Pod {
		return benchPod(prefix, i).Label("color", "green").PodAntiAffinity("color", "green", corev1.LabelHostname).Obj()
	}
}

// spreadPod is scheduler_perf's pod-with-topology-spreading template:
// color=blue pods spread over zones, maxSkew 5, DoNotSchedule (or
// ScheduleAnyway for the preferred variant).
func spreadPod(prefix string, when corev1.UnsatisfiableConstraintAction) func(int) *corev1.Pod {
	return func(i int) *corev1.Pod {
		return benchPod(prefix, i).Label("color", "blue").Spread(5, corev1.LabelTopologyZone, when, "color", "blue").Obj()
	}
}

func plainPod(prefix string) func(int) *corev1.Pod {
	return func(i int) *corev1.Pod { return benchPod(prefix, i).Obj() }
}

// BenchmarkPodAntiAffinity is scheduler_perf's SchedulingPodAntiAffinity:
// 1,000 pods with required hostname anti-affinity already placed, 2,000
// more measured (kube's CI floor at 5,000 nodes: 60 pods/s). The node
// counts show how throughput scales.
func BenchmarkPodAntiAffinity(b *testing.B) {
	for _, n := range []int{500, 5000, 15000} {
		b.Run(fmt.Sprintf("%dNodes", n), func(b *testing.B) {
			init, measured := 1000, 2000
			if n == 500 {
				init, measured = 100, 200 // 500 nodes hold one color=green pod each
			}
			benchPlacement(b, n, init, measured, antiAffinityPod("init"), antiAffinityPod("pod"))
		})
	}
}

// BenchmarkTopologySpreading is scheduler_perf's TopologySpreading: 1,000
// plain pods placed, 2,000 pods spreading over zones measured (kube's CI
// floor at 5,000 nodes: 460 pods/s); and PreferredTopologySpreading, the
// same with ScheduleAnyway (scored instead of filtered).
func BenchmarkTopologySpreading(b *testing.B) {
	for _, when := range []corev1.UnsatisfiableConstraintAction{corev1.DoNotSchedule, corev1.ScheduleAnyway} {
		for _, n := range []int{500, 5000, 15000} {
			b.Run(fmt.Sprintf("%s/%dNodes", when, n), func(b *testing.B) {
				benchPlacement(b, n, 1000, 2000, plainPod("init"), spreadPod("pod", when))
			})
		}
	}
}

// BenchmarkPlainBaseline is the same harness with plain pods (100m, 500Mi,
// no affinity, no spreading): what the placement plugins add is measured
// against it. Fewer nodes are scanned and scored at 500 nodes (230 to find)
// than at 15,000 (750): percentageOfNodesToScore alone makes a cycle there
// about 3× the work.
func BenchmarkPlainBaseline(b *testing.B) {
	for _, n := range []int{500, 5000, 15000} {
		b.Run(fmt.Sprintf("%dNodes", n), func(b *testing.B) {
			benchPlacement(b, n, 1000, 2000, plainPod("init"), plainPod("pod"))
		})
	}
}
