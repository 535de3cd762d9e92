package scheduler

import (
	"container/heap"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/sim"
)

// Queue timings: kube-scheduler's defaults (KubeSchedulerConfiguration
// podInitialBackoffSeconds and podMaxBackoffSeconds;
// DefaultPodMaxInUnschedulablePodsDuration; the 30 s period of
// flushUnschedulablePodsLeftover).
const (
	DefaultPodInitialBackoff               = 1 * sim.Second
	DefaultPodMaxBackoff                   = 10 * sim.Second
	DefaultPodMaxInUnschedulablePodsPeriod = 5 * sim.Minute
	unschedulableFlushPeriod               = 30 * sim.Second
)

// Where a queued pod waits.
type queueLoc uint8

const (
	inActive        queueLoc = iota + 1 // activeQ: ready to be tried, by priority then arrival
	inBackoff                           // backoffQ: waiting out its backoff
	inUnschedulable                     // parked until a cluster event may help, or 5 minutes pass
	inGated                             // held by a PreEnqueue plugin (scheduling gates)
)

type queued struct {
	*framework.QueuedPodInfo
	loc   queueLoc
	inRun bool     // in the activeQ's run, not its heap (see activeQ)
	index int      // position in its heap, or in the activeQ's run
	until sim.Tick // backoff expiry, in the backoffQ
}

// schedulingQueue is kube's PriorityQueue: an activeQ ordered by the
// QueueSort plugin, a backoffQ ordered by backoff expiry, and the
// unschedulable pods, which cluster events (filtered by the plugins that
// rejected each pod and their queueing hints) move back.
//
// Two deliberate differences from kube, both for a readable, reproducible
// trace: a pod leaves the backoffQ exactly when its backoff ends (kube
// checks every second), and the 1.33+ "pop from backoffQ when activeQ is
// empty" shortcut is not modelled, so retries keep the classic 1, 2, 4, 8,
// 10 s rhythm.
type schedulingQueue struct {
	fw      *framework.Framework
	loop    *sim.Loop
	demands *framework.Demands // shared with the cache

	initialBackoff, maxBackoff, maxUnschedulable sim.Tick

	pods          map[types.UID]*queued
	active        activeQ
	backoff       podHeap
	unschedulable map[types.UID]*queued // and gated pods
	seq           uint64
	peak          int // the most pods queued at once since the tables were last made

	backoffTimer *sim.Timer
	flushTimer   *sim.Timer
}

func newSchedulingQueue(fw *framework.Framework, loop *sim.Loop, demands *framework.Demands, initial, maxBackoff, maxUnsched sim.Tick) *schedulingQueue {
	q := &schedulingQueue{fw: fw, loop: loop, demands: demands, initialBackoff: initial, maxBackoff: maxBackoff, maxUnschedulable: maxUnsched,
		pods: map[types.UID]*queued{}, unschedulable: map[types.UID]*queued{}}
	q.active.heap.less = func(a, b *queued) bool { return fw.Less(a.QueuedPodInfo, b.QueuedPodInfo) }
	q.backoff.less = func(a, b *queued) bool {
		if a.until != b.until {
			return a.until < b.until
		}
		return a.Seq < b.Seq
	}
	return q
}

// Len counts the queued pods (for tests and status).
func (q *schedulingQueue) Len() int { return len(q.pods) }

// Counts reports how many pods wait where: active, backoff, unschedulable
// (gated included).
func (q *schedulingQueue) Counts() (active, backoff, unschedulable int) {
	return q.active.len(), len(q.backoff.items), len(q.unschedulable)
}

// Add queues a new pod, or updates a known one.
func (q *schedulingQueue) Add(pod *corev1.Pod, cause uint64) {
	if e := q.pods[pod.UID]; e != nil {
		q.Update(e.Pod, pod, cause)
		return
	}
	q.seq++
	// The entry, its QueuedPodInfo and its PodInfo in one allocation:
	// every new pod comes here.
	x := &struct {
		queued
		qpi framework.QueuedPodInfo
		pi  framework.PodInfo
	}{}
	q.demands.Update(&x.pi, pod)
	x.qpi = framework.QueuedPodInfo{PodInfo: &x.pi, Timestamp: q.loop.Now(), Cause: cause, Seq: q.seq}
	e := &x.queued
	e.QueuedPodInfo = &x.qpi
	q.pods[pod.UID] = e
	q.peak = max(q.peak, len(q.pods))
	q.toActiveOrGated(e)
}

func (q *schedulingQueue) toActiveOrGated(e *queued) {
	if st := q.fw.RunPreEnqueuePlugins(e.PodInfo); !st.IsSuccess() {
		e.Gated = true
		e.loc = inGated
		q.unschedulable[e.Pod.UID] = e
		return
	}
	e.Gated = false
	e.loc = inActive
	q.active.push(e)
}

// Update records a new version of a queued pod. A parked pod whose spec or
// labels changed is retried if the plugins that rejected it say the change
// may help; a gated pod whose gates are gone goes to the activeQ.
func (q *schedulingQueue) Update(old, pod *corev1.Pod, cause uint64) {
	e := q.pods[pod.UID]
	if e == nil {
		q.Add(pod, cause)
		return
	}
	q.demands.Update(e.PodInfo, pod)
	switch e.loc {
	case inGated:
		if q.fw.RunPreEnqueuePlugins(e.PodInfo).IsSuccess() {
			delete(q.unschedulable, pod.UID)
			e.Cause = cause
			q.toActiveOrGated(e)
		}
	case inUnschedulable:
		action := podUpdateAction(old, pod)
		if action == 0 {
			return // status or metadata only: nothing that scheduling reads
		}
		ev := framework.ClusterEvent{Resource: framework.UnscheduledPod, ActionType: action}
		if q.fw.Hint(e.UnschedulablePlugins, e.QueuedPodInfo, ev, old, pod) == framework.Queue {
			q.move(e, cause)
			q.armBackoffTimer()
		}
	}
}

// podUpdateAction says what changed in an unscheduled pod, in the terms the
// plugins register for; 0 when only status or bookkeeping changed.
func podUpdateAction(old, pod *corev1.Pod) framework.ActionType {
	var a framework.ActionType
	if !kinds.SameLabels(old.Labels, pod.Labels) {
		a |= framework.UpdatePodLabel
	}
	if !equality.Semantic.DeepEqual(old.Spec.Tolerations, pod.Spec.Tolerations) {
		a |= framework.UpdatePodToleration
	}
	if len(old.Spec.SchedulingGates) > 0 && len(pod.Spec.SchedulingGates) == 0 {
		a |= framework.UpdatePodSchedulingGatesEliminated
	}
	if a == 0 && !equality.Semantic.DeepEqual(old.Spec, pod.Spec) {
		a = framework.Update &^ (framework.UpdateNodeAllocatable | framework.UpdateNodeLabel | framework.UpdateNodeTaint |
			framework.UpdateNodeCondition | framework.UpdateNodeAnnotation)
	}
	return a
}

// Delete drops a pod from the queue, wherever it waits.
func (q *schedulingQueue) Delete(uid types.UID) {
	e := q.pods[uid]
	if e == nil {
		return
	}
	delete(q.pods, uid)
	switch e.loc {
	case inActive:
		q.active.remove(e)
	case inBackoff:
		heap.Remove(&q.backoff, e.index)
		q.armBackoffTimer()
	case inUnschedulable, inGated:
		delete(q.unschedulable, uid)
	}
	q.shrinkIfEmpty()
}

// Has reports whether a pod is queued.
func (q *schedulingQueue) Has(uid types.UID) bool { return q.pods[uid] != nil }

// Pop takes the next pod to try from the activeQ (nil if none) and counts
// the attempt. The pod is out of the queue until the attempt's outcome puts
// it back.
func (q *schedulingQueue) Pop() *framework.QueuedPodInfo {
	if q.active.len() == 0 {
		return nil
	}
	e := q.active.pop()
	delete(q.pods, e.Pod.UID)
	q.shrinkIfEmpty()
	e.Attempts++
	if e.Attempts == 1 {
		e.InitialAttemptTimestamp = q.loop.Now()
	}
	return e.QueuedPodInfo
}

// shrinkPeak is the queue length past which an emptied queue makes its
// tables anew.
const shrinkPeak = 1024

// shrinkIfEmpty makes the queue's tables anew once it is empty after
// holding more than shrinkPeak pods: Go maps and slices keep the size of
// their peak, and a burst of 150,000 new pods would otherwise keep
// megabytes for as long as the scheduler lives. Every pod waiting is in
// pods, so an empty pods means empty heaps and no parked pod.
func (q *schedulingQueue) shrinkIfEmpty() {
	if len(q.pods) > 0 || q.peak <= shrinkPeak {
		return
	}
	q.pods, q.unschedulable = map[types.UID]*queued{}, map[types.UID]*queued{}
	q.active.drop()
	q.backoff.items = nil
	q.peak = 0
}

// AddUnschedulable puts back a pod whose attempt failed. A pod some plugin
// rejected is parked until an event those plugins care about; a pod no
// plugin rejected (no nodes at all, an error) is retried after its backoff,
// as kube's queueAfterBackoff does.
func (q *schedulingQueue) AddUnschedulable(qp *framework.QueuedPodInfo) {
	qp.Timestamp = q.loop.Now()
	e := &queued{QueuedPodInfo: qp}
	q.pods[qp.Pod.UID] = e
	q.peak = max(q.peak, len(q.pods))
	if qp.UnschedulablePlugins == 0 {
		q.toBackoff(e)
		return
	}
	e.loc = inUnschedulable
	q.unschedulable[qp.Pod.UID] = e
	q.armFlushTimer()
}

// BackoffDuration is the backoff after a pod's attempts: the initial backoff
// doubled for every attempt after the first, capped at the maximum (1 s, 2
// s, 4 s, 8 s, 10 s, 10 s, ...); 0 before any attempt.
func BackoffDuration(attempts int, initial, maxBackoff sim.Tick) sim.Tick {
	if attempts == 0 {
		return 0
	}
	d := initial
	for i := 1; i < attempts; i++ {
		if d > maxBackoff-d {
			return maxBackoff
		}
		d += d
	}
	return min(d, maxBackoff)
}

func (q *schedulingQueue) backoffExpiry(e *queued) sim.Tick {
	return e.Timestamp + BackoffDuration(e.Attempts, q.initialBackoff, q.maxBackoff)
}

func (q *schedulingQueue) toBackoff(e *queued) {
	q.toBackoffNoArm(e)
	q.armBackoffTimer()
}

// toBackoffNoArm queues the pod without re-arming the backoff timer: a
// batch of moves arms it once at the end, so that the timers set (and the
// loop's sequence numbers) do not depend on the order a map was visited in.
func (q *schedulingQueue) toBackoffNoArm(e *queued) {
	e.until = q.backoffExpiry(e)
	if e.until <= q.loop.Now() {
		e.loc = inActive
		q.active.push(e)
		return
	}
	e.loc = inBackoff
	heap.Push(&q.backoff, e)
}

// move takes a parked pod back: to the backoffQ if it is still backing
// off, else to the activeQ. The caller arms the backoff timer.
func (q *schedulingQueue) move(e *queued, cause uint64) {
	delete(q.unschedulable, e.Pod.UID)
	e.Cause = cause
	q.toBackoffNoArm(e)
}

// OnEvent moves the parked pods that an event may help: those rejected by a
// plugin registered for it whose hint says Queue.
func (q *schedulingQueue) OnEvent(ev framework.ClusterEvent, oldObj, newObj any, cause uint64) int {
	if len(q.unschedulable) == 0 {
		return 0
	}
	interest := q.fw.EventInterest(ev)
	if interest == 0 {
		return 0
	}
	moved := 0
	// The heaps' total orders make the visiting order irrelevant to what
	// is popped when; the timer is armed once, after the loop.
	for _, e := range q.unschedulable {
		if e.loc != inUnschedulable || e.UnschedulablePlugins&interest == 0 {
			continue
		}
		if q.fw.Hint(e.UnschedulablePlugins&interest, e.QueuedPodInfo, ev, oldObj, newObj) == framework.Queue {
			q.move(e, cause)
			moved++
		}
	}
	if moved > 0 {
		q.armBackoffTimer()
	}
	return moved
}

func (q *schedulingQueue) armBackoffTimer() {
	if len(q.backoff.items) == 0 {
		q.loop.Cancel(q.backoffTimer)
		q.backoffTimer = nil
		return
	}
	next := q.backoff.items[0].until
	if q.backoffTimer.Pending() && q.backoffTimer.At() == next {
		return
	}
	q.loop.Cancel(q.backoffTimer)
	q.backoffTimer = q.loop.At(next, "scheduler: backoff ends", q.flushBackoffCompleted)
}

func (q *schedulingQueue) flushBackoffCompleted() {
	now := q.loop.Now()
	for len(q.backoff.items) > 0 && q.backoff.items[0].until <= now {
		e := heap.Pop(&q.backoff).(*queued)
		e.loc = inActive
		q.active.push(e)
	}
	q.backoffTimer = nil
	q.armBackoffTimer()
}

// armFlushTimer runs flushUnschedulableLeftover every 30 s, on the 30 s
// marks of virtual time, while pods are parked.
func (q *schedulingQueue) armFlushTimer() {
	if q.flushTimer.Pending() {
		return
	}
	now := q.loop.Now()
	next := (now/unschedulableFlushPeriod + 1) * unschedulableFlushPeriod
	q.flushTimer = q.loop.At(next, "scheduler: flush unschedulable pods", q.flushUnschedulableLeftover)
}

// flushUnschedulableLeftover gives every pod parked for longer than 5
// minutes another try, event or not.
func (q *schedulingQueue) flushUnschedulableLeftover() {
	q.flushTimer = nil
	now := q.loop.Now()
	parked := 0
	for _, e := range q.unschedulable {
		if e.loc != inUnschedulable {
			continue
		}
		if now-e.Timestamp > q.maxUnschedulable {
			q.move(e, e.Cause)
			continue
		}
		parked++
	}
	q.armBackoffTimer()
	if parked > 0 {
		q.armFlushTimer()
	}
}

// activeQ is kube's activeQ: the pods ready to be tried, taken in the
// QueueSort plugin's order. That order is total (PrioritySort breaks ties
// by the queue's arrival sequence), so which pod comes out next depends
// only on the pods, never on how they are kept.
//
// Most pods arrive in that order: a new pod of equal priority comes after
// every pod queued before it. Each of those goes to the end of a FIFO run
// (the run stays in order), and only a pod that comes before the run's
// last (a retry, with its older timestamp; a higher priority) goes to the
// heap. The next pod is the earlier of the run's first and the heap's
// top. A rollout of 150,000 pods queues tens of thousands at once; in the
// heap alone, every pop would sift through some fifteen levels of cold
// entries, two compared at each (1000x150: 0.2 s of the scheduler's 5).
type activeQ struct {
	heap podHeap
	// run[head:] are the run's pods in order, with nil where a pod was
	// removed; run[len(run)-1] is never nil. A pod in the run has inRun
	// set and its position in run as index.
	run  []*queued
	head int
	live int // the pods in the run
}

// runCompactAt is how far the run's head may move before the run is
// copied to the start of its array (once it is past half of it too).
const runCompactAt = 1024

func (a *activeQ) len() int { return len(a.heap.items) + a.live }

func (a *activeQ) push(e *queued) {
	if a.live > 0 && a.heap.less(e, a.run[len(a.run)-1]) {
		heap.Push(&a.heap, e)
		return
	}
	e.inRun, e.index = true, len(a.run)
	a.run = append(a.run, e)
	a.live++
}

// pop takes the next pod; the queue must not be empty.
func (a *activeQ) pop() *queued {
	if a.live == 0 || len(a.heap.items) > 0 && a.heap.less(a.heap.items[0], a.run[a.head]) {
		return heap.Pop(&a.heap).(*queued)
	}
	e := a.run[a.head]
	a.run[a.head] = nil
	a.head++
	a.live--
	e.inRun, e.index = false, -1
	a.tidy()
	return e
}

func (a *activeQ) remove(e *queued) {
	if !e.inRun {
		heap.Remove(&a.heap, e.index)
		return
	}
	a.run[e.index] = nil
	a.live--
	e.inRun, e.index = false, -1
	a.tidy()
}

// tidy restores the run's invariants after a pod left it: no nil at
// either end, and an emptied run starts over at the start of its array.
// It moves the pods to the start once the head is past half the run.
func (a *activeQ) tidy() {
	if a.live == 0 {
		clear(a.run[a.head:])
		a.run, a.head = a.run[:0], 0
		return
	}
	for a.run[a.head] == nil {
		a.head++
	}
	n := len(a.run)
	for a.run[n-1] == nil {
		n--
	}
	a.run = a.run[:n]
	if a.head >= runCompactAt && 2*a.head >= n {
		m := copy(a.run, a.run[a.head:])
		clear(a.run[m:])
		a.run, a.head = a.run[:m], 0
		for i, e := range a.run {
			if e != nil {
				e.index = i
			}
		}
	}
}

// drop forgets the queue's arrays; it must be empty.
func (a *activeQ) drop() {
	a.heap.items, a.run, a.head = nil, nil, 0
}

// podHeap is a binary heap of queued pods that knows each pod's position,
// so that a deleted pod can be removed from the middle.
type podHeap struct {
	items []*queued
	less  func(a, b *queued) bool
}

func (h *podHeap) Len() int           { return len(h.items) }
func (h *podHeap) Less(i, j int) bool { return h.less(h.items[i], h.items[j]) }
func (h *podHeap) Swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.items[i].index = i
	h.items[j].index = j
}
func (h *podHeap) Push(x any) {
	e := x.(*queued)
	e.index = len(h.items)
	h.items = append(h.items, e)
}
func (h *podHeap) Pop() any {
	n := len(h.items)
	e := h.items[n-1]
	h.items[n-1] = nil
	h.items = h.items[:n-1]
	e.index = -1
	return e
}
