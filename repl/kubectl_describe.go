package repl

// describe: kubectl describe, printed by internal/printers.Describe from the
// object and what kubectl's describers fetch besides it (its events, a
// Deployment's ReplicaSets, a ReplicaSet's or a node's pods, a Service's
// EndpointSlices, a node's Lease), found through store indexes so that
// describing one pod stays fast in a cluster of ten thousand.

import (
	"bytes"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/kubeloop/kubeloop/engine/controller"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/kubelet"
	"github.com/kubeloop/kubeloop/engine/store"
	"github.com/kubeloop/kubeloop/internal/printers"
)

// eventObjectIndex files Events under "Kind/name" of their involvedObject,
// so that describe finds an object's events without reading them all. The
// namespace is left out of the key: a node's events live in "default" but
// name a cluster-scoped object. printers.Describe keeps the exact matches.
const eventObjectIndex = "repl/event-involved-object"

func init() {
	register(&Command{
		Name:  "describe",
		Usage: "describe (KIND [NAME_PREFIX...] | KIND/NAME... | KIND -l SELECTOR | -f FILE) [-n NAMESPACE | -A]",
		Short: "show an object in detail, with related objects and its events",
		Long: `describe prints objects as kubectl describe does: the object's fields in
kubectl's layout, what kubectl's describer fetches besides it (a
Deployment's ReplicaSets, a ReplicaSet's pod counts, a node's pods and
allocated resources, a Service's endpoints) and, last, the Events about it,
oldest first, with their age in virtual time ("71s (x6 over 3m21s)" for an
event seen six times).

describe KIND NAME that matches no object describes every object of that
kind whose name starts with NAME, as kubectl does: describe pods api shows
all the api-... pods. describe KIND alone describes every object of the
kind in the namespace.`,
		Example: "describe deployment api\ndescribe pod/api-7d9f8c6b5-x2k4q\ndescribe pods -l app=api\ndescribe node n1",
		Flags: []Flag{FlagNamespace, FlagAllNamespaces, FlagSelector, FlagFilename,
			{Name: "recursive", Short: "R", Usage: "read the directories given with -f recursively"}},
		Run: runDescribe,
	})
}

func runDescribe(s *Session, args []string, input string) error {
	f, err := s.Parse(args)
	if err != nil {
		return err
	}
	ns := namespaceFlag(s, f)
	allNS := f.Bool("all-namespaces")
	refs, err := resourceTargets(s, f, input, ns, "describe", false)
	if err != nil {
		return err
	}
	named := false
	for _, r := range refs {
		named = named || len(r.names) > 0
	}
	if named && f.Changed("selector") {
		return kerrorf("name cannot be provided when a selector is specified")
	}
	sel, err := parseSelector(f.String("selector"))
	if err != nil {
		return err
	}
	targets, errs := findObjects(s, refs, findOpts{namespace: ns, allNamespaces: allNS, selector: sel})

	// kubectl describe pods api: no pod is called "api", so describe every
	// pod whose name starts with it (DescribeMatchingResources), each
	// followed by a blank line.
	if len(f.Args) == 2 && !strings.Contains(f.Args[0], "/") && len(targets) == 0 && len(errs) == 1 && isNotFound(errs[0]) {
		k := refs[0].kind
		listNS := ns
		if !k.Namespaced {
			listNS = ""
		}
		found := false
		var out bytes.Buffer
		for _, obj := range s.Eng.Store.List(k, listNS) {
			if strings.HasPrefix(obj.GetName(), f.Args[1]) {
				found = true
				if err := describeOne(s, &out, obj); err != nil {
					return err
				}
				out.WriteByte('\n')
			}
		}
		if !found {
			return kubectlError(errs[0])
		}
		_, err := s.Out.Write(out.Bytes())
		return err
	}

	var out bytes.Buffer
	for i, t := range targets {
		if i > 0 {
			out.WriteString("\n\n")
		}
		if err := describeOne(s, &out, t.obj); err != nil {
			return err
		}
	}
	if _, err := s.Out.Write(out.Bytes()); err != nil {
		return err
	}
	if len(targets) == 0 && len(errs) == 0 {
		if allNS {
			fmt.Fprintln(s.Err, "No resources found")
		} else {
			fmt.Fprintf(s.Err, "No resources found in %s namespace.\n", ns)
		}
	}
	return joinErrors(errs)
}

// describeOne writes kubectl describe for one object.
func describeOne(s *Session, w *bytes.Buffer, obj kinds.Object) error {
	if err := printers.Describe(w, obj, describeContext(s, obj)); err != nil {
		return kubectlError(err)
	}
	return nil
}

// describeContext gathers the related objects kubectl's describer for obj
// would fetch: candidates only, printers.Describe keeps the exact matches.
func describeContext(s *Session, obj kinds.Object) printers.DescribeContext {
	st := s.Eng.Store
	ctx := printers.DescribeContext{Now: s.Eng.Now().Time(), Events: eventsAbout(st, obj)}
	switch o := obj.(type) {
	case *appsv1.Deployment:
		for _, rs := range ownedBy(st, kinds.ReplicaSet, o) {
			ctx.ReplicaSets = append(ctx.ReplicaSets, rs.(*appsv1.ReplicaSet))
		}
	case *appsv1.ReplicaSet:
		for _, p := range ownedBy(st, kinds.Pod, o) {
			ctx.Pods = append(ctx.Pods, p.(*corev1.Pod))
		}
	case *corev1.Node:
		var pods []store.Object
		if st.HasIndex(kinds.Pod, kubelet.PodNodeIndex) {
			pods = st.ByIndex(kinds.Pod, kubelet.PodNodeIndex, o.Name)
		} else {
			pods = st.List(kinds.Pod, "")
		}
		for _, p := range pods {
			ctx.Pods = append(ctx.Pods, p.(*corev1.Pod))
		}
		if l, ok := st.Lookup(kinds.Lease, "kube-node-lease", o.Name); ok {
			ctx.Leases = []*coordinationv1.Lease{l.(*coordinationv1.Lease)}
		}
	case *corev1.Service:
		for _, es := range st.List(kinds.EndpointSlice, o.Namespace) {
			if es.GetLabels()[discoveryv1.LabelServiceName] == o.Name {
				ctx.EndpointSlices = append(ctx.EndpointSlices, es.(*discoveryv1.EndpointSlice))
			}
		}
	}
	return ctx
}

// ownedBy lists the objects of kind k that name owner in their
// ownerReferences, through the controllers' owner index when it is there.
func ownedBy(st *store.Store, k *kinds.Kind, owner kinds.Object) []store.Object {
	if st.HasIndex(k, controller.IndexOwnerUID) {
		return st.ByIndex(k, controller.IndexOwnerUID, string(owner.GetUID()))
	}
	var out []store.Object
	for _, o := range st.List(k, owner.GetNamespace()) {
		for _, ref := range o.GetOwnerReferences() {
			if ref.UID == owner.GetUID() {
				out = append(out, o)
				break
			}
		}
	}
	return out
}

// eventsAbout returns the events whose involvedObject has obj's kind and
// name (any namespace; Describe checks the rest), through an index the
// session adds to the store the first time it is needed.
func eventsAbout(st *store.Store, obj kinds.Object) []*corev1.Event {
	if !st.HasIndex(kinds.Event, eventObjectIndex) {
		st.AddIndex(kinds.Event, eventObjectIndex, func(o store.Object) []string {
			io := o.(*corev1.Event).InvolvedObject
			return []string{io.Kind + "/" + io.Name}
		})
	}
	evs := st.ByIndex(kinds.Event, eventObjectIndex, kinds.Of(obj).Kind+"/"+obj.GetName())
	out := make([]*corev1.Event, len(evs))
	for i, e := range evs {
		out[i] = e.(*corev1.Event)
	}
	return out
}
