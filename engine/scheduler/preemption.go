package scheduler

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/scheduler/plugins/defaultpreemption"
	"github.com/kubeloop/kubeloop/engine/store"
	"github.com/kubeloop/kubeloop/engine/trace"
)

// Preemption, the scheduler's side: DefaultPreemption (a pure plugin)
// chooses a node and its victims; the scheduler carries the choice out as
// kube's Evaluator.prepareCandidate does (1.30-1.32, synchronously), keeps
// the nominated pods (kube's PodNominator) so that the space they were
// promised is held for them, and tries a pod's nominated node first.

// preemptionWhy is the teaching sentence of a preemption.
const preemptionWhy = "No node can run the pod, so the scheduler looks for a node where evicting pods of lower " +
	"priority would make room: priority decides who waits. It chooses the node whose victims matter least " +
	"and evicts only as many as it must."

// nominatedWhy is the teaching sentence of a pod taking its nominated node.
const nominatedWhy = "Preemption made room on this node for this pod, so kube-scheduler tries it first; the " +
	"nomination kept pods of lower priority from taking the room while the victims terminated."

// nominator keeps the pods waiting in the queue with a
// status.nominatedNodeName: the space preemption freed on a node is held
// for them against pods of lower priority.
type nominator struct {
	pods   map[types.UID]*corev1.Pod
	byNode map[string]int
	// counted names, for the attempt under way, each node where nominated
	// pods were counted and who they were: "n2 (urgent)".
	counted []string
}

func newNominator() *nominator {
	return &nominator{pods: map[types.UID]*corev1.Pod{}, byNode: map[string]int{}}
}

// observe follows a pod event: a pod this scheduler is responsible for
// with a nomination is kept; bound, deleted or un-nominated, it is not.
func (n *nominator) observe(ev store.Event) {
	p := ev.Object.(*corev1.Pod)
	if old, ok := n.pods[p.UID]; ok {
		n.byNode[old.Status.NominatedNodeName]--
		if n.byNode[old.Status.NominatedNodeName] == 0 {
			delete(n.byNode, old.Status.NominatedNodeName)
		}
		delete(n.pods, p.UID)
	}
	if ev.Type == store.Deleted || !responsible(p) || p.Status.NominatedNodeName == "" {
		return
	}
	n.pods[p.UID] = p
	n.byNode[p.Status.NominatedNodeName]++
}

// forNode lists the pods nominated to a node, by namespace and name.
func (n *nominator) forNode(node string) []*corev1.Pod {
	if n.byNode[node] == 0 {
		return nil
	}
	var out []*corev1.Pod
	for _, p := range n.pods {
		if p.Status.NominatedNodeName == node {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// noteCounted remembers, once per node and attempt, which nominated pods
// the filters counted on it.
func (n *nominator) noteCounted(node string, pods []*framework.PodInfo) {
	names := make([]string, len(pods))
	for i, p := range pods {
		names[i] = p.Pod.Name
	}
	entry := node + " (" + strings.Join(names, ", ") + ")"
	for _, c := range n.counted {
		if c == entry {
			return
		}
	}
	n.counted = append(n.counted, entry)
}

// runFilters is RunFilterPluginsWithNominatedPods: the filters run on the
// node as if the pods nominated to it with at least this pod's priority
// were already there, so that a pod cannot take the room preemption made
// for a more important one. As kube's addGENominatedPods does, they are
// added to a copy of the NodeInfo (resources, pod count) and, through
// AddPod, to a clone of the cycle state (what InterPodAffinity and
// PodTopologySpread counted in PreFilter). If the filters pass with them,
// they run again without them, as kube does: a nominated pod may be what
// satisfies a required affinity, and it is not there yet.
func (s *Scheduler) runFilters(state *framework.CycleState, pi *framework.PodInfo, ni *framework.NodeInfo) (*framework.Status, int) {
	if len(s.nominated.byNode) == 0 || s.nominated.byNode[ni.Name()] == 0 {
		return s.fw.RunFilterPlugins(state, pi, ni)
	}
	var withNominated *framework.NodeInfo
	var stateWith *framework.CycleState
	for _, p := range s.nominated.forNode(ni.Name()) {
		if p.UID == pi.Pod.UID || podPriority(p) < pi.Priority() {
			continue
		}
		if withNominated == nil {
			withNominated = framework.NewNodeInfo(ni.Node())
			withNominated.Index, withNominated.ImageStates = ni.Index, ni.ImageStates
			for _, q := range ni.Pods {
				withNominated.AddPod(q)
			}
			stateWith = state.Clone()
		}
		np := framework.NewPodInfo(p)
		withNominated.AddPod(np)
		if st := s.fw.RunPreFilterExtensionAddPod(stateWith, pi, np, withNominated); !st.IsSuccess() {
			// AddPod fails only without its PreFilter state, which every
			// plugin that ran PreFilter has written: an invariant.
			panic("scheduler: " + st.Message())
		}
	}
	if withNominated == nil {
		return s.fw.RunFilterPlugins(state, pi, ni)
	}
	s.nominated.noteCounted(ni.Name(), withNominated.Pods[len(ni.Pods):])
	if st, idx := s.fw.RunFilterPlugins(stateWith, pi, withNominated); st != nil {
		return st, idx
	}
	return s.fw.RunFilterPlugins(state, pi, ni)
}

func podPriority(p *corev1.Pod) int32 {
	if p.Spec.Priority != nil {
		return *p.Spec.Priority
	}
	return 0
}

// RunFilterPluginsWithNominatedPods implements defaultpreemption.Handle.
func (s *Scheduler) RunFilterPluginsWithNominatedPods(state *framework.CycleState, pi *framework.PodInfo, ni *framework.NodeInfo) *framework.Status {
	st, _ := s.runFilters(state, pi, ni)
	return st
}

// RunPreFilterExtensionAddPod implements defaultpreemption.Handle.
func (s *Scheduler) RunPreFilterExtensionAddPod(state *framework.CycleState, pi, added *framework.PodInfo, ni *framework.NodeInfo) *framework.Status {
	return s.fw.RunPreFilterExtensionAddPod(state, pi, added, ni)
}

// RunPreFilterExtensionRemovePod implements defaultpreemption.Handle.
func (s *Scheduler) RunPreFilterExtensionRemovePod(state *framework.CycleState, pi, removed *framework.PodInfo, ni *framework.NodeInfo) *framework.Status {
	return s.fw.RunPreFilterExtensionRemovePod(state, pi, removed, ni)
}

// PodDisruptionBudgets implements defaultpreemption.Handle: every budget,
// in the store's key order.
func (s *Scheduler) PodDisruptionBudgets() []*policyv1.PodDisruptionBudget {
	objs := s.env.Store.List(kinds.PDB, "")
	out := make([]*policyv1.PodDisruptionBudget, len(objs))
	for i, o := range objs {
		out[i] = o.(*policyv1.PodDisruptionBudget)
	}
	return out
}

// Intn implements defaultpreemption.Handle with the scheduler's seeded
// source.
func (s *Scheduler) Intn(n int) int { return s.env.Rand.Intn(n) }

// wirePreemption hands the profile's DefaultPreemption its Handle.
func (s *Scheduler) wirePreemption() {
	s.nominated = newNominator()
	for _, p := range s.fw.Plugins() {
		if dp, ok := p.(*defaultpreemption.DefaultPreemption); ok && dp.Handle == nil {
			dp.Handle = s
		}
	}
}

// evaluateNominatedNode is kube's: a pod nominated to a node (by an
// earlier preemption) tries that node first, and takes it without looking
// at the others if it passes every filter.
func (s *Scheduler) evaluateNominatedNode(state *framework.CycleState, pi *framework.PodInfo, preRes *framework.PreFilterResult) *framework.NodeInfo {
	name := pi.Pod.Status.NominatedNodeName
	ni := s.cache.NodeInfo(name)
	if ni == nil || ni.Node() == nil {
		return nil
	}
	if !preRes.AllNodes() {
		if _, ok := preRes.NodeNames[name]; !ok {
			return nil
		}
	}
	if st, _ := s.runFilters(state, pi, ni); st != nil {
		return nil
	}
	return ni
}

// notePreemption reads what DefaultPreemption decided in this attempt into
// the attempt and its explanation.
func (s *Scheduler) notePreemption(a *attempt) {
	var fe *framework.FitError
	if !errors.As(a.err, &fe) {
		return
	}
	a.preemption = defaultpreemption.ResultFrom(s.scratch.state)
	a.decision.Preemption = describePreemption(a.preemption)
	if c := s.nominated.counted; len(c) > 0 {
		a.decision.Preemption = "  counted as already there, because preemption made room for them: nominated pods of at least this pod's priority on " +
			strings.Join(c, "; ") + "\n" + a.decision.Preemption
	}
}

// nominating is kube's NominatingInfo for a failed attempt: whether the
// pod's status.nominatedNodeName is to be set (override) and to what. A
// preemption that chose a node nominates it; one that found no candidate
// clears the nomination; a pod not eligible to preempt keeps its own; any
// failure other than "no node fits" clears it.
func (a *attempt) nominating() (node string, override bool) {
	var fe *framework.FitError
	switch {
	case a.preemption != nil && a.preemption.Chosen >= 0:
		return a.preemption.NominatedNodeName(), true
	case a.preemption != nil && a.preemption.Eligible:
		return "", true
	case errors.As(a.err, &fe):
		return "", false
	}
	return "", true
}

// preempt is kube's prepareCandidate: each victim not already being
// deleted gets the DisruptionTarget condition and is deleted gracefully
// through the API server, with a Preempted event; then the pods of lower
// priority nominated to the same node lose their nomination, since the
// room there is now promised to this pod. The pod itself stays Pending:
// reportFailure nominates it, and the deletions requeue it.
func (s *Scheduler) preempt(qp *framework.QueuedPodInfo, a *attempt) {
	r := a.preemption
	if r == nil || r.Chosen < 0 {
		return
	}
	c := r.Candidates[r.Chosen]
	pod := qp.Pod
	names := make([]string, len(c.Victims))
	for i, v := range c.Victims {
		names[i] = v.Name + " (priority " + strconv.Itoa(int(podPriority(v))) + ")"
	}
	seq := s.record(trace.Event{Namespace: pod.Namespace, Object: "pod/" + pod.Name, Cause: qp.Cause,
		Message: fmt.Sprintf("Preempting on %s for pod %s/%s (priority %d): evicting %s; %s",
			c.Node, pod.Namespace, pod.Name, qp.Priority(), strings.Join(names, ", "), chosenBecause(r)),
		Why: preemptionWhy})
	now := metav1.NewTime(s.env.Loop.Now().Time())
	for _, v := range c.Victims {
		if v.DeletionTimestamp != nil {
			continue // graceful deletion has begun; no second request
		}
		cur, ok := s.env.Store.Lookup(kinds.Pod, v.Namespace, v.Name)
		if !ok || cur.GetUID() != v.UID {
			continue
		}
		p := cur.(*corev1.Pod)
		grace := int64(corev1.DefaultTerminationGracePeriodSeconds)
		if p.Spec.TerminationGracePeriodSeconds != nil {
			grace = *p.Spec.TerminationGracePeriodSeconds
		}
		vseq := s.record(trace.Event{Namespace: p.Namespace, Object: "pod/" + p.Name, Cause: seq,
			Message: fmt.Sprintf("Preempted by pod %s on node %s: condition DisruptionTarget (PreemptionByScheduler), then deleted with its %ds grace period",
				pod.UID, c.Node, grace),
			Why: "A victim is deleted like any other pod: it gets its grace period to shut down cleanly, and its controller, if it has one, creates a replacement that must find room elsewhere."})
		actor := apiserver.Actor{Component: Component, Cause: vseq}
		victim := p // as kube's prepareCandidate names it in the event: before its condition write
		cond := corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
			Reason:             corev1.PodReasonPreemptionByScheduler,
			Message:            SchedulerName + ": preempting to accommodate a higher priority pod",
			LastTransitionTime: now}
		if status, changed := withPodCondition(p.Status, cond); changed {
			upd := p.DeepCopy()
			upd.Status = status
			if res, err := s.env.API.UpdateStatus(actor, upd); err == nil {
				p = res.(*corev1.Pod)
			}
		}
		if _, err := s.env.API.Delete(actor, kinds.Pod, p.Namespace, p.Name, apiserver.DeleteOptions{}); err != nil {
			continue
		}
		s.events.eventf(actor.Cause, victim, pod, corev1.EventTypeNormal, "Preempted", "Preempting",
			fmt.Sprintf("Preempted by pod %v on node %v", pod.UID, c.Node), false)
	}
	for _, np := range s.nominated.forNode(c.Node) {
		if np.UID == pod.UID || podPriority(np) >= qp.Priority() {
			continue
		}
		nseq := s.record(trace.Event{Namespace: np.Namespace, Object: "pod/" + np.Name, Cause: seq,
			Message: "Cleared status.nominatedNodeName " + c.Node + ": a pod of higher priority is now nominated there",
			Why:     "The room on " + c.Node + " is now promised to a more important pod, so this one must look for a place again."})
		upd := np.DeepCopy()
		upd.Status.NominatedNodeName = ""
		_, _ = s.env.API.UpdateStatus(apiserver.Actor{Component: Component, Cause: nseq}, upd)
	}
}

// chosenBecause says why the preemption picked its node.
func chosenBecause(r *defaultpreemption.Result) string {
	if len(r.Candidates) == 1 {
		return "the only node where preemption helps"
	}
	if r.Criterion == defaultpreemption.CriterionTie {
		return fmt.Sprintf("%d candidate nodes tied on every criterion; picked at random", len(r.Candidates))
	}
	return fmt.Sprintf("chosen among %d candidate nodes for the %s", len(r.Candidates), r.Criterion)
}

// failureWhy is the trace's Why for a FailedScheduling that preemption
// answered, or "" when it did not.
func failureWhy(a *attempt) string {
	r := a.preemption
	switch {
	case r != nil && r.Chosen >= 0:
		return "The pod still waits: preemption only makes room. It stays Pending with status.nominatedNodeName=" +
			r.NominatedNodeName() + ", which reserves the space against pods of lower priority, until its victims " +
			"have terminated; their deletion requeues it, and it tries its nominated node first."
	case r != nil && r.Reason == defaultpreemption.ErrReasonTerminatingVictims:
		return "The pod already preempted pods on its nominated node and waits for them to terminate instead of evicting more; it is retried when they are gone."
	case r != nil && r.Reason == defaultpreemption.ErrReasonNeverPolicy:
		return "The pod's PriorityClass says preemptionPolicy: Never: it is placed ahead of lower-priority pods in the queue but never evicts them, so it waits for room to free up."
	}
	return ""
}

// describePreemption renders a PostFilter result for `why pod/X`: the
// candidate nodes, the victims on each, and the pick.
func describePreemption(r *defaultpreemption.Result) string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	if !r.Eligible {
		fmt.Fprintf(&b, "  preemption: %s\n", r.Reason)
		return b.String()
	}
	if len(r.Candidates) == 0 {
		return "" // the message's "preemption: ..." part says why, per node
	}
	b.WriteString("  preemption: nodes where evicting lower-priority pods makes room, and the fewest victims on each:\n")
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "    NODE\tVICTIMS (priority)\tPDB VIOLATIONS\t\n")
	for i, c := range r.Candidates {
		vs := make([]string, len(c.Victims))
		for j, v := range c.Victims {
			vs[j] = v.Name + " (" + strconv.Itoa(int(podPriority(v))) + ")"
		}
		mark := ""
		if i == r.Chosen {
			mark = "← chosen"
		}
		fmt.Fprintf(tw, "    %s\t%s\t%d\t%s\n", c.Node, strings.Join(vs, ", "), c.NumPDBViolations, mark)
	}
	tw.Flush()
	fmt.Fprintf(&b, "    chosen: %s (%s); the pod is nominated to it and waits for its victims to terminate\n",
		r.NominatedNodeName(), r.Criterion)
	return b.String()
}
