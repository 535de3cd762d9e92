package controller

import (
	"fmt"
	"strings"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
)

func secs(s int64) *int64 { return &s }

func TestGetMatchingTolerations(t *testing.T) {
	unreachable := corev1.Taint{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute}
	notReady := corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute}
	dedicated := corev1.Taint{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoExecute}
	defaults := []corev1.Toleration{
		{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: secs(300)},
		{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: secs(300)},
	}
	for _, tc := range []struct {
		name        string
		taints      []corev1.Taint
		tolerations []corev1.Toleration
		want        bool
		wantUsed    int
	}{
		{"no taints", nil, nil, true, 0},
		{"taint, no tolerations", []corev1.Taint{unreachable}, nil, false, 0},
		{"default tolerations", []corev1.Taint{unreachable}, defaults, true, 1},
		{"both default taints", []corev1.Taint{unreachable, notReady}, defaults, true, 2},
		{"untolerated key", []corev1.Taint{unreachable, dedicated}, defaults, false, 0},
		{"Equal with the value", []corev1.Taint{dedicated},
			[]corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "db"}}, true, 1},
		{"Equal with another value", []corev1.Taint{dedicated},
			[]corev1.Toleration{{Key: "dedicated", Value: "web"}}, false, 0},
		{"empty key Exists tolerates all", []corev1.Taint{dedicated, unreachable},
			[]corev1.Toleration{{Operator: corev1.TolerationOpExists}}, true, 2},
		{"other effect", []corev1.Taint{unreachable},
			[]corev1.Toleration{{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}, false, 0},
		{"empty effect matches", []corev1.Taint{unreachable},
			[]corev1.Toleration{{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists}}, true, 1},
	} {
		got, used := GetMatchingTolerations(tc.taints, tc.tolerations)
		if got != tc.want || len(used) != tc.wantUsed {
			t.Errorf("%s: GetMatchingTolerations = %v, %d used; want %v, %d", tc.name, got, len(used), tc.want, tc.wantUsed)
		}
	}
}

func TestMinTolerationTime(t *testing.T) {
	for _, tc := range []struct {
		name    string
		secs    []*int64
		want    sim.Tick
		wantIdx int
	}{
		{"none used", nil, 0, -1},
		{"forever", []*int64{nil}, -1, -1},
		{"300", []*int64{secs(300)}, 300 * sim.Second, 0},
		{"shortest wins", []*int64{secs(300), secs(60), nil}, 60 * sim.Second, 1},
		{"zero evicts now", []*int64{secs(300), secs(0)}, 0, 1},
		{"negative evicts now", []*int64{secs(-5)}, 0, 0},
	} {
		var tols []corev1.Toleration
		for _, s := range tc.secs {
			tols = append(tols, corev1.Toleration{Operator: corev1.TolerationOpExists, TolerationSeconds: s})
		}
		got, idx := MinTolerationTime(tols)
		if got != tc.want || idx != tc.wantIdx {
			t.Errorf("%s: MinTolerationTime = %v, %d; want %v, %d", tc.name, got, idx, tc.want, tc.wantIdx)
		}
	}
}

func TestComputeZoneState(t *testing.T) {
	cond := func(s corev1.ConditionStatus) *corev1.NodeCondition { return &corev1.NodeCondition{Status: s} }
	T, F, U := cond(corev1.ConditionTrue), cond(corev1.ConditionFalse), cond(corev1.ConditionUnknown)
	for _, tc := range []struct {
		conds        []*corev1.NodeCondition
		wantNotReady int
		want         string
	}{
		{[]*corev1.NodeCondition{T, T, T}, 0, "Normal"},
		{[]*corev1.NodeCondition{U}, 1, "FullDisruption"},
		{[]*corev1.NodeCondition{nil}, 1, "FullDisruption"},
		{[]*corev1.NodeCondition{T, U}, 1, "Normal"},
		{[]*corev1.NodeCondition{T, U, F}, 2, "Normal"},               // two not ready: never partial
		{[]*corev1.NodeCondition{T, U, F, U}, 3, "PartialDisruption"}, // 3/4 ≥ 0.55
		{[]*corev1.NodeCondition{T, T, T, U, F, U}, 3, "Normal"},      // 3/6 < 0.55
	} {
		n, got := ComputeZoneState(tc.conds)
		if n != tc.wantNotReady || got != tc.want {
			t.Errorf("ComputeZoneState(%d conditions) = %d, %s; want %d, %s", len(tc.conds), n, got, tc.wantNotReady, tc.want)
		}
	}
}

func TestComputePDB(t *testing.T) {
	i := func(n int) *intstr.IntOrString { v := intstr.FromInt32(int32(n)); return &v }
	p := func(s string) *intstr.IntOrString { v := intstr.FromString(s); return &v }
	for _, tc := range []struct {
		name              string
		spec              policyv1.PodDisruptionBudgetSpec
		expected, healthy int32
		want              PDBNumbers
	}{
		{"minAvailable 2 of 3", policyv1.PodDisruptionBudgetSpec{MinAvailable: i(2)}, 3, 3, PDBNumbers{3, 2, 3, 1}},
		{"minAvailable 2, one down", policyv1.PodDisruptionBudgetSpec{MinAvailable: i(2)}, 3, 2, PDBNumbers{3, 2, 2, 0}},
		{"minAvailable 50% rounds up", policyv1.PodDisruptionBudgetSpec{MinAvailable: p("50%")}, 3, 3, PDBNumbers{3, 2, 3, 1}},
		{"maxUnavailable 1", policyv1.PodDisruptionBudgetSpec{MaxUnavailable: i(1)}, 5, 5, PDBNumbers{5, 4, 5, 1}},
		{"maxUnavailable 30% rounds up", policyv1.PodDisruptionBudgetSpec{MaxUnavailable: p("30%")}, 5, 5, PDBNumbers{5, 3, 5, 2}},
		{"maxUnavailable above scale", policyv1.PodDisruptionBudgetSpec{MaxUnavailable: i(9)}, 2, 1, PDBNumbers{2, 0, 1, 1}},
		{"never negative", policyv1.PodDisruptionBudgetSpec{MinAvailable: i(5)}, 3, 3, PDBNumbers{3, 5, 3, 0}},
	} {
		if got := ComputePDB(tc.spec, tc.expected, tc.healthy); got != tc.want {
			t.Errorf("%s: ComputePDB = %+v; want %+v", tc.name, got, tc.want)
		}
	}
}

// TestNodeLifecycleStateMachine drives the node lifecycle controller alone
// with a node whose kubelet is played by the test: it renews the Lease
// every 10 s until told to stop, and posts Ready again when told to. The
// table is the node's state at each instant.
func TestNodeLifecycleStateMachine(t *testing.T) {
	f := newFixture(t)
	nlc := NewNodeLifecycleController(f.env)
	tec := NewTaintEvictionController(f.env)
	// n2, in another zone, stays healthy: with every node down the
	// controller would stop tainting altogether (master disruption mode).
	for _, n := range []struct{ name, zone string }{{"n1", "zone-a"}, {"n2", "zone-b"}} {
		f.create(&corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
			ObjectMeta: metav1.ObjectMeta{Name: n.name, Labels: map[string]string{corev1.LabelTopologyZone: n.zone}}})
	}
	post := func(name string, status corev1.ConditionStatus) {
		o := f.get(kinds.Node, "", name).(*corev1.Node).DeepCopy()
		now := metav1.NewTime(f.env.Loop.Now().Time())
		o.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status, Reason: "KubeletReady",
			LastHeartbeatTime: now, LastTransitionTime: now}}
		f.setStatus(o)
	}
	dur := int32(40)
	renew := func(name string) {
		holder := name
		now := metav1.NewMicroTime(f.env.Loop.Now().Time())
		if o, ok := f.env.Store.Lookup(kinds.Lease, "kube-node-lease", name); ok {
			l := o.(*coordinationv1.Lease).DeepCopy()
			l.Spec.RenewTime = &now
			if _, err := f.env.API.Update(setup, l); err != nil {
				t.Fatal(err)
			}
			return
		}
		f.create(&coordinationv1.Lease{TypeMeta: metav1.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-node-lease"},
			Spec:       coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &dur, RenewTime: &now}})
	}
	f.create(&corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: "kube-node-lease"}})
	post("n1", corev1.ConditionTrue)
	post("n2", corev1.ConditionTrue)
	renew("n1")
	renew("n2")
	alive, alive2 := true, true
	var hb func()
	hb = func() {
		if alive {
			renew("n1")
		}
		if alive2 {
			renew("n2")
		}
		f.env.Loop.After(10*sim.Second, "test heartbeat", hb)
	}
	f.env.Loop.After(10*sim.Second, "test heartbeat", hb)

	state := func() string {
		n := f.get(kinds.Node, "", "n1").(*corev1.Node)
		var parts []string
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady {
				parts = append(parts, "Ready="+string(c.Status))
			}
		}
		for _, tn := range n.Spec.Taints {
			parts = append(parts, TaintString(tn))
		}
		return strings.Join(parts, " ")
	}
	// The zones' evictions stop when every zone is fully disrupted.
	steps := []struct {
		at     sim.Tick
		action string
		want   string
	}{
		{30 * sim.Second, "", "Ready=True"},
		{30 * sim.Second, "stop", "Ready=True"}, // last renewal at 30s, seen by the check at 30s
		{80 * sim.Second, "", "Ready=True"},     // 50 s: not yet more than the grace period
		{85*sim.Second - 1, "", "Ready=True"},
		{85 * sim.Second, "", "Ready=Unknown node.kubernetes.io/unreachable:NoSchedule"},
		{90 * sim.Second, "", "Ready=Unknown node.kubernetes.io/unreachable:NoSchedule"},
		{90*sim.Second + 100, "", "Ready=Unknown node.kubernetes.io/unreachable:NoSchedule node.kubernetes.io/unreachable:NoExecute"},
		{120 * sim.Second, "recover", "Ready=True node.kubernetes.io/unreachable:NoExecute"},
		{125 * sim.Second, "", "Ready=True"},
		{130 * sim.Second, "cordon", "Ready=True node.kubernetes.io/unschedulable:NoSchedule"},
		{135 * sim.Second, "uncordon", "Ready=True"},
		{140 * sim.Second, "not-ready", "Ready=False node.kubernetes.io/not-ready:NoSchedule"},
		{145*sim.Second + 100, "", "Ready=False node.kubernetes.io/not-ready:NoSchedule node.kubernetes.io/not-ready:NoExecute"},
		// n2 goes silent too: every zone is fully disrupted, so the
		// controller suspects itself and lifts the NoExecute taints.
		{150 * sim.Second, "stop-n2", "Ready=False node.kubernetes.io/not-ready:NoSchedule node.kubernetes.io/not-ready:NoExecute"},
		{205 * sim.Second, "", "Ready=False node.kubernetes.io/not-ready:NoSchedule"},
	}
	for _, st := range steps {
		f.advance(st.at-f.env.Loop.Now(), nlc, tec)
		switch st.action {
		case "stop":
			alive = false
		case "recover":
			alive = true
			post("n1", corev1.ConditionTrue)
			renew("n1")
		case "cordon", "uncordon":
			n := f.get(kinds.Node, "", "n1").(*corev1.Node).DeepCopy()
			n.Spec.Unschedulable = st.action == "cordon"
			if _, err := f.env.API.Update(setup, n); err != nil {
				t.Fatal(err)
			}
		case "stop-n2":
			alive2 = false
		case "not-ready":
			post("n1", corev1.ConditionFalse)
		}
		f.settle(nlc, tec)
		if got := state(); got != st.want {
			t.Errorf("at %s (%s): node is %q; want %q", st.at, st.action, got, st.want)
		}
	}
	if got := fmt.Sprint(f.events()); !strings.Contains(got, "NodeNotReady: Node n1 status is now: NodeNotReady") ||
		!strings.Contains(got, "RegisteredNode: Node n1 event: Registered Node n1 in Controller") {
		t.Errorf("events = %s; want RegisteredNode and NodeNotReady", got)
	}
}
