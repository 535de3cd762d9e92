package defaultpreemption

import (
	"math"
	"sort"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
)

// Name is the plugin's name.
const Name = "DefaultPreemption"

// Reasons, in kube's words (pkg/scheduler/framework/preemption and
// plugins/defaultpreemption).
const (
	// ErrReasonNotHelpful: the node rejected the pod for a reason no
	// eviction can change (UnschedulableAndUnresolvable).
	ErrReasonNotHelpful = "Preemption is not helpful for scheduling"
	// ErrReasonNoVictims: no pod on the node has a lower priority.
	ErrReasonNoVictims = "No preemption victims found for incoming pod"
	// ErrReasonNeverPolicy: the pod's preemptionPolicy is Never.
	ErrReasonNeverPolicy = "not eligible due to preemptionPolicy=Never."
	// ErrReasonTerminatingVictims: the pod already preempted pods on its
	// nominated node, and they are still terminating.
	ErrReasonTerminatingVictims = "not eligible due to a terminating pod on the nominated node."
	// Prefix starts the PostFilter message.
	Prefix = "preemption: "
)

// DefaultPreemptionArgs defaults (k/k pkg/scheduler/apis/config/v1
// defaults.go): a dry run looks for at least this share of the candidate
// nodes, and at least this many.
const (
	MinCandidateNodesPercentage = 10
	MinCandidateNodesAbsolute   = 100
)

// Handle is what the plugin needs from the scheduler, kube's
// framework.Handle at teaching size. The plugin itself writes nothing: it
// returns its choice (a Result in the CycleState) and the scheduler
// carries it out.
type Handle interface {
	// RunFilterPluginsWithNominatedPods runs the profile's filters on a
	// node as if the pods nominated to it with at least pod's priority were
	// already there.
	RunFilterPluginsWithNominatedPods(state *framework.CycleState, pod *framework.PodInfo, node *framework.NodeInfo) *framework.Status
	// RunPreFilterExtensionAddPod and RunPreFilterExtensionRemovePod tell
	// the PreFilter plugins that ran (through their PreFilterExtensions)
	// that a pod was put back on, or removed from, the node's copy.
	RunPreFilterExtensionAddPod(state *framework.CycleState, pod, added *framework.PodInfo, node *framework.NodeInfo) *framework.Status
	RunPreFilterExtensionRemovePod(state *framework.CycleState, pod, removed *framework.PodInfo, node *framework.NodeInfo) *framework.Status
	// PodDisruptionBudgets lists every PodDisruptionBudget, in a fixed order.
	PodDisruptionBudgets() []*policyv1.PodDisruptionBudget
	// Intn draws from the scheduler's seeded source, where kube draws from
	// the global one (the dry run's offset, the last tie between nodes).
	Intn(n int) int
}

// DefaultPreemption is kube's DefaultPreemption PostFilter plugin and its
// Evaluator: when no node can run a pod, it looks for a node where evicting
// lower-priority pods would make room, picks the best such node and its
// victims, and says why not when there is none.
type DefaultPreemption struct {
	// Handle is set by the scheduler that runs the plugin.
	Handle Handle
}

var _ framework.PostFilterPlugin = (*DefaultPreemption)(nil)

// Name implements framework.Plugin.
func (*DefaultPreemption) Name() string { return Name }

// Candidate is a node where evicting Victims lets the pod run.
type Candidate struct {
	Node string
	// Victims are the pods to evict, most important first.
	Victims []*corev1.Pod
	// NumPDBViolations counts the victims whose eviction a
	// PodDisruptionBudget does not allow.
	NumPDBViolations int
}

// Result is what one PostFilter run decided, for the scheduler to carry
// out and explain.
type Result struct {
	// Eligible is false when the pod may not preempt now (Reason says why);
	// its nomination is then left as it is.
	Eligible bool
	Reason   string
	// Candidates are every node where preemption would work, in the order
	// the dry run found them.
	Candidates []Candidate
	// Chosen indexes the candidate picked (-1: none); Criterion says which
	// of kube's ordered criteria decided between the candidates.
	Chosen    int
	Criterion string
}

// NominatedNodeName is the node the pod is nominated to, "" if none.
func (r *Result) NominatedNodeName() string {
	if r == nil || r.Chosen < 0 {
		return ""
	}
	return r.Candidates[r.Chosen].Node
}

var resultKey = framework.NewStateKey(Name)

// ResultFrom returns what PostFilter decided in this cycle (nil if it did
// not run).
func ResultFrom(state *framework.CycleState) *Result {
	r, _ := state.Read(resultKey).(*Result)
	return r
}

var (
	statusNotHelpful = framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonNotHelpful)
	statusNoVictims  = framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonNoVictims)
)

// PostFilter implements framework.PostFilterPlugin: kube's Evaluator.Preempt
// (1.30-1.34, synchronous). A pod with preemptionPolicy Never, or one whose
// victims on its nominated node are still terminating, is not eligible.
// Otherwise every node rejected as Unschedulable (not
// UnschedulableAndUnresolvable) is dry-run with SelectVictimsOnNode, and
// pickOneNodeForPreemption chooses among the candidates. With none, the
// status is a FitError over the nodes' preemption verdicts, prefixed
// "preemption: "; with one, Success, and the Result in the state names the
// node and its victims.
func (pl *DefaultPreemption) PostFilter(state *framework.CycleState, pi *framework.PodInfo, nodes []*framework.NodeInfo, m *framework.NodeToStatus) *framework.Status {
	r := &Result{Chosen: -1}
	state.Write(resultKey, r)
	if ok, msg := PodEligibleToPreemptOthers(pi, nodes, m); !ok {
		r.Reason = msg
		return framework.NewStatus(framework.Unschedulable, Prefix+msg)
	}
	r.Eligible = true

	// Candidate nodes: those the filters found Unschedulable.
	var potential []*framework.NodeInfo
	explicit := make(map[*framework.NodeInfo]bool, m.Len())
	for _, e := range m.Entries() {
		explicit[e.Node] = true
		if e.Status.Code() == framework.Unschedulable {
			potential = append(potential, e.Node)
		}
	}
	if m.AbsentNodesStatus().Code() == framework.Unschedulable {
		for _, n := range nodes {
			if !explicit[n] {
				potential = append(potential, n)
			}
		}
	}
	out := framework.NewNodeToStatus()
	if len(potential) > 0 {
		var pdbs []*policyv1.PodDisruptionBudget
		if pl.Handle != nil {
			pdbs = pl.Handle.PodDisruptionBudgets()
		}
		offset, num := pl.offsetAndNumCandidates(len(potential))
		r.Candidates = pl.dryRun(state, pi, potential, pdbs, offset, num, out)
	}
	if len(r.Candidates) == 0 {
		out.SetAbsentNodesStatus(statusNotHelpful)
		fe := &framework.FitError{NumAllNodes: len(nodes), Diagnosis: framework.Diagnosis{NodeToStatus: out}}
		return framework.NewStatus(framework.Unschedulable, Prefix+fe.Error())
	}
	intn := func(n int) int { return pl.Handle.Intn(n) }
	if pl.Handle == nil {
		intn = func(int) int { return 0 }
	}
	r.Chosen, r.Criterion = PickOneNodeForPreemption(r.Candidates, intn)
	return nil
}

// offsetAndNumCandidates is GetOffsetAndNumCandidates: how many candidates
// the dry run looks for (10% of the potential nodes, at least 100, at most
// all), and where it starts. The offset is drawn only when it matters (the
// dry run stops before trying every node), so clusters under 100 nodes
// draw nothing.
func (pl *DefaultPreemption) offsetAndNumCandidates(n int) (int, int) {
	num := max(n*MinCandidateNodesPercentage/100, MinCandidateNodesAbsolute)
	num = min(num, n)
	if num == n || pl.Handle == nil {
		return 0, num
	}
	return pl.Handle.Intn(n), num
}

// dryRun is DryRunPreemption, sequential: it tries the potential nodes from
// offset on, until it has num candidates with at least one that violates
// no PodDisruptionBudget, and records in out why each other node is not a
// candidate. Candidates that violate no budget come first.
func (pl *DefaultPreemption) dryRun(state *framework.CycleState, pi *framework.PodInfo, potential []*framework.NodeInfo,
	pdbs []*policyv1.PodDisruptionBudget, offset, num int, out *framework.NodeToStatus) []Candidate {
	var clean, violating []Candidate
	for i := range potential {
		ni := potential[(offset+i)%len(potential)]
		victims, violations, st := pl.SelectVictimsOnNode(state, pi, ni, pdbs)
		if st.IsSuccess() && len(victims) > 0 {
			c := Candidate{Node: ni.Name(), Victims: victims, NumPDBViolations: violations}
			if violations == 0 {
				clean = append(clean, c)
			} else {
				violating = append(violating, c)
			}
			if len(clean) > 0 && len(clean)+len(violating) >= num {
				break
			}
			continue
		}
		if st.IsSuccess() {
			st = framework.AsStatus(errNoVictimsButFits(ni.Name()))
		}
		out.Set(ni, st)
	}
	return append(clean, violating...)
}

// SelectVictimsOnNode is kube's: on a copy of the node and a clone of the
// cycle state, remove every pod of lower priority than the preemptor (the
// PreFilter plugins told of each through RemovePod, so that what
// InterPodAffinity and PodTopologySpread counted sees it go); if the
// preemptor still does not
// pass the filters, the node is no help (the filter's status says why).
// Otherwise put the removed pods back one by one, most important first and
// those whose eviction a PodDisruptionBudget forbids before the others,
// keeping each that still leaves room: the rest are the victims, most
// important first, and the count of budget violations among them.
func (pl *DefaultPreemption) SelectVictimsOnNode(state *framework.CycleState, pi *framework.PodInfo, ni *framework.NodeInfo,
	pdbs []*policyv1.PodDisruptionBudget) ([]*corev1.Pod, int, *framework.Status) {
	if ni.Node() == nil {
		return nil, 0, statusNotHelpful
	}
	node := snapshot(ni)
	state = state.Clone()
	prio := pi.Priority()
	var potential []*framework.PodInfo
	for _, p := range ni.Pods {
		if p.Priority() < prio {
			potential = append(potential, p)
		}
	}
	if len(potential) == 0 {
		return nil, 0, statusNoVictims
	}
	for _, p := range potential {
		if st := pl.removePod(state, pi, p, node); !st.IsSuccess() {
			return nil, 0, st
		}
	}
	if st := pl.filter(state, pi, node); !st.IsSuccess() {
		return nil, 0, st
	}
	sort.SliceStable(potential, func(i, j int) bool { return MoreImportantPod(potential[i].Pod, potential[j].Pod) })
	violatingPods, nonViolatingPods := filterPodsWithPDBViolation(potential, pdbs)
	var victims []*framework.PodInfo
	reprieve := func(p *framework.PodInfo) (bool, *framework.Status) {
		if st := pl.addPod(state, pi, p, node); !st.IsSuccess() {
			return false, st
		}
		if pl.filter(state, pi, node).IsSuccess() {
			return true, nil
		}
		if st := pl.removePod(state, pi, p, node); !st.IsSuccess() {
			return false, st
		}
		victims = append(victims, p)
		return false, nil
	}
	violations := 0
	for _, p := range violatingPods {
		fits, st := reprieve(p)
		if !st.IsSuccess() {
			return nil, 0, st
		}
		if !fits {
			violations++
		}
	}
	for _, p := range nonViolatingPods {
		if _, st := reprieve(p); !st.IsSuccess() {
			return nil, 0, st
		}
	}
	if len(violatingPods) > 0 && len(nonViolatingPods) > 0 {
		sort.SliceStable(victims, func(i, j int) bool { return MoreImportantPod(victims[i].Pod, victims[j].Pod) })
	}
	out := make([]*corev1.Pod, len(victims))
	for i, v := range victims {
		out[i] = v.Pod
	}
	return out, violations, nil
}

func (pl *DefaultPreemption) filter(state *framework.CycleState, pi *framework.PodInfo, ni *framework.NodeInfo) *framework.Status {
	if pl.Handle == nil {
		return nil
	}
	return pl.Handle.RunFilterPluginsWithNominatedPods(state, pi, ni)
}

// removePod is kube's removePod closure: the pod leaves the node's copy and
// the PreFilter plugins' state.
func (pl *DefaultPreemption) removePod(state *framework.CycleState, pi, p *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	node.RemovePod(p)
	if pl.Handle == nil {
		return nil
	}
	return pl.Handle.RunPreFilterExtensionRemovePod(state, pi, p, node)
}

// addPod is kube's addPod closure: the pod is back on the node's copy and
// in the PreFilter plugins' state.
func (pl *DefaultPreemption) addPod(state *framework.CycleState, pi, p *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	node.AddPod(p)
	if pl.Handle == nil {
		return nil
	}
	return pl.Handle.RunPreFilterExtensionAddPod(state, pi, p, node)
}

// snapshot copies a NodeInfo: the node and its pods (the PodInfos shared,
// the list and the sums the copy's own).
func snapshot(ni *framework.NodeInfo) *framework.NodeInfo {
	c := framework.NewNodeInfo(ni.Node())
	c.Index = ni.Index
	c.ImageStates = ni.ImageStates
	for _, p := range ni.Pods {
		c.AddPod(p)
	}
	return c
}

// PodEligibleToPreemptOthers is kube's: a pod with preemptionPolicy Never
// may not preempt; nor may a pod nominated to a node where lower-priority
// pods are still terminating because the scheduler preempted them (unless
// the nominated node has become UnschedulableAndUnresolvable): it waits for
// the victims it already chose rather than choosing more.
func PodEligibleToPreemptOthers(pi *framework.PodInfo, nodes []*framework.NodeInfo, m *framework.NodeToStatus) (bool, string) {
	pod := pi.Pod
	if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy == corev1.PreemptNever {
		return false, ErrReasonNeverPolicy
	}
	nom := pod.Status.NominatedNodeName
	if nom == "" {
		return true, ""
	}
	var ni *framework.NodeInfo
	for _, n := range nodes {
		if n.Name() == nom {
			ni = n
			break
		}
	}
	if statusOf(m, ni).Code() == framework.UnschedulableAndUnresolvable {
		return true, ""
	}
	if ni != nil {
		prio := pi.Priority()
		for _, p := range ni.Pods {
			if p.Priority() < prio && terminatingByPreemption(p.Pod) {
				return false, ErrReasonTerminatingVictims
			}
		}
	}
	return true, ""
}

func statusOf(m *framework.NodeToStatus, ni *framework.NodeInfo) *framework.Status {
	if ni != nil {
		for _, e := range m.Entries() {
			if e.Node == ni {
				return e.Status
			}
		}
	}
	return m.AbsentNodesStatus()
}

// terminatingByPreemption is podTerminatingByPreemption: being deleted, with
// the DisruptionTarget condition the scheduler set when it chose the pod.
func terminatingByPreemption(p *corev1.Pod) bool {
	if p.DeletionTimestamp == nil {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.DisruptionTarget {
			return c.Status == corev1.ConditionTrue && c.Reason == corev1.PodReasonPreemptionByScheduler
		}
	}
	return false
}

// filterPodsWithPDBViolation is kube's: it splits pods (in order) into
// those whose eviction would take a matching PodDisruptionBudget below
// zero allowed disruptions, counting down as it goes, and the others. Pods
// already in a budget's disruptedPods are not counted again.
func filterPodsWithPDBViolation(pods []*framework.PodInfo, pdbs []*policyv1.PodDisruptionBudget) (violating, nonViolating []*framework.PodInfo) {
	allowed := make([]int32, len(pdbs))
	for i, pdb := range pdbs {
		allowed[i] = pdb.Status.DisruptionsAllowed
	}
	for _, pi := range pods {
		pod := pi.Pod
		violated := false
		if len(pod.Labels) != 0 {
			for i, pdb := range pdbs {
				if pdb.Namespace != pod.Namespace {
					continue
				}
				sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
				if err != nil || sel.Empty() || !sel.Matches(labels.Set(pod.Labels)) {
					continue
				}
				if _, ok := pdb.Status.DisruptedPods[pod.Name]; ok {
					continue
				}
				allowed[i]--
				if allowed[i] < 0 {
					violated = true
				}
			}
		}
		if violated {
			violating = append(violating, pi)
		} else {
			nonViolating = append(nonViolating, pi)
		}
	}
	return violating, nonViolating
}

// MoreImportantPod is kube's util.MoreImportantPod: higher priority first,
// then the pod that started earlier (a pod not started yet counts as
// starting last).
func MoreImportantPod(a, b *corev1.Pod) bool {
	pa, pb := podPriority(a), podPriority(b)
	if pa != pb {
		return pa > pb
	}
	return startNanos(a) < startNanos(b)
}

func podPriority(p *corev1.Pod) int32 {
	if p.Spec.Priority != nil {
		return *p.Spec.Priority
	}
	return 0
}

// startNanos is status.startTime; kube uses the current time for a pod
// without one, which is later than any start: MaxInt64 says the same.
func startNanos(p *corev1.Pod) int64 {
	if p.Status.StartTime == nil {
		return math.MaxInt64
	}
	return p.Status.StartTime.UnixNano()
}

// The criteria pickOneNodeForPreemption applies in order, as the
// explanation names them.
const (
	CriterionOnly            = "the only candidate"
	CriterionPDB             = "fewest PodDisruptionBudget violations"
	CriterionHighestPriority = "lowest priority of its most important victim"
	CriterionSumPriorities   = "smallest sum of victim priorities"
	CriterionNumVictims      = "fewest victims"
	CriterionStartTime       = "latest start of its most important victims"
	CriterionTie             = "tied on every criterion; picked at random"
)

// PickOneNodeForPreemption is kube's pickOneNodeForPreemption: among the
// candidates keep those with the fewest PodDisruptionBudget violations,
// then the lowest highest-victim priority, then the smallest sum of victim
// priorities (each shifted by 2^31 so that negative priorities count as
// small), then the fewest victims, then the latest earliest start among the
// highest-priority victims. Kube takes the first of what is still tied, in
// the random order of a Go map; kubeloop draws it with intn. It returns
// the index of the pick and the criterion that decided.
func PickOneNodeForPreemption(cands []Candidate, intn func(int) int) (int, string) {
	if len(cands) == 0 {
		return -1, ""
	}
	if len(cands) == 1 {
		return 0, CriterionOnly
	}
	type criterion struct {
		name  string
		score func(c *Candidate) int64
	}
	criteria := []criterion{
		{CriterionPDB, func(c *Candidate) int64 { return -int64(c.NumPDBViolations) }},
		{CriterionHighestPriority, func(c *Candidate) int64 { return -int64(podPriority(c.Victims[0])) }},
		{CriterionSumPriorities, func(c *Candidate) int64 {
			var sum int64
			for _, p := range c.Victims {
				sum += int64(podPriority(p)) + int64(math.MaxInt32) + 1
			}
			return -sum
		}},
		{CriterionNumVictims, func(c *Candidate) int64 { return -int64(len(c.Victims)) }},
		{CriterionStartTime, func(c *Candidate) int64 { return earliestStartOfMostImportant(c.Victims) }},
	}
	left := make([]int, len(cands))
	for i := range left {
		left[i] = i
	}
	for _, cr := range criteria {
		best := int64(math.MinInt64)
		var sel []int
		for _, i := range left {
			s := cr.score(&cands[i])
			if s > best {
				best, sel = s, sel[:0]
			}
			if s == best {
				sel = append(sel, i)
			}
		}
		if len(sel) == 1 {
			return sel[0], cr.name
		}
		left = sel
	}
	return left[intn(len(left))], CriterionTie
}

// earliestStartOfMostImportant is util.GetEarliestPodStartTime: the
// earliest start among the victims of the highest priority.
func earliestStartOfMostImportant(victims []*corev1.Pod) int64 {
	maxPrio := podPriority(victims[0])
	earliest := startNanos(victims[0])
	for _, p := range victims {
		switch pr := podPriority(p); {
		case pr == maxPrio:
			earliest = min(earliest, startNanos(p))
		case pr > maxPrio:
			maxPrio, earliest = pr, startNanos(p)
		}
	}
	return earliest
}

type errNoVictimsButFits string

func (e errNoVictimsButFits) Error() string {
	return "expected at least one victim pod on node \"" + string(e) + "\""
}
