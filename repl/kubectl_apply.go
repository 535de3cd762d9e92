package repl

// apply: kubectl's client-side apply of manifest files, directories and
// here-documents, on top of the API server's Apply (decode, default, admit,
// validate, three-way merge, all or nothing per file).

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/internal/printers"
)

var applyFlags = []Flag{
	FlagFilename,
	{Name: "recursive", Short: "R", Usage: "read the directories given with -f recursively"},
	FlagNamespace, flagDryRun,
	{Name: "output", Short: "o", Value: "FORMAT", Usage: "name, json or yaml: print the applied objects instead of a line each",
		Values: []string{"name", "json", "yaml"}},
	{Name: "server-side", Usage: "(not in kubeloop: it models kubectl's client-side apply)"},
}

func init() {
	register(&Command{
		Name:  "apply",
		Usage: "apply -f FILE|DIR|- [-R] [-n NAMESPACE] [--dry-run=client|server] [-o name|json|yaml]",
		Short: "create or update objects from manifests (files, directories, or a here-document)",
		Long: `apply sends manifests to the API server as kubectl apply does (client-side
apply): an object that does not exist is created, one that exists is
patched with kubectl's three-way merge of the manifest you applied last
time (kept in the kubectl.kubernetes.io/last-applied-configuration
annotation), this manifest and the live object, so that fields others
changed (replicas set by scale or an autoscaler) stay unless the manifest
sets them. Each object prints one line: created, configured or unchanged.

-f takes a file, a directory (its .yaml, .yml and .json files; with -R its
subdirectories too) or - for the here-document that follows the command
(apply -f - <<EOF ... EOF). -f can be repeated.

A file is applied all or nothing: if any document in it is invalid, none is
written, and the error names the file, the line and the field, after the
line kubectl would print. (kubectl would apply the valid documents and
report the others.)

apply only writes the desired state: the commit point is the write to etcd.
Nothing else happens until you move time (advance, until): the controllers,
the scheduler and the kubelets react in the same instant, but pulling images
and starting containers take virtual time.`,
		Example: "apply -f deploy.yaml\napply -f manifests/ -R\napply -f - <<EOF\n...\nEOF\napply -f deploy.yaml --dry-run=server -o yaml",
		Flags:   applyFlags,
		Run:     runApply,
	})
}

func runApply(s *Session, args []string, input string) error {
	f, err := s.Parse(args)
	if err != nil {
		return err
	}
	if len(f.Args) > 0 {
		return usagef("Unexpected args: %v", f.Args)
	}
	if f.Bool("server-side") {
		return kerrorf("kubeloop models kubectl's client-side apply only; drop --server-side (the result is the same for objects only you manage)")
	}
	files := f.Strings("filename")
	if len(files) == 0 {
		return kerrorf("must specify one of -f and -k")
	}
	output := f.String("output")
	switch output {
	case "", "name", "json", "yaml":
	default:
		return kerrorf("unable to match a printer suitable for the output format %q, allowed formats are: json,name,yaml", output)
	}
	dry, err := parseDryRun(f)
	if err != nil {
		return err
	}
	srcs, err := readManifestFiles(files, f.Bool("recursive"), input)
	if err != nil {
		return err
	}
	opts := apiserver.ApplyOptions{DryRun: dry != dryRunNone}
	if f.Changed("namespace") && f.String("namespace") != "" {
		opts.Namespace = f.String("namespace")
	} else if s.Namespace != "" && s.Namespace != metav1.NamespaceDefault {
		opts.Namespace = s.Namespace
	}

	// kubectl goes on past a file it cannot apply and reports every error
	// at the end; within a file, kubeloop's API server applies all or
	// nothing.
	var errs []error
	var objs []kinds.Object
	applied := 0
	for _, src := range srcs {
		actor := apiserver.Actor{Component: "kubectl"}
		if dry == dryRunNone {
			actor = s.Actor()
		}
		results, err := s.Eng.API.Apply(actor, src.source, src.data, opts)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var raws []map[string]any
		if dry == dryRunClient {
			raws = clientDryRunObjects(src, results)
		}
		for i, r := range results {
			applied++
			for _, w := range r.Warnings {
				fmt.Fprintln(s.Err, s.pal.warn("Warning: "+w))
			}
			switch {
			case output == "":
				fmt.Fprintf(s.Out, "%s %s%s\n", qualifiedRef(r.Kind, r.Name), r.Action, dry.suffix())
			case raws != nil && raws[i] != nil:
				objs = append(objs, rawObject{r.Object, raws[i]})
			default:
				objs = append(objs, r.Object)
			}
		}
	}
	if applied == 0 && len(errs) == 0 {
		return kerrorf("no objects passed to apply")
	}
	if output != "" && len(objs) > 0 {
		if err := printApplied(s, output, objs); err != nil {
			return err
		}
	}
	return joinErrors(errs)
}

// rawObject is an object kubectl would print as the manifest it sends
// rather than as the API server stores it (apply --dry-run=client of a new
// object): the typed object names it, raw is what is printed.
type rawObject struct {
	kinds.Object
	raw map[string]any
}

// printApplied prints apply's -o: kind/name lines, or the objects (one by
// itself, several as a List, as kubectl apply prints them).
func printApplied(s *Session, output string, objs []kinds.Object) error {
	if output == "name" {
		for _, o := range objs {
			if r, ok := o.(rawObject); ok {
				o = r.Object
			}
			fmt.Fprintln(s.Out, qualifiedRef(kinds.Of(o), o.GetName()))
		}
		return nil
	}
	values := make([]any, len(objs))
	for i, o := range objs {
		if r, ok := o.(rawObject); ok {
			values[i] = r.raw
		} else {
			values[i] = printers.ToJSONValue(o)
		}
	}
	var v any
	switch {
	case len(values) == 1:
		v = values[0]
	case output == "json":
		v = applyList{Kind: "List", APIVersion: "v1", Items: values}
	default:
		// YAML sorts the keys; kubectl's List has empty metadata (get's
		// carries resourceVersion: "").
		list := printers.ListValue(values)
		list["metadata"] = map[string]any{}
		v = list
	}
	var b []byte
	var err error
	if output == "json" {
		b, err = printers.MarshalJSON(v)
	} else {
		b, err = printers.MarshalYAML(v)
	}
	if err != nil {
		return kubectlError(err)
	}
	_, err = s.Out.Write(b)
	return err
}

// applyList is the List kubectl apply -o json prints for several objects:
// a typed metav1.List, so its fields come in struct order, not sorted.
type applyList struct {
	Kind       string   `json:"kind"`
	APIVersion string   `json:"apiVersion"`
	Metadata   struct{} `json:"metadata"`
	Items      []any    `json:"items"`
}

// clientDryRunObjects gives, for each new object of a client dry run, the
// manifest kubectl would send to create it: the document as written, its
// namespace filled in, and the last-applied annotation. Objects that exist
// are nil: kubectl prints them as the merge leaves them.
func clientDryRunObjects(src manifestFile, results []apiserver.ApplyResult) []map[string]any {
	docs, err := apiserver.Decode(src.source, src.data)
	if err != nil || len(docs) != len(results) {
		return nil // Apply decoded the same bytes; a mismatch would be a bug, so fall back
	}
	out := make([]map[string]any, len(results))
	for i, r := range results {
		if r.Action != apiserver.Created {
			continue
		}
		raw := docs[i].Raw
		meta, _ := raw["metadata"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
			raw["metadata"] = meta
		}
		if r.Kind.Namespaced {
			meta["namespace"] = r.Namespace
		}
		ann, _ := meta["annotations"].(map[string]any)
		if ann == nil {
			ann = map[string]any{}
			meta["annotations"] = ann
		}
		ann[apiserver.LastAppliedAnnotation] = r.Object.GetAnnotations()[apiserver.LastAppliedAnnotation]
		out[i] = raw
	}
	return out
}
