package kubelet

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/component"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/store"
	"github.com/kubeloop/kubeloop/engine/trace"
	"github.com/kubeloop/kubeloop/engine/workload"
)

// harness is a cluster with nothing but the API server, the store and the
// kubelets: the tests play the scheduler (bind) and the learner (create,
// delete), so that what they show is the kubelets' work alone, whatever the
// other components do.
type harness struct {
	tb     testing.TB
	loop   *sim.Loop
	st     *store.Store
	tr     *trace.Trace
	api    *apiserver.Server
	images *workload.Registry
	mgr    *Manager
	cursor int64
	shown  uint64 // trace events up to this seq have been printed
}

func newHarness(tb testing.TB, cfg Config, seed uint64) *harness {
	loop := sim.NewLoop()
	st := store.New()
	tr := trace.New(loop, 0)
	root := sim.NewRand(seed)
	h := &harness{tb: tb, loop: loop, st: st, tr: tr, api: apiserver.New(st, tr, loop, root.Derive()),
		images: workload.DefaultRegistry()}
	h.mgr = NewManager(component.Env{Loop: loop, Store: st, API: h.api, Trace: tr, Rand: root.Derive(), Images: h.images}, cfg)
	for _, ns := range []string{"default", NodeLeaseNamespace, "kube-system"} {
		h.must(h.api.Create(apiserver.Actor{Component: "apiserver"},
			&corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	}
	h.settle()
	h.shown = tr.NextSeq() - 1
	return h
}

func (h *harness) must(_ kinds.Object, err error) {
	h.tb.Helper()
	if err != nil {
		h.tb.Fatal(err)
	}
}

// settle delivers every write to the kubelets and lets them work until
// they are idle, as Engine.Settle does.
func (h *harness) settle() {
	for steps := 0; steps < 1_000_000; steps++ {
		evs, err := h.st.Since(h.cursor)
		if err != nil {
			h.tb.Fatal(err)
		}
		if len(evs) > 0 {
			batch := append([]store.Event(nil), evs...)
			for _, ev := range batch {
				h.mgr.Observe(ev)
			}
			h.cursor = batch[len(batch)-1].Rev
			continue
		}
		if !h.mgr.Work() {
			return
		}
	}
	h.tb.Fatal("kubelets did not settle")
}

func (h *harness) advance(d sim.Tick) {
	target := h.loop.Now() + d
	h.settle()
	for h.loop.FireNext(target) {
		h.settle()
	}
	if target > h.loop.Now() {
		h.loop.SetNow(target)
	}
	h.compact()
}

// advanceUntil moves time on until cond holds, checking after each
// instant; it fails the test after timeout.
func (h *harness) advanceUntil(cond func() bool, timeout sim.Tick) {
	h.tb.Helper()
	h.settle()
	limit := h.loop.Now() + timeout
	for !cond() {
		if !h.loop.FireNext(limit) {
			h.tb.Fatalf("condition not met within %s", timeout)
		}
		h.settle()
	}
}

// compact keeps long runs from growing the store's history without bound.
func (h *harness) compact() { h.st.Compact(h.cursor) }

func (h *harness) command(line string) apiserver.Actor {
	seq := h.tr.Record(trace.Event{Component: "kubectl", Lane: trace.ControlPlane, Column: trace.Declare, Message: line})
	return apiserver.Actor{Component: "kubectl", Cause: seq}
}

func (h *harness) addNode(name string, labels bool) {
	n := &corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}, ObjectMeta: metav1.ObjectMeta{Name: name}}
	if labels {
		n.Labels = map[string]string{corev1.LabelHostname: name, corev1.LabelOSStable: "linux", corev1.LabelArchStable: "amd64"}
		capacity := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"),
			corev1.ResourceMemory: resource.MustParse("16Gi"), corev1.ResourcePods: resource.MustParse("110")}
		n.Status = corev1.NodeStatus{Capacity: capacity, Allocatable: capacity.DeepCopy()}
	}
	h.must(h.api.Create(apiserver.Actor{Component: "kubelet/" + name}, n))
	h.settle()
}

type podOpts struct {
	name, node, policy string
	images             []string
	grace              *int64
	command            []string
	probes             bool // liveness and readiness httpGet / on port 80, every 10 s
}

func (h *harness) createPod(o podOpts) {
	pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: o.name, Namespace: "default"},
		Spec:       corev1.PodSpec{NodeName: o.node, TerminationGracePeriodSeconds: o.grace, RestartPolicy: corev1.RestartPolicyAlways}}
	for i, image := range o.images {
		name := "app"
		if len(o.images) > 1 {
			name = fmt.Sprintf("c%d", i+1)
		}
		policy := corev1.PullPolicy(o.policy)
		if policy == "" {
			policy = workload.DefaultPullPolicy(image)
		}
		c := corev1.Container{Name: name, Image: image, ImagePullPolicy: policy, Command: o.command}
		if o.probes {
			probe := func() *corev1.Probe {
				return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(80)}},
					PeriodSeconds: 10, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3}
			}
			c.LivenessProbe, c.ReadinessProbe = probe(), probe()
		}
		pod.Spec.Containers = append(pod.Spec.Containers, c)
	}
	line := fmt.Sprintf("create pod %s", o.name)
	h.must(h.api.Create(h.command(line), pod))
	h.settle()
}

func (h *harness) bind(pod, node string) {
	seq := h.tr.Record(trace.Event{Component: "scheduler", Lane: trace.ControlPlane, Column: trace.Schedule,
		Namespace: "default", Object: "pod/" + pod, Message: "bound pod to " + node})
	if _, err := h.api.Bind(apiserver.Actor{Component: "scheduler", Cause: seq}, "default", pod, node); err != nil {
		h.tb.Fatal(err)
	}
	h.settle()
}

func (h *harness) deletePod(name string, grace *int64) {
	_, err := h.api.Delete(h.command("delete pod "+name), kinds.Pod, "default", name, apiserver.DeleteOptions{GracePeriodSeconds: grace})
	if err != nil {
		h.tb.Fatal(err)
	}
	h.settle()
}

func (h *harness) pod(name string) *corev1.Pod {
	o, ok := h.st.Lookup(kinds.Pod, "default", name)
	if !ok {
		return nil
	}
	return o.(*corev1.Pod)
}

func (h *harness) ready(name string) func() bool {
	return func() bool {
		p := h.pod(name)
		if p == nil {
			return false
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				return true
			}
		}
		return false
	}
}

// describeTrace prints the trace events not printed yet, one per line.
func (h *harness) describeTrace(why bool) string {
	var b strings.Builder
	for _, e := range h.tr.Since(h.shown + 1) {
		obj := e.Object
		if e.Namespace != "" {
			obj = e.Namespace + "/" + obj
		}
		fmt.Fprintf(&b, "%s #%d %s [%s] %s: %s (cause #%d", e.T, e.Seq, e.Component, e.Column, obj, e.Message, e.Cause)
		if e.Rev != 0 {
			fmt.Fprintf(&b, ", rev %d", e.Rev)
		}
		b.WriteString(")\n")
		if why && e.Why != "" {
			fmt.Fprintf(&b, "    why: %s\n", e.Why)
		}
	}
	h.shown = h.tr.NextSeq() - 1
	return b.String()
}

// describeColumn prints the trace events of one column not printed yet
// (the others are skipped).
func (h *harness) describeColumn(column string, why bool) string {
	all := h.describeTrace(why)
	var b strings.Builder
	keep := false
	for _, line := range strings.SplitAfter(all, "\n") {
		if strings.HasPrefix(line, "    why:") {
			if keep {
				b.WriteString(line)
			}
			continue
		}
		keep = strings.Contains(line, "["+column+"]")
		if keep {
			b.WriteString(line)
		}
	}
	return b.String()
}

// describePod prints a pod's status as a learner would read it.
func describePod(p *corev1.Pod) string {
	if p == nil {
		return "(gone)\n"
	}
	var b strings.Builder
	st := p.Status
	fmt.Fprintf(&b, "phase: %s  hostIP: %s  podIP: %s  qosClass: %s\n", st.Phase, st.HostIP, st.PodIP, st.QOSClass)
	if st.StartTime != nil {
		fmt.Fprintf(&b, "startTime: %s\n", sim.FromTime(st.StartTime.Time))
	}
	for _, c := range st.Conditions {
		fmt.Fprintf(&b, "condition %s=%s", c.Type, c.Status)
		if c.Reason != "" {
			fmt.Fprintf(&b, " reason=%s", c.Reason)
		}
		if c.Message != "" {
			fmt.Fprintf(&b, " message=%q", c.Message)
		}
		fmt.Fprintf(&b, " since %s\n", sim.FromTime(c.LastTransitionTime.Time))
	}
	for _, cs := range st.ContainerStatuses {
		fmt.Fprintf(&b, "container %s: ", cs.Name)
		switch {
		case cs.State.Waiting != nil:
			fmt.Fprintf(&b, "waiting %s", cs.State.Waiting.Reason)
			if cs.State.Waiting.Message != "" {
				fmt.Fprintf(&b, " %q", cs.State.Waiting.Message)
			}
		case cs.State.Running != nil:
			fmt.Fprintf(&b, "running since %s", sim.FromTime(cs.State.Running.StartedAt.Time))
		case cs.State.Terminated != nil:
			t := cs.State.Terminated
			fmt.Fprintf(&b, "terminated %s exit %d", t.Reason, t.ExitCode)
			if !t.FinishedAt.IsZero() {
				fmt.Fprintf(&b, " at %s", sim.FromTime(t.FinishedAt.Time))
			}
			if t.Message != "" {
				fmt.Fprintf(&b, " %q", t.Message)
			}
		}
		started := cs.Started != nil && *cs.Started
		fmt.Fprintf(&b, " ready=%t started=%t restarts=%d image=%s", cs.Ready, started, cs.RestartCount, cs.Image)
		if t := cs.LastTerminationState.Terminated; t != nil {
			fmt.Fprintf(&b, " lastState=%s exit %d from %s to %s", t.Reason, t.ExitCode, sim.FromTime(t.StartedAt.Time), sim.FromTime(t.FinishedAt.Time))
		}
		if cs.ImageID != "" {
			fmt.Fprintf(&b, " imageID=%s", shortDigest(cs.ImageID))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func shortDigest(s string) string {
	if i := strings.Index(s, "sha256:"); i >= 0 && len(s) > i+19 {
		return s[:i+19] + "…"
	}
	return s
}

// describeEvents prints the Kubernetes Events about an object, oldest
// first, as `kubectl describe` lists them.
func (h *harness) describeEvents(kind, name string) string {
	var evs []*corev1.Event
	for _, o := range h.st.List(kinds.Event, "") {
		e := o.(*corev1.Event)
		if e.InvolvedObject.Kind == kind && e.InvolvedObject.Name == name {
			evs = append(evs, e)
		}
	}
	// In the order they were first recorded (an Event's name ends in the
	// time it was made, in fixed-width hex), with the count and last time
	// of one that repeated (the correlator bumps them).
	sort.Slice(evs, func(i, j int) bool { return evs[i].Name < evs[j].Name })
	var b strings.Builder
	for _, e := range evs {
		source := e.Source.Component
		if e.Source.Host != "" {
			source += ", " + e.Source.Host
		}
		if e.InvolvedObject.FieldPath != "" { // kubectl's SUBOBJECT
			source += " " + e.InvolvedObject.FieldPath
		}
		fmt.Fprintf(&b, "%s %-7s %-24s %s: %s", sim.FromTime(e.FirstTimestamp.Time), e.Type, e.Reason, source, e.Message)
		if e.Count > 1 {
			fmt.Fprintf(&b, " (x%d, last %s)", e.Count, sim.FromTime(e.LastTimestamp.Time))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func sortStrings(s []string) { sort.Strings(s) }

func apiDeleteOptions() apiserver.DeleteOptions { return apiserver.DeleteOptions{} }
