package apiserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	sigsjson "sigs.k8s.io/json"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// LastAppliedAnnotation is where kubectl apply keeps the manifest it last
// applied, for its next three-way merge.
const LastAppliedAnnotation = corev1.LastAppliedConfigAnnotation

// ApplyOptions are the flags of `kubectl apply` kubeloop models.
type ApplyOptions struct {
	// Namespace is -n: the namespace of objects that name none. When set,
	// an object that names another namespace is an error, as in kubectl;
	// when empty, objects without a namespace go to "default".
	Namespace string
	// DryRun is --dry-run=server: every check, no write.
	DryRun bool
}

// Apply actions, in kubectl's words.
const (
	Created    = "created"
	Configured = "configured"
	Unchanged  = "unchanged"
)

// ApplyResult is what happened to one object of an apply.
type ApplyResult struct {
	Kind      *kinds.Kind
	Namespace string
	Name      string
	// Action is Created, Configured or Unchanged.
	Action string
	// Object is the object as stored after the apply (as it would be, for
	// a dry run).
	Object kinds.Object
	// Warnings are the API server's warnings about the object (fields
	// kubeloop does not simulate, a missing last-applied annotation).
	// kubectl prints each as "Warning: " and the text.
	Warnings []string
	DryRun   bool
}

// String is kubectl's line for the result: "deployment.apps/api created",
// "service/web unchanged", "... created (server dry run)".
func (r ApplyResult) String() string {
	s := KubectlRef(r.Kind, r.Name) + " " + r.Action
	if r.DryRun {
		s += " (server dry run)"
	}
	return s
}

// Apply is `kubectl apply -f source` (client-side apply): source names the
// file ("-" for stdin) and data is its content. Every document is decoded,
// defaulted, validated and admitted first; only if all of them pass is
// anything written, in file order (a file with one bad document applies
// nothing — kubeloop's choice: kubectl would apply the good documents and
// report the bad ones). An object that does not exist is created with the
// kubectl.kubernetes.io/last-applied-configuration annotation; one that
// exists gets kubectl's three-way strategic merge of the last-applied
// manifest, this manifest and the live object, so fields others changed
// (replicas set by `kubectl scale` or an HPA, status) are kept unless this
// manifest sets them. An object the merge leaves as it is is "unchanged"
// and not written.
//
// The error is a RequestErrors, one per bad document, each locating its
// field by line.
func (s *Server) Apply(a Actor, source string, data []byte, opts ApplyOptions) ([]ApplyResult, error) {
	docs, err := Decode(source, data)
	if err != nil {
		return nil, err
	}
	ov := newOverlay(s.store)
	plans := make([]applyPlan, 0, len(docs))
	var errs RequestErrors
	for _, d := range docs {
		p, rerr := s.planApply(ov, d, opts)
		if rerr != nil {
			errs = append(errs, rerr)
			continue
		}
		plans = append(plans, p)
		if p.action != Unchanged {
			ov.put(p.obj)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	results := make([]ApplyResult, len(plans))
	for i, p := range plans {
		k := kinds.Of(p.obj)
		results[i] = ApplyResult{Kind: k, Namespace: p.obj.GetNamespace(), Name: p.obj.GetName(),
			Action: p.action, Object: p.obj, Warnings: p.warnings, DryRun: opts.DryRun}
		if opts.DryRun {
			continue
		}
		ref := KubectlRef(k, p.obj.GetName())
		switch {
		case p.action == Created:
			s.commitCreate(a, p.obj, Created)
		case p.action == Unchanged:
			if a.learner() {
				s.traceAPIServer(a, k, p.obj.GetNamespace(), p.obj.GetName(), ref+" unchanged")
			}
			results[i].Object = p.live
		case p.noop:
			// kubectl saw a patch to send, but it changes nothing stored.
			if a.learner() {
				s.traceAPIServer(a, k, p.obj.GetNamespace(), p.obj.GetName(), ref+" configured (the result equals the stored object; nothing is written)")
			}
			results[i].Object = p.live
		default:
			p.obj.SetResourceVersion("") // planned against this very state
			s.commitUpdate(a, p.obj, Configured, false)
		}
	}
	return results, nil
}

type applyPlan struct {
	action   string
	obj      kinds.Object // what to write
	live     kinds.Object // what is stored, for updates
	noop     bool         // configured, but equal to live
	warnings []string
}

// planApply does everything for one document but the write.
func (s *Server) planApply(ov *overlay, d *Document, opts ApplyOptions) (applyPlan, *RequestError) {
	k, obj := d.Kind, d.Object
	fail := func(err error, client bool, verb string) *RequestError {
		e := &RequestError{Source: d.Source, Doc: d.Index, Line: d.Line, Err: err, Client: client, Verb: verb}
		var st apierrors.APIStatus
		if errors.As(err, &st) && st.Status().Details != nil && len(st.Status().Details.Causes) > 0 {
			causes := st.Status().Details.Causes
			e.Field = causes[0].Field
			e.Line = d.FieldLine(e.Field)
			e.Hint = causes[0].Message
			for _, c := range causes[1:] {
				e.More = append(e.More, Location{Line: d.FieldLine(c.Field), Field: c.Field, Hint: c.Message})
			}
		}
		return e
	}
	meta := rawMap(d.Raw, "metadata")
	if k.Namespaced {
		ns := obj.GetNamespace()
		if opts.Namespace != "" && ns != "" && ns != opts.Namespace {
			e := fail(fmt.Errorf("the namespace from the provided object %q does not match the namespace %q. You must pass '--namespace=%s' to perform this operation.",
				ns, opts.Namespace, ns), true, "")
			e.Field, e.Line, e.Hint = "metadata.namespace", d.FieldLine("metadata.namespace"), "does not match -n "+opts.Namespace
			return applyPlan{}, e
		}
		if ns == "" {
			ns = opts.Namespace
			if ns == "" {
				ns = metav1.NamespaceDefault
			}
			obj.SetNamespace(ns)
			meta["namespace"] = ns
		}
	} else {
		obj.SetNamespace("")
	}
	if obj.GetName() == "" {
		if obj.GetGenerateName() != "" {
			e := fail(fmt.Errorf("from %s: cannot use generate name with apply", SourceName(d.Source)), true, "")
			e.Field, e.Line, e.Hint = "metadata.generateName", d.FieldLine("metadata.generateName"), "kubectl apply needs metadata.name (use kubectl create for generated names)"
			return applyPlan{}, e
		}
		e := fail(fmt.Errorf("error when retrieving current configuration of:\nResource: %q, GroupVersionKind: %q\nName: \"\", Namespace: %q\nfrom server for: %q: resource name may not be empty",
			k.APIVersion()+", Resource="+k.Resource, k.APIVersion()+", Kind="+k.Kind, obj.GetNamespace(), SourceName(d.Source)), true, "")
		e.Field, e.Line, e.Hint = "metadata.name", d.FieldLine("metadata"), "required field is missing"
		return applyPlan{}, e
	}
	modified, lastApplied := modifiedConfiguration(d.Raw)
	live, exists := ov.Lookup(k, obj.GetNamespace(), obj.GetName())
	if !exists {
		ann := map[string]string{}
		for key, v := range obj.GetAnnotations() {
			ann[key] = v
		}
		ann[LastAppliedAnnotation] = lastApplied
		obj.SetAnnotations(ann)
		if err := s.prepareCreate(ov, obj); err != nil {
			return applyPlan{}, fail(err, false, "creating")
		}
		if err := s.validateCreate(ov, obj); err != nil {
			return applyPlan{}, fail(err, false, "creating")
		}
		return applyPlan{action: Created, obj: obj, warnings: d.Warnings}, nil
	}
	warnings := d.Warnings
	original := []byte(nil)
	if la, ok := live.GetAnnotations()[LastAppliedAnnotation]; ok {
		original = []byte(la)
	} else {
		warnings = append(warnings, fmt.Sprintf("resource %s/%s is missing the %s annotation which is required by kubectl apply. "+
			"kubectl apply should only be used on resources created declaratively by either kubectl create --save-config or kubectl apply. "+
			"The missing annotation will be patched automatically.", qualifiedResource(k), obj.GetName(), LastAppliedAnnotation))
	}
	current, err := json.Marshal(live)
	if err != nil {
		panic("apiserver: encoding a stored object: " + err.Error())
	}
	schema, err := strategicpatch.NewPatchMetaFromStruct(k.New())
	if err != nil {
		panic("apiserver: patch schema: " + err.Error())
	}
	patch, err := strategicpatch.CreateThreeWayMergePatch(original, modified, current, schema, true)
	if err != nil {
		return applyPlan{}, fail(apierrors.NewBadRequest(err.Error()), false, "patching")
	}
	if string(patch) == "{}" {
		return applyPlan{action: Unchanged, obj: live, live: live, warnings: warnings}, nil
	}
	merged, err := strategicpatch.StrategicMergePatch(current, patch, k.New())
	if err != nil {
		return applyPlan{}, fail(apierrors.NewBadRequest(err.Error()), false, "patching")
	}
	upd := k.New()
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(merged, upd); err != nil {
		return applyPlan{}, fail(apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", k.Kind, k.Version, k.Kind, err)), false, "patching")
	}
	upd.GetObjectKind().SetGroupVersionKind(k.GroupVersionKind())
	prepared, err := s.prepareUpdate(ov, live, upd, false)
	if err != nil {
		return applyPlan{}, fail(err, false, "patching")
	}
	return applyPlan{action: Configured, obj: prepared, live: live, noop: Equal(live, prepared), warnings: warnings}, nil
}

// qualifiedResource is "deployments.apps", "pods".
func qualifiedResource(k *kinds.Kind) string {
	return k.GroupResource().String()
}

func rawMap(m map[string]any, key string) map[string]any {
	if sub, ok := m[key].(map[string]any); ok {
		return sub
	}
	sub := map[string]any{}
	m[key] = sub
	return sub
}

// modifiedConfiguration is kubectl's GetModifiedConfiguration with
// annotate: the manifest serialised without the last-applied annotation
// becomes that annotation (with the trailing newline kubectl's encoder
// writes, and an "annotations": {} when the manifest had none), and the
// manifest with it is the "modified" side of the three-way merge.
func modifiedConfiguration(raw map[string]any) (modified []byte, lastApplied string) {
	meta := rawMap(raw, "metadata")
	ann, ok := meta["annotations"].(map[string]any)
	if !ok {
		ann = map[string]any{}
		meta["annotations"] = ann
	}
	delete(ann, LastAppliedAnnotation)
	b, err := json.Marshal(raw)
	if err != nil {
		panic("apiserver: encoding a decoded manifest: " + err.Error())
	}
	lastApplied = string(b) + "\n"
	ann[LastAppliedAnnotation] = lastApplied
	modified, err = json.Marshal(raw)
	if err != nil {
		panic("apiserver: encoding a decoded manifest: " + err.Error())
	}
	return modified, lastApplied
}

// overlay is the store with an apply's earlier documents laid over it, so
// that a file can create a namespace and then objects in it, and so that
// two Services in one file get different cluster IPs.
type overlay struct {
	base    view
	pending map[*kinds.Kind]map[string]kinds.Object // kind -> key -> object
}

func newOverlay(base view) *overlay {
	return &overlay{base: base, pending: map[*kinds.Kind]map[string]kinds.Object{}}
}

func (o *overlay) put(obj kinds.Object) {
	k := kinds.Of(obj)
	if o.pending[k] == nil {
		o.pending[k] = map[string]kinds.Object{}
	}
	o.pending[k][k.Key(obj.GetNamespace(), obj.GetName())] = obj
}

func (o *overlay) Lookup(k *kinds.Kind, namespace, name string) (kinds.Object, bool) {
	if obj, ok := o.pending[k][k.Key(namespace, name)]; ok {
		return obj, true
	}
	return o.base.Lookup(k, namespace, name)
}

func (o *overlay) List(k *kinds.Kind, namespace string) []kinds.Object {
	base := o.base.List(k, namespace)
	if len(o.pending[k]) == 0 {
		return base
	}
	byKey := map[string]kinds.Object{}
	for _, obj := range base {
		byKey[kinds.KeyOf(obj)] = obj
	}
	for key, obj := range o.pending[k] {
		if namespace == "" || !k.Namespaced || obj.GetNamespace() == namespace {
			byKey[key] = obj
		}
	}
	keys := make([]string, 0, len(byKey))
	for key := range byKey {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	out := make([]kinds.Object, len(keys))
	for i, key := range keys {
		out[i] = byKey[key]
	}
	return out
}

// Get reads an object as `kubectl get KIND NAME` does, failing with
// Kubernetes' NotFound (`pods "x" not found`). A namespaced kind with an
// empty namespace reads "default". The object is the store's: read-only.
func (s *Server) Get(k *kinds.Kind, namespace, name string) (kinds.Object, error) {
	if !k.Namespaced {
		namespace = ""
	} else if namespace == "" {
		namespace = metav1.NamespaceDefault
	}
	return s.store.Get(k, namespace, name)
}

// PatchOptions are the options of Patch.
type PatchOptions struct {
	// Verb is kubectl's word for what the command did, used in the trace
	// of a learner's request: "scaled", "labeled", "annotated", "image
	// updated", "cordoned", "tainted"; "patched" if empty.
	Verb string
	// Status writes through the /status subresource.
	Status bool
	// DryRun is --dry-run=server: every check, no write.
	DryRun bool
}

// maxPatchRetries bounds Patch's retries on Conflict, as client-go's
// RetryOnConflict does (DefaultRetry: 5 steps).
const maxPatchRetries = 5

// Patch is the read-modify-write the REPL's `label`, `annotate`, `scale`,
// `set image`, `cordon` and `taint` need: it reads the object, lets mutate
// change a copy, and writes it back as an update (defaulted, admitted,
// validated), retrying on Conflict. It returns the object after the
// request and whether anything changed; mutate's error is returned as is.
func (s *Server) Patch(a Actor, k *kinds.Kind, namespace, name string, opts PatchOptions,
	mutate func(obj kinds.Object) error) (kinds.Object, bool, error) {
	verb := opts.Verb
	if verb == "" {
		verb = "patched"
	}
	for attempt := 1; ; attempt++ {
		cur, err := s.Get(k, namespace, name)
		if err != nil {
			return nil, false, err
		}
		obj := cur.DeepCopyObject().(kinds.Object)
		if err := mutate(obj); err != nil {
			return nil, false, err
		}
		prepared, err := s.prepareUpdate(s.store, cur, obj, opts.Status)
		if apierrors.IsConflict(err) && attempt < maxPatchRetries {
			continue
		}
		if err != nil {
			return nil, false, err
		}
		if Equal(cur, prepared) {
			if a.learner() && !opts.DryRun {
				s.traceAPIServer(a, k, cur.GetNamespace(), name, KubectlRef(k, name)+" unchanged")
			}
			return cur, false, nil
		}
		if !opts.DryRun {
			s.commitUpdate(a, prepared, verb, opts.Status && changesStatusOnly(cur, prepared))
		}
		return prepared, true, nil
	}
}
