package engine_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine"
	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/controller"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/store"
	"github.com/kubeloop/kubeloop/engine/trace"
	"github.com/kubeloop/kubeloop/engine/workload"
)

// TestScenarios replays the scenarios in testdata/*.txt: whole-engine
// stories told by the trace with exact ticks, from a learner's command to
// the last endpoint — the classic example, node failure and eviction.
//
// Directives:
//
//	cluster seed=N nodes=N            a fresh cluster
//	image NAME size=MB startup=D      push an image to the simulated registry
//	apply [file=NAME]                 apply the manifest in the input, as kubectl apply -f NAME (default -)
//	fail NAME | recover NAME          node fail NAME, node recover NAME
//	advance D [grep=WORD] [hide=C]    move virtual time; print the trace since the last print
//	                                  (only lines containing WORD; without component C's steps)
//	columns                           the order in which the columns first act since the last apply
//	pods                              every pod: node, phase, Ready, deleting
//	node NAME                         a node's conditions and taints
//	events [grep=WORD]                Kubernetes Events, oldest first
//
// These are golden files: after `go test ./engine -run Scenarios -rewrite`,
// read every changed line and commit only what you understand and what is
// still true to Kubernetes (etcd-io/raft's warning on its interaction tests).
func TestScenarios(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var e *engine.Engine
		var mark uint64    // first trace seq not yet printed
		var applied uint64 // the last apply's command
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			var grep, hide string
			if d.HasArg("grep") {
				d.ScanArgs(t, "grep", &grep)
			}
			if d.HasArg("hide") {
				d.ScanArgs(t, "hide", &hide)
			}
			switch d.Cmd {
			case "cluster":
				var seed uint64 = engine.DefaultSeed
				nodes := engine.DefaultClusterSize
				if d.HasArg("seed") {
					d.ScanArgs(t, "seed", &seed)
				}
				if d.HasArg("nodes") {
					d.ScanArgs(t, "nodes", &nodes)
				}
				e = engine.New(engine.Config{Seed: seed, Nodes: engine.DefaultNodes(nodes)})
				mark = e.Trace.NextSeq()
				return fmt.Sprintf("%d nodes, seed %d", nodes, seed)
			case "image":
				var startup string
				var mb int
				d.ScanArgs(t, "size", &mb)
				d.ScanArgs(t, "startup", &startup)
				dur, err := parseDuration(startup)
				if err != nil {
					d.Fatalf(t, "startup: %v", err)
				}
				img, err := e.Images.Add(workload.Image{Repository: d.CmdArgs[0].Key, SizeBytes: int64(mb) << 20,
					StartupTime: dur, Ports: []int32{8080}, Description: "the shop's API"})
				if err != nil {
					return "error: " + err.Error()
				}
				return "pushed " + img.Ref()
			case "apply":
				file := "-"
				if d.HasArg("file") {
					d.ScanArgs(t, "file", &file)
				}
				actor := e.Command("apply -f " + file)
				applied = actor.Cause
				res, err := e.API.Apply(actor, file, []byte(d.Input), apiserver.ApplyOptions{})
				if err != nil {
					return "error: " + err.Error()
				}
				var b strings.Builder
				for _, r := range res {
					fmt.Fprintln(&b, r.String())
				}
				return b.String()
			case "fail", "recover":
				name := d.CmdArgs[0].Key
				actor := e.Command("node " + d.Cmd + " " + name)
				var err error
				if d.Cmd == "fail" {
					err = e.FailNode(actor.Cause, name)
				} else {
					err = e.RecoverNode(actor.Cause, name)
				}
				if err != nil {
					return "error: " + err.Error()
				}
				e.Settle()
				return traceSince(e, &mark, grep, hide)
			case "advance":
				dur, err := parseDuration(d.CmdArgs[0].Key)
				if err != nil {
					d.Fatalf(t, "%v", err)
				}
				e.Advance(dur)
				return traceSince(e, &mark, grep, hide)
			case "columns":
				var order []string
				seen := map[trace.Column]bool{}
				for _, ev := range e.Trace.Since(applied) {
					if !seen[ev.Column] {
						seen[ev.Column] = true
						order = append(order, ev.Column.String())
					}
				}
				return strings.Join(order, " → ")
			case "pods":
				return podTable(e)
			case "node":
				return nodeState(e, d.CmdArgs[0].Key)
			case "events":
				return eventList(e, grep)
			}
			d.Fatalf(t, "unknown directive %s", d.Cmd)
			return ""
		})
	})
}

func parseDuration(s string) (sim.Tick, error) {
	d, err := time.ParseDuration(s)
	return sim.FromDuration(d), err
}

// traceSince prints the trace since *mark and moves the mark.
func traceSince(e *engine.Engine, mark *uint64, grep, hide string) string {
	var b strings.Builder
	for _, ev := range e.Trace.Since(*mark) {
		if hide != "" && ev.Component == hide {
			continue
		}
		line := describe(ev)
		if grep == "" || strings.Contains(line, grep) {
			fmt.Fprintln(&b, line)
		}
	}
	*mark = e.Trace.NextSeq()
	return b.String()
}

// describe is the compact one-line form of an event used by the engine's
// golden files: time, seq, column, component, object, message, cause.
func describe(e trace.Event) string {
	s := fmt.Sprintf("%11s #%-4d %-8s %-26s %-26s %s", e.T, e.Seq, e.Column, e.Component, e.Object, e.Message)
	if e.Cause != 0 {
		s += fmt.Sprintf(" ← #%d", e.Cause)
	}
	return strings.TrimRight(s, " ")
}

func podTable(e *engine.Engine) string {
	var b strings.Builder
	for _, o := range e.Store.List(kinds.Pod, "") {
		p := o.(*corev1.Pod)
		ready := "-"
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady {
				ready = string(c.Status)
			}
		}
		del := ""
		if p.DeletionTimestamp != nil {
			del = " Terminating since " + sim.FromTime(p.DeletionTimestamp.Time).String()
		}
		node := p.Spec.NodeName
		if node == "" {
			node = "<none>"
		}
		fmt.Fprintf(&b, "%s/%s on %s: %s, Ready=%s%s\n", p.Namespace, p.Name, node, p.Status.Phase, ready, del)
	}
	return b.String()
}

func nodeState(e *engine.Engine, name string) string {
	o, ok := e.Store.Lookup(kinds.Node, "", name)
	if !ok {
		return "not found"
	}
	n := o.(*corev1.Node)
	var b strings.Builder
	for _, c := range n.Status.Conditions {
		fmt.Fprintf(&b, "%s=%s %s %q since %s\n", c.Type, c.Status, c.Reason, c.Message,
			sim.FromTime(c.LastTransitionTime.Time))
	}
	for _, tn := range n.Spec.Taints {
		added := ""
		if tn.TimeAdded != nil {
			added = " added " + sim.FromTime(tn.TimeAdded.Time).String()
		}
		fmt.Fprintf(&b, "taint %s:%s%s\n", tn.Key, tn.Effect, added)
	}
	return b.String()
}

func eventList(e *engine.Engine, grep string) string {
	var evs []*corev1.Event
	for _, o := range e.Store.List(kinds.Event, "") {
		evs = append(evs, o.(*corev1.Event))
	}
	// kubectl's order and columns, for Events of either API: the
	// scheduler's (events.k8s.io/v1) have an eventTime, a series and a
	// reporting controller, not first and last timestamps and a source.
	lastSeen := func(ev *corev1.Event) time.Time {
		switch {
		case ev.Series != nil:
			return ev.Series.LastObservedTime.Time
		case !ev.LastTimestamp.IsZero():
			return ev.LastTimestamp.Time
		}
		return ev.EventTime.Time
	}
	sort.SliceStable(evs, func(i, j int) bool { return lastSeen(evs[i]).Before(lastSeen(evs[j])) })
	var b strings.Builder
	for _, ev := range evs {
		source := ev.Source.Component
		if source == "" {
			source = ev.ReportingController
		}
		line := fmt.Sprintf("%9s %-7s %-20s %s/%s %s (%s)", sim.FromTime(lastSeen(ev)), ev.Type,
			ev.Reason, strings.ToLower(ev.InvolvedObject.Kind), ev.InvolvedObject.Name, ev.Message, source)
		if grep == "" || strings.Contains(line, grep) {
			fmt.Fprintln(&b, line)
		}
	}
	return b.String()
}

// BenchmarkNodeLifecycleIdleHour is an hour of virtual time on 100 idle
// nodes: every kubelet renews its Lease every 10 s and the node lifecycle
// controller checks all of them every 5 s.
func BenchmarkNodeLifecycleIdleHour(b *testing.B) {
	controller.VerifyTallies, store.VerifyEncoding, framework.VerifyNodesScorers = false, false, false // measure the engine, not the tests' checks
	for i := 0; i < b.N; i++ {
		e := engine.New(engine.Config{Nodes: engine.DefaultNodes(100)})
		e.Advance(sim.Hour)
	}
}
