package repl

// The plumbing the kubectl-shaped commands share: resource arguments
// (`pods x y`, `pod/x deploy/y`, `pods,svc`), namespaces, and errors worded
// as kubectl prints them.

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// kubectlCLIError is an error already worded exactly as kubectl prints it
// ("Error from server (NotFound): pods \"x\" not found", "error: ..."): the
// REPL prints its text as it is.
type kubectlCLIError struct{ msg string }

func (e *kubectlCLIError) Error() string { return e.msg }

// kerrorf returns a client-side error in kubectl's form: "error: " and a
// lower-case message.
func kerrorf(format string, args ...any) error {
	return &kubectlCLIError{"error: " + fmt.Sprintf(format, args...)}
}

// kubectlError words err as kubectl's cmdutil.CheckErr does: API errors as
// "Error from server (Reason): message", Invalid as "The Kind "name" is
// invalid: field: detail", anything else with an "error: " prefix.
func kubectlError(err error) error {
	if err == nil {
		return nil
	}
	var ce *kubectlCLIError
	if errors.As(err, &ce) {
		return ce
	}
	// The API server's request errors word themselves (kubectl's line,
	// then where in the manifest), and usage errors are the dispatcher's.
	var worded interface{ Kubectl() string }
	var ue *usageError
	if errors.As(err, &worded) || errors.As(err, &ue) {
		return err
	}
	return &kubectlCLIError{kubectlMessage(err)}
}

func kubectlMessage(err error) string {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		msg := err.Error()
		if !strings.HasPrefix(msg, "error: ") && !strings.HasPrefix(msg, "Error from server") {
			msg = "error: " + msg
		}
		return msg
	}
	st := status.Status()
	if st.Reason == metav1.StatusReasonInvalid && st.Details != nil {
		d := st.Details
		s := "The request is invalid"
		if d.Kind != "" || d.Name != "" {
			s = fmt.Sprintf("The %s %q is invalid", d.Kind, d.Name)
		}
		switch len(d.Causes) {
		case 0:
			return s
		case 1:
			return s + ": " + causeText(d.Causes[0])
		}
		var b strings.Builder
		b.WriteString(s + ": \n")
		for _, c := range d.Causes {
			b.WriteString("* " + causeText(c) + "\n")
		}
		return strings.TrimSuffix(b.String(), "\n")
	}
	if st.Reason == "" || st.Reason == metav1.StatusReasonUnknown {
		return "Error from server: " + st.Message
	}
	return fmt.Sprintf("Error from server (%s): %s", st.Reason, st.Message)
}

// causeText prints one field error of an Invalid status as kubectl does.
func causeText(c metav1.StatusCause) string {
	if c.Field == "" {
		return c.Message
	}
	return c.Field + ": " + c.Message
}

// joinErrors prints several errors one per line, as kubectl's MultipleErrors
// does when a command partly fails (`get pods a b` with b missing).
func joinErrors(errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return kubectlError(errs[0])
	}
	lines := make([]string, len(errs))
	for i, err := range errs {
		lines[i] = kubectlError(err).Error()
	}
	return &kubectlCLIError{strings.Join(lines, "\n")}
}

// withSource adds kubectl's "error when creating "FILE": " to an API error,
// keeping its reason (cmdutil.AddSourceToErr).
func withSource(verb, source string, err error) error {
	if source == "" {
		return err
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		st := status.Status()
		if st.Reason == metav1.StatusReasonInvalid {
			return err // CheckErr prints Invalid from its details, without the source
		}
		st.Message = fmt.Sprintf("error when %s %q: %s", verb, source, st.Message)
		return &apierrors.StatusError{ErrStatus: st}
	}
	return fmt.Errorf("error when %s %q: %v", verb, source, err)
}

// namespaceFlag is the namespace a request works in: -n, or the
// session's (kubectl's current context), "default" unless changed.
func namespaceFlag(s *Session, f *Flags) string {
	if f.Changed("namespace") && f.String("namespace") != "" {
		return f.String("namespace")
	}
	if s.Namespace != "" {
		return s.Namespace
	}
	return metav1.NamespaceDefault
}

// lookupKind resolves what a learner typed to a served kind, or kubectl's
// error for an unknown resource type.
func lookupKind(name string) (*kinds.Kind, error) {
	if k, ok := kinds.Lookup(name); ok {
		return k, nil
	}
	return nil, kerrorf("the server doesn't have a resource type %q", name)
}

// allKinds is what `get all` expands to (kubectl's "all" category), in the
// order kubectl prints them.
func allKinds() []*kinds.Kind {
	order := []string{"pods", "services", "daemonsets", "deployments", "replicasets", "statefulsets",
		"horizontalpodautoscalers", "cronjobs", "jobs"}
	var out []*kinds.Kind
	for _, r := range order {
		if k, ok := kinds.Lookup(r); ok {
			out = append(out, k)
		}
	}
	return out
}

// resourceRef is one (kind, names) group of a command's resource arguments;
// no names means every object of the kind.
type resourceRef struct {
	kind  *kinds.Kind
	names []string
	// slash is set for the KIND/NAME form, which kubectl prints with its kind.
	slash bool
	// namespace, if set, overrides the command's (objects named by -f).
	namespace string
}

// parseResources reads kubectl's resource arguments: "TYPE[,TYPE...] [NAME...]"
// or "TYPE/NAME ...". allowAll accepts the "all" category.
func parseResources(args []string, allowAll bool) ([]resourceRef, error) {
	if len(args) == 0 {
		return nil, nil
	}
	if strings.Contains(args[0], "/") {
		var out []resourceRef
		for _, a := range args {
			kind, name, ok := strings.Cut(a, "/")
			if !ok {
				return nil, kerrorf("there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of 'kubectl get resource resource/<resource_name>'")
			}
			if name == "" {
				return nil, kerrorf("arguments in resource/name form must have a single resource and name")
			}
			k, err := lookupKind(kind)
			if err != nil {
				return nil, err
			}
			out = append(out, resourceRef{kind: k, names: []string{name}, slash: true})
		}
		return out, nil
	}
	for _, a := range args[1:] {
		if strings.Contains(a, "/") {
			return nil, kerrorf("there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of 'kubectl get resource resource/<resource_name>'")
		}
	}
	var out []resourceRef
	names := args[1:]
	for _, t := range strings.Split(args[0], ",") {
		if t == "" {
			continue
		}
		if t == "all" && allowAll {
			for _, k := range allKinds() {
				out = append(out, resourceRef{kind: k, names: names})
			}
			continue
		}
		k, err := lookupKind(t)
		if err != nil {
			return nil, err
		}
		out = append(out, resourceRef{kind: k, names: names})
	}
	return out, nil
}

// selectorFlag parses -l; an empty string selects everything.
func parseSelector(s string) (labels.Selector, error) {
	if s == "" {
		return labels.Everything(), nil
	}
	sel, err := labels.Parse(s)
	if err != nil {
		return nil, kerrorf("%v", err)
	}
	return sel, nil
}

// qualifiedRef names an object as kubectl's output does: deployment.apps/api,
// pod/x (the resource's singular, with its group).
func qualifiedRef(k *kinds.Kind, name string) string {
	return qualifiedKind(k) + "/" + name
}

// qualifiedKind is "deployment.apps" or "pod".
func qualifiedKind(k *kinds.Kind) string {
	if k.Group == "" {
		return k.Singular
	}
	return k.Singular + "." + k.Group
}

// qualifiedResource is "deployments.apps" or "pods", as API errors name them.
func qualifiedResource(k *kinds.Kind) string {
	return k.GroupResource().String()
}

// ksortedKeys returns m's keys in order.
func ksortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// notFound is the API server's NotFound for an object of kind k.
func notFound(k *kinds.Kind, name string) error {
	return apierrors.NewNotFound(k.GroupResource(), name)
}

// target is one object a command acts on, with its kind.
type target struct {
	kind *kinds.Kind
	obj  kinds.Object
}

// ref is kubectl's "deployment.apps/api".
func (t target) ref() string { return qualifiedRef(t.kind, t.obj.GetName()) }

// findOpts says where and how to look for objects.
type findOpts struct {
	namespace     string
	allNamespaces bool
	selector      labels.Selector // nil: every object
	fieldSelector fields.Selector // nil: every object
}

// findObjects resolves resource arguments to objects: named objects in the
// order given (a missing one adds kubectl's NotFound error and the rest go
// on, as kubectl's ContinueOnError does), and for a kind without names every
// object in the namespace (or all namespaces), filtered by the selectors, in
// etcd key order.
func findObjects(s *Session, refs []resourceRef, o findOpts) ([]target, []error) {
	var out []target
	var errs []error
	for _, r := range refs {
		ns := o.namespace
		if r.namespace != "" {
			ns = r.namespace
		}
		if !r.kind.Namespaced {
			ns = ""
		}
		if len(r.names) > 0 {
			for _, name := range r.names {
				obj, ok := s.Eng.Store.Lookup(r.kind, ns, name)
				if !ok {
					errs = append(errs, notFound(r.kind, name))
					continue
				}
				out = append(out, target{r.kind, obj})
			}
			continue
		}
		if o.allNamespaces {
			ns = ""
		}
		if o.fieldSelector != nil && !o.fieldSelector.Empty() {
			if err := checkFieldSelector(r.kind, o.fieldSelector); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		for _, obj := range s.Eng.Store.List(r.kind, ns) {
			if o.selector != nil && !o.selector.Empty() && !o.selector.Matches(labels.Set(obj.GetLabels())) {
				continue
			}
			if o.fieldSelector != nil && !o.fieldSelector.Empty() && !o.fieldSelector.Matches(objectFields(obj)) {
				continue
			}
			out = append(out, target{r.kind, obj})
		}
	}
	return out, errs
}

// parseFieldSelector reads --field-selector.
func parseFieldSelector(s string) (fields.Selector, error) {
	if s == "" {
		return fields.Everything(), nil
	}
	sel, err := fields.ParseSelector(s)
	if err != nil {
		return nil, kerrorf("%v", err)
	}
	return sel, nil
}

// supportedFields are the field labels the API server can select on, per
// kind (pkg/registry/*/strategy.go ...FieldsSet); every kind has
// metadata.name and metadata.namespace.
var supportedFields = map[*kinds.Kind][]string{
	kinds.Pod: {"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
		"spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName"},
	kinds.Node:  {"spec.unschedulable"},
	kinds.Event: {"involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid", "reason", "type", "source"},
}

// checkFieldSelector rejects field labels the server does not support,
// with its message.
func checkFieldSelector(k *kinds.Kind, sel fields.Selector) error {
	for _, req := range sel.Requirements() {
		ok := req.Field == "metadata.name" || req.Field == "metadata.namespace"
		for _, f := range supportedFields[k] {
			ok = ok || f == req.Field
		}
		if !ok {
			return apierrors.NewBadRequest(fmt.Sprintf("Unable to find %q that match label selector %q, field selector %q: field label not supported: %s",
				k.GroupVersionKind().GroupVersion().WithResource(k.Resource).String(), "", sel.String(), req.Field))
		}
	}
	return nil
}

// objectFields is the field set an object is selected on.
func objectFields(obj kinds.Object) fields.Set {
	set := fields.Set{"metadata.name": obj.GetName(), "metadata.namespace": obj.GetNamespace()}
	switch o := obj.(type) {
	case *corev1.Pod:
		set["spec.nodeName"] = o.Spec.NodeName
		set["spec.restartPolicy"] = string(o.Spec.RestartPolicy)
		set["spec.schedulerName"] = o.Spec.SchedulerName
		set["spec.serviceAccountName"] = o.Spec.ServiceAccountName
		set["spec.hostNetwork"] = fmt.Sprint(o.Spec.HostNetwork)
		set["status.phase"] = string(o.Status.Phase)
		set["status.podIP"] = o.Status.PodIP
		set["status.nominatedNodeName"] = o.Status.NominatedNodeName
	case *corev1.Node:
		set["spec.unschedulable"] = fmt.Sprint(o.Spec.Unschedulable)
	case *corev1.Event:
		set["involvedObject.kind"] = o.InvolvedObject.Kind
		set["involvedObject.namespace"] = o.InvolvedObject.Namespace
		set["involvedObject.name"] = o.InvolvedObject.Name
		set["involvedObject.uid"] = string(o.InvolvedObject.UID)
		set["reason"] = o.Reason
		set["type"] = o.Type
		set["source"] = o.Source.Component
	}
	return set
}

// dryRun is kubectl's --dry-run strategy.
type dryRun int

const (
	dryRunNone dryRun = iota
	dryRunClient
	dryRunServer
)

var flagDryRun = Flag{Name: "dry-run", Value: "none|client|server", Default: "none",
	Usage:  "client: only print what would be sent; server: let the API server check it without storing it",
	Values: []string{"none", "client", "server"}}

// parseDryRun reads --dry-run as kubectl's GetDryRunStrategy does.
func parseDryRun(f *Flags) (dryRun, error) {
	switch v := f.String("dry-run"); v {
	case "", "none", "false":
		return dryRunNone, nil
	case "client", "true":
		return dryRunClient, nil
	case "server":
		return dryRunServer, nil
	default:
		return 0, kerrorf(`Invalid dry-run value (%v). Must be "none", "server", or "client".`, v)
	}
}

// suffix is what kubectl appends to an operation under --dry-run.
func (d dryRun) suffix() string {
	switch d {
	case dryRunClient:
		return " (dry run)"
	case dryRunServer:
		return " (server dry run)"
	}
	return ""
}

// resourceTargets is what get and describe act on: the objects of the -f
// manifests, or the KIND [NAME...] / KIND/NAME arguments (kubectl's
// resource builder). verb names the command in kubectl's "You must
// specify the type of resource to ..." message; allowAll accepts "all".
func resourceTargets(s *Session, f *Flags, input, ns, verb string, allowAll bool) ([]resourceRef, error) {
	if files := f.Strings("filename"); len(files) > 0 {
		if len(f.Args) > 0 {
			return nil, kerrorf("when paths, URLs, or stdin is provided as input, you may not specify resource arguments as well")
		}
		docs, err := readManifestTargets(s, files, f.Bool("recursive"), input, ns, f.Changed("namespace"))
		if err != nil {
			return nil, err
		}
		refs := make([]resourceRef, 0, len(docs))
		for _, d := range docs {
			refs = append(refs, resourceRef{kind: d.kind, names: []string{d.name}, slash: true, namespace: d.namespace})
		}
		return refs, nil
	}
	if len(f.Args) == 0 {
		fmt.Fprintf(s.Err, "You must specify the type of resource to %s. Use \"api-resources\" for a complete list of supported resources.\n", verb)
		fmt.Fprintln(s.Err)
		return nil, usagef("Required resource not specified.")
	}
	return parseResources(f.Args, allowAll)
}
