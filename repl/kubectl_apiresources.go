package repl

// api-resources: the kinds kubeloop's API server serves, as kubectl
// api-resources lists them.

import (
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

func init() {
	register(&Command{
		Name:  "api-resources",
		Usage: "api-resources [--namespaced=true|false] [--api-group GROUP] [--sort-by name|kind] [-o name] [--no-headers]",
		Short: "list the kinds of object the API server serves",
		Long: `api-resources lists the resources kubeloop's API server serves, as kubectl
api-resources does: the plural name (what URLs and errors use), the short
names get and describe accept, the apiVersion a manifest needs, whether
objects live in a namespace, and the Kind a manifest names. A real cluster
serves many more; kubeloop serves these.`,
		Example: "api-resources\napi-resources --namespaced=false\napi-resources --api-group apps -o name",
		Flags: []Flag{
			{Name: "namespaced", Value: "BOOL", Default: "true", Usage: "only namespaced (true) or cluster-scoped (false) resources",
				Values: []string{"true", "false"}},
			{Name: "api-group", Value: "GROUP", Usage: `only resources of this API group ("" for the core group)`},
			{Name: "sort-by", Value: "FIELD", Usage: "sort by name or kind (default: by API group, then name)", Values: []string{"name", "kind"}},
			{Name: "output", Short: "o", Value: "FORMAT", Usage: "name: print resource.group only", Values: []string{"name"}},
			{Name: "no-headers", Usage: "print the table without its header"},
		},
		Run: runAPIResources,
	})
}

func runAPIResources(s *Session, args []string, _ string) error {
	f, err := s.Parse(args)
	if err != nil {
		return err
	}
	if len(f.Args) > 0 {
		return usagef("unexpected arguments: %v", f.Args)
	}
	sortBy := f.String("sort-by")
	if sortBy != "" && sortBy != "name" && sortBy != "kind" {
		return kerrorf("--sort-by accepts only name or kind")
	}
	output := f.String("output")
	switch output {
	case "", "name":
	case "wide":
		return kerrorf("kubeloop's api-resources has no -o wide: every kind it serves takes the same verbs (create, get, list, watch, update, patch, delete)")
	default:
		return kerrorf("unable to match a printer suitable for the output format %q, allowed formats are: name,wide", output)
	}
	var namespaced bool
	if f.Changed("namespaced") {
		switch f.String("namespaced") {
		case "true":
			namespaced = true
		case "false":
		default:
			return usagef("invalid argument %q for \"--namespaced\" flag: %v", f.String("namespaced"), errBool)
		}
	}

	var list []*kinds.Kind
	for _, k := range kinds.All {
		if f.Changed("api-group") && k.Group != f.String("api-group") {
			continue
		}
		if f.Changed("namespaced") && k.Namespaced != namespaced {
			continue
		}
		list = append(list, k)
	}
	// kubectl sorts by group (or the --sort-by field), then by name.
	key := func(k *kinds.Kind) string {
		switch sortBy {
		case "name":
			return k.Resource
		case "kind":
			return k.Kind
		}
		return k.Group
	}
	sort.SliceStable(list, func(i, j int) bool {
		if a, b := key(list[i]), key(list[j]); a != b {
			return a < b
		}
		return list[i].Resource < list[j].Resource
	})

	if output == "name" {
		for _, k := range list {
			fmt.Fprintln(s.Out, k.GroupResource().String())
		}
		return nil
	}
	// cli-runtime's tabwriter: min width 6, tab width 4, padding 3.
	tw := tabwriter.NewWriter(s.Out, 6, 4, 3, ' ', 0)
	if !f.Bool("no-headers") {
		fmt.Fprintln(tw, "NAME\tSHORTNAMES\tAPIVERSION\tNAMESPACED\tKIND")
	}
	for _, k := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%s\n", k.Resource, strings.Join(k.ShortNames, ","), k.APIVersion(), k.Namespaced, k.Kind)
	}
	return tw.Flush()
}
