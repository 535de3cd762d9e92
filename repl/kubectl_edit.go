package repl

// Commands that change objects in place: scale, label, annotate, set image.
// Each reads the object, changes a copy as kubectl's patch would, and writes
// it back through the API server on the learner's behalf.

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/kinds"
)

// writeChange writes a changed copy of an object as the running command
// (or, under --dry-run, only checks it), and returns what the server holds
// afterwards.
func writeChange(s *Session, obj kinds.Object, dry dryRun) (kinds.Object, error) {
	switch dry {
	case dryRunClient:
		return obj, nil
	case dryRunServer:
		old, err := s.Eng.Store.Get(kinds.Of(obj), obj.GetNamespace(), obj.GetName())
		if err != nil {
			return nil, err
		}
		apiserver.Default(obj)
		if errs := apiserver.ValidateUpdate(obj, old); len(errs) > 0 {
			return nil, apierrors.NewInvalid(kinds.Of(obj).GroupVersionKind().GroupKind(), obj.GetName(), errs)
		}
		return obj, nil
	}
	return s.Eng.API.Update(s.Actor(), obj)
}

// resourcesAndPairs splits "deploy api app=web tier-" into resources and
// key=value / key- pairs; every resource must come first (kubectl's
// cmdutil.GetResourcesAndPairs).
func resourcesAndPairs(args []string, pairType string) ([]string, []string, error) {
	var resources, pairs []string
	found := false
	for _, a := range args {
		pair := (strings.Contains(a, "=") && a[0] != '=') || (strings.HasSuffix(a, "-") && a != "-")
		switch {
		case pair:
			found = true
			pairs = append(pairs, a)
		case found:
			return nil, nil, kerrorf("all resources must be specified before %s changes: %s", pairType, a)
		default:
			resources = append(resources, a)
		}
	}
	return resources, pairs, nil
}

// parsePairs reads key=value and key- pairs (cmdutil.ParsePairs).
func parsePairs(pairs []string, pairType string, supportRemove bool) (map[string]string, []string, error) {
	set := map[string]string{}
	var remove, invalid []string
	for _, p := range pairs {
		switch {
		case strings.Contains(p, "=") && p[0] != '=':
			k, v, _ := strings.Cut(p, "=")
			set[k] = v
		case supportRemove && strings.HasSuffix(p, "-") && p != "-":
			remove = append(remove, p[:len(p)-1])
		default:
			invalid = append(invalid, p)
		}
	}
	if len(invalid) > 0 {
		return nil, nil, kerrorf("invalid %s format: %s", pairType, strings.Join(invalid, ", "))
	}
	return set, remove, nil
}

// selectTargets resolves the resource arguments of label, annotate, scale
// and set image, with -l, --all and -n/-A.
func selectTargets(s *Session, f *Flags, resources []string, allNS bool) ([]target, []error, error) {
	if f.Bool("all") && f.Changed("selector") {
		return nil, nil, kerrorf("cannot set --all and --selector at the same time")
	}
	refs, err := parseResources(resources, false)
	if err != nil {
		return nil, nil, err
	}
	if len(refs) == 0 {
		return nil, nil, kerrorf("one or more resources must be specified as <resource> <name> or <resource>/<name>")
	}
	named := false
	for _, r := range refs {
		named = named || len(r.names) > 0
	}
	if !named && !f.Bool("all") && !f.Changed("selector") {
		return nil, nil, kerrorf("resource(s) were provided, but no name was specified")
	}
	sel, err := parseSelector(f.String("selector"))
	if err != nil {
		return nil, nil, err
	}
	targets, errs := findObjects(s, refs, findOpts{namespace: namespaceFlag(s, f), allNamespaces: allNS, selector: sel})
	return targets, errs, nil
}

// --- scale ---

func init() {
	register(&Command{
		Name:  "scale",
		Usage: "scale (KIND NAME | KIND/NAME) --replicas=COUNT [--current-replicas=COUNT]",
		Short: "set the number of replicas of a deployment or replicaset",
		Long: `scale sets spec.replicas, as kubectl scale does. The Deployment's (or
ReplicaSet's) controller notices the change and creates or deletes pods until
the number running matches; watch it with trace or get pods.

--current-replicas is a precondition: scale only if the object has that many
replicas now.`,
		Example: "scale deployment/api --replicas=5\nscale rs api-7d9f8c6b5 --replicas=0",
		Flags: []Flag{
			{Name: "replicas", Value: "COUNT", Default: "-1", Usage: "the new desired number of replicas"},
			{Name: "current-replicas", Value: "COUNT", Default: "-1", Usage: "only scale if the object has this many replicas now"},
			FlagNamespace, FlagSelector, {Name: "all", Usage: "scale every object of the kind in the namespace"},
			flagDryRun,
		},
		Run: runScale,
	})
}

func runScale(s *Session, args []string, _ string) error {
	f, err := s.Parse(args)
	if err != nil {
		return err
	}
	dry, err := parseDryRun(f)
	if err != nil {
		return err
	}
	if !f.Changed("replicas") {
		return kerrorf("required flag(s) \"replicas\" not set")
	}
	replicas, err := f.Int("replicas")
	if err != nil {
		return err
	}
	current, err := f.Int("current-replicas")
	if err != nil {
		return err
	}
	if replicas < 0 {
		return kerrorf("The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0")
	}
	targets, errs, err := selectTargets(s, f, f.Args, false)
	if err != nil {
		return err
	}
	for _, t := range targets {
		cp := t.obj.DeepCopyObject().(kinds.Object)
		var spec *int32
		switch o := cp.(type) {
		case *appsv1.Deployment:
			if o.Spec.Replicas == nil {
				o.Spec.Replicas = new(int32)
			}
			spec = o.Spec.Replicas
		case *appsv1.ReplicaSet:
			if o.Spec.Replicas == nil {
				o.Spec.Replicas = new(int32)
			}
			spec = o.Spec.Replicas
		default:
			// kubectl scales through the /scale subresource, which only
			// workload kinds have.
			errs = append(errs, &kubectlCLIError{"Error from server (NotFound): the server could not find the requested resource"})
			continue
		}
		if current >= 0 && int(*spec) != current {
			errs = append(errs, kerrorf("Expected replicas to be %d, was %d", current, *spec))
			continue
		}
		*spec = int32(replicas)
		if _, err := writeChange(s, cp, dry); err != nil {
			errs = append(errs, err)
			continue
		}
		fmt.Fprintf(s.Out, "%s scaled%s\n", t.ref(), dry.suffix())
	}
	return joinErrors(errs)
}

// --- label and annotate ---

var labelFlags = []Flag{
	{Name: "overwrite", Usage: "allow changing a label that already has a value"},
	{Name: "list", Usage: "print the labels instead of changing them"},
	FlagNamespace, FlagAllNamespaces, FlagSelector, {Name: "all", Usage: "every object of the kind in the namespace"},
	flagDryRun,
}

func init() {
	register(&Command{
		Name:  "label",
		Usage: "label (KIND NAME | KIND/NAME) KEY=VALUE... KEY-... [--overwrite]",
		Short: "add, change or remove labels",
		Long: `label sets labels (KEY=VALUE) and removes them (KEY-), as kubectl label does.
Changing a label that already has another value needs --overwrite.

Labels are how Kubernetes groups objects: a ReplicaSet owns the pods its
selector matches, and a Service sends traffic to the pods its selector
matches. Relabel a pod so that its ReplicaSet no longer matches it and watch
the controller make a new one.`,
		Example: "label pod api-7d9f8c6b5-x2k4q app=debug --overwrite\nlabel nodes n1 disk=ssd\nlabel nodes n1 disk-",
		Flags:   labelFlags,
		Run:     func(s *Session, args []string, _ string) error { return runLabel(s, args, false) },
	})
	register(&Command{
		Name:  "annotate",
		Usage: "annotate (KIND NAME | KIND/NAME) KEY=VALUE... KEY-... [--overwrite]",
		Short: "add, change or remove annotations",
		Long: `annotate sets annotations (KEY=VALUE) and removes them (KEY-), as kubectl
annotate does. Any annotation that already exists needs --overwrite to
change. Annotations hold information for tools and people; unlike labels,
nothing selects on them.`,
		Example: "annotate deployment/api owner=team-a\nannotate deployment/api owner-",
		Flags:   labelFlags,
		Run:     func(s *Session, args []string, _ string) error { return runLabel(s, args, true) },
	})
}

// runLabel is label, or annotate when annotations is set: the two differ in
// which map they change, how they validate, and the words they print.
func runLabel(s *Session, args []string, annotations bool) error {
	f, err := s.Parse(args)
	if err != nil {
		return err
	}
	dry, err := parseDryRun(f)
	if err != nil {
		return err
	}
	pairType := "label"
	if annotations {
		pairType = "annotation"
	}
	resources, pairs, err := resourcesAndPairs(f.Args, pairType)
	if err != nil {
		return err
	}
	set, remove, err := parsePairs(pairs, pairType, true)
	if err != nil {
		return err
	}
	if !annotations {
		for k, v := range set {
			if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
				return kerrorf("invalid label value: %q: %s", k+"="+v, strings.Join(errs, ";"))
			}
		}
	}
	var both []string
	for _, r := range remove {
		if _, ok := set[r]; ok {
			both = append(both, r)
		}
	}
	if len(both) > 0 {
		if annotations {
			return kerrorf("can not both modify and remove the following annotation(s) in the same command: %s", strings.Join(both, ", "))
		}
		return kerrorf("can not both modify and remove a label in the same command")
	}
	list := f.Bool("list")
	if len(set) == 0 && len(remove) == 0 && !list {
		return kerrorf("at least one %s update is required", pairType)
	}
	targets, errs, err := selectTargets(s, f, resources, f.Bool("all-namespaces"))
	if err != nil {
		return err
	}
	overwrite := f.Bool("overwrite")
	for _, t := range targets {
		current := t.obj.GetLabels()
		if annotations {
			current = t.obj.GetAnnotations()
		}
		if list {
			if len(targets) > 1 {
				fmt.Fprintf(s.Out, "Listing %ss for %s.%s/%s:\n", pairType, t.kind.Kind, t.kind.Group, t.obj.GetName())
			}
			for _, k := range ksortedKeys(current) {
				indent := ""
				if len(targets) > 1 {
					indent = " "
				}
				fmt.Fprintf(s.Out, "%s%s=%s\n", indent, k, current[k])
			}
			continue
		}
		if !overwrite {
			var clash []string
			for _, k := range ksortedKeys(set) {
				old, ok := current[k]
				switch {
				case annotations && ok && k != "kubernetes.io/change-cause":
					clash = append(clash, fmt.Sprintf("'%s' already has a value (%s)", k, old))
				case !annotations && ok && old != set[k]:
					clash = append(clash, fmt.Sprintf("'%s' already has a value (%s), and --overwrite is false", k, old))
				}
			}
			if len(clash) > 0 {
				if annotations {
					errs = append(errs, kerrorf("--overwrite is false but found the following declared annotation(s): %s", strings.Join(clash, "; ")))
				} else {
					for _, c := range clash {
						errs = append(errs, kerrorf("%s", c))
					}
				}
				continue
			}
		}
		if !annotations && dry == dryRunNone {
			for _, r := range remove {
				if _, ok := current[r]; !ok {
					fmt.Fprintf(s.Out, "label %q not found.\n", r)
				}
			}
		}
		next := map[string]string{}
		for k, v := range current {
			next[k] = v
		}
		for k, v := range set {
			next[k] = v
		}
		for _, r := range remove {
			delete(next, r)
		}
		cp := t.obj.DeepCopyObject().(kinds.Object)
		if annotations {
			cp.SetAnnotations(next)
		} else {
			cp.SetLabels(next)
		}
		if !annotations {
			if errs2 := validateLabelKeys(next); len(errs2) > 0 {
				errs = append(errs, apierrors.NewInvalid(t.kind.GroupVersionKind().GroupKind(), t.obj.GetName(), errs2))
				continue
			}
		}
		if _, err := writeChange(s, cp, dry); err != nil {
			errs = append(errs, err)
			continue
		}
		op := "annotated"
		if !annotations {
			op = labelChange(current, next, overwrite)
		}
		fmt.Fprintf(s.Out, "%s %s%s\n", t.ref(), op, dry.suffix())
	}
	return joinErrors(errs)
}

// labelChange is kubectl label's word for what happened: labeled, unlabeled
// (something removed and nothing overwritten), or not labeled.
func labelChange(old, next map[string]string, overwrite bool) string {
	same := len(old) == len(next)
	for k, v := range next {
		if ov, ok := old[k]; !ok || ov != v {
			same = false
		}
	}
	switch {
	case same:
		return "not labeled"
	case !overwrite && len(next) < len(old):
		return "unlabeled"
	}
	return "labeled"
}

// validateLabelKeys checks label keys as the API server does
// (metadata.labels), so that a bad key is rejected with its wording.
func validateLabelKeys(l map[string]string) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("metadata", "labels")
	for _, k := range ksortedKeys(l) {
		for _, msg := range validation.IsQualifiedName(k) {
			errs = append(errs, field.Invalid(p, k, msg))
		}
	}
	return errs
}

// --- set image ---

func init() {
	register(&Command{
		Name:  "set",
		Usage: "set image (KIND NAME | KIND/NAME) CONTAINER=IMAGE...",
		Short: "change the image of containers (set image)",
		Long: `set image changes the image of the named containers ("*" for all) in a
Deployment's or ReplicaSet's pod template, or in a pod. For a Deployment
this starts a rolling update: a new ReplicaSet for the new template, scaled
up while the old one is scaled down, within maxSurge and maxUnavailable.`,
		Example: "set image deployment/api api=nginx:1.27",
		Flags: []Flag{FlagNamespace, FlagSelector, {Name: "all", Usage: "every object of the kind in the namespace"},
			flagDryRun},
		Run: runSet,
	})
}

func unknownSet(sub string) error {
	return kerrorf("unknown command %q for \"kubectl set\"; kubeloop has set image only", sub)
}

func runSet(s *Session, args []string, _ string) error {
	f, err := s.Parse(args)
	if err != nil {
		// `set resources ... --limits=...` must say that kubeloop has no
		// set resources, not that it has no --limits flag.
		if sub := FirstArg(s.cmd.Flags, args); sub != "" && sub != "image" {
			return unknownSet(sub)
		}
		return err
	}
	if len(f.Args) == 0 {
		return usagef("set needs a subcommand: set image KIND/NAME CONTAINER=IMAGE")
	}
	if f.Args[0] != "image" {
		return unknownSet(f.Args[0])
	}
	dry, err := parseDryRun(f)
	if err != nil {
		return err
	}
	resources, pairs, err := resourcesAndPairs(f.Args[1:], "image")
	if err != nil {
		return err
	}
	images, _, err := parsePairs(pairs, "image", false)
	if err != nil {
		return err
	}
	var verrs []error
	if len(resources) == 0 {
		verrs = append(verrs, kerrorf("one or more resources must be specified as <resource> <name> or <resource>/<name>"))
	}
	if len(images) == 0 {
		verrs = append(verrs, kerrorf("at least one image update is required"))
	} else if _, ok := images["*"]; ok && len(images) > 1 {
		verrs = append(verrs, kerrorf("all containers are already specified by *, but saw more than one container_name=container_image pairs"))
	}
	if len(verrs) > 0 {
		return joinErrors(verrs)
	}
	targets, errs, err := selectTargets(s, f, resources, false)
	if err != nil {
		return err
	}
	for _, t := range targets {
		cp := t.obj.DeepCopyObject().(kinds.Object)
		var spec *corev1.PodSpec
		switch o := cp.(type) {
		case *appsv1.Deployment:
			spec = &o.Spec.Template.Spec
		case *appsv1.ReplicaSet:
			spec = &o.Spec.Template.Spec
		case *corev1.Pod:
			spec = &o.Spec
		default:
			errs = append(errs, kerrorf("%s selector is not supported: set image works on deployments, replicasets and pods", t.ref()))
			continue
		}
		for _, name := range ksortedKeys(images) {
			found := setImage(spec.InitContainers, name, images[name])
			found = setImage(spec.Containers, name, images[name]) || found
			if !found {
				errs = append(errs, kerrorf("unable to find container named %q", name))
			}
		}
		if apiserver.Equal(t.obj, cp) {
			continue // kubectl sends nothing and prints nothing when the patch is empty
		}
		if _, err := writeChange(s, cp, dry); err != nil {
			errs = append(errs, fmt.Errorf("failed to patch image update to pod template: %v", kubectlError(err)))
			continue
		}
		fmt.Fprintf(s.Out, "%s image updated%s\n", t.ref(), dry.suffix())
	}
	return joinErrors(errs)
}

func setImage(cs []corev1.Container, name, image string) bool {
	found := false
	for i := range cs {
		if cs[i].Name == name || name == "*" {
			cs[i].Image = image
			found = true
		}
	}
	return found
}
