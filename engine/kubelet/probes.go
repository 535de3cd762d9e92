package kubelet

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/workload"
)

// Probes, as the kubelet's prober workers run them (k/k pkg/kubelet/prober
// worker.go), with one difference that changes no outcome: a probe whose
// answer cannot change is not re-run.
//
// A worker exists per container and probe from the moment the kubelet
// takes the pod on, and ticks every periodSeconds from then on. A tick
// does nothing while the container is not running, before
// initialDelaySeconds have passed since it started, for liveness and
// readiness until the startup probe has succeeded, and for a liveness or
// startup probe that has just killed the container (until the new one
// runs). Otherwise it probes: the same result as last time lengthens the
// run, a different one starts a new run, and a run of failureThreshold
// failures (or successThreshold successes) sets the probe's result.
//
// kubeloop keeps the ticks on the same grid but fires a worker only when
// its next tick can matter: while a run is building up or failing, and at
// the first tick after something the probe looks at may have changed (the
// container started, its process did something, its health endpoint turned,
// a learner broke or healed it). A probe that keeps succeeding costs no
// timer at all, which is what lets 10,000 probed pods run for a virtual
// day in seconds. Every failure still makes its Unhealthy event.
//
// Readiness is also probed once on the PLEG relist after the container
// starts (the kubelet's manual trigger when a started container is not
// ready yet), so a server that is up at once is ready about a second after
// it starts rather than a whole period later. The real kubelet also delays
// a worker by a random part of its period when the kubelet itself started
// less than a period ago; kubeloop does not.

type probeKind uint8

const (
	liveness probeKind = iota
	readiness
	startup
	numProbeKinds
)

// kindNames are the probe types as the kubelet's events name them.
var kindNames = [numProbeKinds]string{"Liveness", "Readiness", "Startup"}

// ParseProbeKind reads "liveness", "readiness" or "startup".
func ParseProbeKind(s string) (int, bool) {
	for i, n := range kindNames {
		if equalFoldASCII(n, s) {
			return i, true
		}
	}
	return 0, false
}

func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i]|0x20, b[i]|0x20
		if x != y {
			return false
		}
	}
	return true
}

func probeSpec(c *corev1.Container, kind probeKind) *corev1.Probe {
	switch kind {
	case liveness:
		return c.LivenessProbe
	case readiness:
		return c.ReadinessProbe
	}
	return c.StartupProbe
}

type result int8

const (
	resNone result = iota
	resSuccess
	resFailure
)

// prober is one probe worker.
type prober struct {
	k    *Kubelet
	p    *podState
	c    *ctr
	kind probeKind
	spec *corev1.Probe

	anchor, period, delay, timeout     sim.Tick
	successThreshold, failureThreshold int

	timer  *sim.Timer
	fn     func()
	lastAt sim.Tick // the last instant it probed (-1: never)
	last   result
	run    int
	onHold bool
	runSeq uint64 // the trace step of the first failure of the current run
}

func newProber(k *Kubelet, p *podState, c *ctr, kind probeKind, spec *corev1.Probe) *prober {
	secs := func(v int32, def int32) sim.Tick {
		if v <= 0 {
			v = def
		}
		return sim.Seconds(int64(v))
	}
	pr := &prober{k: k, p: p, c: c, kind: kind, spec: spec, anchor: p.startTime, lastAt: -1,
		period: secs(spec.PeriodSeconds, 10), timeout: secs(spec.TimeoutSeconds, 1),
		delay: sim.Seconds(int64(max(spec.InitialDelaySeconds, 0))), successThreshold: int(max(spec.SuccessThreshold, 1)),
		failureThreshold: int(max(spec.FailureThreshold, 1))}
	if spec.FailureThreshold == 0 {
		pr.failureThreshold = 3
	}
	pr.fn = func() {
		pr.timer = nil
		pr.fire()
	}
	return pr
}

// nextTick is the first tick of the worker's grid at or after t that it
// has not probed at yet.
func (pr *prober) nextTick(t sim.Tick) sim.Tick {
	if t <= pr.lastAt {
		t = pr.lastAt + 1
	}
	if t <= pr.anchor {
		return pr.anchor
	}
	n := (t - pr.anchor + pr.period - 1) / pr.period
	return pr.anchor + n*pr.period
}

// armAt makes the worker run at t unless it already runs sooner.
func (pr *prober) armAt(t sim.Tick) {
	loop := pr.k.m.env.Loop
	if pr.timer.Pending() {
		if pr.timer.At() <= t {
			return
		}
		loop.Cancel(pr.timer)
	}
	pr.timer = loop.At(t, pr.k.probeLabel, pr.fn)
}

// arm makes the worker run at its first tick at or after t.
func (pr *prober) arm(t sim.Tick) { pr.armAt(pr.nextTick(t)) }

func (pr *prober) stop() {
	pr.k.m.env.Loop.Cancel(pr.timer)
	pr.timer = nil
}

// startProbes sets the workers of a container that has just started.
func (k *Kubelet) startProbes(p *podState, c *ctr) {
	now := k.now()
	for _, pr := range c.peek().probes {
		if pr == nil {
			continue
		}
		pr.onHold = false
		pr.last, pr.run = resNone, 0
		if pr.kind != startup && !c.started {
			continue // armed when the startup probe succeeds
		}
		pr.arm(now + pr.delay)
		if pr.kind == readiness && k.m.cfg.RelistPeriod >= pr.delay {
			pr.armAt(now + k.m.cfg.RelistPeriod)
		}
	}
}

// probed reports whether the container has a probe.
func (c *ctr) probed() bool {
	return c.peek().probes != [numProbeKinds]*prober{}
}

// pokeProbes re-arms idle workers after something they look at may have
// changed.
func (k *Kubelet) pokeProbes(p *podState, c *ctr) {
	now := k.now()
	for _, pr := range c.peek().probes {
		if pr == nil || pr.onHold || pr.timer.Pending() {
			continue
		}
		if pr.kind == startup && c.started || pr.kind != startup && !c.started {
			continue
		}
		// A tick at this very instant has had its turn already.
		pr.arm(max(now+1, c.proc.StartedAt()+pr.delay))
	}
}

func (k *Kubelet) stopProbes(c *ctr) {
	for _, pr := range c.peek().probes {
		if pr != nil {
			pr.stop()
		}
	}
}

// check resolves the probe's handler against the container: a named port
// becomes its number, the host is the pod IP.
func (pr *prober) check() workload.Check {
	h := &pr.spec.ProbeHandler
	ch := workload.Check{Host: pr.k.podIP(pr.p), Timeout: pr.timeout}
	port := func(p intstr.IntOrString) int32 {
		if p.Type == intstr.Int {
			return p.IntVal
		}
		for _, cp := range pr.c.spec.Ports {
			if cp.Name == p.StrVal {
				return cp.ContainerPort
			}
		}
		return -1
	}
	switch {
	case h.HTTPGet != nil:
		ch.Kind, ch.Path, ch.Scheme, ch.Port = "httpGet", h.HTTPGet.Path, string(h.HTTPGet.Scheme), port(h.HTTPGet.Port)
		if h.HTTPGet.Host != "" {
			ch.Host = h.HTTPGet.Host
		}
	case h.TCPSocket != nil:
		ch.Kind, ch.Port = "tcpSocket", port(h.TCPSocket.Port)
		if h.TCPSocket.Host != "" {
			ch.Host = h.TCPSocket.Host
		}
	case h.GRPC != nil:
		ch.Kind, ch.Port = "grpc", h.GRPC.Port
	case h.Exec != nil:
		ch.Kind, ch.Command = "exec", h.Exec.Command
	}
	return ch
}

// fire is one tick of the worker (doProbe).
func (pr *prober) fire() {
	k, p, c := pr.k, pr.p, pr.c
	now := k.now()
	if k.stopped || k.failed || p.terminating || c.stage != stageRunning || c.proc == nil || pr.onHold {
		return
	}
	if pr.kind == startup && c.started || pr.kind != startup && !c.started {
		return
	}
	if now-c.proc.StartedAt() < pr.delay {
		pr.arm(c.proc.StartedAt() + pr.delay)
		return
	}
	pr.lastAt = now
	k.stats.Probes++
	res := c.proc.Probe(now, pr.check(), c.peek().broken[pr.kind])
	r := resFailure
	if res.OK {
		r = resSuccess
	}
	if r == pr.last {
		pr.run++
	} else {
		pr.last, pr.run = r, 1
	}
	name := kindNames[pr.kind]
	if r == resFailure {
		k.podEvent(p, c, p.cause, corev1.EventTypeWarning, "Unhealthy", name+" probe failed: "+res.Message)
		if pr.run == 1 {
			cause := c.more.startSeq
			if c.peek().broken[pr.kind] {
				cause = c.more.brokeSeq[pr.kind]
			}
			pr.runSeq = k.maintain(p, cause, fmt.Sprintf("%s probe of container %s failed: %s (1 of %d in a row%s)",
				lower(name), c.spec.Name, res.Message, pr.failureThreshold, pr.consequence()), whyProbeFailing[pr.kind])
		}
		if pr.run < pr.failureThreshold {
			pr.arm(now + 1)
			return
		}
		switch pr.kind {
		case liveness, startup:
			seq := k.maintain(p, pr.runSeq, fmt.Sprintf("%s probe of container %s failed %d times in a row (failureThreshold %d, every %s)",
				lower(name), c.spec.Name, pr.run, pr.failureThreshold, pr.period.Duration()), whyThreshold[pr.kind])
			pr.onHold, pr.run = true, 0
			k.probeKill(p, c, pr.kind, seq)
			return
		case readiness:
			if c.ready {
				c.ready = false
				k.maintain(p, pr.runSeq, fmt.Sprintf("readiness probe of container %s failed %d times in a row: the container is not ready, "+
					"so the pod leaves its Services' endpoints", c.spec.Name, pr.run), whyUnready)
				k.writeStatus(p, "", whyStatus)
			}
			pr.arm(now + 1) // keeps probing (and reporting) while it fails
			return
		}
	}
	if pr.run < pr.successThreshold {
		pr.arm(now + 1)
		return
	}
	switch pr.kind {
	case readiness:
		if !c.ready {
			c.ready = true
			cause := c.more.startSeq
			if s := c.peek().brokeSeq[readiness]; s != 0 {
				cause = s // healed by the learner
			}
			k.maintain(p, cause, fmt.Sprintf("readiness probe of container %s succeeded: the container is ready", c.spec.Name), whyReady)
			k.writeStatus(p, "", whyStatus)
		}
	case startup:
		c.started = true
		k.maintain(p, c.more.startSeq, fmt.Sprintf("startup probe of container %s succeeded: liveness and readiness probes start", c.spec.Name), whyStartupDone)
		for _, o := range c.more.probes {
			if o != nil && o.kind != startup {
				o.arm(max(now, c.proc.StartedAt()+o.delay))
			}
		}
		k.writeStatus(p, "", whyStatus)
	}
	// A success that repeats changes nothing: the worker idles until
	// something it looks at changes.
}

func (pr *prober) consequence() string {
	switch pr.kind {
	case liveness:
		return " before the kubelet restarts it"
	case startup:
		return " before the kubelet restarts it"
	}
	return " before it is marked not ready"
}

func lower(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]|0x20) + s[1:]
}

// containerReady is the container's ready flag: running, started, and its
// readiness probe (if any) last succeeded.
func (c *ctr) containerReady() bool {
	if c.stage != stageRunning && c.stage != stageStopping {
		return false
	}
	if !c.started {
		return false
	}
	if c.spec.ReadinessProbe != nil {
		return c.ready
	}
	return true
}
