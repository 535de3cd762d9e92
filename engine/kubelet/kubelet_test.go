package kubelet

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unsafe"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/trace"
)

func TestImagePullBackOffTimings(t *testing.T) {
	h := newHarness(t, DefaultConfig(), 1)
	h.addNode("n1", true)
	h.createPod(podOpts{name: "web", images: []string{"nginx:1.99"}})
	h.bind("web", "n1")
	h.advance(30 * sim.Minute)

	// Gaps between a failed pull and the next attempt: the back-off.
	var gaps []sim.Tick
	var lastFail sim.Tick = -1
	for _, e := range h.tr.All() {
		if e.Component != "kubelet/n1" {
			continue
		}
		switch {
		case strings.HasPrefix(e.Message, "failed to pull image"):
			lastFail = e.T
		case strings.HasPrefix(e.Message, "pulling image") && lastFail >= 0:
			gaps = append(gaps, e.T-lastFail)
		}
	}
	want := []sim.Tick{10, 20, 40, 80, 160, 300, 300}
	if len(gaps) < len(want) {
		t.Fatalf("only %d retries in 30 minutes: %v", len(gaps), gaps)
	}
	for i, w := range want {
		if gaps[i] != w*sim.Second {
			t.Errorf("back-off before retry %d = %s; want %ds (all: %v)", i+1, gaps[i], w, gaps)
		}
	}
	// Between failures the container shows ImagePullBackOff, one relist
	// period after ErrImagePull.
	p := h.pod("web")
	if w := p.Status.ContainerStatuses[0].State.Waiting; w == nil || w.Reason != ReasonImagePullBackOff {
		t.Errorf("waiting state = %+v; want ImagePullBackOff", w)
	}
	if p.Status.Phase != corev1.PodPending {
		t.Errorf("phase = %s; want Pending", p.Status.Phase)
	}
}

func TestBackOffResetsAfterTenQuietMinutes(t *testing.T) {
	var b backOff
	initial, max := 10*sim.Second, 300*sim.Second
	now := sim.Tick(0)
	for i := 0; i < 10; i++ {
		b.next(now, initial, max)
		now = b.expiry()
	}
	if b.delay != max {
		t.Fatalf("delay after 10 failures = %s; want %s", b.delay, max)
	}
	if !b.inBackOff(b.lastUpdate+max-1, max) || b.inBackOff(b.lastUpdate+max, max) {
		t.Errorf("inBackOff at the edges of the window is wrong")
	}
	// client-go's Backoff forgets an entry 2 × max after its last update.
	b.next(b.lastUpdate+2*max+1, initial, max)
	if b.delay != initial {
		t.Errorf("delay after 10 quiet minutes = %s; want %s", b.delay, initial)
	}
}

func TestLeaseRenewalCadence(t *testing.T) {
	h := newHarness(t, DefaultConfig(), 1)
	h.addNode("n1", true)
	before := h.tr.NextSeq()
	var renewals []sim.Tick
	for i := 0; i < 12; i++ {
		h.advance(5 * sim.Second)
		o, _ := h.st.Lookup(kinds.Lease, NodeLeaseNamespace, "n1")
		rt := sim.FromTime(o.(*coordinationv1.Lease).Spec.RenewTime.Time)
		if len(renewals) == 0 || renewals[len(renewals)-1] != rt {
			renewals = append(renewals, rt)
		}
	}
	for i, rt := range renewals {
		if want := sim.Tick(i) * 10 * sim.Second; rt != want {
			t.Errorf("renewal %d at %s; want %s (all: %v)", i, rt, want, renewals)
		}
	}
	k, _ := h.mgr.Kubelet("n1")
	if got := k.Stats().LeaseRenewals; got != 6 {
		t.Errorf("lease renewals in 60 s = %d; want 6", got)
	}
	if n := h.tr.NextSeq() - before; n != 0 {
		t.Errorf("an idle minute left %d trace events; renewals must not be traced", n)
	}
	// Unchanged status is re-posted every nodeStatusReportFrequency (5 min).
	h.advance(10 * sim.Minute)
	if got := k.Stats().StatusReports; got != 2 {
		t.Errorf("status reports in 11 min = %d; want 2", got)
	}
	o, _ := h.st.Lookup(kinds.Node, "", "n1")
	for _, c := range o.(*corev1.Node).Status.Conditions {
		if hb := sim.FromTime(c.LastHeartbeatTime.Time); hb != 10*sim.Minute {
			t.Errorf("%s heartbeat at %s; want 10m (the last report)", c.Type, hb)
		}
		if tr := sim.FromTime(c.LastTransitionTime.Time); tr != 0 {
			t.Errorf("%s transition at %s; want 0 (never changed)", c.Type, tr)
		}
	}
}

func TestPodsGoOnlyToTheirNodesKubelet(t *testing.T) {
	h := newHarness(t, DefaultConfig(), 1)
	for i := 1; i <= 10; i++ {
		h.addNode(fmt.Sprintf("n%d", i), true)
	}
	for i := 0; i < 20; i++ {
		name := fmt.Sprintf("p%d", i)
		h.createPod(podOpts{name: name, images: []string{"nginx:1.27"}})
		h.bind(name, "n1")
	}
	h.advance(time30s)
	h.deletePod("p0", nil)
	h.advance(time30s)
	for i := 1; i <= 10; i++ {
		k, _ := h.mgr.Kubelet(fmt.Sprintf("n%d", i))
		s := k.Stats()
		if i == 1 {
			if s.PodEvents == 0 || s.PodSyncs == 0 {
				t.Errorf("n1 saw %d pod events and %d syncs; want its 20 pods", s.PodEvents, s.PodSyncs)
			}
			continue
		}
		if s.PodEvents != 0 || s.PodSyncs != 0 {
			t.Errorf("n%d saw %d pod events and %d syncs for pods on n1; want 0", i, s.PodEvents, s.PodSyncs)
		}
	}
	running := 0
	for _, o := range h.st.List(kinds.Pod, "default") {
		if o.(*corev1.Pod).Status.Phase == corev1.PodRunning {
			running++
		}
	}
	if running != 19 {
		t.Errorf("%d pods running; want 19", running)
	}
}

const time30s = 30 * sim.Second

// scenario runs a mixed workload and returns everything a learner could
// see: the trace and the store's pods and events.
func scenario(tb testing.TB, seed uint64) string {
	h := newHarness(tb, DefaultConfig(), seed)
	for i := 1; i <= 3; i++ {
		h.addNode(fmt.Sprintf("n%d", i), true)
	}
	images := []string{"nginx:1.27", "redis:7.4", "nginx:1.99", "busybox:1.37", "postgres:17"}
	for i := 0; i < 15; i++ {
		name := fmt.Sprintf("p%d", i)
		h.createPod(podOpts{name: name, images: []string{images[i%len(images)]}})
		h.bind(name, fmt.Sprintf("n%d", i%3+1))
		h.advance(sim.Tick(i) * 300 * sim.Millisecond)
	}
	h.advance(time30s)
	h.deletePod("p0", nil)
	h.deletePod("p3", nil)
	h.advance(2 * sim.Minute)
	var b strings.Builder
	for _, e := range h.tr.All() {
		j, _ := json.Marshal(e)
		b.Write(j)
		b.WriteByte('\n')
	}
	for _, k := range []*kinds.Kind{kinds.Pod, kinds.Event, kinds.Node, kinds.Lease} {
		for _, o := range h.st.List(k, "") {
			j, _ := json.Marshal(o)
			b.Write(j)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func TestDeterminism(t *testing.T) {
	a, b := scenario(t, 7), scenario(t, 7)
	if a != b {
		t.Fatalf("the same scenario and seed gave different output:\n%s", firstDiff(a, b))
	}
	c := scenario(t, 8)
	if a == c {
		t.Fatalf("another seed changed nothing; container IDs and UIDs should differ")
	}
	// Only seeded choices change with the seed: the trace's messages and
	// timing are the same.
	if traceLines(a) != traceLines(c) {
		t.Errorf("another seed changed the trace, not just IDs:\n%s", firstDiff(traceLines(a), traceLines(c)))
	}
}

func traceLines(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, `{"t":`) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(al), len(bl))
}

func TestTraceChainsBackToTheBinding(t *testing.T) {
	h := newHarness(t, DefaultConfig(), 1)
	h.addNode("n1", true)
	h.createPod(podOpts{name: "web", images: []string{"nginx:1.27"}})
	h.bind("web", "n1")
	h.advanceUntil(h.ready("web"), time30s)
	var last trace.Event
	for _, e := range h.tr.All() {
		if e.Object == "pod/web" && e.Component == "kubelet/n1" {
			last = e
		}
	}
	chain := h.tr.Chain(last.Seq)
	root := chain[len(chain)-1]
	if root.Component != "scheduler" {
		t.Fatalf("the kubelet's last step chains back to %s %q; want the scheduler's binding", root.Component, root.Message)
	}
	for _, e := range chain[:len(chain)-1] {
		if e.Component != "kubelet/n1" || e.Lane != trace.NodeLane || e.Column != trace.Run || e.Why == "" {
			t.Errorf("step %d %q: component %s lane %s column %s why %q; want kubelet/n1, node, Run, a why",
				e.Seq, e.Message, e.Component, e.Lane, e.Column, e.Why)
		}
	}
}

func TestNodeDeletionStopsItsKubelet(t *testing.T) {
	h := newHarness(t, DefaultConfig(), 1)
	h.addNode("n1", true)
	h.addNode("n2", true)
	if _, err := h.api.Delete(h.command("delete node n1"), kinds.Node, "", "n1", apiDeleteOptions()); err != nil {
		t.Fatal(err)
	}
	h.advance(time30s)
	if _, ok := h.mgr.Kubelet("n1"); ok {
		t.Errorf("n1's kubelet still runs after its Node was deleted")
	}
	if got := strings.Join(h.mgr.Nodes(), ","); got != "n2" {
		t.Errorf("nodes with kubelets = %s; want n2", got)
	}
	// A node added again takes the lowest free pod CIDR.
	h.addNode("n3", true)
	k, _ := h.mgr.Kubelet("n3")
	if k.PodCIDR() != "10.244.0.0/24" {
		t.Errorf("n3's pod CIDR = %s; want the freed 10.244.0.0/24", k.PodCIDR())
	}
}

func TestPodBoundBeforeItsNodeStarts(t *testing.T) {
	h := newHarness(t, DefaultConfig(), 1)
	h.createPod(podOpts{name: "early", node: "n1", images: []string{"nginx:1.27"}})
	h.advance(time30s)
	if p := h.pod("early"); p.Status.Phase != "" && p.Status.Phase != corev1.PodPending {
		t.Fatalf("a pod on a node without a kubelet is %s", p.Status.Phase)
	}
	h.addNode("n1", true)
	h.advanceUntil(h.ready("early"), time30s)
}

func TestNodeCIDRs(t *testing.T) {
	tests := []struct {
		i        int
		cidr, ip string
	}{
		{0, "10.244.0.0/24", "172.18.0.2"},
		{1, "10.244.1.0/24", "172.18.0.3"},
		{255, "10.244.255.0/24", "172.18.1.1"},
		{256, "10.245.0.0/24", "172.18.1.2"},
		{4999, "10.7.135.0/24", "172.18.19.137"},
	}
	for _, tt := range tests {
		if got := nodePodCIDR(tt.i); got != tt.cidr {
			t.Errorf("nodePodCIDR(%d) = %s; want %s", tt.i, got, tt.cidr)
		}
		if got := nodeInternalIP(tt.i); got != tt.ip {
			t.Errorf("nodeInternalIP(%d) = %s; want %s", tt.i, got, tt.ip)
		}
	}
	n, err := newPodNetwork("10.244.3.0/24")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := 0; i < 253; i++ {
		ip, off, ok := n.allocate()
		if !ok {
			t.Fatalf("range exhausted after %d addresses; want 253", i)
		}
		if i < 2 || i == 252 {
			got = append(got, ip)
		}
		if i == 0 {
			n.release(off)
		}
	}
	if want := "10.244.3.2,10.244.3.3,10.244.3.254"; strings.Join(got, ",") != want {
		t.Errorf("allocations = %v; want %s", got, want)
	}
	// host-local continues after the last address, so the freed .2 comes last.
	if ip, _, ok := n.allocate(); !ok || ip != "10.244.3.2" {
		t.Errorf("after wrapping got %s, %t; want the freed 10.244.3.2", ip, ok)
	}
	if _, _, ok := n.allocate(); ok {
		t.Errorf("allocated from a full range")
	}
	if _, err := newPodNetwork("10.244.3.0"); err == nil {
		t.Errorf("newPodNetwork accepted a CIDR without a prefix")
	}
}

func TestLogsErrors(t *testing.T) {
	h := newHarness(t, DefaultConfig(), 1)
	h.addNode("n1", true)
	h.createPod(podOpts{name: "two", images: []string{"nginx:1.27", "redis:7.4"}})
	tests := []struct{ container, want string }{
		{"", "a container name must be specified for pod two, choose one of: [c1 c2]"},
		{"c3", "container c3 is not valid for pod two"},
		{"c1", "pod two does not have a host assigned"},
	}
	for _, tt := range tests {
		if _, err := h.mgr.Logs("default", "two", tt.container, false); err == nil || err.Error() != tt.want {
			t.Errorf("Logs(two, %q) error = %v; want %q", tt.container, err, tt.want)
		}
	}
	h.bind("two", "n1")
	if _, err := h.mgr.Logs("default", "two", "c1", false); err == nil ||
		err.Error() != `container "c1" in pod "two" is waiting to start: ContainerCreating` {
		t.Errorf("Logs of a creating container: %v", err)
	}
	h.advanceUntil(h.ready("two"), time30s)
	h.advance(sim.Second)
	lines, err := h.mgr.Logs("default", "two", "c2", false)
	if err != nil || len(lines) == 0 || !strings.Contains(lines[len(lines)-1].Text, "Ready to accept connections") {
		t.Errorf("redis logs = %v, %v; want its start-up lines", lines, err)
	}
	if _, err := h.mgr.Logs("default", "two", "c2", true); err == nil ||
		err.Error() != `previous terminated container "c2" in pod "two" not found` {
		t.Errorf("Logs --previous: %v", err)
	}
	if _, err := h.mgr.Logs("default", "nope", "", false); err == nil || err.Error() != `pods "nope" not found` {
		t.Errorf("Logs of a missing pod: %v", err)
	}
}

func TestSecondDeleteShortensGracePeriod(t *testing.T) {
	h := newHarness(t, DefaultConfig(), 1)
	h.addNode("n1", true)
	h.createPod(podOpts{name: "sleeper", images: []string{"busybox:1.37"}, command: []string{"sleep", "3600"}})
	h.bind("sleeper", "n1")
	h.advanceUntil(h.ready("sleeper"), time30s)
	h.deletePod("sleeper", nil)
	start := h.loop.Now()
	h.advance(3 * sim.Second)
	five := int64(5)
	h.deletePod("sleeper", &five)
	h.advanceUntil(func() bool { return h.pod("sleeper") == nil }, time30s)
	if got := h.loop.Now() - start; got != 5*sim.Second {
		t.Errorf("pod gone %s after the first delete; want 5s, the second delete's grace period", got)
	}
}

func TestStatusSummary(t *testing.T) {
	waiting := func(name, reason string) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: name, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason}}}
	}
	exited := func(name, reason string, code int32) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: name,
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: reason, ExitCode: code}}}
	}
	running := corev1.ContainerStatus{Name: "side", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}
	ready := []corev1.PodCondition{{Type: corev1.PodInitialized, Status: corev1.ConditionTrue},
		{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	for _, tc := range []struct {
		st   corev1.PodStatus
		want string
	}{
		{corev1.PodStatus{Phase: corev1.PodPending}, "Pending"},
		{corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{waiting("api", ReasonErrImagePull)}},
			"Pending (api: ErrImagePull)"},
		{corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.244.0.2", Conditions: ready,
			ContainerStatuses: []corev1.ContainerStatus{running}}, "Running, Ready; IP 10.244.0.2"},
		{corev1.PodStatus{Phase: corev1.PodPending, PodIP: "10.244.0.2"}, "Pending"},
		{corev1.PodStatus{Phase: corev1.PodFailed, PodIP: "10.244.0.2", ContainerStatuses: []corev1.ContainerStatus{
			exited("job", "Error", 3), running, waiting("web", ReasonCrashLoopBackOff)}},
			"Failed (job: Error, exit code 3; web: CrashLoopBackOff)"},
	} {
		if got := string(appendStatusSummary(nil, &tc.st)); got != tc.want {
			t.Errorf("summary of %+v = %q; want %q", tc.st, got, tc.want)
		}
	}
}

func TestFormatIPv4(t *testing.T) {
	for _, tt := range []struct {
		v    uint32
		want string
	}{{0, "0.0.0.0"}, {10<<24 | 244<<16 | 3<<8 | 2, "10.244.3.2"}, {0xffffffff, "255.255.255.255"}, {172<<24 | 18<<16 | 100, "172.18.0.100"}} {
		if got := formatIPv4(tt.v); got != tt.want {
			t.Errorf("formatIPv4(%#x) = %s; want %s", tt.v, got, tt.want)
		}
	}
}

// A pod's IP is kept as its offset in the node's range: podIP gives the
// pass's string, else its status's, else a new one, and "" once the
// sandbox is gone.
func TestPodIP(t *testing.T) {
	n, err := newPodNetwork("10.244.3.0/24")
	if err != nil {
		t.Fatal(err)
	}
	k := &Kubelet{net: n}
	status := func(ip string) *corev1.Pod { return &corev1.Pod{Status: corev1.PodStatus{PodIP: ip}} }
	for _, tt := range []struct {
		name string
		p    podState
		want string
	}{
		{"no sandbox", podState{pod: status("10.244.3.7"), ipOff: 7}, ""},
		{"the pass's", podState{pod: status(""), ipOff: 7, sandbox: true, slow: &slowStep{ip: "10.244.3.7"}}, "10.244.3.7"},
		{"the status's", podState{pod: status("10.244.3.7"), ipOff: 7, sandbox: true}, "10.244.3.7"},
		{"not in status", podState{pod: status(""), ipOff: 12, sandbox: true, slow: &slowStep{}}, "10.244.3.12"},
		{"another in status", podState{pod: status("10.244.3.7"), ipOff: 70, sandbox: true}, "10.244.3.70"},
	} {
		if got := k.podIP(&tt.p); got != tt.want {
			t.Errorf("%s: podIP = %q; want %q", tt.name, got, tt.want)
		}
	}
	st := status("10.244.3.7")
	if got := k.podIP(&podState{pod: st, ipOff: 7, sandbox: true}); unsafe.StringData(got) != unsafe.StringData(st.Status.PodIP) {
		t.Errorf("podIP made a new string; want the status's")
	}
}
