package defaultpreemption

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/scheduler/internal/st"
	"github.com/kubeloop/kubeloop/engine/scheduler/plugins/noderesources"
)

// fitHandle runs NodeResourcesFit only, and has no budgets unless given.
type fitHandle struct {
	pdbs  []*policyv1.PodDisruptionBudget
	draws int
}

func (h *fitHandle) RunFilterPluginsWithNominatedPods(state *framework.CycleState, pi *framework.PodInfo, ni *framework.NodeInfo) *framework.Status {
	return (&noderesources.Fit{}).Filter(state, pi, ni)
}
func (h *fitHandle) RunPreFilterExtensionAddPod(*framework.CycleState, *framework.PodInfo, *framework.PodInfo, *framework.NodeInfo) *framework.Status {
	return nil
}
func (h *fitHandle) RunPreFilterExtensionRemovePod(*framework.CycleState, *framework.PodInfo, *framework.PodInfo, *framework.NodeInfo) *framework.Status {
	return nil
}
func (h *fitHandle) PodDisruptionBudgets() []*policyv1.PodDisruptionBudget { return h.pdbs }
func (h *fitHandle) Intn(n int) int                                        { h.draws++; return n - 1 }

// node builds a 2-cpu node holding the pods.
func node(name string, pods ...*corev1.Pod) *framework.NodeInfo {
	ni := framework.NewNodeInfo(st.MakeNode().Name(name).Capacity("2", "8Gi", 110).Obj())
	for _, p := range pods {
		ni.AddPod(framework.NewPodInfo(p))
	}
	return ni
}

func pod(name, cpu string, prio int32) *st.PodWrapper {
	return st.MakePod().Name(name).Req(cpu, "").Priority(prio)
}

func started(p *st.PodWrapper, sec int64) *st.PodWrapper {
	t := metav1.Unix(sec, 0)
	p.Status.StartTime = &t
	return p
}

func names(pods []*corev1.Pod) string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return strings.Join(out, ",")
}

func TestSelectVictimsOnNode(t *testing.T) {
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "default"},
		Spec:   policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}},
		Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: 0}}
	for _, tc := range []struct {
		name       string
		preemptor  *corev1.Pod
		node       *framework.NodeInfo
		pdbs       []*policyv1.PodDisruptionBudget
		victims    string
		violations int
		status     string
	}{
		{name: "no lower-priority pod", preemptor: pod("p", "1", 100).Obj(),
			node:   node("n", pod("a", "1500m", 100).Obj()),
			status: "UnschedulableAndUnresolvable: " + ErrReasonNoVictims},
		{name: "does not fit even when emptied of victims", preemptor: pod("p", "1800m", 100).Obj(),
			node:   node("n", pod("a", "500m", 0).Obj(), pod("keep", "1", 1000).Obj()),
			status: "Unschedulable: Insufficient cpu"},
		// 2 cpus, 1.8 used: the pod needs 1; reprieving the most important
		// first keeps b (priority 50) and evicts a and c.
		{name: "reprieve the most important first", preemptor: pod("p", "1", 100).Obj(),
			node:    node("n", pod("a", "600m", 10).Obj(), pod("b", "600m", 50).Obj(), pod("c", "600m", 10).Obj()),
			victims: "a,c"},
		// Equal priority: the pod that started earlier is more important
		// and reprieved first.
		{name: "equal priority: earlier start is reprieved", preemptor: pod("p", "1400m", 100).Obj(),
			node:    node("n", started(pod("new", "600m", 10), 200).Obj(), started(pod("old", "600m", 10), 100).Obj()),
			victims: "new"},
		// The budget-protected pod is reprieved before the others even
		// though its priority is lower; here it must still go, counted as
		// a violation.
		{name: "PDB-violating pods are reprieved first", preemptor: pod("p", "1400m", 100).Obj(),
			node: node("n", pod("web", "600m", 20).Obj(), pod("db", "600m", 10).Label("app", "db").Obj()),
			pdbs: []*policyv1.PodDisruptionBudget{pdb}, victims: "web"},
		{name: "PDB violation counted when unavoidable", preemptor: pod("p", "2", 100).Obj(),
			node: node("n", pod("web", "600m", 20).Obj(), pod("db", "600m", 10).Label("app", "db").Obj()),
			pdbs: []*policyv1.PodDisruptionBudget{pdb}, victims: "web,db", violations: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl := &DefaultPreemption{Handle: &fitHandle{}}
			victims, violations, st := pl.SelectVictimsOnNode(framework.NewCycleState(), framework.NewPodInfo(tc.preemptor), tc.node, tc.pdbs)
			if got := st.String(); tc.status != "" && got != tc.status || tc.status == "" && !st.IsSuccess() {
				t.Fatalf("status = %q; want %q", got, tc.status)
			}
			if got := names(victims); got != tc.victims || violations != tc.violations {
				t.Errorf("victims = %q (%d PDB violations); want %q (%d)", got, violations, tc.victims, tc.violations)
			}
			if len(tc.node.Pods) == 0 {
				t.Errorf("the node's own NodeInfo was changed")
			}
		})
	}
}

func TestPickOneNodeForPreemption(t *testing.T) {
	v := func(name string, prio int32, start int64) *corev1.Pod {
		return started(pod(name, "1", prio), start).Obj()
	}
	for _, tc := range []struct {
		name      string
		cands     []Candidate
		want      string
		criterion string
	}{
		{"one", []Candidate{{Node: "n1", Victims: []*corev1.Pod{v("a", 5, 0)}}}, "n1", CriterionOnly},
		{"fewest PDB violations", []Candidate{
			{Node: "n1", Victims: []*corev1.Pod{v("a", 1, 0)}, NumPDBViolations: 1},
			{Node: "n2", Victims: []*corev1.Pod{v("b", 900, 0)}}}, "n2", CriterionPDB},
		{"lowest highest priority", []Candidate{
			{Node: "n1", Victims: []*corev1.Pod{v("a", 100, 0)}},
			{Node: "n2", Victims: []*corev1.Pod{v("b", 10, 0), v("c", 10, 0)}}}, "n2", CriterionHighestPriority},
		// Priorities are shifted by 2^31 before summing, so two pods of
		// priority -5 weigh more than one.
		{"smallest sum", []Candidate{
			{Node: "n1", Victims: []*corev1.Pod{v("a", -5, 0), v("b", -5, 0)}},
			{Node: "n2", Victims: []*corev1.Pod{v("c", -5, 0)}}}, "n2", CriterionSumPriorities},
		// With the shift, more victims always make a bigger sum: the sum
		// decides before the count could.
		{"sum before count", []Candidate{
			{Node: "n1", Victims: []*corev1.Pod{v("a", 10, 0), v("b", 0, 0)}},
			{Node: "n2", Victims: []*corev1.Pod{v("c", 10, 0), v("d", -1, 0), v("e", 1, 0)}}}, "n1", CriterionSumPriorities},
		// Start time: of the highest-priority victims, the earliest start;
		// the node where that is latest wins (its victims ran least).
		{"latest start", []Candidate{
			{Node: "n1", Victims: []*corev1.Pod{v("a", 10, 100), v("b", 10, 500)}},
			{Node: "n2", Victims: []*corev1.Pod{v("c", 10, 300), v("d", 10, 50)}},
			{Node: "n3", Victims: []*corev1.Pod{v("e", 10, 200), v("f", 10, 400)}}}, "n3", CriterionStartTime},
		{"tie: seeded pick", []Candidate{
			{Node: "n1", Victims: []*corev1.Pod{v("a", 10, 100)}},
			{Node: "n2", Victims: []*corev1.Pod{v("b", 10, 100)}}}, "n2", CriterionTie},
	} {
		h := &fitHandle{}
		i, crit := PickOneNodeForPreemption(tc.cands, h.Intn)
		if got := tc.cands[i].Node; got != tc.want || crit != tc.criterion {
			t.Errorf("%s: PickOneNodeForPreemption = %s (%s); want %s (%s)", tc.name, got, crit, tc.want, tc.criterion)
		}
	}
}

func TestPostFilter(t *testing.T) {
	var nodes []*framework.NodeInfo
	for _, n := range []string{"n1", "n2", "n3"} {
		nodes = append(nodes, framework.NewNodeInfo(st.MakeNode().Name(n).Obj()))
	}
	m := framework.NewNodeToStatus()
	m.Set(nodes[0], framework.NewStatus(framework.UnschedulableAndUnresolvable, "node(s) had untolerated taint {k: }"))
	m.Set(nodes[1], framework.NewStatus(framework.Unschedulable, "Insufficient cpu"))
	m.Set(nodes[2], framework.NewStatus(framework.Unschedulable, "Insufficient cpu"))
	pod := framework.NewPodInfo(st.MakePod().Name("p").Obj())
	pl := &DefaultPreemption{Handle: &fitHandle{}}
	got := pl.PostFilter(framework.NewCycleState(), pod, nodes, m).Message()
	want := "preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."
	if got != want {
		t.Errorf("PostFilter = %q; want %q", got, want)
	}
	never := corev1.PreemptNever
	pod.Pod.Spec.PreemptionPolicy = &never
	if got := pl.PostFilter(framework.NewCycleState(), pod, nodes, m).Message(); got != "preemption: not eligible due to preemptionPolicy=Never." {
		t.Errorf("PostFilter(Never) = %q", got)
	}
}

// A pod nominated to a node where its victims still terminate waits; if
// that node turned unresolvable, it may preempt elsewhere.
func TestPodEligibleToPreemptOthers(t *testing.T) {
	victim := pod("v", "1", 0).Terminating().Obj()
	victim.Status.Conditions = []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
		Reason: corev1.PodReasonPreemptionByScheduler}}
	n2 := node("n2", victim)
	nodes := []*framework.NodeInfo{node("n1"), n2}
	p := pod("p", "1", 100).Obj()
	p.Status.NominatedNodeName = "n2"
	m := framework.NewNodeToStatus()
	m.Set(n2, framework.NewStatus(framework.Unschedulable, "Insufficient cpu"))
	if ok, msg := PodEligibleToPreemptOthers(framework.NewPodInfo(p), nodes, m); ok || msg != ErrReasonTerminatingVictims {
		t.Errorf("eligible = %v, %q; want false, %q", ok, msg, ErrReasonTerminatingVictims)
	}
	m.Reset()
	m.Set(n2, framework.NewStatus(framework.UnschedulableAndUnresolvable, "node(s) were unschedulable"))
	if ok, _ := PodEligibleToPreemptOthers(framework.NewPodInfo(p), nodes, m); !ok {
		t.Errorf("eligible on an unresolvable nominated node = false; want true")
	}
}
