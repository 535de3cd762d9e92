package repl

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/internal/printers"
)

var getFlags = []Flag{
	FlagNamespace, FlagAllNamespaces, FlagSelector,
	{Name: "field-selector", Value: "SELECTOR", Usage: "field selector, e.g. spec.nodeName=n1 or status.phase=Running"},
	{Name: "output", Short: "o", Value: "FORMAT", Usage: "wide, yaml, json or name", Values: []string{"wide", "yaml", "json", "name"}},
	{Name: "show-labels", Usage: "add a LABELS column"},
	{Name: "no-headers", Usage: "print the table without its header"},
	{Name: "sort-by", Value: "FIELD", Usage: "sort by a field, e.g. .metadata.name or .lastTimestamp"},
	{Name: "ignore-not-found", Usage: "print nothing, and do not fail, for a missing object"},
	FlagFilename, {Name: "recursive", Short: "R", Usage: "read the directories given with -f recursively"},
	{Name: "watch", Short: "w", Usage: "(not in kubeloop: time moves only with advance)"},
}

func init() {
	register(&Command{
		Name:  "get",
		Usage: "get KIND[,KIND...] [NAME...] | KIND/NAME... [-l SELECTOR] [--field-selector F=V] [-o wide|yaml|json|name] [-n NAMESPACE | -A] [--show-labels]",
		Short: "list objects, as tables or in their Kubernetes JSON or YAML shape",
		Long: `get prints objects as kubectl get does: a table with kubectl's columns (more
with -o wide), or the objects' Kubernetes shape with -o json or -o yaml (one
object when you named one, else a List), or kind/name lines with -o name.

KIND is any name kubectl accepts: pods, pod, po, deployments, deploy,
deployments.apps, ... "all" is pods, services, deployments, replicasets and
horizontal pod autoscalers. AGE and other times are virtual time.`,
		Example: "get pods -o wide\nget deploy,rs,pods -l app=api\nget pod/api-7d9f8c6b5-x2k4q -o yaml\nget events\nget all -A",
		Flags:   getFlags,
		Run:     runGet,
	})
}

func runGet(s *Session, args []string, input string) error {
	f, err := s.Parse(args)
	if err != nil {
		return err
	}
	if f.Bool("watch") {
		return kerrorf("kubeloop has no --watch: virtual time moves only with advance or until; run get again after advance, or read the trace")
	}
	output := f.String("output")
	switch output {
	case "", "wide", "json", "yaml", "name":
	default:
		return kerrorf("unable to match a printer suitable for the output format %q, allowed formats are: json,name,wide,yaml", output)
	}
	human := output == "" || output == "wide"
	if f.Bool("show-labels") && !human {
		return kerrorf("--show-labels option cannot be used with %s printer", output)
	}
	ns := namespaceFlag(s, f)
	allNS := f.Bool("all-namespaces")

	refs, err := resourceTargets(s, f, input, ns, "get", true)
	if err != nil {
		return err
	}
	sel, err := parseSelector(f.String("selector"))
	if err != nil {
		return err
	}
	fsel, err := parseFieldSelector(f.String("field-selector"))
	if err != nil {
		return err
	}
	named := false
	for _, r := range refs {
		named = named || len(r.names) > 0
	}
	if named && (f.Changed("selector") || f.Changed("field-selector")) {
		return kerrorf("name cannot be provided when a selector is specified")
	}
	targets, errs := findObjects(s, refs, findOpts{namespace: ns, allNamespaces: allNS, selector: sel, fieldSelector: fsel})
	if f.Bool("ignore-not-found") {
		errs = dropNotFound(errs)
	}
	if by := f.String("sort-by"); by != "" {
		if err := sortTargets(targets, by); err != nil {
			return err
		}
	}

	if !human {
		objs := make([]kinds.Object, len(targets))
		for i, t := range targets {
			objs[i] = t.obj
		}
		// One object named once prints by itself; anything else is a List.
		single := len(refs) == 1 && len(refs[0].names) == 1
		if !(single && len(objs) == 0) {
			if err := printers.PrintObject(s.Out, output, objs, !single); err != nil {
				return kubectlError(err)
			}
		}
		return joinErrors(errs)
	}

	// Tables: one per run of objects of the same kind, a blank line between
	// them; names carry their kind when several kinds were asked for.
	kindsAsked := map[*kinds.Kind]bool{}
	for _, r := range refs {
		if len(r.names) == 0 {
			kindsAsked[r.kind] = true
		}
	}
	for _, t := range targets {
		kindsAsked[t.kind] = true
	}
	opts := printers.Options{
		Wide: output == "wide", ShowLabels: f.Bool("show-labels"), AllNamespaces: allNS,
		NoHeaders: f.Bool("no-headers"), WithKind: len(kindsAsked) > 1, Now: s.Eng.Now().Time(),
	}
	var out bytes.Buffer
	for i := 0; i < len(targets); {
		j := i
		for j < len(targets) && targets[j].kind == targets[i].kind {
			j++
		}
		group := make([]kinds.Object, 0, j-i)
		for _, t := range targets[i:j] {
			group = append(group, t.obj)
		}
		if out.Len() > 0 && !opts.NoHeaders {
			out.WriteByte('\n')
		}
		if err := printTable(&out, targets[i].kind, group, opts); err != nil {
			return err
		}
		i = j
	}
	if _, err := s.Out.Write(out.Bytes()); err != nil {
		return err
	}
	if out.Len() == 0 && len(errs) == 0 && !f.Bool("ignore-not-found") {
		allNamespaced := !allNS
		for k := range kindsAsked {
			allNamespaced = allNamespaced && k.Namespaced
		}
		if allNamespaced {
			fmt.Fprintf(s.Err, "No resources found in %s namespace.\n", ns)
		} else {
			fmt.Fprintln(s.Err, "No resources found")
		}
	}
	return joinErrors(errs)
}

// printTable prints a kind's table, or kubectl's generic NAME/AGE table
// for a kind the printers do not know.
func printTable(w io.Writer, k *kinds.Kind, objs []kinds.Object, opts printers.Options) error {
	if printers.HasTable(k) {
		return printers.PrintTable(w, k, objs, opts)
	}
	return kerrorf("kubeloop has no table for %s yet; use -o yaml", k.Resource)
}

// sortTargets sorts by a field path as kubectl's --sort-by does, for the
// simple paths learners use (.metadata.name, .lastTimestamp,
// .status.startTime): objects without the field sort first, ties keep
// their order.
func sortTargets(ts []target, path string) error {
	p := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(path, "{"), "$"), "}")
	if !strings.HasPrefix(p, ".") || strings.ContainsAny(p, "[]*?@") {
		return kerrorf("kubeloop's --sort-by takes a simple field path such as .metadata.name, not %q", path)
	}
	parts := strings.Split(strings.TrimPrefix(p, "."), ".")
	key := func(t target) (any, bool) {
		var v any = printers.ToJSONValue(t.obj)
		for _, part := range parts {
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[part]; !ok {
				return nil, false
			}
		}
		return v, true
	}
	keys := make([]any, len(ts))
	has := make([]bool, len(ts))
	for i, t := range ts {
		keys[i], has[i] = key(t)
	}
	idx := make([]int, len(ts))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		i, j := idx[a], idx[b]
		if has[i] != has[j] {
			return !has[i]
		}
		return lessJSON(keys[i], keys[j])
	})
	sorted := make([]target, len(ts))
	for a, i := range idx {
		sorted[a] = ts[i]
	}
	copy(ts, sorted)
	return nil
}

// lessJSON orders two JSON values of the same type; timestamps are
// RFC 3339 strings and so sort as strings.
func lessJSON(a, b any) bool {
	switch x := a.(type) {
	case float64:
		if y, ok := b.(float64); ok {
			return x < y
		}
	case int64:
		if y, ok := b.(int64); ok {
			return x < y
		}
	case string:
		if y, ok := b.(string); ok {
			return x < y
		}
	}
	return fmt.Sprint(a) < fmt.Sprint(b)
}
