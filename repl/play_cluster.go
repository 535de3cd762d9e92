package repl

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kubeloop/kubeloop/engine"
)

// maxNodes bounds reset --nodes: the engine is built for thousands of nodes,
// not for a typo's millions.
const maxNodes = 5000

var (
	flagNodes = Flag{Name: "nodes", Value: "N", Usage: fmt.Sprintf("number of nodes (default %d)", engine.DefaultClusterSize)}
	flagSeed  = Flag{Name: "seed", Value: "N", Usage: "root seed of the cluster's random choices (default: the session's)"}
)

func init() {
	register(&Command{
		Name:  "reset",
		Usage: "reset [--nodes N] [--seed N]",
		Short: "start again on a fresh cluster",
		Long: fmt.Sprintf(`reset throws the cluster away and starts a fresh one at virtual time 0: the
built-in cluster of n1..nN (default %d) workers spread over zones zone-a,
zone-b and zone-c, each with %s CPU, %s memory and room for %d pods. The
seed stays the same unless --seed is given, so a reset replays the same
random choices (scheduler tie-breaks, generated names).`,
			engine.DefaultClusterSize, engine.DefaultNodeCPU.String(), engine.DefaultNodeMemory.String(), engine.DefaultNodePods),
		Example: "reset\nreset --nodes 5\nreset --nodes 3 --seed 7",
		Group:   GroupSession,
		Flags:   []Flag{flagNodes, flagSeed},
		Run:     runReset,
	})
	register(&Command{
		Name:  "seed",
		Usage: "seed [N]",
		Short: "show the seed, or set it (which resets the cluster)",
		Long: `seed prints the root seed every random choice of the cluster derives from.
The same commands with the same seed print the same bytes. seed N sets the
seed and resets the cluster (same number of nodes), so that the new seed
governs everything from time 0.`,
		Example: "seed\nseed 42",
		Group:   GroupSession,
		Run:     runSeed,
	})
	register(&Command{
		Name:  "node",
		Usage: "node (add|fail|recover) NAME [--cpu CPU] [--memory MEMORY] [--pods N] [--label KEY=VALUE]... [--taint KEY[=VALUE]:EFFECT]...",
		Short: "add a simulated worker node, or make one fail and recover",
		Long: fmt.Sprintf(`node add registers a new worker node, as a kubelet does when it first starts:
the Node object gets the capacity given (default %s CPU, %s memory, %d pods),
the labels every kubelet sets (kubernetes.io/hostname, kubernetes.io/os,
kubernetes.io/arch) plus any --label, and any --taint (effects NoSchedule,
PreferNoSchedule, NoExecute). A simulated kubelet then runs on it.
Applying a v1 Node manifest does the same.

node fail stops a node's kubelet, as a crash or a network partition would:
no more Lease renewals, no node or pod status. After 50 s of silence
(--node-monitor-grace-period) the node lifecycle controller sets the node's
Ready condition to Unknown and taints it node.kubernetes.io/unreachable; its
pods are evicted when their 300 s toleration runs out and stay Terminating
until the node recovers. node recover brings the kubelet back: it posts
Ready, the taints go, and it removes the pods deleted meanwhile.`,
			engine.DefaultNodeCPU.String(), engine.DefaultNodeMemory.String(), engine.DefaultNodePods),
		Example: "node fail n1\nnode recover n1\nnode add n4\nnode add gpu1 --cpu 8 --memory 32Gi --label accelerator=gpu --taint gpu=true:NoSchedule",
		Group:   GroupPlayground,
		Flags: []Flag{
			{Name: "cpu", Value: "CPU", Usage: "CPU capacity (4, 500m)"},
			{Name: "memory", Value: "MEMORY", Usage: "memory capacity (16Gi, 512Mi)"},
			{Name: "pods", Value: "N", Usage: "the most pods the kubelet runs (maxPods)"},
			{Name: "label", Value: "KEY=VALUE", Usage: "a node label; repeat for more"},
			{Name: "taint", Value: "KEY[=VALUE]:EFFECT", Usage: "a taint; repeat for more"},
		},
		Run: runNode,
	})
}

func runReset(s *Session, args []string, _ string) error {
	f, err := s.Parse(args)
	if err != nil {
		return err
	}
	if len(f.Args) > 0 {
		return usagef("reset takes no arguments, only flags")
	}
	n := len(s.nodes)
	if f.Changed("nodes") {
		if n, err = f.Int("nodes"); err != nil {
			return err
		}
		if n < 0 || n > maxNodes {
			return usagef("--nodes must be between 0 and %d", maxNodes)
		}
	}
	seed := s.Eng.Seed
	if f.Changed("seed") {
		if seed, err = parseSeed(f.String("seed")); err != nil {
			return err
		}
	}
	s.Reset(seed, engine.DefaultNodes(n))
	fmt.Fprintf(s.Out, "cluster reset: %s, seed %d\n", describeNodes(n), seed)
	return nil
}

func runSeed(s *Session, args []string, _ string) error {
	switch len(args) {
	case 0:
		fmt.Fprintf(s.Out, "seed %d\n", s.Eng.Seed)
		return nil
	case 1:
		seed, err := parseSeed(args[0])
		if err != nil {
			return err
		}
		n := len(s.nodes)
		s.Reset(seed, engine.DefaultNodes(n))
		fmt.Fprintf(s.Out, "seed %d; cluster reset: %s\n", seed, describeNodes(n))
		return nil
	}
	return usagef("seed takes at most one number")
}

func parseSeed(v string) (uint64, error) {
	seed, err := strconv.ParseUint(v, 10, 64)
	if err != nil || seed == 0 {
		return 0, usagef("a seed is a whole number from 1 to %d, not %q", uint64(1<<64-1), v)
	}
	return seed, nil
}

func describeNodes(n int) string {
	switch n {
	case 0:
		return "0 nodes"
	case 1:
		return "1 node (n1)"
	case 2:
		return "2 nodes (n1, n2)"
	case 3:
		return "3 nodes (n1, n2, n3)"
	}
	return fmt.Sprintf("%d nodes (n1..n%d)", n, n)
}

func runNode(s *Session, args []string, _ string) error {
	f, err := s.Parse(args)
	if err != nil {
		return err
	}
	if len(f.Args) > 0 && (f.Args[0] == "fail" || f.Args[0] == "recover") {
		return runNodeFault(s, f.Args)
	}
	if len(f.Args) == 0 || f.Args[0] != "add" {
		return usagef("node needs a subcommand: node add NAME, node fail NAME or node recover NAME")
	}
	if len(f.Args) != 2 {
		return usagef("node add needs one NAME")
	}
	cfg := engine.NodeConfig{Name: f.Args[1], Labels: map[string]string{}}
	for _, q := range []struct {
		flag string
		dst  *resource.Quantity
	}{{"cpu", &cfg.CPU}, {"memory", &cfg.Memory}} {
		if !f.Changed(q.flag) {
			continue
		}
		v, err := resource.ParseQuantity(f.String(q.flag))
		if err != nil {
			return usageErr(fmt.Errorf("invalid argument %q for %q flag: %v", f.String(q.flag), "--"+q.flag, err))
		}
		*q.dst = v
	}
	if f.Changed("pods") {
		n, err := f.Int("pods")
		if err != nil {
			return err
		}
		if n <= 0 {
			return usagef("--pods must be positive")
		}
		cfg.Pods = int64(n)
	}
	for _, l := range f.Strings("label") {
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			return usagef("invalid label %q: want KEY=VALUE", l)
		}
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return fmt.Errorf("invalid label key %q: %s", k, strings.Join(errs, "; "))
		}
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			return fmt.Errorf("invalid label value %q: %s", v, strings.Join(errs, "; "))
		}
		cfg.Labels[k] = v
	}
	for _, t := range f.Strings("taint") {
		taint, err := parseTaint(t)
		if err != nil {
			return err
		}
		cfg.Taints = append(cfg.Taints, taint)
	}
	// The kubelet registers the node; the trace leads back to this line.
	if err := s.Eng.AddNodeFor(s.Actor().Cause, cfg); err != nil {
		return kubectlError(err)
	}
	fmt.Fprintf(s.Out, "node/%s created\n", cfg.Name)
	return nil
}

// parseTaint reads KEY[=VALUE]:EFFECT as `kubectl taint` does, with its
// error wording.
func parseTaint(spec string) (corev1.Taint, error) {
	var t corev1.Taint
	kv, effect, ok := strings.Cut(spec, ":")
	if !ok || kv == "" {
		return t, fmt.Errorf("invalid taint spec: %v", spec)
	}
	switch e := corev1.TaintEffect(effect); e {
	case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		t.Effect = e
	default:
		return t, fmt.Errorf("invalid taint effect: %v, unsupported taint effect", effect)
	}
	t.Key, t.Value, _ = strings.Cut(kv, "=")
	if errs := validation.IsQualifiedName(t.Key); len(errs) > 0 {
		return t, fmt.Errorf("invalid taint spec: %v, %s", spec, strings.Join(errs, "; "))
	}
	if t.Value != "" {
		if errs := validation.IsValidLabelValue(t.Value); len(errs) > 0 {
			return t, fmt.Errorf("invalid taint spec: %v, %s", spec, strings.Join(errs, "; "))
		}
	}
	return t, nil
}
