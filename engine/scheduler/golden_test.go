package scheduler_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/scheduler/internal/st"
	"github.com/kubeloop/kubeloop/engine/sim"
)

// TestGolden runs the scenarios in testdata/ (datadriven format: a command,
// ----, its output) on a cluster of only the API server and the scheduler,
// with seed=1 unless a file's `seed` command says otherwise.
//
// Regenerate with `go test ./engine/scheduler -run TestGolden -rewrite`.
// Only commit the changes if you understand what caused them: read every
// line of the diff as you would review code (raft's interaction_test.go).
//
// Commands:
//
//	seed N
//	node name=n1 [cpu=4] [memory=16Gi] [pods=110] [zone=a] [label=k=v]
//	     [taint=key=value:Effect] [unschedulable] [image=name:MiB]
//	pod name=web [cpu=500m] [memory=1Gi] [image=nginx:1.27] [selector=k=v]
//	    [tolerate=key:Effect] [prefer=weight:k=v] [priority=N] [label=k=v]
//	    [affinity=k=v@hostname|zone] [anti=k=v@...] [prefer-affinity=w:k=v@...]
//	    [prefer-anti=w:k=v@...] [spread=maxSkew:hostname|zone:DoNotSchedule|ScheduleAnyway:k=v]
//	    [class=PRIORITYCLASS]
//	priorityclass name=high value=N [never] [default]
//	pdb name=db selector=k=v   (no disruption controller runs: it allows 0 disruptions)
//	delete pod|node NAME
//	cordon|uncordon NAME
//	advance DURATION
//	why NAME            every recorded attempt, described
//	trace               the scheduler's trace events since the last `trace`
//	events              Events: type, reason, object, count, message
//	where               every pod and its node
func TestGolden(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		h := newHarness()
		var traceFrom uint64 = 1
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "seed":
				n, _ := strconv.ParseUint(d.CmdArgs[0].Key, 10, 64)
				h = newHarnessSeed(n)
				traceFrom = 1
				return ""
			case "node":
				h.create(goldenNode(t, d))
				h.settle()
				return ""
			case "pod":
				if _, err := h.api.Create(apiserver.Actor{Component: "test"}, goldenPod(t, d)); err != nil {
					return err.Error()
				}
				h.settle()
				return whereIs(h, arg(d, "name", ""))
			case "pdb":
				k, v, _ := strings.Cut(arg(d, "selector", ""), "=")
				pdb := &policyv1.PodDisruptionBudget{TypeMeta: metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
					ObjectMeta: metav1.ObjectMeta{Name: arg(d, "name", ""), Namespace: "default"},
					Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{k: v}}}}
				if _, err := h.api.Create(apiserver.Actor{Component: "test"}, pdb); err != nil {
					return err.Error()
				}
				return ""
			case "priorityclass":
				if _, err := h.api.Create(apiserver.Actor{Component: "test"}, goldenPriorityClass(d)); err != nil {
					return err.Error()
				}
				return ""
			case "delete":
				k := kinds.Pod
				if d.CmdArgs[0].Key == "node" {
					k = kinds.Node
				}
				if _, err := h.api.Delete(apiserver.Actor{Component: "test"}, k, "default", d.CmdArgs[1].Key,
					apiserver.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
					return err.Error()
				}
				h.settle()
				return ""
			case "cordon", "uncordon":
				o, _ := h.store.Lookup(kinds.Node, "", d.CmdArgs[0].Key)
				n := o.(*corev1.Node).DeepCopy()
				n.Spec.Unschedulable = d.Cmd == "cordon"
				if _, err := h.api.Update(apiserver.Actor{Component: "test"}, n); err != nil {
					return err.Error()
				}
				h.settle()
				return ""
			case "advance":
				dur, err := time.ParseDuration(d.CmdArgs[0].Key)
				if err != nil {
					return err.Error()
				}
				h.advance(sim.FromDuration(dur))
				return ""
			case "why":
				var b strings.Builder
				for _, dec := range h.sched.Explain("default", d.CmdArgs[0].Key) {
					b.WriteString(dec.Describe())
				}
				return b.String()
			case "trace":
				var b strings.Builder
				for _, ev := range h.trace.Since(traceFrom) {
					if ev.Component != "scheduler" {
						continue
					}
					fmt.Fprintf(&b, "%s #%d <- #%d %s %s: %s\n  why: %s\n", ev.T, ev.Seq, ev.Cause, ev.Column, ev.Object, ev.Message, ev.Why)
				}
				traceFrom = h.trace.NextSeq()
				return b.String()
			case "events":
				var b strings.Builder
				for _, o := range h.store.List(kinds.Event, "") {
					ev := o.(*corev1.Event)
					n := ev.Count // a core/v1 Event's; the scheduler's (events.k8s.io/v1) count in a series
					if ev.Series != nil {
						n = ev.Series.Count
					}
					fmt.Fprintf(&b, "%s %s pod/%s x%d: %s\n", ev.Type, ev.Reason, ev.InvolvedObject.Name, max(n, 1), ev.Message)
				}
				return b.String()
			case "where":
				var b strings.Builder
				for _, o := range h.store.List(kinds.Pod, "") {
					b.WriteString(whereIs(h, o.GetName()))
				}
				return b.String()
			}
			t.Fatalf("unknown command %q", d.Cmd)
			return ""
		})
	})
}

func arg(d *datadriven.TestData, key, def string) string {
	if a, ok := d.Arg(key); ok && len(a.Vals) > 0 {
		return a.Vals[0]
	}
	return def
}

func args(d *datadriven.TestData, key string) []string {
	var out []string
	for _, a := range d.CmdArgs {
		if a.Key == key {
			out = append(out, a.Vals...)
		}
	}
	return out
}

func goldenNode(t *testing.T, d *datadriven.TestData) *corev1.Node {
	pods, _ := strconv.ParseInt(arg(d, "pods", "110"), 10, 64)
	n := st.MakeNode().Name(arg(d, "name", "")).Capacity(arg(d, "cpu", "4"), arg(d, "memory", "16Gi"), pods)
	if z := arg(d, "zone", ""); z != "" {
		n.Label(corev1.LabelTopologyZone, z)
	}
	for _, l := range args(d, "label") {
		k, v, _ := strings.Cut(l, "=")
		n.Label(k, v)
	}
	for _, tt := range args(d, "taint") {
		kv, effect, _ := strings.Cut(tt, ":")
		k, v, _ := strings.Cut(kv, "=")
		n.Taint(k, v, corev1.TaintEffect(effect))
	}
	if d.HasArg("unschedulable") {
		n.Unschedulable()
	}
	for _, img := range args(d, "image") {
		i := strings.LastIndex(img, ":")
		mib, err := strconv.ParseInt(img[i+1:], 10, 64)
		if err != nil {
			t.Fatalf("image %q: want name:MiB", img)
		}
		n.Image(img[:i], mib*1024*1024)
	}
	return n.Obj()
}

func goldenPod(t *testing.T, d *datadriven.TestData) *corev1.Pod {
	p := st.MakePod().Name(arg(d, "name", "")).Req(arg(d, "cpu", ""), arg(d, "memory", "")).Image(arg(d, "image", "nginx:1.27"))
	for _, s := range args(d, "selector") {
		k, v, _ := strings.Cut(s, "=")
		p.NodeSelector(k, v)
	}
	for _, s := range args(d, "tolerate") {
		k, effect, _ := strings.Cut(s, ":")
		p.Toleration(k, corev1.TolerationOpExists, "", corev1.TaintEffect(effect))
	}
	for _, s := range args(d, "prefer") {
		w, kv, _ := strings.Cut(s, ":")
		k, v, _ := strings.Cut(kv, "=")
		weight, _ := strconv.Atoi(w)
		p.PreferredNodeAffinity(int32(weight), k, corev1.NodeSelectorOpIn, v)
	}
	for _, s := range args(d, "label") {
		k, v, _ := strings.Cut(s, "=")
		p.Label(k, v)
	}
	// Pod (anti-)affinity: [weight:]k=v@hostname|zone|<key>.
	for _, kind := range []string{"affinity", "anti", "prefer-affinity", "prefer-anti"} {
		for _, s := range args(d, kind) {
			w, k, v, key := goldenTerm(s)
			switch kind {
			case "affinity":
				p.PodAffinity(k, v, key)
			case "anti":
				p.PodAntiAffinity(k, v, key)
			case "prefer-affinity":
				p.PreferredPodAffinity(w, k, v, key)
			case "prefer-anti":
				p.PreferredPodAntiAffinity(w, k, v, key)
			}
		}
	}
	// Topology spread: maxSkew:hostname|zone:DoNotSchedule|ScheduleAnyway:k=v.
	for _, s := range args(d, "spread") {
		parts := strings.SplitN(s, ":", 4)
		if len(parts) != 4 {
			t.Fatalf("spread %q: want maxSkew:key:when:k=v", s)
		}
		skew, _ := strconv.Atoi(parts[0])
		k, v, _ := strings.Cut(parts[3], "=")
		p.Spread(int32(skew), topologyKey(parts[1]), corev1.UnsatisfiableConstraintAction(parts[2]), k, v)
	}
	if pr := arg(d, "priority", ""); pr != "" {
		n, _ := strconv.Atoi(pr)
		p.Priority(int32(n))
	}
	obj := p.Obj()
	obj.Spec.PriorityClassName = arg(d, "class", "")

	obj.UID = ""
	return obj
}

func topologyKey(s string) string {
	switch s {
	case "hostname":
		return corev1.LabelHostname
	case "zone":
		return corev1.LabelTopologyZone
	}
	return s
}

// goldenTerm parses [weight:]k=v@key.
func goldenTerm(s string) (w int32, k, v, key string) {
	if ws, rest, ok := strings.Cut(s, ":"); ok {
		n, _ := strconv.Atoi(ws)
		w, s = int32(n), rest
	}
	kv, key, _ := strings.Cut(s, "@")
	k, v, _ = strings.Cut(kv, "=")
	return w, k, v, topologyKey(key)
}

func whereIs(h *harness, name string) string {
	p := h.pod(name)
	if p == nil {
		return name + ": gone\n"
	}
	if p.Spec.NodeName == "" {
		if nn := p.Status.NominatedNodeName; nn != "" {
			return name + ": Pending, nominated to " + nn + "\n"
		}
		return name + ": Pending\n"
	}
	if p.DeletionTimestamp != nil {
		return name + ": " + p.Spec.NodeName + ", terminating\n"
	}
	return name + ": " + p.Spec.NodeName + "\n"
}

func goldenPriorityClass(d *datadriven.TestData) *schedulingv1.PriorityClass {
	v, _ := strconv.Atoi(arg(d, "value", "0"))
	pc := &schedulingv1.PriorityClass{TypeMeta: metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1", Kind: "PriorityClass"},
		ObjectMeta: metav1.ObjectMeta{Name: arg(d, "name", "")}, Value: int32(v), GlobalDefault: d.HasArg("default")}
	if d.HasArg("never") {
		never := corev1.PreemptNever
		pc.PreemptionPolicy = &never
	}
	return pc
}
