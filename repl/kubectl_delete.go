package repl

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
)

// deleteWaitMargin is how much virtual time kubeloop waits for deleted
// objects beyond their longest grace period, when no --timeout is given.
// kubectl itself waits up to a week; a simulator that did so would spin
// through a week of timers whenever a pod cannot terminate (its node is
// down), so kubeloop bounds the wait and says so.
const deleteWaitMargin = sim.Minute

var deleteFlags = []Flag{
	FlagFilename, FlagNamespace, FlagAllNamespaces, FlagSelector,
	{Name: "field-selector", Value: "SELECTOR", Usage: "field selector, e.g. spec.nodeName=n1"},
	{Name: "all", Usage: "delete every object of the given kinds in the namespace"},
	{Name: "recursive", Short: "R", Usage: "read the directories given with -f recursively"},
	{Name: "grace-period", Value: "SECONDS", Default: "-1", Usage: "seconds a pod gets to stop (-1: its own terminationGracePeriodSeconds)"},
	{Name: "force", Usage: "with --grace-period=0: remove the object at once, without waiting for the kubelet"},
	{Name: "now", Usage: "the same as --grace-period=1"},
	{Name: "cascade", Value: "background|foreground|orphan", Default: "background", Usage: "what happens to the objects this one owns",
		Values: []string{"background", "foreground", "orphan"}},
	{Name: "wait", Value: "BOOL", Default: "true", Usage: "wait (in virtual time) until the objects are gone", Values: []string{"true", "false"}},
	{Name: "timeout", Value: "DURATION", Default: "0s", Usage: "how long to wait; 0 means until their grace period has passed, plus a minute"},
	{Name: "ignore-not-found", Usage: "treat a missing object as deleted"},
	{Name: "output", Short: "o", Value: "name", Usage: "name: print only kind/name", Values: []string{"name"}},
	flagDryRun,
}

func init() {
	register(&Command{
		Name:  "delete",
		Usage: "delete (KIND NAME... | KIND/NAME... | KIND -l SELECTOR | KIND --all | -f FILE) [--grace-period N] [--force] [--cascade background|foreground|orphan] [--wait=false]",
		Short: "delete objects",
		Long: `delete removes objects, as kubectl delete does. A pod on a node is deleted
gracefully: it gets a deletionTimestamp, shows as Terminating, and goes when
its kubelet has stopped its containers (up to terminationGracePeriodSeconds,
30s by default). --grace-period=0 --force removes it at once.

Like kubectl, delete then waits until the objects are gone; in kubeloop that
means advancing virtual time. Without --timeout it waits for the longest
grace period plus a minute and then stops waiting, saying what is left
(kubectl would wait up to a week). --wait=false returns at once.

--cascade says what happens to what the object owns: background (the
default) deletes the owner now and lets the garbage collector delete its
dependents; foreground keeps the owner until its dependents are gone; orphan
leaves them running without an owner.`,
		Example: "delete pod api-7d9f8c6b5-x2k4q\ndelete pods -l app=api\ndelete deployment/api --cascade=orphan",
		Flags:   deleteFlags,
		Run:     runDelete,
	})
}

// deleted remembers an object delete asked to remove, to wait for it.
type deleted struct {
	kind  *kinds.Kind
	ns    string
	name  string
	uid   types.UID
	grace int64
}

func runDelete(s *Session, args []string, input string) error {
	f, err := s.Parse(args)
	if err != nil {
		return err
	}
	dry, err := parseDryRun(f)
	if err != nil {
		return err
	}
	grace, err := strconv.Atoi(f.String("grace-period"))
	if err != nil {
		return usagef("invalid argument %q for \"--grace-period\" flag: %v", f.String("grace-period"), err)
	}
	force := f.Bool("force")
	if f.Bool("now") {
		if grace != -1 {
			return kerrorf("--now and --grace-period cannot be specified together")
		}
		grace = 1
	}
	if grace == 0 && !force {
		// kubectl turns --grace-period=0 into 1 unless --force says the
		// learner knows the pod may still be running.
		grace = 1
	}
	if force && grace < 0 {
		grace = 0
	}
	if out := f.String("output"); out != "" && out != "name" {
		return kerrorf("unexpected -o output mode: %v. We only support '-o name'", out)
	}
	if f.Bool("all") && f.Changed("selector") {
		return kerrorf("cannot set --all and --selector at the same time")
	}
	switch {
	case grace == 0 && force:
		fmt.Fprintln(s.Err, "Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. The resource may continue to run on the cluster indefinitely.")
	case grace > 0 && force:
		return kerrorf("--force and --grace-period greater than 0 cannot be specified together")
	}
	var propagation metav1.DeletionPropagation
	switch c := f.String("cascade"); c {
	case "background", "true":
		propagation = metav1.DeletePropagationBackground
	case "foreground":
		propagation = metav1.DeletePropagationForeground
	case "orphan", "false":
		propagation = metav1.DeletePropagationOrphan
	default:
		return kerrorf(`invalid cascade value (%v). Must be "background", "foreground", or "orphan".`, c)
	}
	wait, err := strconv.ParseBool(f.String("wait"))
	if err != nil {
		return usagef("invalid argument %q for \"--wait\" flag: %v", f.String("wait"), err)
	}
	timeout, err := f.Duration("timeout")
	if err != nil {
		return err
	}

	ns := namespaceFlag(s, f)
	var targets []target
	var errs []error
	ignoreNotFound := f.Bool("ignore-not-found")
	selecting := f.Bool("all") || f.Changed("selector") || f.Changed("field-selector")
	if selecting && !f.Changed("ignore-not-found") {
		ignoreNotFound = true // kubectl's default with --all, -l or --field-selector
	}
	if files := f.Strings("filename"); len(files) > 0 {
		if len(f.Args) > 0 {
			return kerrorf("when paths, URLs, or stdin is provided as input, you may not specify resource arguments as well")
		}
		docs, err := readManifestTargets(s, files, f.Bool("recursive"), input, ns, f.Changed("namespace"))
		if err != nil {
			return err
		}
		for _, d := range docs {
			obj, ok := s.Eng.Store.Lookup(d.kind, d.namespace, d.name)
			if !ok {
				errs = append(errs, withSource("deleting", d.source, notFound(d.kind, d.name)))
				continue
			}
			targets = append(targets, target{d.kind, obj})
		}
	} else {
		if len(f.Args) == 0 {
			return kerrorf("You must provide one or more resources by argument or filename.\n" +
				"Example resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'")
		}
		refs, err := parseResources(f.Args, false)
		if err != nil {
			return err
		}
		named := false
		for _, r := range refs {
			named = named || len(r.names) > 0
		}
		if named && selecting {
			return kerrorf("name cannot be provided when a selector is specified")
		}
		if !named && !selecting {
			return kerrorf("resource(s) were provided, but no name was specified")
		}
		sel, err := parseSelector(f.String("selector"))
		if err != nil {
			return err
		}
		fsel, err := parseFieldSelector(f.String("field-selector"))
		if err != nil {
			return err
		}
		targets, errs = findObjects(s, refs, findOpts{namespace: ns, allNamespaces: f.Bool("all-namespaces"),
			selector: sel, fieldSelector: fsel})
	}
	if ignoreNotFound {
		errs = dropNotFound(errs)
	}

	warnClusterScope := f.Changed("namespace") && !f.Bool("all-namespaces")
	operation := "deleted"
	if grace == 0 {
		operation = "force deleted"
	}
	operation += dry.suffix()
	var gone []deleted
	for _, t := range targets {
		if warnClusterScope && !t.kind.Namespaced {
			fmt.Fprintln(s.Err, "Warning: deleting cluster-scoped resources, not scoped to the provided namespace")
			warnClusterScope = false
		}
		opts := apiserver.DeleteOptions{Propagation: propagation}
		if grace >= 0 {
			g := int64(grace)
			opts.GracePeriodSeconds = &g
		}
		switch dry {
		case dryRunClient:
		case dryRunServer:
			// The server checks the request exists and would be allowed;
			// nothing is stored.
		default:
			after, err := s.Eng.API.Delete(s.Actor(), t.kind, t.obj.GetNamespace(), t.obj.GetName(), opts)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			d := deleted{kind: t.kind, ns: t.obj.GetNamespace(), name: t.obj.GetName(), uid: t.obj.GetUID()}
			if after != nil {
				if g := after.GetDeletionGracePeriodSeconds(); g != nil {
					d.grace = *g
				}
				if propagation == metav1.DeletePropagationForeground && d.grace < corev1.DefaultTerminationGracePeriodSeconds {
					// Its dependents are pods that get their own grace period.
					d.grace = corev1.DefaultTerminationGracePeriodSeconds
				}
			}
			gone = append(gone, d)
		}
		if f.String("output") == "name" {
			fmt.Fprintln(s.Out, t.ref())
		} else {
			fmt.Fprintf(s.Out, "%s %q %s\n", qualifiedKind(t.kind), t.obj.GetName(), operation)
		}
	}
	if len(targets) == 0 && len(errs) == 0 {
		fmt.Fprintln(s.Out, "No resources found")
		return nil
	}
	if err := joinErrors(errs); err != nil {
		return err
	}
	if !wait || dry != dryRunNone || len(gone) == 0 {
		return nil
	}
	return waitDeleted(s, gone, sim.FromDuration(timeout))
}

// dropNotFound removes NotFound errors (--ignore-not-found).
func dropNotFound(errs []error) []error {
	out := errs[:0]
	for _, err := range errs {
		if !isNotFound(err) {
			out = append(out, err)
		}
	}
	return out
}

// waitDeleted advances virtual time until every deleted object is gone (an
// object of the same name with another UID is a new one), as kubectl
// delete's wait does. With timeout 0 the wait is bounded by the longest
// grace period plus deleteWaitMargin, and running out is reported, not
// failed; with an explicit timeout, running out fails as kubectl's does.
func waitDeleted(s *Session, objs []deleted, timeout sim.Tick) error {
	remaining := func() []deleted {
		var out []deleted
		for _, d := range objs {
			if obj, ok := s.Eng.Store.Lookup(d.kind, d.ns, d.name); ok && obj.GetUID() == d.uid {
				out = append(out, d)
			}
		}
		return out
	}
	s.Eng.Settle()
	if len(remaining()) == 0 {
		return nil
	}
	explicit := timeout > 0
	if !explicit {
		var longest int64
		for _, d := range objs {
			longest = max(longest, d.grace)
		}
		timeout = sim.Seconds(longest) + deleteWaitMargin
	}
	start := s.Eng.Now()
	deadline := start + timeout
	// Advance in steps of a second of virtual time so that Ctrl-C can stop
	// the wait at a settled instant.
	for s.Eng.Now() < deadline {
		if s.Interrupted() {
			return errInterrupted
		}
		step := min(sim.Second, deadline-s.Eng.Now())
		if s.Eng.AdvanceUntil(func() bool { return len(remaining()) == 0 }, step) {
			return nil
		}
	}
	left := remaining()
	if len(left) == 0 {
		return nil
	}
	if explicit {
		var errs []error
		for _, d := range left {
			errs = append(errs, kerrorf("timed out waiting for the condition on %s/%s", d.kind.Resource, d.name))
		}
		return joinErrors(errs)
	}
	names := make([]string, len(left))
	for i, d := range left {
		names[i] = d.kind.Singular + "/" + d.name
	}
	fmt.Fprintf(s.Err, "kubeloop stopped waiting after %s of virtual time; still there: %s "+
		"(kubectl would wait up to a week; use --timeout to choose, or --wait=false)\n",
		humanTicks(s.Eng.Now()-start), strings.Join(names, ", "))
	return nil
}

// humanTicks prints a span of virtual time as Go prints a duration: 1m30s.
func humanTicks(t sim.Tick) string { return t.Duration().String() }
