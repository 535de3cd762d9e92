package kubelet

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/workload"
)

// What the pods of one template have in common is made once per Manager
// and shared by every pod and node: the parsed image reference, what
// follows from a container's name and image alone (ctrShared), and the
// trace and event messages that name only an image or a container (or an
// image and a pull's timings, which pods queued alike on different nodes
// share). A Deployment's 150 replicas then keep one copy of "Started
// container web" between them, in the trace and in their Events, instead
// of 150; and status values that depend only on an instant (startTime, a
// running state) are shared by the pods that reach it together. Every
// value here is immutable once made.

// maxShared bounds each cache: names come from pod templates, so a real
// session stays far below it, and past it values are made afresh (the
// same strings, unshared).
const maxShared = 4096

// imageRef is a container's image reference, parsed once per image name.
type imageRef struct {
	ref workload.Reference
	err error
	// tagged is the normalised name the runtime reports once the container
	// runs (status.containerStatuses[].image): "docker.io/library/nginx:1.27".
	tagged string
	// key is the name the node's image store files it under (imageStore.key).
	key      string
	isDigest bool
	// defaultPolicy is the imagePullPolicy of a container that sets none
	// (workload.DefaultPullPolicy).
	defaultPolicy corev1.PullPolicy
	// The messages of the Pulled Event of an image already present and of
	// the Pulling Event.
	presentEvent, pullingEvent string
}

func (m *Manager) imageRef(image string) *imageRef {
	if r := m.refs[image]; r != nil {
		return r
	}
	r := &imageRef{}
	r.ref, r.err = workload.ParseReference(image)
	if r.err == nil {
		r.tagged = r.ref.Tagged().String()
		r.key, r.isDigest = storeKey(r.ref)
		r.defaultPolicy = workload.DefaultPullPolicy(image)
		r.presentEvent = fmt.Sprintf("Container image %q already present on machine", image)
		r.pullingEvent = fmt.Sprintf("Pulling image %q", image)
	}
	if len(m.refs) < maxShared {
		m.refs[image] = r
	}
	return r
}

// ctrShared is what every container of one name and image has in
// common: the parsed image, the fieldPath of its Events, the messages
// that name only the container, and its status while it waits for its
// first start. A container finds them through its ctr: a pod's start
// would otherwise look each one up by name, about ten map lookups a pod.
type ctrShared struct {
	image *imageRef
	// fieldPath is what a kubelet's Event about the container names as the
	// part of its pod it is about, "spec.containers{web}" (the kubelet
	// records with a reference to the container:
	// kubecontainer.GenerateContainerRef).
	fieldPath string
	// The trace messages and Event messages of its create and start, and
	// the Killing Event's.
	createdStep, createdEvent string
	startedStep, startedEvent string
	killingEvent              string
	// creating is its status list while it waits for its first start, for
	// a pod of no other container (shareCreating); made when first needed.
	creating []corev1.ContainerStatus
}

// ctrShared returns what the containers named name of image image share.
func (m *Manager) ctrShared(name, image string) *ctrShared {
	key := [2]string{name, image}
	if s := m.shared[key]; s != nil {
		return s
	}
	s := &ctrShared{image: m.imageRef(image), fieldPath: "spec.containers{" + name + "}",
		createdStep: "created container " + name, createdEvent: "Created container: " + name,
		startedStep: "started container " + name, startedEvent: "Started container " + name,
		killingEvent: "Stopping container " + name}
	if len(m.shared) < maxShared {
		m.shared[key] = s
	}
	return s
}

// msgKind is a message that depends on one or two names only.
type msgKind uint8

const (
	msgPresentStep msgKind = iota // image, pull policy
	msgUnready                    // container
	msgPullingStep                // image, pulls queued before it (msgN)
)

type msgKey struct {
	kind msgKind
	a, b string
	n    int
}

// msg returns the message of kind for names a (and b), shared.
func (m *Manager) msg(kind msgKind, a, b string) string {
	return m.message(msgKey{kind: kind, a: a, b: b})
}

// msgN returns the message of kind for name a and number n, shared.
func (m *Manager) msgN(kind msgKind, a string, n int) string {
	return m.message(msgKey{kind: kind, a: a, n: n})
}

func (m *Manager) message(key msgKey) string {
	kind, a, b := key.kind, key.a, key.b
	if s, ok := m.msgs[key]; ok {
		return s
	}
	var s string
	switch kind {
	case msgPresentStep:
		s = fmt.Sprintf("image %q is already on the node (imagePullPolicy %s)", a, b)
	case msgUnready:
		s = "containers with unready status: [" + a + "]"
	case msgPullingStep:
		s = fmt.Sprintf("pulling image %q", a)
		if key.n > 0 {
			s += fmt.Sprintf(" (queued behind %d other pull(s) on this node)", key.n)
		}
	default:
		panic(fmt.Sprintf("kubelet: unknown message kind %d", kind))
	}
	if len(m.msgs) < maxShared {
		m.msgs[key] = s
	}
	return s
}

// pulledKey is what the two messages of a finished pull say: the image,
// how long its pull took, how long since the pod asked for it, its size.
// Pods that queued for the same pull at the same time on different nodes
// get the same messages.
type pulledKey struct {
	image       string
	took, total sim.Tick
	size        int64
}

// pulled is a finished pull's trace message and Pulled Event message.
type pulled struct{ step, event string }

// pulledMessages returns the messages of a finished pull, shared.
func (m *Manager) pulledMessages(key pulledKey) pulled {
	if s, ok := m.pulled[key]; ok {
		return s
	}
	s := pulled{
		step: fmt.Sprintf("pulled image %q in %s (%s including waiting), %d bytes",
			key.image, key.took.Duration(), key.total.Duration(), key.size),
		event: fmt.Sprintf("Successfully pulled image %q in %s (%s including waiting). Image size: %d bytes.",
			key.image, key.took.Duration(), key.total.Duration(), key.size),
	}
	if len(m.pulled) < maxShared {
		m.pulled[key] = s
	}
	return s
}

// intern returns the shared copy of s: status summaries such as "status
// Pending (web: ContainerCreating)" repeat for every replica.
func (m *Manager) intern(s string) string {
	if t, ok := m.strs[s]; ok {
		return t
	}
	if len(m.strs) < maxShared {
		m.strs[s] = s
	}
	return s
}

// internBytes is intern for a message built in a scratch buffer: a
// message seen before costs nothing (the map lookup by string(b) does not
// copy b), a new one is copied out once.
func (m *Manager) internBytes(b []byte) string {
	if t, ok := m.strs[string(b)]; ok {
		return t
	}
	return m.intern(string(b))
}

// unreadyMessage is the Ready condition's message for the containers not
// ready: "containers with unready status: [web sidecar]", as fmt prints a
// []string.
func (m *Manager) unreadyMessage(names []string) string {
	if len(names) == 1 {
		return m.msg(msgUnready, names[0], "")
	}
	return "containers with unready status: [" + strings.Join(names, " ") + "]"
}

// recentConds is how many recent pod condition lists shareConditions
// keeps to compare with. With 5,000 nodes taking turns, a few dozen lists
// are in use at once (their times differ by the instant each pod was
// scheduled and reached each step): of 300,000 lists at 1000x150, 16
// recent ones miss 78,000 (each a new 640-byte list), 64 miss 1,300.
const recentConds = 64

// shareConditions returns a recent pod's condition list if it is the same
// as conds, else a copy of conds (a scratch list), which it remembers.
// Replicas of a template that reach a step at the same instant have the
// same conditions, times included (in a large rollout nearly all of them
// do), and the API server's objects are read-only, so one list serves
// them all. The newest list is compared first: it is the one found in
// more than half of the calls (100x150 and 1000x150 benchmarks).
//
// Each remembered list has its fingerprint (condsPrint) beside it, and a
// list is compared field by field only when the fingerprints agree: most
// of the 64 lists differ from conds in a transition time, which the
// fingerprints show without reading the lists. Equal lists always have
// equal fingerprints, so the list found is the one a full scan finds.
func (m *Manager) shareConditions(conds []corev1.PodCondition) []corev1.PodCondition {
	h := condsPrint(conds)
	for i := range recentConds {
		j := (m.condsNext - 1 - i + recentConds) % recentConds
		if r := m.conds[j]; m.condPrints[j] == h && slices.Equal(conds, r) {
			return r
		}
	}
	out := append(make([]corev1.PodCondition, 0, len(conds)), conds...)
	m.conds[m.condsNext], m.condPrints[m.condsNext] = out, h
	m.condsNext = (m.condsNext + 1) % recentConds
	return out
}

// condsPrint is a fingerprint of a condition list: its length and each
// condition's times, generation and the lengths of its strings, mixed.
// It reads no string's bytes; slices.Equal settles what it cannot.
func condsPrint(conds []corev1.PodCondition) uint64 {
	h := uint64(len(conds))
	for i := range conds {
		c := &conds[i]
		for _, t := range [...]*metav1.Time{&c.LastTransitionTime, &c.LastProbeTime} {
			h = h*1000003 ^ uint64(t.Unix())
			h = h*1000003 ^ uint64(t.Nanosecond())
		}
		h = h*1000003 ^ uint64(c.ObservedGeneration)
		h = h*1000003 ^ uint64(len(c.Type)) ^ uint64(len(c.Status))<<16 ^ uint64(len(c.Reason))<<32 ^ uint64(len(c.Message))<<48
	}
	return h
}

// shareCreating returns the container status list for s (a scratch
// list, the statuses of ctrs): the shared one of a pod whose one
// container is waiting for its first start (ContainerCreating), which
// depends only on the container's name and image, else a copy of s.
func shareCreating(s []corev1.ContainerStatus, ctrs []ctr) []corev1.ContainerStatus {
	out := func() []corev1.ContainerStatus { return append(make([]corev1.ContainerStatus, 0, len(s)), s...) }
	if len(s) != 1 {
		return out()
	}
	cs := &s[0]
	if cs.State.Waiting != waitingCreating || cs.RestartCount != 0 || cs.LastTerminationState.Terminated != nil ||
		cs.ImageID != "" || cs.ContainerID != "" || cs.Ready || cs.Started != &falseValue {
		return out()
	}
	shared := ctrs[0].shared
	if shared.creating == nil {
		shared.creating = out()
	}
	return shared.creating
}

// timeAt returns t as a *metav1.Time (status.startTime), shared with the
// last caller that asked for the same instant: the many pods taken on at
// one instant then hold one value, which the API treats as read-only.
func (m *Manager) timeAt(t sim.Tick) *metav1.Time {
	if m.lastTime == nil || m.lastTimeAt != t {
		mt := metav1.NewTime(t.Time())
		m.lastTime, m.lastTimeAt = &mt, t
	}
	return m.lastTime
}

// runningSince returns the running state of a container started at t,
// shared as timeAt's value is. It is asked for at every status of every
// running container, most of them unchanged and thrown away.
func (m *Manager) runningSince(t sim.Tick) *corev1.ContainerStateRunning {
	if m.lastRunning == nil || m.lastRunningAt != t {
		m.lastRunning = &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(t.Time())}
		m.lastRunningAt = t
	}
	return m.lastRunning
}

// Values every status shares: the API treats them as read-only, and a
// client that wants to change one deep-copies it first.
var (
	falseValue, trueValue = false, true

	waitingCreating = &corev1.ContainerStateWaiting{Reason: ReasonContainerCreating}
)

func boolPtr(b bool) *bool {
	if b {
		return &trueValue
	}
	return &falseValue
}
