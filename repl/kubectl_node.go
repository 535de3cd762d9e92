package repl

// Commands on nodes: taint, cordon and uncordon, with kubectl's parsing and
// words (pkg/cmd/taint, pkg/cmd/drain).

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

func init() {
	register(&Command{
		Name:  "taint",
		Usage: "taint nodes NODE... KEY[=VALUE]:EFFECT... KEY[:EFFECT]-... [--overwrite]",
		Short: "add or remove taints on nodes",
		Long: `taint adds taints to nodes (KEY=VALUE:EFFECT or KEY:EFFECT) and removes them
(KEY:EFFECT- removes one, KEY- every taint with that key), as kubectl taint
does. EFFECT is NoSchedule (the scheduler places no new pod that does not
tolerate it), PreferNoSchedule (it avoids the node if it can) or NoExecute
(pods already there that do not tolerate it are evicted too).`,
		Example: "taint nodes n1 dedicated=db:NoSchedule\ntaint nodes n1 dedicated:NoSchedule-",
		Flags: []Flag{{Name: "overwrite", Usage: "replace a taint with the same key and effect"},
			FlagSelector, {Name: "all", Usage: "every node"}, FlagNamespace, flagDryRun},
		Run: runTaint,
	})
	for _, c := range []struct {
		name, short, long, example string
		cordon                     bool
	}{
		{"cordon", "mark a node unschedulable", `cordon marks a node unschedulable (spec.unschedulable: true): the scheduler
places no new pods on it, and pods already there keep running. The node
controller adds the taint node.kubernetes.io/unschedulable:NoSchedule that
says so. uncordon undoes it.`, "cordon n1", true},
		{"uncordon", "mark a node schedulable again", `uncordon marks a cordoned node schedulable again (spec.unschedulable:
false): the scheduler may place new pods on it.`, "uncordon n1", false},
	} {
		cordon := c.cordon
		register(&Command{
			Name:    c.name,
			Usage:   c.name + " NODE...",
			Short:   c.short,
			Long:    c.long,
			Example: c.example,
			Flags:   []Flag{FlagSelector, FlagNamespace, flagDryRun},
			Run:     func(s *Session, args []string, _ string) error { return runCordon(s, args, cordon) },
		})
	}
}

// parseTaintSpec reads KEY=VALUE:EFFECT, KEY:EFFECT or KEY (kubectl's
// parseTaint).
func parseTaintSpec(spec string) (corev1.Taint, error) {
	var t corev1.Taint
	parts := strings.Split(spec, ":")
	switch len(parts) {
	case 1:
		t.Key = parts[0]
	case 2:
		t.Effect = corev1.TaintEffect(parts[1])
		switch t.Effect {
		case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		default:
			return t, kerrorf("invalid taint effect: %v, unsupported taint effect", t.Effect)
		}
		kv := strings.Split(parts[0], "=")
		if len(kv) > 2 {
			return t, kerrorf("invalid taint spec: %v", spec)
		}
		t.Key = kv[0]
		if len(kv) == 2 {
			t.Value = kv[1]
			if errs := validation.IsValidLabelValue(t.Value); len(errs) > 0 {
				return t, kerrorf("invalid taint spec: %v, %s", spec, strings.Join(errs, "; "))
			}
		}
	default:
		return t, kerrorf("invalid taint spec: %v", spec)
	}
	if errs := validation.IsQualifiedName(t.Key); len(errs) > 0 {
		return t, kerrorf("invalid taint spec: %v, %s", spec, strings.Join(errs, "; "))
	}
	return t, nil
}

// taintString is kubectl's Taint.ToString: key=value:effect.
func taintString(t corev1.Taint) string {
	s := t.Key
	if t.Value != "" {
		s += "=" + t.Value
	}
	if t.Effect != "" {
		s += ":" + string(t.Effect)
	}
	return s
}

func runTaint(s *Session, args []string, _ string) error {
	f, err := s.Parse(args)
	if err != nil {
		return err
	}
	dry, err := parseDryRun(f)
	if err != nil {
		return err
	}
	var resources, specs []string
	for _, a := range f.Args {
		isTaint := strings.Contains(a, "=") || strings.Contains(a, ":") || strings.HasSuffix(a, "-")
		switch {
		case isTaint:
			specs = append(specs, a)
		case len(specs) > 0:
			return kerrorf("all resources must be specified before taint changes: %s", a)
		default:
			resources = append(resources, a)
		}
	}
	var add, remove []corev1.Taint
	for _, spec := range specs {
		if strings.HasSuffix(spec, "-") {
			t, err := parseTaintSpec(strings.TrimSuffix(spec, "-"))
			if err != nil {
				return err
			}
			remove = append(remove, corev1.Taint{Key: t.Key, Effect: t.Effect})
			continue
		}
		t, err := parseTaintSpec(spec)
		if err != nil {
			return err
		}
		if t.Effect == "" {
			return kerrorf("invalid taint spec: %v", spec)
		}
		for _, a := range add {
			if a.Key == t.Key && a.Effect == t.Effect {
				return kerrorf("duplicated taints with the same key and effect: %v", t)
			}
		}
		add = append(add, t)
	}
	if len(add) == 0 && len(remove) == 0 {
		return kerrorf("must provide one or more taints")
	}
	if len(resources) == 0 {
		return kerrorf("at least one resource name must be specified since 'all' parameter is not set")
	}
	if k, ok := kinds.Lookup(strings.Split(resources[0], "/")[0]); !ok || k != kinds.Node {
		return kerrorf("invalid resource type %s, only node types are supported", strings.Split(resources[0], "/")[0])
	}
	var conflicts []string
	for _, a := range add {
		for _, r := range remove {
			if a.Key == r.Key && (r.Effect == "" || a.Effect == r.Effect) {
				conflicts = append(conflicts, fmt.Sprintf("{\"%s\":\"%s\"}", r.Key, r.Effect))
			}
		}
	}
	if len(conflicts) > 0 {
		return kerrorf("can not both modify and remove the following taint(s) in the same command: %s", strings.Join(conflicts, ", "))
	}
	targets, errs, err := selectTargets(s, f, resources, false)
	if err != nil {
		return err
	}
	overwrite := f.Bool("overwrite")
	for _, t := range targets {
		node := t.obj.(*corev1.Node)
		if !overwrite {
			var exist []string
			for _, a := range add {
				for _, o := range node.Spec.Taints {
					if a.Key == o.Key && a.Effect == o.Effect {
						exist = append(exist, a.Key)
					}
				}
			}
			if len(exist) > 0 {
				errs = append(errs, kerrorf("node %s already has %v taint(s) with same effect(s) and --overwrite is false",
					node.Name, strings.Join(exist, ",")))
				continue
			}
		}
		op, taints, terrs := reorganizeTaints(node.Spec.Taints, overwrite, add, remove)
		if len(terrs) > 0 {
			errs = append(errs, terrs...)
			continue
		}
		cp := node.DeepCopy()
		cp.Spec.Taints = taints
		if _, err := writeChange(s, cp, dry); err != nil {
			errs = append(errs, err)
			continue
		}
		fmt.Fprintf(s.Out, "%s %s%s\n", t.ref(), op, dry.suffix())
	}
	return joinErrors(errs)
}

// reorganizeTaints is kubectl's: the new taints first, then the old ones
// they do not replace, minus the removed; and the word for what happened.
func reorganizeTaints(old []corev1.Taint, overwrite bool, add, remove []corev1.Taint) (string, []corev1.Taint, []error) {
	taints := append([]corev1.Taint{}, add...)
	for _, o := range old {
		kept := true
		for _, t := range taints {
			if t.Key == o.Key && t.Effect == o.Effect {
				kept = false
				break
			}
		}
		if kept {
			taints = append(taints, o)
		}
	}
	added := len(old) != len(taints)
	var errs []error
	removed := false
	for _, r := range remove {
		removed = false
		out := taints[:0:0]
		for _, t := range taints {
			if t.Key == r.Key && (r.Effect == "" || t.Effect == r.Effect) {
				removed = true
				continue
			}
			out = append(out, t)
		}
		taints = out
		if !removed {
			errs = append(errs, kerrorf("taint %q not found", taintString(r)))
		}
	}
	switch {
	case (added && removed) || overwrite:
		return "modified", taints, errs
	case added:
		return "tainted", taints, errs
	}
	return "untainted", taints, errs
}

func runCordon(s *Session, args []string, cordon bool) error {
	f, err := s.Parse(args)
	if err != nil {
		return err
	}
	dry, err := parseDryRun(f)
	if err != nil {
		return err
	}
	word := "uncordon"
	if cordon {
		word = "cordon"
	}
	var targets []target
	var errs []error
	switch {
	case len(f.Args) > 0 && f.Changed("selector"):
		return kerrorf("cannot specify both a node name and a --selector option")
	case len(f.Args) > 0:
		targets, errs = findObjects(s, []resourceRef{{kind: kinds.Node, names: f.Args}}, findOpts{})
	case f.Changed("selector"):
		sel, err := parseSelector(f.String("selector"))
		if err != nil {
			return err
		}
		targets, errs = findObjects(s, []resourceRef{{kind: kinds.Node}}, findOpts{selector: sel})
	default:
		return usagef("USAGE: %s NODE [flags]", word)
	}
	for _, t := range targets {
		node := t.obj.(*corev1.Node)
		if node.Spec.Unschedulable == cordon {
			fmt.Fprintf(s.Out, "%s already %sed%s\n", t.ref(), word, dry.suffix())
			continue
		}
		cp := node.DeepCopy()
		cp.Spec.Unschedulable = cordon
		if _, err := writeChange(s, cp, dry); err != nil {
			errs = append(errs, kerrorf("unable to %s node %q: %v", word, node.Name, kubectlError(err)))
			continue
		}
		fmt.Fprintf(s.Out, "%s %sed%s\n", t.ref(), word, dry.suffix())
	}
	return joinErrors(errs)
}
