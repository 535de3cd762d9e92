package kubelet

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/trace"
	"github.com/kubeloop/kubeloop/engine/workload"
)

// Container lives after the start: the process runs on virtual time, may
// exit by itself (a crash, a script that ends, the OOM killer), may be
// killed for a failed liveness or startup probe, and is restarted as
// restartPolicy says, behind the kubelet's crash-loop back-off.

// ReasonCrashLoopBackOff is the waiting reason of a container whose restart
// is held back (k/k kuberuntime_manager.go doBackOff).
const ReasonCrashLoopBackOff = "CrashLoopBackOff"

// crashBackOff is the kubelet's crash-loop back-off for one container
// (client-go flowcontrol.Backoff with the kubelet's HasExpiredFunc): no
// jitter, 10 s doubling to 300 s, and an entry is stale once the exit it
// is asked about comes more than 600 s after its last update.
type crashBackOff struct {
	delay      sim.Tick
	lastUpdate sim.Tick
	set        bool
}

// expired is the kubelet's HasExpiredFunc: eventTime − lastUpdate > 600 s.
func (b *crashBackOff) expired(eventTime sim.Tick, reset sim.Tick) bool {
	return eventTime-b.lastUpdate > reset
}

// maintain records a Maintain-column step of the node lane: probes,
// restarts, kills. It moves the pod's cause chain on.
func (k *Kubelet) maintain(p *podState, cause uint64, message, why string) uint64 {
	seq := k.m.env.Trace.RecordFrom(k.src, trace.Event{Lane: trace.NodeLane, Column: trace.Maintain,
		Namespace: p.pod.Namespace, Object: p.object(), Message: message, Cause: cause, Why: why})
	p.cause = seq
	return seq
}

// formatPod is the kubelet's format.Pod: name_namespace(uid).
func formatPod(pod *corev1.Pod) string {
	return fmt.Sprintf("%s_%s(%s)", pod.Name, pod.Namespace, pod.UID)
}

func containerEnv(c *corev1.Container) map[string]string {
	if len(c.Env) == 0 {
		return nil
	}
	env := make(map[string]string, len(c.Env))
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			env[e.Name] = e.Value
		}
	}
	return env
}

// startProcess is StartContainer returning: the process runs from now.
func (k *Kubelet) startProcess(p *podState, c *ctr) {
	now := k.now()
	spec := workload.ProcessSpec{Image: c.img, Command: c.spec.Command, Args: c.spec.Args, Env: containerEnv(c.spec),
		Hostname: p.pod.Name, IP: k.podIP(p)}
	if lim, ok := c.spec.Resources.Limits[corev1.ResourceMemory]; ok {
		spec.MemoryLimitBytes = lim.Value()
	}
	if c.proc != nil {
		c.life().prevLogs = c.logs(now)
	}
	if c.more != nil {
		c.more.broken = [numProbeKinds]bool{}
		c.more.brokeSeq = [numProbeKinds]uint64{}
	}
	c.ready, c.started = false, false
	if err := c.run.Start(spec, now); err != nil {
		c.proc = nil
		c.stage = stageExited
		c.recordExit(now, 128, workload.ReasonStartError, err.Error())
		seq := k.step(p, fmt.Sprintf("container %s failed to start: %s", c.spec.Name, startErrorShort(err)), whyStartError)
		k.podEvent(p, c, seq, corev1.EventTypeWarning, "Failed", "Error: "+err.Error())
		c.life().exitSeq = seq
		return
	}
	c.proc = &c.run
	c.stage = stageRunning
	c.started = c.spec.StartupProbe == nil
	msg := c.shared.startedStep
	if c.restarts > 0 {
		msg += fmt.Sprintf(" (restart %d)", c.restarts)
	}
	why := whyStarted
	if c.spec.ReadinessProbe != nil {
		why = whyStartedProbed
	}
	seq := k.step(p, msg, why)
	k.podEvent(p, c, seq, corev1.EventTypeNormal, "Started", c.shared.startedEvent)
	if e, exited := c.proc.Exited(); exited && e.At <= now {
		k.processExited(p, c, seq)
		return
	}
	k.scheduleProcess(p, c)
	if c.more != nil {
		// What wakes for this instance (its process's timer, its probes)
		// has made the container's ctrMore by now, and follows from the
		// start. A container without one has nothing that asks.
		c.more.startSeq = seq
	}
	k.startProbes(p, c)
}

func startErrorShort(err error) string {
	if se, ok := err.(*workload.StartError); ok {
		return fmt.Sprintf("exec: %q: executable file not found in $PATH", se.Executable)
	}
	return err.Error()
}

// logs is what the container's current (or last) instance printed.
func (c *ctr) logs(now sim.Tick) []LogLine {
	if c.proc == nil {
		return nil
	}
	printed := c.proc.Logs(now)
	out := make([]LogLine, len(printed))
	for i, l := range printed {
		out[i] = LogLine{Time: l.T, Text: l.Text}
	}
	return out
}

// scheduleProcess sets the container's timer to the next thing its
// process does by itself (a script waking, an exit, the OOM killer, its
// health endpoint changing its answer). A change of answer matters only
// to the container's probes (processWake pokes them): a container without
// probes does not wake for it, which spares most containers a closure, a
// timer and a wake when their server starts serving.
func (k *Kubelet) scheduleProcess(p *podState, c *ctr) {
	loop := k.m.env.Loop
	now := k.now()
	at, ok := c.proc.Next()
	if c.probed() {
		if t, changes := c.proc.NextHealthChange(now); changes && (!ok || t < at) {
			at, ok = t, true
		}
	}
	if t := c.peek().procTimer; t.Pending() {
		if ok && t.At() == at {
			return
		}
		loop.Cancel(t)
	}
	if !ok {
		if c.more != nil {
			c.more.procFn = nil // nothing to wake for: a quiet container keeps no closure
		}
		return
	}
	more := c.life()
	if more.procFn == nil {
		more.procFn = func() { k.processWake(p, c) }
	}
	more.procTimer = loop.At(at, k.procLabel, more.procFn)
}

// processWake steps a container's process to now.
func (k *Kubelet) processWake(p *podState, c *ctr) {
	c.more.procTimer = nil // its timer made it
	if c.stage != stageRunning || c.proc == nil || p.terminating || k.stopped {
		return
	}
	if c.proc.Step(k.now()) {
		k.processExited(p, c, c.more.startSeq)
		return
	}
	k.scheduleProcess(p, c)
	k.pokeProbes(p, c)
}

// processExited is the runtime reporting that the container's process
// ended by itself (or was killed by a learner's `kill`): the kubelet notes
// the exit and syncs the pod, which restarts it if restartPolicy says so.
func (k *Kubelet) processExited(p *podState, c *ctr, cause uint64) {
	e, _ := c.proc.Exited()
	more := c.life()
	k.m.env.Loop.Cancel(more.procTimer)
	k.m.env.Loop.Cancel(more.killTimer)
	k.stopProbes(c)
	c.stage = stageExited
	c.recordExit(e.At, e.Code, e.Reason, "")
	var msg, why string
	switch {
	case e.Reason == workload.ReasonOOMKilled:
		lim := c.spec.Resources.Limits[corev1.ResourceMemory]
		msg = fmt.Sprintf("container %s was OOMKilled (exit code 137): its memory use passed its limit of %s", c.spec.Name, lim.String())
		why = whyOOM
	case more.killFor != "":
		msg = fmt.Sprintf("container %s stopped after failing its %s probe: exit code %d (%s)", c.spec.Name, more.killFor, e.Code, e.Reason)
		why = whyProbeKilled
		more.probeKilled = true
	default:
		msg = fmt.Sprintf("container %s exited with code %d (%s)", c.spec.Name, e.Code, e.Reason)
		why = whyCrashed
	}
	more.killFor = ""
	more.exitSeq = k.maintain(p, cause, msg, why)
	k.enqueue(p)
}

// recordExit notes how the current instance ended, at finishedAt: its
// state while the container stays exited, and its lastState once it waits
// to restart or runs again (the instance before moves to prevLast).
func (c *ctr) recordExit(finishedAt sim.Tick, code int32, reason, message string) {
	more := c.life()
	started := finishedAt // a process that failed to start (StartError) ends as it starts
	if c.proc != nil {
		started = c.proc.StartedAt()
	}
	more.prevLast = more.last
	more.last = &corev1.ContainerStateTerminated{ExitCode: code, Reason: reason, Message: message,
		StartedAt: metav1.NewTime(started.Time()), FinishedAt: metav1.NewTime(finishedAt.Time()), ContainerID: c.id}
}

// shouldRestart is the kubelet's ShouldContainerBeRestarted for an exited
// container: Always restarts, OnFailure only after a non-zero exit, Never
// never.
func shouldRestart(pod *corev1.Pod, c *ctr) bool {
	switch pod.Spec.RestartPolicy {
	case corev1.RestartPolicyNever:
		return false
	case corev1.RestartPolicyOnFailure:
		return c.peek().last.ExitCode != 0 // exited: last is this exit
	}
	return true
}

// restartExited decides what happens to an exited container in a sync
// pass: it stays exited (restartPolicy), waits in CrashLoopBackOff, or is
// restarted now. It reports whether the container is to be started.
//
// This is doBackOff: the back-off is asked about the exit's FinishedAt. No
// entry (or a stale one) means no back-off; a container restarted without
// back-off records one (Next), which is why the first restart is
// immediate and the next waits 10 s, then 20 s, 40 s, ... up to 300 s.
func (k *Kubelet) restartExited(p *podState, c *ctr) bool {
	if !shouldRestart(p.pod, c) {
		return false
	}
	cfg := &k.m.cfg
	now := k.now()
	more := c.life()
	b := &more.crash
	ts := sim.FromTime(more.last.FinishedAt.Time)
	if more.probeKilled {
		// The kubelet killed it itself and starts it again in the same
		// sync, whose view of the pod predates the kill: the back-off is
		// asked about the exit before (doBackOff finds no exited
		// container the first time, so it neither waits nor records).
		more.probeKilled = false
		if more.prevLast == nil {
			c.stage, more.reason, more.message = stageWaiting, "", ""
			c.restarting = true
			k.maintain(p, more.exitSeq, fmt.Sprintf("restarting container %s at once: it has no earlier exit to back off from", c.spec.Name), whyRestart)
			return true
		}
		ts = sim.FromTime(more.prevLast.FinishedAt.Time)
	}
	if b.set && !b.expired(ts, cfg.CrashLoopBackOffReset) && now-ts < b.delay {
		if more.reason != ReasonCrashLoopBackOff || more.backOffUntil != ts+b.delay {
			more.reason = ReasonCrashLoopBackOff
			more.message = fmt.Sprintf("back-off %s restarting failed container=%s pod=%s", b.delay.Duration(), c.spec.Name, formatPod(p.pod))
			more.backOffUntil = ts + b.delay
			seq := k.maintain(p, more.exitSeq, fmt.Sprintf("back-off %s restarting failed container %s (restart %d waits until %s)",
				b.delay.Duration(), c.spec.Name, c.restarts+1, more.backOffUntil), whyCrashBackOff)
			more.backOffSeq = seq
			k.podEvent(p, c, seq, corev1.EventTypeWarning, "BackOff",
				fmt.Sprintf("Back-off restarting failed container %s in pod %s", c.spec.Name, formatPod(p.pod)))
		}
		k.setRetry(p, more.backOffUntil)
		return false
	}
	// Next: a fresh or stale entry starts at 10 s, a live one doubles.
	first := !b.set
	if !b.set || b.expired(ts, cfg.CrashLoopBackOffReset) {
		b.delay = cfg.CrashLoopBackOffInitial
	} else {
		b.delay = min(2*b.delay, cfg.CrashLoopBackOffMax)
	}
	b.set, b.lastUpdate = true, now
	cause := more.exitSeq
	var msg string
	switch {
	case more.reason == ReasonCrashLoopBackOff:
		cause = more.backOffSeq
		msg = fmt.Sprintf("restarting container %s: its back-off has passed (next back-off %s)", c.spec.Name, b.delay.Duration())
	case first:
		msg = fmt.Sprintf("restarting container %s at once: the first restart has no back-off (the next waits %s)", c.spec.Name, b.delay.Duration())
	default:
		msg = fmt.Sprintf("restarting container %s at once: it ran long enough since the last back-off (next back-off %s)", c.spec.Name, b.delay.Duration())
	}
	k.maintain(p, cause, msg, whyRestart)
	c.stage, more.reason, more.message = stageWaiting, "", ""
	c.restarting = true
	return true
}

// probeKill stops a container whose liveness or startup probe failed
// failureThreshold times: the stop signal, SIGKILL at the end of the grace
// period (the probe's terminationGracePeriodSeconds, else the pod's), then
// the usual restart.
func (k *Kubelet) probeKill(p *podState, c *ctr, kind probeKind, cause uint64) {
	now := k.now()
	restart := p.pod.Spec.RestartPolicy != corev1.RestartPolicyNever
	secs := int64(corev1.DefaultTerminationGracePeriodSeconds)
	if g := p.pod.Spec.TerminationGracePeriodSeconds; g != nil {
		secs = *g
	}
	if pr := probeSpec(c.spec, kind); pr != nil && pr.TerminationGracePeriodSeconds != nil {
		secs = *pr.TerminationGracePeriodSeconds
	}
	grace := max(sim.Seconds(secs), k.m.cfg.MinimumGracePeriod)
	b := c.proc.StopBehavior()
	more := c.life()
	c.stage = stageStopping
	c.proc.Stop(now)
	more.killFor = strings.ToLower(kindNames[kind])
	sig := b.Signal()
	var exitAt sim.Tick
	var code int32
	var how string
	if b.IgnoresSIGTERM || b.StopTime >= grace {
		exitAt, code = now+grace, 137
		how = fmt.Sprintf("sent %s, SIGKILL in %s if it is still running", sig, grace.Duration())
	} else {
		exitAt, code = now+b.StopTime, b.StopExitCode
		how = fmt.Sprintf("sent %s; grace period %s", sig, grace.Duration())
	}
	more.exitAt, more.killed = exitAt, code == 137
	msg := fmt.Sprintf("Container %s failed %s probe", c.spec.Name, more.killFor)
	if restart {
		msg += ", will be restarted"
	}
	seq := k.maintain(p, cause, fmt.Sprintf("killing container %s: %s; %s", c.spec.Name, msg, how), whyLivenessKill)
	k.podEvent(p, c, seq, corev1.EventTypeNormal, "Killing", msg)
	k.stopProbes(c)
	loop := k.m.env.Loop
	loop.Cancel(c.peek().procTimer)
	more.killTimer = loop.At(exitAt, k.procLabel, func() {
		more.killTimer = nil
		if p.terminating || k.stopped || c.stage != stageStopping {
			return
		}
		c.proc.Kill(exitAt, code)
		k.processExited(p, c, seq)
	})
}

// stopContainerTimers cancels what a container's process and probes have
// pending, when the pod goes away.
func (k *Kubelet) stopContainerTimers(c *ctr) {
	loop := k.m.env.Loop
	loop.Cancel(c.peek().procTimer)
	loop.Cancel(c.peek().killTimer)
	k.stopProbes(c)
}
