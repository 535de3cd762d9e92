package scheduler

import (
	"fmt"
	"syscall"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeloop/kubeloop/engine/component"
	"github.com/kubeloop/kubeloop/engine/kinds"
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
	framework.VerifyNodesScorers = false // measure the scheduler, not the tests' check
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
		cpu += scheduleAll(b, s, objs, qps)
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

// BenchmarkReplicaSetPods is BenchmarkSchedulingCycle with the pods of
// engine's BenchmarkDeploymentsToReady (1000x150-on-5000): replicas of
// ReplicaSets of 150, labelled and owned by their ReplicaSet, so that
// PodTopologySpread scores them by kube's system default constraints
// (hostname and zone), with no requests, on nodes that report their image
// as the kubelets do once they have pulled it (docker.io/library/nginx:1.27,
// a name ImageLocality does not match to the pod's nginx:1.27, as in
// kube). 50,000 pods
// onto 5,000 nodes: each filters until 500 feasible nodes are found and
// scores those 500. Reported: pods/s and pods per CPU second.
func BenchmarkReplicaSetPods(b *testing.B) {
	framework.VerifyNodesScorers = false // measure the scheduler, not the tests' check
	const nodes, pods, replicas = 5000, 50000, 150
	var cpu float64
	owned := true
	for range b.N {
		b.StopTimer()
		s := newBareScheduler(Config{})
		for i := 0; i < nodes; i++ {
			s.cache.AddNode(st.MakeNode().Name(fmt.Sprintf("node-%d", i)).Capacity("4", "32Gi", 110).
				Label(corev1.LabelTopologyZone, fmt.Sprintf("zone-%d", i%3)).Image("docker.io/library/nginx:1.27", 68_857_691).Obj())
		}
		objs := make([]*corev1.Pod, pods)
		qps := make([]*framework.QueuedPodInfo, pods)
		for i := range objs {
			rs := fmt.Sprintf("app-%04d-5d8f7b6c9", i/replicas)
			if i%replicas == 0 {
				_, err := s.env.Store.Create(&appsv1.ReplicaSet{
					TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
					ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: rs},
					Spec: appsv1.ReplicaSetSpec{Selector: &metav1.LabelSelector{
						MatchLabels: map[string]string{"app": rs[:8], "pod-template-hash": rs[9:]}}}}, 0)
				if err != nil {
					b.Fatal(err)
				}
			}
			p := st.MakePod().Name(fmt.Sprintf("%s-%d", rs, i)).Label("app", rs[:8]).Label("pod-template-hash", rs[9:]).Obj()
			p.UID = types.UID(fmt.Sprintf("uid-%d", i))
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs, Controller: &owned}}
			objs[i] = p
			qps[i] = &framework.QueuedPodInfo{PodInfo: framework.NewPodInfo(p), Attempts: 1}
		}
		b.StartTimer()
		cpu += scheduleAll(b, s, objs, qps)
	}
	reportPods(b, b.N*pods, cpu)
}

// scheduleAll runs the scheduling cycle for every queued pod and assumes
// it onto its node, as the cache does on the bind's watch event; it
// returns the CPU seconds it took.
func scheduleAll(b *testing.B, s *Scheduler, objs []*corev1.Pod, qps []*framework.QueuedPodInfo) float64 {
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
	return cpuSeconds() - cpu0
}

// BenchmarkObserveStatusWrites measures what most writes the scheduler
// watches cost it: a status write of a bound pod (here one of 150,000 on
// 5,000 nodes, two labels each, as the replicas of 1,000 ReplicaSets).
// Each pod has two versions, which the writes alternate between, so that
// the loop allocates nothing. Reported: ns per write observed.
func BenchmarkObserveStatusWrites(b *testing.B) {
	const nodes, sets, replicas = 5000, 1000, 150
	s := newBareScheduler(Config{})
	benchNodes(s, nodes)
	s.cache.topo.ensure() // a running scheduler's index is built
	versions := make([][2]*corev1.Pod, 0, sets*replicas)
	for i := range sets * replicas {
		p := st.MakePod().Name(fmt.Sprintf("pod-%d", i)).Req("100m", "500Mi").
			Label("app", fmt.Sprintf("app-%d", i/replicas)).Label("pod-template-hash", fmt.Sprintf("h%d", i/replicas)).Obj()
		p.UID = types.UID(fmt.Sprintf("uid-%d", i))
		p.Spec.NodeName = fmt.Sprintf("node-%d", i%nodes)
		s.Observe(store.Event{Type: store.Added, Kind: kinds.Pod, Object: p})
		running := *p // a status write: the spec and metadata shared
		running.Status.Phase = corev1.PodRunning
		versions = append(versions, [2]*corev1.Pod{p, &running})
	}
	b.ResetTimer()
	for i := range b.N {
		v := versions[i%len(versions)]
		from := (i / len(versions)) % 2
		s.Observe(store.Event{Type: store.Modified, Kind: kinds.Pod, Object: v[1-from], Old: v[from]})
	}
}
