package repl

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/kubeloop/kubeloop/engine/trace"
)

// traceDefaultMax is how many events a bare `trace` prints at most: a big
// cluster keeps 200,000, which no one reads in a terminal. --last and
// --since choose explicitly.
const traceDefaultMax = 1000

var (
	flagTraceComponent = Flag{Name: "component", Value: "COMPONENT", Usage: "only this component's events (kubelet matches every kubelet/NODE)",
		Values: []string{"kubectl", "apiserver", "scheduler", "deployment-controller", "replicaset-controller", "kubelet"}}
	flagTraceColumn = Flag{Name: "column", Value: "COLUMN", Usage: "only one column of the picture",
		Values: []string{"Declare", "Schedule", "Run", "Maintain"}}
	flagTraceLane    = Flag{Name: "lane", Value: "LANE", Usage: "only the control plane or the nodes", Values: []string{"control-plane", "node"}}
	flagTraceObject  = Flag{Name: "object", Value: "KIND/NAME", Usage: "only events about this object (pod/api-7d9f8c6b5-x2k4q)"}
	flagTraceSince   = Flag{Name: "since", Value: "DURATION", Usage: "only the last DURATION of virtual time (30s, 5m)"}
	flagTraceLast    = Flag{Name: "last", Value: "N", Usage: "only the last N matching events"}
	flagTraceExplain = Flag{Name: "explain", Usage: "print under each event why Kubernetes takes that step"}
	flagTraceOutput  = Flag{Name: "output", Short: "o", Value: "FORMAT", Usage: "json: one JSON object per event", Values: []string{"json"}}
)

func init() {
	register(&Command{
		Name:  "trace",
		Usage: "trace [--component COMPONENT] [--column COLUMN] [--object KIND/NAME] [--since DURATION | --last N] [--explain] [-o json]",
		Short: "show what the control plane and the nodes did, one line per step",
		Long: `trace prints the recorded steps of the simulated cluster, oldest first, one
line each, in a fixed order of fields:

  TIME  #SEQ  COLUMN  COMPONENT  OBJECT  MESSAGE  ← #CAUSE

TIME is virtual time since the cluster started, SEQ the step's number,
COLUMN where it sits in the picture of Kubernetes (Declare, Schedule, Run,
Maintain), COMPONENT who acted (kubectl is you; kubelet/n2 is the kubelet
on node n2), and ← #CAUSE the step that led to this one. Follow the arrows
back and you reach a command you typed; ` + "`why KIND/NAME`" + ` does that for you.

--explain adds, under each step, one sentence on why Kubernetes works that
way. -o json prints one JSON object per step (t, seq, component, column,
lane, object, message, cause) for tools. Without --since or --last, trace
prints at most the last ` + strconv.Itoa(traceDefaultMax) + ` matching steps.`,
		Example: "trace --column Maintain\ntrace --object deploy/api --explain\ntrace --last 20 -o json",
		Group:   GroupPlayground,
		Flags:   traceFlags,
		Run:     runTrace,
	})
}

// traceFlags are the trace command's flags.
var traceFlags = []Flag{flagTraceComponent, flagTraceColumn, flagTraceLane, flagTraceObject, FlagNamespace,
	flagTraceSince, flagTraceLast, flagTraceExplain, flagTraceOutput}

// parseTraceFilter reads the filter flags that trace and diagram share;
// defs are the running command's flags.
func parseTraceFilter(s *Session, f *Flags, defs []Flag) (traceFilter, error) {
	var tf traceFilter
	has := func(name string) bool {
		for _, d := range defs {
			if d.Name == name {
				return true
			}
		}
		return false
	}
	if has("component") {
		tf.component = f.String("component")
	}
	if has("column") && f.String("column") != "" {
		c, ok := trace.ParseColumn(f.String("column"))
		if !ok {
			return tf, kerrorf("unknown column %q: the columns are Declare, Schedule, Run and Maintain", f.String("column"))
		}
		tf.column = c
	}
	if has("lane") && f.String("lane") != "" {
		switch strings.ToLower(f.String("lane")) {
		case "control-plane", "controlplane", "control":
			tf.lane = trace.ControlPlane
		case "node", "nodes":
			tf.lane = trace.NodeLane
		default:
			return tf, kerrorf("unknown lane %q: the lanes are control-plane and node", f.String("lane"))
		}
	}
	if has("object") && f.String("object") != "" {
		ref, k, _, err := parseObjectRef(f.String("object"))
		if err != nil {
			return tf, err
		}
		tf.object = ref
		if k.Namespaced {
			tf.namespace = namespaceFlag(s, f)
		}
	}
	if has("since") && f.Changed("since") {
		d, err := parseVirtualDuration(f.String("since"))
		if err != nil {
			return tf, err
		}
		tf.since = d
	}
	if has("last") && f.Changed("last") {
		n, err := strconv.Atoi(f.String("last"))
		if err != nil || n <= 0 {
			return tf, kerrorf("--last must be a positive number of events, not %q", f.String("last"))
		}
		tf.last = n
	}
	return tf, nil
}

func runTrace(s *Session, args []string, _ string) error {
	f, err := s.Parse(args)
	if err != nil {
		return err
	}
	if len(f.Args) > 0 {
		return usagef("trace takes no arguments, only flags (did you mean --object %s?)", f.Args[0])
	}
	tf, err := parseTraceFilter(s, f, traceFlags)
	if err != nil {
		return err
	}
	out := f.String("output")
	if out != "" && out != "json" {
		return kerrorf("unable to match a printer suitable for the output format %q, allowed formats are: json", out)
	}
	tr := s.Eng.Trace
	evs := selectEvents(tr, s.Eng.Now(), tf)
	if tf.last == 0 && tf.since == 0 && len(evs) > traceDefaultMax {
		fmt.Fprintf(s.Err, "(showing the last %d of %d matching steps; choose with --last N or --since DURATION)\n",
			traceDefaultMax, len(evs))
		evs = evs[len(evs)-traceDefaultMax:]
	}
	if tr.Dropped() > 0 && tf.last == 0 && (tf.since == 0 || s.Eng.Now()-tf.since < firstKeptTime(tr)) {
		fmt.Fprintf(s.Err, "(the first %d steps have left the trace, which keeps the last %d)\n", tr.Dropped(), tr.Len())
	}
	if out == "json" {
		for _, e := range evs {
			b, err := json.Marshal(e)
			if err != nil {
				panic("repl: trace event does not marshal: " + err.Error())
			}
			fmt.Fprintf(s.Out, "%s\n", b)
		}
		return nil
	}
	if len(evs) == 0 {
		fmt.Fprintln(s.Err, "No trace events match.")
		return nil
	}
	writeEvents(s, evs, f.Bool("explain"))
	return nil
}

// writeEvents prints events in the one-line form, with their Why sentences
// if explain is set.
func writeEvents(s *Session, evs []trace.Event, explain bool) {
	l := layoutFor(evs)
	var b strings.Builder
	for _, e := range evs {
		b.WriteString(describeEvent(s, e, l))
		b.WriteByte('\n')
		if explain {
			for _, ln := range describeWhy(s, e, whyIndent(l)) {
				b.WriteString(ln)
				b.WriteByte('\n')
			}
		}
	}
	fmt.Fprint(s.Out, b.String())
}
