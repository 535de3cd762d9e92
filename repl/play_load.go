package repl

// load sets the demand a Deployment serves: the playground's stand-in for
// the clients that send it traffic (the HPA walkthrough's busybox wget
// loop). The metrics-server turns it into usage (engine/workload load.go).

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/workload"
)

func init() {
	register(&Command{
		Name:  "load",
		Usage: "load deployment/NAME --cpu QUANTITY [--memory QUANTITY] [-n NAMESPACE]",
		Short: "set the traffic a deployment serves, as the CPU and memory it costs",
		Long: `load sets a Deployment's total demand: the CPU (and memory) its clients'
requests cost to serve, as the HPA walkthrough's load generator does with a
wget loop. The demand is shared equally among the Deployment's ready pods,
as a Service spreads requests over its ready endpoints, and each pod's share
is capped at its CPU limit; every container also uses a small idle amount.
So adding replicas lowers each pod's usage.

A pod running the walkthrough's load generator does the same through a
Service: a busybox container whose command is a wget loop against
http://SERVICE (while sleep 0.01; do wget -q -O- http://php-apache; done)
adds 650m of demand to the Service's ready pods while it runs.

The metrics-server samples usage every 15 s (see top pods); a
HorizontalPodAutoscaler reacts at its next 15 s sync. --cpu 0 stops the load.`,
		Example: "load deployment/php-apache --cpu 1\nload deployment/php-apache --cpu 600m --memory 200Mi\nload deployment/php-apache --cpu 0",
		Group:   GroupPlayground,
		Flags: []Flag{
			{Name: "cpu", Value: "QUANTITY", Usage: "total CPU the traffic costs (1, 500m)"},
			{Name: "memory", Value: "QUANTITY", Usage: "total memory the traffic needs (200Mi)"},
			FlagNamespace,
		},
		Run: runLoad,
	})
}

func runLoad(s *Session, args []string, _ string) error {
	f, err := s.Parse(args)
	if err != nil {
		return err
	}
	if len(f.Args) != 1 {
		return usagef("load needs one deployment, as deployment/NAME")
	}
	_, k, name, err := parseObjectRef(f.Args[0])
	if err != nil {
		return err
	}
	if k != kinds.Deployment {
		return kerrorf("load applies to deployments only, not %s", k.Resource)
	}
	if !f.Changed("cpu") && !f.Changed("memory") {
		return usagef("load needs --cpu (and optionally --memory)")
	}
	ns := namespaceFlag(s, f)
	if _, ok := s.Eng.Store.Lookup(kinds.Deployment, ns, name); !ok {
		return kubectlError(notFound(kinds.Deployment, name))
	}
	var d workload.Demand
	old, _ := s.Eng.Loads.Get(ns, name)
	d = old
	for _, q := range []struct {
		flag string
		res  corev1.ResourceName
		into *int64
	}{{"cpu", corev1.ResourceCPU, &d.CPUMilli}, {"memory", corev1.ResourceMemory, &d.MemoryBytes}} {
		if !f.Changed(q.flag) {
			continue
		}
		v, err := resource.ParseQuantity(f.String(q.flag))
		if err != nil || v.Sign() < 0 {
			return kerrorf("invalid --%s %q: use a quantity such as 500m or 1 (CPU), 200Mi (memory)", q.flag, f.String(q.flag))
		}
		if q.res == corev1.ResourceCPU {
			*q.into = v.MilliValue()
		} else {
			*q.into = v.Value()
		}
	}
	s.Actor() // the command goes in the trace: what follows in the metrics starts here
	s.Eng.Loads.Set(ns, name, d)
	if d == (workload.Demand{}) {
		fmt.Fprintf(s.Out, "deployment.apps/%s: load stopped\n", name)
		return nil
	}
	fmt.Fprintf(s.Out, "deployment.apps/%s: load set to cpu %s", name, resource.NewMilliQuantity(d.CPUMilli, resource.DecimalSI))
	if d.MemoryBytes > 0 {
		fmt.Fprintf(s.Out, ", memory %s", resource.NewQuantity(d.MemoryBytes, resource.BinarySI))
	}
	fmt.Fprintln(s.Out, ", shared among its ready pods; the metrics-server samples it every 15s")
	return nil
}
