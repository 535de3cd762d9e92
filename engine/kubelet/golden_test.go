package kubelet

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/trace"
	"github.com/kubeloop/kubeloop/engine/workload"
)

// TestGolden replays the scenarios in testdata/ and compares what the
// kubelets did (the trace, pod status, Kubernetes Events, logs) with the
// recorded output. Regenerate with `go test ./engine/kubelet -rewrite`.
//
// Warning: only commit a rewritten golden file if you have read the diff
// and understand what caused every change (etcd-io/raft's advice).
//
// Commands:
//
//	seed N                          start a fresh cluster with that seed (default 1)
//	node NAME [bare]                add a node (bare: as a manifest without labels or capacity)
//	delete-node NAME
//	pod NAME image=I[,I2] [node=N] [policy=P] [grace=S] [command=C]
//	bind POD NODE                   bind as the scheduler would
//	delete POD [grace=S]
//	push IMAGE size=BYTES [startup=D] [memory=BYTES] [leak=BYTES_PER_S] [ports=P,...]   add an image to the registry
//	apply                           create the objects of the YAML input through the API server (defaults, validation)
//	kill POD [container=C] [code=N] | break POD KIND [container=C] | heal POD [KIND]
//	restarts POD                    the container's restart count, state and lastState
//	advance D | until-ready POD [timeout=D]
//	trace [why]                     trace events since the last trace
//	status POD | events KIND NAME | logs POD [container=C] | images NODE | lease NODE
func TestGolden(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		h := newHarness(t, DefaultConfig(), 1)
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			return h.run(t, d)
		})
	})
}

func (h *harness) run(t *testing.T, d *datadriven.TestData) string {
	arg := func(key string) string {
		for _, a := range d.CmdArgs {
			if a.Key == key && len(a.Vals) > 0 {
				return strings.Join(a.Vals, ",")
			}
		}
		return ""
	}
	pos := func(i int) string {
		n := 0
		for _, a := range d.CmdArgs {
			if len(a.Vals) == 0 {
				if n == i {
					return a.Key
				}
				n++
			}
		}
		t.Fatalf("%s: missing argument %d", d.Pos, i+1)
		return ""
	}
	dur := func(s string) sim.Tick {
		td, err := time.ParseDuration(s)
		if err != nil {
			t.Fatalf("%s: %v", d.Pos, err)
		}
		return sim.FromDuration(td)
	}
	grace := func() *int64 {
		if s := arg("grace"); s != "" {
			g, _ := strconv.ParseInt(s, 10, 64)
			return &g
		}
		return nil
	}
	switch d.Cmd {
	case "seed":
		n, _ := strconv.ParseUint(pos(0), 10, 64)
		*h = *newHarness(t, DefaultConfig(), n)
		return ""
	case "node":
		h.addNode(pos(0), !d.HasArg("bare"))
		return h.describeTrace(false)
	case "delete-node":
		if _, err := h.api.Delete(h.command("delete node "+pos(0)), kinds.Node, "", pos(0), apiDeleteOptions()); err != nil {
			return err.Error()
		}
		h.settle()
		return h.describeTrace(false)
	case "pod":
		o := podOpts{name: pos(0), node: arg("node"), policy: arg("policy"), grace: grace()}
		o.images = strings.Split(arg("image"), ",")
		if c := arg("command"); c != "" {
			o.command = strings.Split(c, ",")
		}
		h.createPod(o)
		return h.describeTrace(false)
	case "bind":
		h.bind(pos(0), pos(1))
		return h.describeTrace(d.HasArg("why"))
	case "delete":
		h.deletePod(pos(0), grace())
		return h.describeTrace(false)
	case "push":
		size, _ := strconv.ParseInt(arg("size"), 10, 64)
		img := workload.Image{Repository: pos(0), SizeBytes: size}
		if s := arg("startup"); s != "" {
			img.StartupTime = dur(s)
		}
		if s := arg("memory"); s != "" {
			img.Behavior.MemoryBytes, _ = strconv.ParseInt(s, 10, 64)
		}
		if s := arg("leak"); s != "" {
			img.Behavior.MemoryGrowthBytesPerSecond, _ = strconv.ParseInt(s, 10, 64)
		}
		if s := arg("ports"); s != "" {
			for _, p := range strings.Split(s, ",") {
				n, _ := strconv.Atoi(p)
				img.Ports = append(img.Ports, int32(n))
			}
		}
		if _, err := h.images.Add(img); err != nil {
			return err.Error() + "\n"
		}
		return ""
	case "apply":
		res, err := h.api.Apply(h.command("apply -f -"), "-", []byte(d.Input), apiserver.ApplyOptions{})
		var b strings.Builder
		for _, r := range res {
			b.WriteString(r.String() + "\n")
		}
		if err != nil {
			b.WriteString("error: " + err.Error() + "\n")
		}
		h.settle()
		return b.String() + h.describeTrace(false)
	case "kill":
		code := int64(KillExitCode)
		if s := arg("code"); s != "" {
			code, _ = strconv.ParseInt(s, 10, 32)
		}
		if err := h.mgr.Kill(h.tr.Record(trace.Event{Component: "kubectl", Column: trace.Declare, Message: "kill pod/" + pos(0)}), "default", pos(0), arg("container"), int32(code)); err != nil {
			return "error: " + err.Error() + "\n"
		}
		h.settle()
		return h.describeTrace(d.HasArg("why"))
	case "break", "heal":
		kind := ""
		if d.Cmd == "break" || len(d.CmdArgs) > 1 && len(d.CmdArgs[1].Vals) == 0 {
			kind = pos(1)
		}
		f := h.mgr.Break
		if d.Cmd == "heal" {
			f = h.mgr.Heal
		}
		if err := f(h.tr.Record(trace.Event{Component: "kubectl", Column: trace.Declare, Message: d.Cmd + " pod/" + pos(0) + " " + kind}), "default", pos(0), arg("container"), kind); err != nil {
			return "error: " + err.Error() + "\n"
		}
		h.settle()
		return h.describeTrace(d.HasArg("why"))
	case "advance":
		h.advance(dur(pos(0)))
		if c := arg("column"); c != "" {
			return h.describeColumn(c, d.HasArg("why"))
		}
		return h.describeTrace(d.HasArg("why"))
	case "until-ready":
		timeout := 5 * sim.Minute
		if s := arg("timeout"); s != "" {
			timeout = dur(s)
		}
		h.advanceUntil(h.ready(pos(0)), timeout)
		return fmt.Sprintf("ready at %s\n", h.loop.Now()) + h.describeTrace(d.HasArg("why"))
	case "trace":
		return h.describeTrace(d.HasArg("why"))
	case "status":
		return describePod(h.pod(pos(0)))
	case "events":
		return h.describeEvents(pos(0), pos(1))
	case "logs":
		lines, err := h.mgr.Logs("default", pos(0), arg("container"), d.HasArg("previous"))
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		return FormatLogs(lines, d.HasArg("timestamps"))
	case "images":
		o, _ := h.st.Lookup(kinds.Node, "", pos(0))
		var b strings.Builder
		for _, img := range o.(*corev1.Node).Status.Images {
			names := make([]string, len(img.Names))
			for i, n := range img.Names {
				names[i] = shortDigest(n)
			}
			fmt.Fprintf(&b, "%d %s\n", img.SizeBytes, strings.Join(names, " "))
		}
		return b.String()
	case "node-status":
		o, _ := h.st.Lookup(kinds.Node, "", pos(0))
		return describeNode(o.(*corev1.Node))
	case "lease":
		o, ok := h.st.Lookup(kinds.Lease, NodeLeaseNamespace, pos(0))
		if !ok {
			return "(no lease)\n"
		}
		l := o.(*coordinationv1.Lease)
		return fmt.Sprintf("holder=%s duration=%ds renewed=%s owner=%s/%s\n", *l.Spec.HolderIdentity,
			*l.Spec.LeaseDurationSeconds, sim.FromTime(l.Spec.RenewTime.Time), l.OwnerReferences[0].Kind, l.OwnerReferences[0].Name)
	case "stats":
		k, ok := h.mgr.Kubelet(pos(0))
		if !ok {
			return "(no kubelet)\n"
		}
		s := k.Stats()
		return fmt.Sprintf("pod events %d, syncs %d, lease renewals %d, status reports %d, status updates %d, pulls %d\n",
			s.PodEvents, s.PodSyncs, s.LeaseRenewals, s.StatusReports, s.StatusUpdates, s.ImagePulls)
	}
	t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
	return ""
}

func describeNode(n *corev1.Node) string {
	var b strings.Builder
	fmt.Fprintf(&b, "labels: %s\n", joinMap(n.Labels))
	fmt.Fprintf(&b, "podCIDR: %s %v\n", n.Spec.PodCIDR, n.Spec.PodCIDRs)
	for _, c := range n.Status.Conditions {
		fmt.Fprintf(&b, "condition %s=%s %s %q heartbeat %s since %s\n", c.Type, c.Status, c.Reason, c.Message,
			sim.FromTime(c.LastHeartbeatTime.Time), sim.FromTime(c.LastTransitionTime.Time))
	}
	for _, a := range n.Status.Addresses {
		fmt.Fprintf(&b, "address %s %s\n", a.Type, a.Address)
	}
	i := n.Status.NodeInfo
	fmt.Fprintf(&b, "nodeInfo: kubelet %s, runtime %s, %s, kernel %s, %s/%s\n", i.KubeletVersion, i.ContainerRuntimeVersion,
		i.OSImage, i.KernelVersion, i.OperatingSystem, i.Architecture)
	fmt.Fprintf(&b, "capacity: cpu=%s memory=%s pods=%s\n", n.Status.Capacity.Cpu(), n.Status.Capacity.Memory(), n.Status.Capacity.Pods())
	fmt.Fprintf(&b, "kubeletEndpoint: %d\n", n.Status.DaemonEndpoints.KubeletEndpoint.Port)
	return b.String()
}

func joinMap(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return strings.Join(parts, ",")
}
