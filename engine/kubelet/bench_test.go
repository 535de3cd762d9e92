package kubelet

import (
	"fmt"
	"testing"

	"github.com/kubeloop/kubeloop/engine/sim"
)

// BenchmarkIdleNodesHour is one hour of virtual time for 100 idle nodes:
// 36,000 lease renewals and 1,200 status reports, the kubelets alone.
func BenchmarkIdleNodesHour(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		h := newHarness(b, DefaultConfig(), 1)
		for n := 1; n <= 100; n++ {
			h.addNode(fmt.Sprintf("n%d", n), true)
		}
		b.StartTimer()
		for m := 0; m < 60; m++ {
			h.advance(sim.Minute)
		}
		b.StopTimer()
		s := h.mgr.Stats()
		b.ReportMetric(float64(s.LeaseRenewals), "renewals/op")
	}
}

// BenchmarkLeaseRenewal5000Nodes measures one heartbeat (timer, lease
// renewal through the API server, store event delivery) with 5,000 nodes:
// they fire 500 times per virtual second.
func BenchmarkLeaseRenewal5000Nodes(b *testing.B) {
	h := newHarness(b, DefaultConfig(), 1)
	for n := 1; n <= 5000; n++ {
		h.addNode(fmt.Sprintf("n%d", n), true)
	}
	before := h.mgr.Stats().LeaseRenewals
	b.ReportAllocs()
	b.ResetTimer()
	// b.N heartbeats: 5,000 every 10 virtual seconds.
	for done := 0; done < b.N; done += 5000 {
		h.advance(10 * sim.Second)
	}
	b.StopTimer()
	if got := h.mgr.Stats().LeaseRenewals - before; got < b.N {
		b.Fatalf("%d renewals; want at least %d", got, b.N)
	}
}

// BenchmarkPodStart is 1,000 pods on 100 nodes from binding to Ready. Ten
// pods bound to a node at once each ask for the absent image, so each
// queues a pull; the first downloads it, the other nine only fetch its
// manifest, as with the kubelet's serialized puller.
func BenchmarkPodStart(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		h := newHarness(b, DefaultConfig(), 1)
		for n := 1; n <= 100; n++ {
			h.addNode(fmt.Sprintf("n%d", n), true)
		}
		for p := 0; p < 1000; p++ {
			h.createPod(podOpts{name: fmt.Sprintf("p%d", p), images: []string{"nginx:1.27"}})
		}
		b.StartTimer()
		for p := 0; p < 1000; p++ {
			h.bind(fmt.Sprintf("p%d", p), fmt.Sprintf("n%d", p%100+1))
		}
		h.advance(time30s)
		b.StopTimer()
		if s := h.mgr.Stats(); s.ImagePulls != 1000 {
			b.Fatalf("%d pulls; want 1000", s.ImagePulls)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(1000*(i+1)), "ns/pod")
	}
}
