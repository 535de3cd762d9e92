package scheduler

import (
	"errors"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/scheduler/plugins/defaultpreemption"
	"github.com/kubeloop/kubeloop/engine/trace"
)

// percentageOfNodesToScore bounds (k/k schedule_one.go).
const (
	minFeasibleNodesToFind           = 100
	minFeasibleNodesPercentageToFind = 5
)

// NoteLengthLimit is the longest Event message kube-scheduler records
// (validation.NoteLengthLimit); longer ones are cut and end in " ...".
const NoteLengthLimit = 1024

// ErrNoNodesAvailable is the failure when the cluster has no nodes.
var ErrNoNodesAvailable = errors.New("no nodes available to schedule pods")

// NumFeasibleNodesToFind is how many feasible nodes the filter scan looks
// for before it stops (kube's numFeasibleNodesToFind): all nodes below 100;
// otherwise percentage% of them (adaptive when 0: 50 − nodes/125, at least
// 5%), but at least 100. It also returns the percentage used (0 when every
// node is checked).
func NumFeasibleNodesToFind(percentage int32, numAllNodes int) (int, int32) {
	if numAllNodes < minFeasibleNodesToFind {
		return numAllNodes, 0
	}
	if percentage == 0 {
		percentage = int32(50 - numAllNodes/125)
		if percentage < minFeasibleNodesPercentageToFind {
			percentage = minFeasibleNodesPercentageToFind
		}
	}
	n := numAllNodes * int(percentage) / 100
	if n < minFeasibleNodesToFind {
		return minFeasibleNodesToFind, percentage
	}
	return n, percentage
}

// cycleScratch is reused by every attempt so that a cycle allocates
// nothing per node.
type cycleScratch struct {
	state      *framework.CycleState
	statuses   *framework.NodeToStatus
	candidates []*framework.NodeInfo
	feasible   []*framework.NodeInfo
	scores     framework.Scores
	attempt    attempt
	msg        []byte // a trace message being built
}

// attempt is one scheduling cycle's outcome.
type attempt struct {
	decision Decision
	node     string
	err      error // *framework.FitError, ErrNoNodesAvailable, or an internal error
	diag     framework.Diagnosis
	// preemption is what DefaultPreemption decided (nil if it did not run).
	preemption *defaultpreemption.Result
}

// schedulePod runs one scheduling cycle for a pod over the cache: PreFilter,
// Filter (until enough feasible nodes), PostFilter on failure, PreScore,
// Score, and the pick among the top totals. It writes no API object.
func (s *Scheduler) schedulePod(qp *framework.QueuedPodInfo) *attempt {
	sc := &s.scratch
	state := sc.state
	state.Reset()
	sc.statuses.Reset()
	pi := qp.PodInfo
	nodes := s.cache.NodeInfos()
	s.explain.numberNodes(nodes)
	state.NumAllNodes = len(nodes)
	state.Images = s.cache
	state.Cluster = s.lister
	a := &sc.attempt
	*a = attempt{}
	d := &a.decision
	// An attempt that scores no node (it failed, or took its only or its
	// nominated node) keeps no scores, from where the score rings are now:
	// a position of 0 would read as overwritten once the rings wrap.
	*d = Decision{Attempt: qp.Attempts, Time: s.env.Loop.Now(), AllNodes: len(nodes), prof: s.prof,
		pos: s.explain.head, scorePos: s.explain.scoreHead}
	a.diag.NodeToStatus = sc.statuses
	defer func() {
		d.skipFilter, d.skipScore = state.SkipFilterPlugins, state.SkipScorePlugins
		d.n = int(s.explain.head - d.pos)
	}()

	if len(nodes) == 0 {
		a.err = ErrNoNodesAvailable
		return a
	}

	preRes, st, preFilterPlugins := s.fw.RunPreFilterPlugins(state, pi)
	a.diag.UnschedulablePlugins = preFilterPlugins
	if !st.IsSuccess() {
		if !st.IsRejected() {
			a.err = st.AsError()
			return a
		}
		a.diag.NodeToStatus.SetAbsentNodesStatus(st)
		a.diag.PreFilterMsg = st.Message()
		a.err = s.fitError(state, pi, nodes, &a.diag)
		return a
	}
	if pi.Pod.Status.NominatedNodeName != "" {
		// Preemption made room there for this pod: try it first.
		if ni := s.evaluateNominatedNode(state, pi, preRes); ni != nil {
			a.node = ni.Name()
			d.Node, d.Nominated, d.Candidates, d.Evaluated, d.Feasible = a.node, true, len(nodes), 1, 1
			return a
		}
	}
	candidates := nodes
	if !preRes.AllNodes() {
		sc.candidates = sc.candidates[:0]
		for _, n := range nodes {
			if _, ok := preRes.NodeNames[n.Name()]; ok {
				sc.candidates = append(sc.candidates, n)
			}
		}
		candidates = sc.candidates
		a.diag.NodeToStatus.SetAbsentNodesStatus(framework.NewStatus(framework.UnschedulableAndUnresolvable,
			fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", s.fw.PluginNames(preFilterPlugins))))
	}
	d.Candidates = len(candidates)

	toFind, pct := NumFeasibleNodesToFind(s.cfg.PercentageOfNodesToScore, len(candidates))
	if !s.fw.HasScorePlugins() {
		toFind = 1
	}
	d.ToFind, d.Percentage = toFind, pct
	feasible := s.findNodesThatPassFilters(state, pi, candidates, toFind, &a.diag)
	processed := len(feasible) + a.diag.NodeToStatus.Len()
	d.Start = s.nextStartNodeIndex % max(len(candidates), 1)
	s.nextStartNodeIndex = (s.nextStartNodeIndex + processed) % len(nodes)
	d.Evaluated, d.Feasible = processed, len(feasible)

	if len(feasible) == 0 {
		a.err = s.fitError(state, pi, nodes, &a.diag)
		return a
	}
	if len(feasible) == 1 {
		a.node = feasible[0].Name()
		d.Node, d.nodeNum = a.node, s.explain.listedNumber(feasible[0])
		return a
	}
	if st := s.fw.RunPreScorePlugins(state, pi, feasible); !st.IsSuccess() {
		a.err = st.AsError()
		return a
	}
	if st := s.fw.RunScorePlugins(state, pi, feasible, &sc.scores); !st.IsSuccess() {
		a.err = st.AsError()
		return a
	}
	d.Scored = len(feasible)
	s.recordScores(d)
	best, ties := s.selectHost(feasible, sc.scores.Totals)
	a.node = feasible[best].Name()
	d.Node, d.nodeNum, d.Score, d.Ties = a.node, s.explain.listedNumber(feasible[best]), sc.scores.Totals[best], ties
	return a
}

// findNodesThatPassFilters scans the nodes from the rotating start index and
// stops once toFind feasible nodes are found (kube's
// findNodesThatPassFilters, sequential). Every evaluated node leaves a
// record in the explanation ring; rejected ones also go to the diagnosis.
func (s *Scheduler) findNodesThatPassFilters(state *framework.CycleState, pi *framework.PodInfo, nodes []*framework.NodeInfo,
	toFind int, diag *framework.Diagnosis) []*framework.NodeInfo {
	sc := &s.scratch
	feasible := sc.feasible[:0]
	n := len(nodes)
	j := s.nextStartNodeIndex % n // nodes[j] is the (i+1)-th from the start
	filterPos := &s.prof.filterPos
	// Without nominated pods anywhere (the common case) no node needs
	// runFilters' extra pass: the scan calls the framework directly.
	nominated := len(s.nominated.byNode) > 0
	log := s.explain.startLog()
	for i := 0; i < n && len(feasible) < toFind; i, j = i+1, j+1 {
		if j == n {
			j = 0
		}
		ni := nodes[j]
		var st *framework.Status
		var idx int
		if nominated {
			st, idx = s.runFilters(state, pi, ni)
		} else {
			st, idx = s.fw.RunFilterPlugins(state, pi, ni)
		}
		if st == nil {
			log.passed(ni)
			feasible = append(feasible, ni)
			continue
		}
		log.rejected(ni, filterPos[idx], st)
		diag.NodeToStatus.Set(ni, st)
		if st.IsRejected() {
			diag.UnschedulablePlugins = diag.UnschedulablePlugins.With(idx)
		}
	}
	s.explain.endLog(&log)
	sc.feasible = feasible
	return feasible
}

func (s *Scheduler) recordScores(d *Decision) {
	sc := &s.scratch
	d.scorePos = s.explain.scoreHead
	skip := sc.state.SkipScorePlugins
	for p, e := range s.prof.scorers {
		if !skip.Has(e.Index) { // a skipped plugin's scores are all 0: not stored
			s.explain.putScores(sc.scores.Raw[p], sc.scores.Normalized[p])
		}
	}
	d.nScores = int(s.explain.scoreHead - d.scorePos)
}

func clamp32(v int64) int32 {
	const lim = 1<<31 - 1
	if v > lim {
		return lim
	}
	if v < -lim {
		return -lim
	}
	return int32(v)
}

// selectHost picks the node with the highest total, breaking ties
// uniformly by reservoir sampling as kube's selectHost does (1/k chance to
// replace the pick at the k-th tie), but with the scheduler's seeded
// source. It returns the pick's index and the number of nodes tied at the
// top.
func (s *Scheduler) selectHost(nodes []*framework.NodeInfo, totals []int64) (int, int) {
	best, ties := 0, 1
	for i := 1; i < len(nodes); i++ {
		switch {
		case totals[i] > totals[best]:
			best, ties = i, 1
		case totals[i] == totals[best]:
			ties++
			if s.env.Rand.Intn(ties) == 0 {
				best = i
			}
		}
	}
	return best, ties
}

// fitError runs PostFilter (preemption) and returns the FitError.
func (s *Scheduler) fitError(state *framework.CycleState, pi *framework.PodInfo, nodes []*framework.NodeInfo, diag *framework.Diagnosis) error {
	st := s.fw.RunPostFilterPlugins(state, pi, nodes, diag.NodeToStatus)
	diag.PostFilterMsg = st.Message()
	return &framework.FitError{NumAllNodes: len(nodes), Diagnosis: *diag}
}

// scheduleOne is one attempt, end to end: run the cycle, then bind (and
// report Scheduled) or report the failure and put the pod back.
func (s *Scheduler) scheduleOne(qp *framework.QueuedPodInfo) {
	s.nominated.counted = s.nominated.counted[:0]
	a := s.schedulePod(qp)
	if a.err != nil {
		a.decision.Message = a.err.Error()
		s.notePreemption(a)
	}
	s.explain.add(qp.Pod, a.decision)
	if a.err != nil {
		s.preempt(qp, a)
		s.handleFailure(qp, a)
		return
	}
	s.bind(qp, a)
}

func (s *Scheduler) record(e trace.Event) uint64 {
	e.Component, e.Lane, e.Column = Component, trace.ControlPlane, trace.Schedule
	return s.env.Trace.Record(e)
}

func (s *Scheduler) bind(qp *framework.QueuedPodInfo, a *attempt) {
	pod := qp.Pod
	d := &a.decision
	why := "The scheduler runs every filter plugin on a node to see if it can run the pod, then scores the feasible nodes to pick the best."
	if d.Nominated {
		why = nominatedWhy
	}
	// Every bound pod writes two trace messages that name the pod's object
	// ("pod/<name>"). They are built one after the other in the
	// scheduler's scratch buffer and copied into one string, which the
	// object and both messages are slices of: one allocation where three
	// strings would take three (a fourth, the object, is the middle of
	// the second message). The trace keeps the two events side by side
	// and drops them together, so the shared string outlives neither.
	msg := appendStrings(s.scratch.msg[:0], "Scheduling pod ", pod.Namespace, "/", pod.Name, ": ")
	msg = appendScopeSummary(msg, d)
	n1 := len(msg)
	msg = appendStrings(msg, "Bound pod/", pod.Name, " to ", a.node, " (")
	msg = append(d.appendRank(msg), ')')
	s.scratch.msg = msg
	msgs := string(msg)
	scheduling, bindMsg := msgs[:n1], msgs[n1:]
	obj := bindMsg[len("Bound ") : len("Bound pod/")+len(pod.Name)]
	seq := s.record(trace.Event{Namespace: pod.Namespace, Object: obj, Cause: qp.Cause, Message: scheduling, Why: why})
	bound := s.record(trace.Event{Namespace: pod.Namespace, Object: obj, Cause: seq, Message: bindMsg,
		Why: s.bindWhy(d.nodeNum, a.node)})
	actor := apiserver.Actor{Component: Component, Cause: bound}
	upd, err := s.env.API.Bind(actor, pod.Namespace, pod.Name, a.node)
	if err != nil {
		s.handleBindError(qp, err, bound)
		return
	}
	// About the pod the scheduler assumed bound: its cached copy, at the
	// resourceVersion before the binding.
	s.events.eventf(bound, pod, nil, corev1.EventTypeNormal, "Scheduled", "Binding",
		"Successfully assigned "+pod.Namespace+"/"+pod.Name+" to "+a.node, false)
	s.setRev(bound, upd)
}

// setRev points a trace event back at the write it is about: recording the
// Event object after it moved the event's revision to the Event's.
func (s *Scheduler) setRev(seq uint64, obj kinds.Object) {
	if rv, err := strconv.ParseInt(obj.GetResourceVersion(), 10, 64); err == nil {
		s.env.Trace.SetRev(seq, rv)
	}
}

// bindWhy is the Why of a bind to node, whose number (see
// explainStore.nodeNames) is num, or 0 if not known. It names the node, so
// it is made once per node and shared by the binds to it, kept by number:
// a slice read, where a map by name would hash the name on every bind.
// Numbers are never reused, so a node deleted and added again keeps its
// sentence, which is the same.
func (s *Scheduler) bindWhy(num int32, node string) string {
	if num == 0 {
		num = s.explain.nodeNumber(node)
	}
	if int(num) >= len(s.bindWhys) {
		s.bindWhys = append(s.bindWhys, make([]string, int(num)+1-len(s.bindWhys))...)
	}
	why := s.bindWhys[num]
	if why == "" {
		why = "Binding only records the decision (spec.nodeName) in the API server; the kubelet on " + node +
			" watches for pods bound to it and starts them."
		s.bindWhys[num] = why
	}
	return why
}

func appendStrings(b []byte, ss ...string) []byte {
	for _, s := range ss {
		b = append(b, s...)
	}
	return b
}

// appendScopeSummary appends to b how many nodes the attempt looked at.
func appendScopeSummary(b []byte, d *Decision) []byte {
	if d.Nominated {
		b = append(b, "its nominated node "...)
		b = append(b, d.Node...)
		return append(b, " checked first and feasible, taken without looking at the others"...)
	}
	if d.Evaluated < d.AllNodes {
		b = strconv.AppendInt(b, int64(d.Evaluated), 10)
		b = append(b, " of "...)
		b = strconv.AppendInt(b, int64(d.AllNodes), 10)
		b = append(b, " nodes evaluated (percentageOfNodesToScore "...)
		b = strconv.AppendInt(b, int64(d.Percentage), 10)
		b = append(b, "%), "...)
	}
	if d.Feasible == 1 {
		return append(b, "1 node feasible, taken without scoring"...)
	}
	b = strconv.AppendInt(b, int64(d.Feasible), 10)
	b = append(b, " nodes feasible, "...)
	b = strconv.AppendInt(b, int64(d.Scored), 10)
	return append(b, " scored"...)
}

func (s *Scheduler) handleBindError(qp *framework.QueuedPodInfo, err error, cause uint64) {
	pod := qp.Pod
	if apierrors.IsNotFound(err) {
		if _, ok := s.env.Store.Lookup(kinds.Pod, pod.Namespace, pod.Name); !ok {
			return // the pod is gone; nothing to retry
		}
	}
	if cur, ok := s.env.Store.Lookup(kinds.Pod, pod.Namespace, pod.Name); ok && cur.(*corev1.Pod).Spec.NodeName != "" {
		return // someone else bound it
	}
	a := &attempt{err: err}
	s.reportFailure(qp, a, corev1.PodReasonSchedulerError, cause)
	qp.UnschedulablePlugins = 0
	s.queue.AddUnschedulable(qp)
}

// handleFailure reports a failed attempt and puts the pod back in the queue.
func (s *Scheduler) handleFailure(qp *framework.QueuedPodInfo, a *attempt) {
	reason := corev1.PodReasonSchedulerError
	var fe *framework.FitError
	switch {
	case errors.As(a.err, &fe):
		reason = corev1.PodReasonUnschedulable
		qp.UnschedulablePlugins = fe.Diagnosis.UnschedulablePlugins
	case errors.Is(a.err, ErrNoNodesAvailable):
		reason = corev1.PodReasonUnschedulable
		qp.UnschedulablePlugins = 0
	default:
		qp.UnschedulablePlugins = 0
	}
	s.reportFailure(qp, a, reason, qp.Cause)
	s.queue.AddUnschedulable(qp)
}

// reportFailure writes what kube's handleSchedulingFailure writes: a
// Warning FailedScheduling event (message cut to 1024 bytes), aggregated
// with identical ones, and the condition PodScheduled=False with the full
// message.
func (s *Scheduler) reportFailure(qp *framework.QueuedPodInfo, a *attempt, reason string, cause uint64) {
	pod := qp.Pod
	msg := a.err.Error()
	eventMsg := TruncateMessage(msg)
	why := "No node passed every filter, so the pod stays Pending; the scheduler retries it when the cluster changes in a way that could help, or after 5 minutes at the latest."
	if errors.Is(a.err, ErrNoNodesAvailable) {
		why = "With no nodes at all there is nowhere to run the pod; the scheduler retries it with backoff (1 s doubling to 10 s)."
	} else if reason == corev1.PodReasonSchedulerError {
		why = "The attempt failed for a reason other than the pod not fitting; the scheduler retries it after a backoff."
	}
	if w := failureWhy(a); w != "" {
		why = w
	}
	seq := s.record(trace.Event{Namespace: pod.Namespace, Object: "pod/" + pod.Name, Cause: cause,
		Message: "FailedScheduling: " + eventMsg, Why: why})
	actor := apiserver.Actor{Component: Component, Cause: seq}
	cur, ok := s.env.Store.Lookup(kinds.Pod, pod.Namespace, pod.Name)
	if !ok {
		return
	}
	s.events.eventf(seq, cur, nil, corev1.EventTypeWarning, "FailedScheduling", "Scheduling", eventMsg, true)
	p := cur.(*corev1.Pod)
	cond := corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: reason, Message: msg,
		LastTransitionTime: metav1.NewTime(s.env.Loop.Now().Time())}
	status, changed := withPodCondition(p.Status, cond)
	if nn, override := a.nominating(); override && status.NominatedNodeName != nn {
		status.NominatedNodeName, changed = nn, true
	}
	if !changed {
		return
	}
	upd := p.DeepCopy()
	upd.Status = status
	if res, err := s.env.API.UpdateStatus(actor, upd); err == nil {
		s.setRev(seq, res)
	}
}

// withPodCondition is podutil.UpdatePodCondition: the transition time moves
// only when the status does; it reports whether anything changed.
func withPodCondition(st corev1.PodStatus, c corev1.PodCondition) (corev1.PodStatus, bool) {
	for i, old := range st.Conditions {
		if old.Type != c.Type {
			continue
		}
		if old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
		}
		if old.Status == c.Status && old.Reason == c.Reason && old.Message == c.Message &&
			old.LastProbeTime.Equal(&c.LastProbeTime) {
			return st, false
		}
		conds := append([]corev1.PodCondition(nil), st.Conditions...)
		conds[i] = c
		st.Conditions = conds
		return st, true
	}
	st.Conditions = append(append([]corev1.PodCondition(nil), st.Conditions...), c)
	return st, true
}

// TruncateMessage cuts an Event message to NoteLengthLimit bytes, ending
// it in " ..." (kube's truncateMessage).
func TruncateMessage(msg string) string {
	if len(msg) <= NoteLengthLimit {
		return msg
	}
	const suffix = " ..."
	return msg[:NoteLengthLimit-len(suffix)] + suffix
}
