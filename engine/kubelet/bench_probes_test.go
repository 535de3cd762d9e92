package kubelet

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/engine/sim"
)

// probedCluster is pods nginx pods with liveness and readiness probes
// (httpGet / on port 80, every 10 s) spread over nodes nodes, all Ready.
func probedCluster(b *testing.B, nodes, pods int) *harness {
	h := newHarness(b, DefaultConfig(), 1)
	for n := 1; n <= nodes; n++ {
		h.addNode(fmt.Sprintf("n%d", n), true)
	}
	for p := 0; p < pods; p++ {
		name := fmt.Sprintf("p%d", p)
		h.createPod(podOpts{name: name, images: []string{"nginx:1.27"}, probes: true})
		h.bind(name, fmt.Sprintf("n%d", p%nodes+1))
	}
	h.advance(sim.Minute)
	ready := 0
	for p := 0; p < pods; p++ {
		if h.ready(fmt.Sprintf("p%d", p))() {
			ready++
		}
	}
	if ready != pods {
		b.Fatalf("%d of %d pods ready after a minute", ready, pods)
	}
	return h
}

// benchProbed runs d of virtual time over a probed cluster and reports
// wall and CPU seconds per run, how many times faster than real time that
// is, and what the kubelets did meanwhile: renewals, probes run, status
// writes and trace events (probes that keep succeeding are neither traced
// nor written).
func benchProbed(b *testing.B, nodes, pods int, d sim.Tick) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		h := probedCluster(b, nodes, pods)
		before := h.mgr.Stats()
		seq0, rev0 := h.tr.NextSeq(), h.st.Rev()
		cpu0 := cpuTime()
		b.StartTimer()
		start := time.Now()
		for t := sim.Tick(0); t < d; t += 10 * sim.Minute {
			h.advance(min(10*sim.Minute, d-t))
		}
		wall := time.Since(start)
		b.StopTimer()
		after := h.mgr.Stats()
		b.ReportMetric(wall.Seconds(), "wall-s/op")
		b.ReportMetric((cpuTime() - cpu0).Seconds(), "cpu-s/op")
		b.ReportMetric(d.Duration().Seconds()/wall.Seconds(), "x-realtime")
		b.ReportMetric(float64(after.LeaseRenewals-before.LeaseRenewals), "renewals/op")
		b.ReportMetric(float64(after.Probes-before.Probes), "probes/op")
		b.ReportMetric(float64(h.tr.NextSeq()-seq0), "trace-events/op")
		b.ReportMetric(float64(h.st.Rev()-rev0), "writes/op")
	}
}

// BenchmarkProbedPodsHour is the Maintain budget's first half: one virtual
// hour of 1,000 pods with liveness and readiness probes (period 10 s) on
// 100 nodes with their leases, in at most 0.5 s of wall time.
func BenchmarkProbedPodsHour(b *testing.B) { benchProbed(b, 100, 1000, sim.Hour) }

// BenchmarkProbedPodsDay is the second half: 24 virtual hours of 10,000
// probed pods (100 per node, on 100 nodes) in at most 10 s.
func BenchmarkProbedPodsDay(b *testing.B) { benchProbed(b, 100, 10_000, 24*sim.Hour) }

// cpuTime is the process's user+system CPU time: a steadier figure than
// wall time on a shared machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkProbeRun is one run of a probe worker that has to probe (an
// httpGet liveness probe of a running nginx): what every probe would cost
// if kubeloop ran them all, as the real kubelet does, instead of only
// those whose answer can change.
func BenchmarkProbeRun(b *testing.B) {
	h := probedCluster(b, 1, 1)
	k, _ := h.mgr.Kubelet("n1")
	var pr *prober
	for _, e := range k.pods {
		pr = e.p.ctrs[0].peek().probes[liveness]
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		pr.lastAt = -1
		pr.fire()
		pr.stop()
	}
}
