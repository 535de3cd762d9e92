package engine_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/kubeloop/kubeloop/engine"
	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/trace"
	"github.com/kubeloop/kubeloop/engine/workload"
)

// TestScenarios replays the scenarios in testdata/*.txt: whole-engine
// stories told by the trace, from a learner's command to the last endpoint.
//
// Directives:
//
//	cluster seed=N nodes=N        a fresh cluster
//	image NAME size=MB startup=D  push an image to the simulated registry
//	apply                         apply the manifest in the input, as kubectl
//	advance D                     move virtual time; print the trace since the last print
//	columns                       the order in which the columns first act since the apply
//
// These are golden files: after `go test ./engine -run Scenarios -rewrite`,
// read every changed line and commit only what you understand and what is
// still true to Kubernetes (etcd-io/raft's warning on its interaction tests).
func TestScenarios(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var e *engine.Engine
		var mark uint64 // first trace seq not yet printed
		var applied uint64
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
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
				return fmt.Sprintf("%d nodes, seed %d, revision %d", nodes, seed, e.Store.Rev())
			case "image":
				var name, startup string
				var mb int
				d.ScanArgs(t, "size", &mb)
				d.ScanArgs(t, "startup", &startup)
				name = d.CmdArgs[0].Key
				dur, err := parseDuration(startup)
				if err != nil {
					d.Fatalf(t, "startup: %v", err)
				}
				img, err := e.Images.Add(workload.Image{Repository: name, SizeBytes: int64(mb) << 20,
					StartupTime: dur, Ports: []int32{8080}, Description: "the shop's API"})
				if err != nil {
					return "error: " + err.Error()
				}
				return "pushed " + img.Ref()
			case "apply":
				actor := e.Command("apply -f classic.yaml")
				applied = actor.Cause
				res, err := e.API.Apply(actor, "classic.yaml", []byte(d.Input), apiserver.ApplyOptions{})
				if err != nil {
					return "error: " + err.Error()
				}
				var b strings.Builder
				for _, r := range res {
					fmt.Fprintln(&b, r.String())
				}
				return b.String()
			case "advance":
				dur, err := parseDuration(d.CmdArgs[0].Key)
				if err != nil {
					d.Fatalf(t, "%v", err)
				}
				e.Advance(dur)
				var b strings.Builder
				for _, ev := range e.Trace.Since(mark) {
					fmt.Fprintln(&b, describe(ev))
				}
				mark = e.Trace.NextSeq()
				return b.String()
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

// describe is the compact one-line form of an event used by the engine's
// golden files: time, seq, column, component, object, message, cause.
func describe(e trace.Event) string {
	s := fmt.Sprintf("%9s #%-3d %-8s %-24s %-26s %s", e.T, e.Seq, e.Column, e.Component, e.Object, e.Message)
	if e.Cause != 0 {
		s += fmt.Sprintf(" ← #%d", e.Cause)
	}
	return strings.TrimRight(s, " ")
}
