package kubelet

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/store"
	"github.com/kubeloop/kubeloop/engine/workload"
)

// Waiting reasons and the messages around them, as the kubelet words them
// (k/k pkg/kubelet/images/types.go, kubelet_pods.go, status/generate.go).
const (
	ReasonContainerCreating = "ContainerCreating"
	ReasonErrImagePull      = "ErrImagePull"
	ReasonImagePullBackOff  = "ImagePullBackOff"
	ReasonErrImageNeverPull = "ErrImageNeverPull"
	ReasonInvalidImageName  = "InvalidImageName"

	reasonContainersNotReady = "ContainersNotReady"
	reasonPodCompleted       = "PodCompleted"
	reasonPodFailed          = "PodFailed"
	reasonStatusUnknown      = "ContainerStatusUnknown"
	msgStatusUnknown         = "The container could not be located when the pod was terminated"
)

// opKind is the one slow step a pod's sync is waiting for. As in the
// kubelet's pod worker, a pod does one thing at a time: its sync blocks in
// an image pull, a create or a start.
type opKind uint8

const (
	opNone opKind = iota
	opSandbox
	opPull
	opCreate
	opStart
	opKill
)

// stage is where a container is in its life.
type stage uint8

const (
	stageWaiting  stage = iota // needs its image, then create and start
	stageCreating              // CreateContainer in flight
	stageStarting              // StartContainer in flight
	stageRunning
	stageStopping // stop signal sent, not yet exited
	stageExited
)

// ctr is a container as the kubelet and the simulated runtime know it.
//
// A node keeps one per container, and most containers start and then run
// quietly: ctr holds only what every one of them needs on the way. What a
// container needs only once something happens to it (a waiting reason
// other than ContainerCreating, a stop, an exit, probes, back-offs, a
// process that wakes by itself) is in its ctrMore, so that a quiet
// container is 128 bytes, its process included. When its instance
// started is its process's (workload.Process.StartedAt).
type ctr struct {
	spec   *corev1.Container
	shared *ctrShared      // spec.Image parsed, its messages: shared with every container of its name and image
	img    *workload.Image // the image it was created from
	id     string          // containerd://...

	// The process of the current (or last) instance (containers.go,
	// probes.go): run, or nil before the first start and after a
	// StartError. Each start starts run anew, in place.
	proc *workload.Process

	more *ctrMore // nil until needed (ctr.life)

	run workload.Process

	// The small fields last, packed together.
	restarts   int32
	stage      stage
	restarting bool // a restart is under way: the next create counts
	ready      bool // the readiness probe's result
	started    bool // the startup probe's result (true without one)
}

// ctrMore is what only some containers need: a waiting reason, a stop and
// an exit, probes, a failed pull's back-off, a crash loop, a probe's kill,
// a learner's break. A container gets it the first time one of them
// happens, so that the many that run quietly stay small. Reads go through
// peek, which finds the zero ctrMore (no reason, no exit) for the others.
type ctrMore struct {
	// Why the container is waiting, when it is not ContainerCreating
	// (set by ctr.setWaiting).
	reason, message string

	// Its stop (stopContainer, probeKill) and its exits (recordExit).
	// While it stays exited, last is its state and prevLast its
	// lastState; once it waits to restart or runs again, last is its
	// lastState.
	exitAt   sim.Tick                         // when it exits (or is killed) after the stop signal
	exitSeq  uint64                           // the trace step of its exit
	last     *corev1.ContainerStateTerminated // the latest instance that ended
	prevLast *corev1.ContainerStateTerminated // the one before it

	probes [numProbeKinds]*prober

	backoff     backOff
	prevPullErr string // "ErrImagePull: <message>", shown while backing off

	killTimer    *sim.Timer
	killFor      string // "liveness" or "startup" while a probe's kill is under way
	backOffSeq   uint64 // the trace step that put it in CrashLoopBackOff
	prevLogs     []LogLine
	crash        crashBackOff
	backOffUntil sim.Tick
	brokeSeq     [numProbeKinds]uint64 // the trace steps of the breaks

	// What wakes for the current instance: the timer of the next thing
	// its process does by itself (scheduleProcess) and the closure it
	// runs, and its probes, which follow from its start (startSeq).
	procTimer *sim.Timer
	procFn    func()
	startSeq  uint64 // the trace step that started the current instance

	// The small fields last, packed together.
	killed      bool                // SIGKILL at the end of the grace period
	probeKilled bool                // its last exit was the kubelet's kill for a probe
	broken      [numProbeKinds]bool // a learner's `break`
}

// life is the container's ctrMore, made if it has none yet: for writes.
func (c *ctr) life() *ctrMore {
	if c.more == nil {
		c.more = &ctrMore{}
	}
	return c.more
}

// noMore is what a container without a ctrMore reads. Never written.
var noMore ctrMore

// peek is the container's ctrMore, or the zero one if it has none: for
// reads only.
func (c *ctr) peek() *ctrMore {
	if c.more == nil {
		return &noMore
	}
	return c.more
}

// setWaiting sets the container's waiting reason and message. No reason is
// ContainerCreating, the usual one, which needs no ctrMore.
func (c *ctr) setWaiting(reason, message string) {
	if reason == "" && c.more == nil {
		return
	}
	m := c.life()
	m.reason, m.message = reason, message
}

// podState is the kubelet's record of one pod bound to its node.
//
// It does not keep the pod's store key: Kubelet.pods files it by its
// namespace and name (podEntry), and only a panic's message names the key
// (podState.storeKey).
type podState struct {
	pod *corev1.Pod // the latest version seen; shared and read-only

	// The small fields, packed together (a node keeps one podState per
	// pod), next to pod: every sync reads them and pod first, and one
	// cache line then serves both.
	ipOff       uint32
	recorded    uint16 // the reasons of the Events recorded about the pod (podEventBit), and holdingBit
	op          opKind
	queued      bool
	admitted    bool
	sandbox     bool
	opDone      bool
	walking     bool // a sync pass is under way
	terminating bool
	deleted     bool // the object is gone from the API
	finished    bool // terminal status written and deletion requested
	forgotten   bool // no longer in Kubelet.pods

	cause uint64 // the trace step the next step follows from
	ctrs  []ctr  // made once (takeOn): closures and probers keep pointers into it

	startTime sim.Tick

	slow *slowStep // the slow step op under way, if any
	next int       // the container the current sync pass is at

	spamTAT sim.Tick // the spam filter's state (allowEvent)

	more *podMore // nil until needed (podState.life)
}

// slowStep is what a pod's slow step (podState.op) needs while it is under
// way: its timer, the image pull it waits for, and the closure that ends
// it. It is made for the first step of a sync pass and dropped when the
// pass ends, no step being under way then, so that a running pod keeps
// none. The steps of a pass follow one another, so they share one timer
// (sim.Loop.Arm), kept here: a pod's start takes three steps (sandbox,
// create, start), which would otherwise allocate a timer each.
//
// It also keeps, for the pass, the strings its steps repeat: the pod's
// name as the trace names it, which every step records, and its new IP,
// which the containers it starts are given before the pod's status shows
// it. A running pod keeps neither: its IP is in its status (podIP), and a
// step it takes later makes its name again.
type slowStep struct {
	timer sim.Timer
	pull  *pullRequest
	fn    func() // ends a step that waits for a timer (after)
	obj   string // "pod/<name>" (podState.object)
	ip    string // the IP of the sandbox the pass created (podIP)
}

// slowStep is the pod's slowStep, made if it has none yet.
func (k *Kubelet) slowStep(p *podState) *slowStep {
	if p.slow == nil {
		p.slow = &slowStep{}
		p.slow.fn = func() {
			p.opDone = true
			k.enqueue(p)
		}
	}
	return p.slow
}

// timer is the timer of the pod's slow step (pending while the step is
// under way), or nil.
func (p *podState) timer() *sim.Timer {
	if p.slow == nil {
		return nil
	}
	return &p.slow.timer
}

// pull is the image pull the pod's slow step waits for, or nil.
func (p *podState) pull() *pullRequest {
	if p.slow == nil {
		return nil
	}
	return p.slow.pull
}

// podMore is what only some pods need: a retry after a failure, and the
// start of a termination. A pod gets it the first time one of them
// happens, so that the many that start and run stay small (16 bytes
// fewer in every podState). Reads go through peek.
type podMore struct {
	retry     *sim.Timer // when pending, it fires at the retry's time
	retryFn   func()     // made at the first retry
	killStart sim.Tick   // when the termination began: the grace period counts from it
}

// life is the pod's podMore, made if it has none yet: for writes.
func (p *podState) life() *podMore {
	if p.more == nil {
		p.more = &podMore{}
	}
	return p.more
}

// noPodMore is what a pod without a podMore reads. Never written.
var noPodMore podMore

// peek is the pod's podMore, or the zero one if it has none: for reads
// only.
func (p *podState) peek() *podMore {
	if p.more == nil {
		return &noPodMore
	}
	return p.more
}

// storeKey is the key the pod is filed under in the store.
func (p *podState) storeKey() string { return kinds.Pod.Key(p.pod.Namespace, p.pod.Name) }

// object is the pod as the trace names it, "pod/<name>": made once for
// the steps of a sync pass, which share it in the trace.
func (p *podState) object() string {
	s := p.slow
	if s == nil {
		return "pod/" + p.pod.Name
	}
	if s.obj == "" {
		s.obj = "pod/" + p.pod.Name
	}
	return s.obj
}

// podIP is the pod's IP while it has its sandbox, else "". The kubelet
// keeps only its offset in the node's range (ipOff): the string is the
// one of the sync pass that created the sandbox, or the one the pod's
// status holds, which is what a running pod reads (probes, status
// writes). Only a pod whose status lost it makes it again.
func (k *Kubelet) podIP(p *podState) string {
	if !p.sandbox {
		return ""
	}
	if s := p.slow; s != nil && s.ip != "" {
		return s.ip
	}
	v := k.net.addr(p.ipOff)
	if ip := p.pod.Status.PodIP; ip != "" && isIPv4(ip, v) {
		return ip
	}
	return formatIPv4(v)
}

// observePod takes one watch event of a pod bound to this node. It only
// notes work: the sync happens in Work.
func (k *Kubelet) observePod(ev store.Event, pod *corev1.Pod) {
	k.stats.PodEvents++
	i, found := k.podAt(pod.Namespace, pod.Name)
	var p *podState
	if found {
		p = k.pods[i].p
	}
	if ev.Type == store.Deleted {
		if p == nil {
			return
		}
		if p.finished || !p.admitted {
			k.forget(p)
			return
		}
		p.deleted = true
		p.pod = pod
		p.cause = ev.Cause
		k.enqueue(p)
		return
	}
	if p == nil {
		if k.started {
			k.addPod(i, pod, ev.Cause)
		}
		return
	}
	old := p.pod
	p.pod = pod
	// The kubelet's own status writes come back as watch events; only a
	// change of spec or a deletion request needs a sync.
	if old.Generation == pod.Generation && (old.DeletionTimestamp == nil) == (pod.DeletionTimestamp == nil) &&
		equalGrace(old.DeletionGracePeriodSeconds, pod.DeletionGracePeriodSeconds) {
		return
	}
	p.cause = ev.Cause
	k.enqueue(p)
}

func equalGrace(a, b *int64) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

// addPod takes on a pod, filed at i in Kubelet.pods (podAt).
func (k *Kubelet) addPod(i int, pod *corev1.Pod, cause uint64) {
	if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		if pod.DeletionTimestamp == nil {
			return // finished before this kubelet knew it; nothing to run
		}
	}
	var p *podState
	if len(pod.Spec.Containers) == 1 {
		x := &podWithCtr{}
		p = &x.p
		p.ctrs = x.c[:0]
	} else {
		p = &podState{}
	}
	p.pod, p.cause = pod, cause
	k.pods = slices.Insert(k.pods, i, podEntry{podHash(pod.Namespace, pod.Name), p})
	k.enqueue(p)
}

// podWithCtr is a pod of one container, the usual kind, as the kubelet
// keeps it: its podState and its ctr (with its process) in one
// allocation (takeOn takes the ctr), which costs as many bytes as two
// (224, an allocator size class), one allocation fewer, and puts the
// container beside the pod, where a sync reads both.
type podWithCtr struct {
	p podState
	c [1]ctr
}

// podEntry files a pod in Kubelet.pods under the hash of its namespace
// and name (podHash).
//
// The kubelet's pods are a list sorted by that hash, found by binary
// search, rather than a map by store key: a node runs tens of pods, and a
// map of them costs it some 30 bytes a pod more than a list. The search
// reads only the list, where one that compared names would read a pod
// object (and its podState) at every step, each far from the others in a
// large cluster's heap: only the pod found is read, to tell it from
// another of the same hash. A kubelet looks a pod up only for the few
// watch events that are not its own writes (Manager.echoed takes those).
type podEntry struct {
	hash uint64
	p    *podState
}

// podHash is the FNV-1a hash of "<namespace>/<name>": fixed, so that the
// list's order is the same in every run.
func podHash(namespace, name string) uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	for i := 0; i < len(namespace); i++ {
		h = (h ^ uint64(namespace[i])) * prime
	}
	h = (h ^ '/') * prime
	for i := 0; i < len(name); i++ {
		h = (h ^ uint64(name[i])) * prime
	}
	return h
}

// podAt finds a pod in Kubelet.pods: its index, or where it would go.
func (k *Kubelet) podAt(namespace, name string) (int, bool) {
	h := podHash(namespace, name)
	i, _ := slices.BinarySearchFunc(k.pods, h, func(e podEntry, h uint64) int { return cmp.Compare(e.hash, h) })
	for j := i; j < len(k.pods) && k.pods[j].hash == h; j++ {
		if pod := k.pods[j].p.pod; pod.Name == name && pod.Namespace == namespace {
			return j, true
		}
	}
	return i, false
}

// pod is the kubelet's record of a pod, or nil.
func (k *Kubelet) pod(namespace, name string) *podState {
	if i, found := k.podAt(namespace, name); found {
		return k.pods[i].p
	}
	return nil
}

// podsByKey is the kubelet's pods in the order of their store keys: the
// order in which a recovering kubelet syncs them.
func (k *Kubelet) podsByKey() []*podState {
	out := make([]*podState, len(k.pods))
	for i, e := range k.pods {
		out[i] = e.p
	}
	slices.SortFunc(out, func(a, b *podState) int {
		return comparePods(a.pod.Namespace, a.pod.Name, b.pod.Namespace, b.pod.Name)
	})
	return out
}

// comparePods orders two pods as their store keys ("<namespace>/<name>"
// after the kind's prefix) sort, without making the keys. Where one
// namespace begins the other, the shorter one's '/' meets the longer
// one's next byte, which is never '/' (a namespace is a DNS label).
func comparePods(ans, aname, bns, bname string) int {
	if ans == bns {
		return strings.Compare(aname, bname)
	}
	n := min(len(ans), len(bns))
	if c := strings.Compare(ans[:n], bns[:n]); c != 0 {
		return c
	}
	if len(ans) < len(bns) {
		return cmp.Compare('/', bns[n])
	}
	return cmp.Compare(ans[n], '/')
}

func (k *Kubelet) forget(p *podState) {
	loop := k.m.env.Loop
	loop.Cancel(p.timer())
	loop.Cancel(p.peek().retry)
	for i := range p.ctrs {
		c := &p.ctrs[i]
		k.stopContainerTimers(c)
	}
	if r := p.pull(); r != nil {
		r.abandoned = true
	}
	k.releaseIP(p)
	if i, found := k.podAt(p.pod.Namespace, p.pod.Name); found {
		k.pods = slices.Delete(k.pods, i, i+1)
	}
	p.forgotten = true
	k.forgetHeld(p)
}

func (k *Kubelet) releaseIP(p *podState) {
	if p.sandbox {
		k.net.release(p.ipOff)
	}
	p.sandbox = false
}

// after starts a slow step; the pod is synced again when it is done.
func (k *Kubelet) after(p *podState, op opKind, d sim.Tick) {
	p.op, p.opDone = op, false
	s := k.slowStep(p)
	k.m.env.Loop.ArmWake(&s.timer, k.now()+d, k.opLabel, s.fn) // a d < 0 counts as 0, as in After
}

func (k *Kubelet) setRetry(p *podState, at sim.Tick) {
	more := p.life()
	if more.retry.Pending() {
		if more.retry.At() <= at {
			return
		}
		k.m.env.Loop.Cancel(more.retry)
	}
	if more.retryFn == nil {
		more.retryFn = func() {
			more.retry = nil
			k.enqueue(p)
		}
	}
	more.retry = k.m.env.Loop.ArmWake(new(sim.Timer), at, k.retryLabel, more.retryFn)
}

// step records a pod's next step in the trace, following the previous one.
func (k *Kubelet) step(p *podState, message, why string) uint64 {
	seq := k.record(p.pod.Namespace, p.object(), p.cause, message, why)
	p.cause = seq
	return seq
}

// syncPod is the kubelet's pod worker: it moves the pod one step towards
// what its spec and deletion state ask for.
func (k *Kubelet) syncPod(p *podState) {
	if p.finished {
		return
	}
	if p.deleted || p.pod.DeletionTimestamp != nil || p.terminating {
		k.syncTerminating(p)
		return
	}
	if p.op != opNone {
		if !p.opDone {
			return // busy; the step's timer syncs the pod again
		}
		op := p.op
		p.op, p.opDone = opNone, false
		k.complete(p, op)
		if p.op != opNone {
			return
		}
	}
	if !p.admitted {
		k.admit(p)
		return
	}
	k.walk(p)
}

// admit takes the pod on: status Pending with its start time, host IP and
// default waiting state, then the sandbox.
func (k *Kubelet) admit(p *podState) {
	pod := p.pod
	k.takeOn(p)
	k.slowStep(p) // the pass's first step: its steps share the pod's trace name
	k.writeStatus(p, "accepted the pod", whyAdmit)
	if n := len(pod.Spec.InitContainers); n > 0 {
		names := make([]string, n)
		for i := range pod.Spec.InitContainers {
			names[i] = pod.Spec.InitContainers[i].Name
		}
		k.step(p, fmt.Sprintf("init containers %v are not simulated yet: kubeloop skips them and starts the app containers", names),
			whyNotSimulated)
	}
	k.after(p, opSandbox, k.m.cfg.SandboxStartTime)
}

// takeOn starts the kubelet's record of the pod and its containers.
func (k *Kubelet) takeOn(p *podState) {
	pod := p.pod
	p.admitted = true
	p.startTime = k.now()
	if n := len(pod.Spec.Containers); cap(p.ctrs) == n {
		p.ctrs = p.ctrs[:n] // made with the podState (podWithCtr)
	} else {
		p.ctrs = make([]ctr, n)
	}
	for i := range p.ctrs {
		c := &p.ctrs[i]
		c.spec = &pod.Spec.Containers[i]
		c.shared = k.m.ctrShared(c.spec.Name, c.spec.Image)
		for kind := probeKind(0); kind < numProbeKinds; kind++ {
			if spec := probeSpec(c.spec, kind); spec != nil {
				c.life().probes[kind] = newProber(k, p, c, kind, spec)
			}
		}
	}
}

// complete finishes the slow step op and starts the next one.
func (k *Kubelet) complete(p *podState, op opKind) {
	switch op {
	case opSandbox:
		ip, off, ok := k.net.allocate()
		if !ok {
			k.step(p, "failed to create the pod sandbox: no pod IP left on the node", whySandboxFailed)
			k.podEvent(p, nil, p.cause, corev1.EventTypeWarning, "FailedCreatePodSandBox", fmt.Sprintf(
				"Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox: "+
					"plugin type=\"host-local\" failed (add): failed to allocate for range 0: no IP addresses available in range set: %s",
				k.net.rangeString()))
			k.after(p, opSandbox, k.m.cfg.SyncErrorBackOff)
			return
		}
		p.ipOff, p.sandbox, p.slow.ip = off, true, ip
		k.step(p, "created the pod sandbox (pause container); pod IP "+ip, whySandbox)
		p.walking, p.next = true, 0
	case opPull:
		r := p.slow.pull
		p.slow.pull = nil
		c := r.c
		if r.err != nil {
			k.pullFailed(p, c, r.err)
			p.next++
			return
		}
		c.img = r.img
		c.setWaiting("", "")
		if c.more != nil {
			c.more.prevPullErr = ""
		}
		msgs := k.m.pulledMessages(pulledKey{c.spec.Image, r.done - r.started, r.done - r.requested, r.img.SizeBytes})
		seq := k.step(p, msgs.step, whyPulled)
		k.podEvent(p, c, seq, corev1.EventTypeNormal, "Pulled", msgs.event)
		if r.changed {
			k.nodeStatusCause = seq
		}
		c.stage = stageCreating
		k.after(p, opCreate, k.m.cfg.ContainerCreateTime)
	case opCreate:
		c := &p.ctrs[p.next]
		c.id = string(k.appendHex64(append(make([]byte, 0, len("containerd://")+64), "containerd://"...)))
		if c.restarting {
			c.restarting = false
			c.restarts++
		}
		seq := k.step(p, c.shared.createdStep, whyCreated)
		k.podEvent(p, c, seq, corev1.EventTypeNormal, "Created", c.shared.createdEvent)
		c.stage = stageStarting
		k.after(p, opStart, k.m.cfg.ContainerStartTime)
	case opStart:
		c := &p.ctrs[p.next]
		k.startProcess(p, c)
		if c.stage != stageExited {
			p.next++
		} // else: exited at once; this pass decides its restart

	default:
		panic(fmt.Sprintf("kubelet: completing unexpected step %d for pod %s", op, p.storeKey()))
	}
}

// appendHex64 appends 64 random hex digits, as fmt's %016x four times.
func (k *Kubelet) appendHex64(b []byte) []byte {
	const digits = "0123456789abcdef"
	for range 4 {
		v := k.rand.Uint64()
		for shift := 60; shift >= 0; shift -= 4 {
			b = append(b, digits[v>>uint(shift)&0xf])
		}
	}
	return b
}

// walk is one sync pass over the containers, as SyncPod starts each one
// that is not running: ensure its image, create it, start it. A container
// that cannot start does not hold up the others. At the end of the pass the
// status is written if it changed, and the pod is synced again when a
// failure's back-off allows.
func (k *Kubelet) walk(p *podState) {
	if !p.walking {
		p.walking, p.next = true, 0
	}
	for p.next < len(p.ctrs) {
		c := &p.ctrs[p.next]
		if c.stage == stageExited && !k.restartExited(p, c) {
			p.next++
			continue
		}
		if c.stage == stageRunning {
			// A resync (after the node recovers) finds idle probes armed.
			k.pokeProbes(p, c)
		}
		if c.stage != stageWaiting {
			p.next++
			continue
		}
		if !k.ensureImage(p, c) {
			p.next++
			continue
		}
		if p.op != opNone {
			return // pulling
		}
		c.stage = stageCreating
		k.after(p, opCreate, k.m.cfg.ContainerCreateTime)
		return
	}
	p.walking = false
	k.writeStatus(p, "", whyStatus) // its step still shares the pass's strings
	p.slow = nil                    // no step is under way (see slowStep)
	k.scheduleResync(p)
}

// ensureImage is the image manager's EnsureImageExists: it reports false if
// the container cannot start now (the reason is on the container), and
// true with p.op set to opPull if a pull is under way.
func (k *Kubelet) ensureImage(p *podState, c *ctr) bool {
	cfg := &k.m.cfg
	image := c.spec.Image
	ref := c.shared.image
	if ref.err != nil {
		msg := fmt.Sprintf("Failed to apply default image tag %q: couldn't parse image name %q: %v", image, image, ref.err)
		seq := k.step(p, fmt.Sprintf("cannot start container %s: invalid image name %q", c.spec.Name, image), whyInvalidImage)
		k.podEvent(p, c, seq, corev1.EventTypeWarning, "InspectFailed", msg)
		k.podEvent(p, c, seq, corev1.EventTypeWarning, "Failed", "Error: "+ReasonInvalidImageName)
		c.setWaiting(ReasonInvalidImageName, msg)
		return false
	}
	policy := c.spec.ImagePullPolicy
	if policy == "" {
		policy = ref.defaultPolicy
	}
	if img := k.images.lookupKey(ref.key, ref.isDigest); img != nil && policy != corev1.PullAlways {
		seq := k.step(p, k.m.msg(msgPresentStep, image, string(policy)), whyPresent)
		k.podEvent(p, c, seq, corev1.EventTypeNormal, "Pulled", ref.presentEvent)
		c.img = img
		c.setWaiting("", "")
		return true
	}
	if policy == corev1.PullNever {
		msg := fmt.Sprintf("Container image %q is not present with pull policy of Never", image)
		seq := k.step(p, fmt.Sprintf("cannot start container %s: image %q is not on the node and imagePullPolicy is Never",
			c.spec.Name, image), whyNeverPull)
		k.podEvent(p, c, seq, corev1.EventTypeWarning, ReasonErrImageNeverPull, msg)
		k.podEvent(p, c, seq, corev1.EventTypeWarning, "Failed", "Error: "+ReasonErrImageNeverPull)
		c.setWaiting(ReasonErrImageNeverPull, msg)
		return false
	}
	now := k.now()
	if more := c.peek(); more.backoff.inBackOff(now, cfg.ImageBackOffMax) {
		msg := fmt.Sprintf("Back-off pulling image %q", image)
		seq := k.step(p, fmt.Sprintf("back-off pulling image %q: next try in %s", image, (more.backoff.expiry()-now).Duration()), whyBackOff)
		k.podEvent(p, c, seq, corev1.EventTypeNormal, "BackOff", msg)
		k.podEvent(p, c, seq, corev1.EventTypeWarning, "Failed", "Error: "+ReasonImagePullBackOff)
		if more.prevPullErr != "" {
			msg += ": " + more.prevPullErr
		}
		c.setWaiting(ReasonImagePullBackOff, msg)
		return false
	}
	r := &pullRequest{p: p, c: c, requested: now}
	behind := k.puller.add(r)
	why := whyPulling
	if behind > 0 {
		why = whyPullingQueued
	}
	seq := k.step(p, k.m.msgN(msgPullingStep, image, behind), why)
	k.podEvent(p, c, seq, corev1.EventTypeNormal, "Pulling", ref.pullingEvent)
	p.op, p.opDone = opPull, false
	k.slowStep(p).pull = r
	return true
}

func (k *Kubelet) pullFailed(p *podState, c *ctr, err *workload.PullError) {
	cfg := &k.m.cfg
	msg := err.KubeletMessage()
	seq := k.step(p, fmt.Sprintf("failed to pull image %q: %s", c.spec.Image, err.Reason), whyPullFailed)
	k.podEvent(p, c, seq, corev1.EventTypeWarning, "Failed", fmt.Sprintf("Failed to pull image %q: %s", c.spec.Image, msg))
	k.podEvent(p, c, seq, corev1.EventTypeWarning, "Failed", "Error: "+ReasonErrImagePull)
	more := c.life()
	more.backoff.next(k.now(), cfg.ImageBackOffInitial, cfg.ImageBackOffMax)
	c.setWaiting(ReasonErrImagePull, msg)
	more.prevPullErr = ReasonErrImagePull + ": " + msg
}

// scheduleResync plans the next sync of a pod with containers that could
// not start: one relist period after a failed pull (when the kubelet shows
// ImagePullBackOff), when the back-off expires, or after the pod worker's
// error back-off.
func (k *Kubelet) scheduleResync(p *podState) {
	cfg := &k.m.cfg
	now := k.now()
	at := sim.Tick(-1)
	for i := range p.ctrs {
		c := &p.ctrs[i]
		reason := c.peek().reason
		if c.stage != stageWaiting || reason == "" {
			continue
		}
		var t sim.Tick
		switch reason {
		case ReasonErrImagePull:
			t = now + cfg.RelistPeriod
		case ReasonImagePullBackOff:
			t = c.peek().backoff.expiry()
		default:
			t = now + cfg.SyncErrorBackOff
		}
		if at < 0 || t < at {
			at = t
		}
	}
	if at >= 0 {
		k.setRetry(p, at)
	}
}

// gracePeriod is how long the containers get between the stop signal and
// SIGKILL: the deletion's grace period, else the spec's, at least the
// kubelet's minimum.
func (k *Kubelet) gracePeriod(p *podState) sim.Tick {
	secs := int64(corev1.DefaultTerminationGracePeriodSeconds)
	if g := p.pod.Spec.TerminationGracePeriodSeconds; g != nil {
		secs = *g
	}
	if g := p.pod.DeletionGracePeriodSeconds; g != nil {
		secs = *g
	} else if p.deleted {
		secs = 0 // force-deleted: the pod worker kills at once, within the minimum
	}
	return max(sim.Seconds(secs), k.m.cfg.MinimumGracePeriod)
}

// syncTerminating stops a pod that is being deleted: the stop signal to
// every running container, SIGKILL for those still running at the end of
// the grace period, then the terminal status and the final deletion.
func (k *Kubelet) syncTerminating(p *podState) {
	loop := k.m.env.Loop
	now := k.now()
	if !p.terminating {
		p.terminating = true
		loop.Cancel(p.timer())
		loop.Cancel(p.peek().retry)
		if r := p.pull(); r != nil {
			r.abandoned = true
			p.slow.pull = nil
		}
		p.op, p.opDone = opNone, false
		p.life().killStart = now
		for i := range p.ctrs {
			c := &p.ctrs[i]
			k.stopContainerTimers(c)
		}
		if !p.admitted {
			if p.deleted {
				k.forget(p)
				return
			}
			// Deleted before the kubelet got to it: nothing ran, but only
			// the kubelet may remove a bound pod.
			k.takeOn(p)
		}
		grace := k.gracePeriod(p)
		if p.deleted {
			k.step(p, "the pod was removed from the API without waiting for its kubelet (force deletion); stopping what is left of it",
				whyForceDeleted)
		}
		for i := range p.ctrs {
			c := &p.ctrs[i]
			switch c.stage {
			case stageCreating, stageStarting:
				c.stage = stageWaiting // its create or start is abandoned
			case stageRunning:
				k.stopContainer(p, c, grace)
			}
		}
	} else if p.op == opKill && !p.opDone {
		// A second delete may shorten the grace period.
		deadline := p.peek().killStart + k.gracePeriod(p)
		for i := range p.ctrs {
			c := &p.ctrs[i]
			if c.stage == stageStopping && c.peek().exitAt > deadline {
				more := c.life()
				more.exitAt, more.killed = max(deadline, now), true
			}
		}
	} else if p.op == opKill {
		p.op, p.opDone = opNone, false
		for i := range p.ctrs {
			c := &p.ctrs[i]
			if c.stage == stageStopping && c.peek().exitAt <= now {
				k.containerExited(p, c)
			}
		}
	}
	next := sim.Tick(-1)
	for i := range p.ctrs {
		c := &p.ctrs[i]
		if at := c.peek().exitAt; c.stage == stageStopping && (next < 0 || at < next) {
			next = at
		}
	}
	if next >= 0 {
		if p.op != opKill || p.timer().At() != next {
			loop.Cancel(p.timer())
			k.after(p, opKill, next-now)
		}
		return
	}
	k.finishTermination(p)
}

func (k *Kubelet) stopContainer(p *podState, c *ctr, grace sim.Tick) {
	now := k.now()
	b := c.img.Behavior
	if c.proc != nil {
		b = c.proc.StopBehavior()
		c.proc.Stop(now)
	}
	c.stage = stageStopping
	sig := b.Signal()
	if b.StopSignal != "" {
		sig += " (the image's STOPSIGNAL)"
	}
	var msg string
	more := c.life()
	if b.IgnoresSIGTERM || b.StopTime >= grace {
		more.exitAt, more.killed = now+grace, true
		msg = fmt.Sprintf("stopping container %s: sent %s, SIGKILL in %s if it is still running", c.spec.Name, sig, grace.Duration())
	} else {
		more.exitAt = now + b.StopTime
		msg = fmt.Sprintf("stopping container %s: sent %s; grace period %s", c.spec.Name, sig, grace.Duration())
	}
	seq := k.step(p, msg, whyKilling)
	k.podEvent(p, c, seq, corev1.EventTypeNormal, "Killing", c.shared.killingEvent)
}

func (k *Kubelet) containerExited(p *podState, c *ctr) {
	now := k.now()
	c.stage = stageExited
	if c.peek().killed {
		if c.proc != nil {
			c.proc.Kill(now, 137)
		}
		c.recordExit(now, 137, "Error", "")
		k.step(p, fmt.Sprintf("container %s was still running at the end of the grace period: killed with SIGKILL (exit code 137)",
			c.spec.Name), whySIGKILL)
		return
	}
	code := c.img.Behavior.StopExitCode
	if c.proc != nil {
		code = c.proc.StopBehavior().StopExitCode
		c.proc.Kill(now, code)
	}
	reason := "Completed"
	if code != 0 {
		reason = "Error"
	}
	c.recordExit(now, code, reason, "")
	k.step(p, fmt.Sprintf("container %s exited with code %d", c.spec.Name, code), whyExited)
}

// finishTermination records the terminal phase and removes the pod object
// with grace period 0: only the kubelet can confirm that the containers
// are gone.
func (k *Kubelet) finishTermination(p *podState) {
	k.releaseIP(p)
	if p.deleted {
		k.forget(p)
		return
	}
	k.writeStatus(p, "", whyTerminal)
	seq := k.step(p, "deleting the pod object: its containers have stopped", whyDelete)
	zero := int64(0)
	_, err := k.m.env.API.Delete(k.actor(seq), kinds.Pod, p.pod.Namespace, p.pod.Name, apiserver.DeleteOptions{GracePeriodSeconds: &zero})
	if err != nil && !apierrors.IsNotFound(err) {
		panic("kubelet: deleting pod " + p.storeKey() + ": " + err.Error())
	}
	p.finished = true
}

// writeStatus posts the pod's status if it differs from what the API
// holds. prefix, if set, starts the trace message ("accepted the pod").
//
// The status is built straight into the Manager's scratch body and its
// message into a scratch buffer: a status built in a local would escape to
// the heap through sameStatus's reflective comparison, and most messages
// are the interned copy of one seen before.
func (k *Kubelet) writeStatus(p *podState, prefix, why string) {
	upd := &k.m.scratch
	defer func() { *upd = corev1.Pod{} }()
	upd.Status = k.podStatus(p)
	st := &upd.Status
	if sameStatus(st, &p.pod.Status) {
		return
	}
	b := k.m.msgBuf[:0]
	if prefix != "" {
		b = append(append(b, prefix...), "; "...)
	}
	b = appendStatusSummary(append(b, "status "...), st)
	k.m.msgBuf = b
	var msg string
	if st.PodIP == "" {
		msg = k.m.internBytes(b) // the same for every replica of a template
	} else {
		msg = string(b)
	}
	seq := k.step(p, msg, why)
	// The API server reads the body and keeps none of it (it stores a copy
	// of the stored pod with this status), so one body serves every write.
	upd.Name, upd.Namespace, upd.UID = p.pod.Name, p.pod.Namespace, p.pod.UID
	stored, err := k.m.env.API.UpdateStatus(k.actor(seq), upd)
	if err != nil {
		if apierrors.IsNotFound(err) {
			return
		}
		panic("kubelet: writing status of pod " + p.storeKey() + ": " + err.Error())
	}
	p.pod = stored.(*corev1.Pod)
	k.m.echoes = append(k.m.echoes, echo{p.pod, k, p})
}

// sameStatus is the API's semantic equality of two pod statuses. Most
// writes change the phase, the IP or a list's length, which settles it
// without the reflective comparison (and without boxing two 320-byte
// structs into interfaces, as passing them by value would).
func sameStatus(a, b *corev1.PodStatus) bool {
	if a.Phase != b.Phase || a.PodIP != b.PodIP || a.HostIP != b.HostIP ||
		len(a.Conditions) != len(b.Conditions) || len(a.ContainerStatuses) != len(b.ContainerStatuses) {
		return false
	}
	return equality.Semantic.DeepEqual(a, b)
}

// appendStatusSummary appends a pod status summed up for the trace:
// "Running, Ready; IP 10.244.0.2", "Pending (api: ErrImagePull)",
// "Failed (web: Error, exit code 1; log: Completed, exit code 0)".
func appendStatusSummary(b []byte, st *corev1.PodStatus) []byte {
	b = append(b, st.Phase...)
	for _, c := range st.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			b = append(b, ", Ready"...)
		}
	}
	sep := " ("
	for _, cs := range st.ContainerStatuses {
		switch {
		case cs.State.Waiting != nil:
			b = append(append(append(append(b, sep...), cs.Name...), ": "...), cs.State.Waiting.Reason...)
		case cs.State.Terminated != nil:
			t := cs.State.Terminated
			b = append(append(append(append(b, sep...), cs.Name...), ": "...), t.Reason...)
			b = strconv.AppendInt(append(b, ", exit code "...), int64(t.ExitCode), 10)
		default:
			continue
		}
		sep = "; "
	}
	if sep != " (" {
		b = append(b, ')')
	}
	if st.PodIP != "" && st.Phase == corev1.PodRunning {
		b = append(append(b, "; IP "...), st.PodIP...)
	}
	return b
}

// podStatus is generateAPIPodStatus: phase, conditions, IPs and container
// statuses from what the kubelet knows. After termination it is the
// status manager's TerminatePod: containers that never ran are reported as
// terminated with ContainerStatusUnknown, and the phase is terminal.
func (k *Kubelet) podStatus(p *podState) corev1.PodStatus {
	pod := p.pod
	old := &pod.Status
	terminal := p.terminating && !p.hasStopping()
	// Parts equal to the stored status's are shared with it, not rebuilt:
	// stored objects are read-only, and a status is written at every step
	// of every pod.
	st := corev1.PodStatus{
		HostIP:             k.nodeIP,
		HostIPs:            k.hostIPs,
		StartTime:          old.StartTime,
		QOSClass:           old.QOSClass,
		ObservedGeneration: pod.Generation,
	}
	if start := p.startTime.Time(); st.StartTime == nil || !st.StartTime.Time.Equal(start) {
		st.StartTime = k.m.timeAt(p.startTime)
	}
	if st.QOSClass == "" {
		st.QOSClass = qosClass(pod)
	}
	ip := k.podIP(p)
	if ip == "" && terminal {
		ip = old.PodIP // a finished pod keeps the IP it had
	}
	if ip != "" {
		st.PodIP = ip
		if len(old.PodIPs) == 1 && old.PodIPs[0].IP == ip {
			st.PodIPs = old.PodIPs
		} else {
			st.PodIPs = []corev1.PodIP{{IP: ip}}
		}
	}
	// What others own in status stays: the scheduler's nominated node, and
	// the phase's reason and message while the phase holds.
	st.NominatedNodeName = pod.Status.NominatedNodeName
	// Both lists are built in the Manager's scratch space and copied out
	// only when no existing list can stand for them (shared.go).
	statuses := k.m.statusBuf[:0]
	for i := range p.ctrs {
		c := &p.ctrs[i]
		statuses = append(statuses, k.containerStatus(c, terminal))
	}
	k.m.statusBuf = statuses
	sortContainerStatuses(statuses)
	st.ContainerStatuses = shareCreating(statuses, p.ctrs)
	st.Phase = podPhase(pod, st.ContainerStatuses, terminal)
	if st.Phase == pod.Status.Phase {
		st.Reason, st.Message = pod.Status.Reason, pod.Status.Message
	}

	now := metav1.NewTime(k.now().Time())
	conds := k.m.condBuf[:0]
	for _, c := range old.Conditions {
		if !conditionByKubelet(c.Type) {
			conds = append(conds, c)
		}
	}
	add := func(c corev1.PodCondition) {
		c.ObservedGeneration = pod.Generation
		c.LastTransitionTime = now
		for _, old := range pod.Status.Conditions {
			if old.Type == c.Type && old.Status == c.Status && !old.LastTransitionTime.IsZero() {
				c.LastTransitionTime = old.LastTransitionTime
			}
		}
		conds = append(conds, c)
	}
	add(corev1.PodCondition{Type: corev1.PodReadyToStartContainers, Status: boolStatus(p.sandbox)})
	initialized := corev1.PodCondition{Type: corev1.PodInitialized, Status: corev1.ConditionTrue}
	if st.Phase == corev1.PodSucceeded {
		initialized.Reason = reasonPodCompleted
	}
	add(initialized)
	ready := k.m.containersReady(pod, st.ContainerStatuses, st.Phase)
	ready.Type = corev1.PodReady
	add(ready)
	ready.Type = corev1.ContainersReady
	add(ready)
	add(corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue})
	k.m.condBuf = conds
	if slices.Equal(conds, old.Conditions) {
		st.Conditions = old.Conditions
	} else {
		st.Conditions = k.m.shareConditions(conds)
	}
	return st
}

func (p *podState) hasStopping() bool {
	for i := range p.ctrs {
		c := &p.ctrs[i]
		if c.stage == stageStopping {
			return true
		}
	}
	return false
}

func (k *Kubelet) containerStatus(c *ctr, terminal bool) corev1.ContainerStatus {
	cs := corev1.ContainerStatus{Name: c.spec.Name, Image: c.spec.Image, Started: &falseValue, RestartCount: c.restarts}
	running := func() {
		cs.Image = c.shared.image.tagged
		cs.ImageID = c.img.DigestRef()
		cs.ContainerID = c.id
	}
	more := c.peek() // the waiting reason and the exits
	switch c.stage {
	case stageWaiting, stageCreating, stageStarting:
		if terminal && more.last != nil {
			running()
			cs.State.Terminated = more.last
			break
		}
		if terminal {
			cs.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: 137, Reason: reasonStatusUnknown, Message: msgStatusUnknown}
			break
		}
		if more.last != nil {
			cs.LastTerminationState.Terminated = more.last
			cs.ImageID = c.img.DigestRef()
		}
		if more.reason == "" {
			cs.State.Waiting = waitingCreating
		} else {
			cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: more.reason, Message: more.message}
		}
	case stageRunning, stageStopping:
		running()
		cs.Started, cs.Ready = boolPtr(c.started), c.containerReady()
		cs.State.Running = k.m.runningSince(c.proc.StartedAt())
		if more.last != nil {
			cs.LastTerminationState.Terminated = more.last
		}
	case stageExited:
		running()
		if more.reason == ReasonCrashLoopBackOff && !terminal {
			cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: more.reason, Message: more.message}
			cs.LastTerminationState.Terminated = more.last
			break
		}
		cs.State.Terminated = more.last // this exit (recordExit)
		if more.prevLast != nil {
			cs.LastTerminationState.Terminated = more.prevLast
		}
	}
	return cs
}

// sortContainerStatuses orders statuses by name, as the kubelet does
// (kubetypes.SortedContainerStatuses).
func sortContainerStatuses(s []corev1.ContainerStatus) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].Name < s[j-1].Name; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// podPhase is the kubelet's getPhase for pods without init containers.
func podPhase(pod *corev1.Pod, statuses []corev1.ContainerStatus, terminal bool) corev1.PodPhase {
	running, waiting, stopped, succeeded := 0, 0, 0, 0
	for _, cs := range statuses {
		switch {
		case cs.State.Running != nil:
			running++
		case cs.State.Terminated != nil:
			stopped++
			if cs.State.Terminated.ExitCode == 0 {
				succeeded++
			}
		case cs.LastTerminationState.Terminated != nil:
			stopped++ // waiting to restart: it has run before (getPhase)
		default:
			waiting++
		}
	}
	var phase corev1.PodPhase
	switch {
	case waiting > 0:
		phase = corev1.PodPending
	case running > 0:
		phase = corev1.PodRunning
	case stopped > 0:
		switch {
		case terminal && stopped == succeeded:
			phase = corev1.PodSucceeded
		case terminal:
			phase = corev1.PodFailed
		case pod.Spec.RestartPolicy == corev1.RestartPolicyAlways || pod.Spec.RestartPolicy == "":
			phase = corev1.PodRunning
		case stopped == succeeded:
			phase = corev1.PodSucceeded
		case pod.Spec.RestartPolicy == corev1.RestartPolicyNever:
			phase = corev1.PodFailed
		default:
			phase = corev1.PodRunning
		}
	default:
		phase = corev1.PodPending
	}
	if terminal && phase != corev1.PodSucceeded && phase != corev1.PodFailed {
		phase = corev1.PodFailed // TerminatePod: every terminated pod ends in a terminal phase
	}
	return phase
}

// containersReady is GenerateContainersReadyCondition; the Ready condition
// copies it (readiness gates are not simulated).
func (m *Manager) containersReady(pod *corev1.Pod, statuses []corev1.ContainerStatus, phase corev1.PodPhase) corev1.PodCondition {
	switch phase {
	case corev1.PodSucceeded:
		return corev1.PodCondition{Status: corev1.ConditionFalse, Reason: reasonPodCompleted}
	case corev1.PodFailed:
		return corev1.PodCondition{Status: corev1.ConditionFalse, Reason: reasonPodFailed}
	}
	var unready []string
	for _, c := range pod.Spec.Containers {
		for _, cs := range statuses {
			if cs.Name == c.Name && !cs.Ready {
				unready = append(unready, c.Name)
			}
		}
	}
	if len(unready) > 0 {
		return corev1.PodCondition{Status: corev1.ConditionFalse, Reason: reasonContainersNotReady,
			Message: m.unreadyMessage(unready)}
	}
	return corev1.PodCondition{Status: corev1.ConditionTrue}
}

// conditionByKubelet is kubetypes.PodConditionByKubelet.
func conditionByKubelet(t corev1.PodConditionType) bool {
	switch t {
	case corev1.PodScheduled, corev1.PodReady, corev1.PodInitialized, corev1.ContainersReady, corev1.PodReadyToStartContainers:
		return true
	}
	return false
}

func boolStatus(b bool) corev1.ConditionStatus {
	if b {
		return corev1.ConditionTrue
	}
	return corev1.ConditionFalse
}

// qosClass is v1qos.GetPodQOS, for pods whose status does not carry it yet.
func qosClass(pod *corev1.Pod) corev1.PodQOSClass {
	requests, limits := 0, 0
	guaranteed := true
	containers := append(append([]corev1.Container(nil), pod.Spec.InitContainers...), pod.Spec.Containers...)
	for _, c := range containers {
		for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			req, hasReq := c.Resources.Requests[r]
			lim, hasLim := c.Resources.Limits[r]
			if hasReq && !req.IsZero() {
				requests++
			}
			if hasLim && !lim.IsZero() {
				limits++
			}
			if !hasLim || (hasReq && req.Cmp(lim) != 0) {
				guaranteed = false
			}
		}
	}
	switch {
	case requests == 0 && limits == 0:
		return corev1.PodQOSBestEffort
	case guaranteed:
		return corev1.PodQOSGuaranteed
	default:
		return corev1.PodQOSBurstable
	}
}
