package repl

// Imperative creation: create deployment, create namespace and expose, which
// build the objects exactly as kubectl's generators do and create them on the
// learner's behalf.

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/kinds"
)

func init() {
	register(&Command{
		Name:  "create",
		Usage: "create deployment NAME --image=IMAGE [--replicas=N] [--port=PORT] | create namespace NAME",
		Short: "create a deployment or a namespace from the command line",
		Long: `create builds an object from flags, as kubectl create does:

  create deployment NAME --image=IMAGE [--replicas=N] [--port=PORT]
      a Deployment labelled app=NAME whose pods run IMAGE (one container
      per --image, named after the image), with N replicas (default 1)
  create namespace NAME
      a Namespace

To create from a manifest, use apply -f.`,
		Example: "create deployment api --image=nginx:1.27 --replicas=3 --port=80\ncreate namespace team-a",
		Flags: []Flag{
			{Name: "image", Value: "IMAGE", Usage: "the container image (repeat for more containers)"},
			{Name: "replicas", Short: "r", Value: "N", Default: "1", Usage: "number of replicas"},
			{Name: "port", Value: "PORT", Default: "-1", Usage: "the containerPort of the first container"},
			FlagNamespace, flagDryRun,
			{Name: "output", Short: "o", Value: "name", Usage: "name: print only kind/name", Values: []string{"name"}},
		},
		Run: runCreate,
	})
	register(&Command{
		Name:  "expose",
		Usage: "expose (KIND NAME | KIND/NAME) [--port=PORT] [--target-port=PORT] [--type=TYPE] [--name=NAME]",
		Short: "create a Service for a deployment, replicaset, pod or service",
		Long: `expose creates a Service that selects the same pods as the object given, as
kubectl expose does: its selector is the deployment's (or replicaset's)
spec.selector.matchLabels, or the pod's labels. The port defaults to the
containers' ports; --target-port defaults to the port.`,
		Example: "expose deployment api --port=80 --target-port=8080",
		Flags: []Flag{
			{Name: "port", Value: "PORT", Usage: "the port the service serves on"},
			{Name: "target-port", Value: "PORT", Usage: "the container port (number or name) to send traffic to"},
			{Name: "protocol", Value: "PROTOCOL", Usage: "TCP, UDP or SCTP", Values: []string{"TCP", "UDP", "SCTP"}},
			{Name: "type", Value: "TYPE", Usage: "ClusterIP, NodePort, LoadBalancer or ExternalName",
				Values: []string{"ClusterIP", "NodePort", "LoadBalancer", "ExternalName"}},
			{Name: "name", Value: "NAME", Usage: "the service's name (default: the object's)"},
			{Name: "selector", Short: "l", Value: "SELECTOR", Usage: "the service's selector (default: the object's)"},
			FlagNamespace, flagDryRun,
			{Name: "output", Short: "o", Value: "name", Usage: "name: print only kind/name", Values: []string{"name"}},
		},
		Run: runExpose,
	})
}

func runCreate(s *Session, args []string, _ string) error {
	f, err := s.Parse(args)
	if err != nil {
		return err
	}
	if len(f.Args) == 0 {
		return usagef("create needs a kind: create deployment NAME --image=IMAGE, or create namespace NAME (use apply -f for manifests)")
	}
	dry, err := parseDryRun(f)
	if err != nil {
		return err
	}
	what, rest := f.Args[0], f.Args[1:]
	if len(rest) != 1 {
		return usagef("exactly one NAME is required, got %d", len(rest))
	}
	name := rest[0]
	var obj kinds.Object
	switch what {
	case "deployment", "deploy":
		images := f.Strings("image")
		if len(images) == 0 {
			return kerrorf("required flag(s) \"image\" not set")
		}
		replicas, err := f.Int("replicas")
		if err != nil {
			return err
		}
		port, err := f.Int("port")
		if err != nil {
			return err
		}
		obj = newDeployment(name, images, int32(replicas), int32(port))
	case "namespace", "ns":
		obj = &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
			ObjectMeta: metav1.ObjectMeta{Name: name}}
	default:
		return kerrorf("kubeloop can create deployment and namespace from flags; for %q, write a manifest and use apply -f", what)
	}
	k := kinds.Of(obj)
	if k.Namespaced {
		obj.SetNamespace(namespaceFlag(s, f))
	}
	if _, err := createObject(s, obj, dry); err != nil {
		return kubectlError(err)
	}
	printCreated(s, f, qualifiedRef(k, name), "created", dry)
	return nil
}

// printCreated prints kubectl's line for a created object, or its name
// with -o name.
func printCreated(s *Session, f *Flags, ref, op string, dry dryRun) {
	if f.String("output") == "name" {
		fmt.Fprintln(s.Out, ref)
		return
	}
	fmt.Fprintf(s.Out, "%s %s%s\n", ref, op, dry.suffix())
}

// createObject creates obj as the running command, or under --dry-run only
// checks it: client dry-run sends nothing, server dry-run lets the API
// server default and validate it without storing it.
func createObject(s *Session, obj kinds.Object, dry dryRun) (kinds.Object, error) {
	switch dry {
	case dryRunClient:
		return obj, nil
	case dryRunServer:
		k := kinds.Of(obj)
		if _, ok := s.Eng.Store.Lookup(k, obj.GetNamespace(), obj.GetName()); ok {
			return nil, apierrors.NewAlreadyExists(k.GroupResource(), obj.GetName())
		}
		if k.Namespaced {
			if _, ok := s.Eng.Store.Lookup(kinds.Namespace, "", obj.GetNamespace()); !ok {
				return nil, apierrors.NewNotFound(kinds.Namespace.GroupResource(), obj.GetNamespace())
			}
		}
		apiserver.Default(obj)
		if errs := apiserver.Validate(obj); len(errs) > 0 {
			return nil, apierrors.NewInvalid(k.GroupVersionKind().GroupKind(), obj.GetName(), errs)
		}
		return obj, nil
	}
	return s.Eng.API.Create(s.Actor(), obj)
}

// newDeployment is kubectl create deployment's object: labels app=NAME on
// the deployment, its selector and its template; one container per image,
// named after the image; the port on the first container.
func newDeployment(name string, images []string, replicas, port int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	var containers []corev1.Container
	for _, image := range images {
		containers = append(containers, corev1.Container{Name: containerNameFor(image), Image: image})
	}
	if port >= 0 && len(containers) > 0 {
		containers[0].Ports = []corev1.ContainerPort{{ContainerPort: port}}
	}
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       corev1.PodSpec{Containers: containers},
			},
		},
	}
}

// containerNameFor is kubectl's container name for an image: the last path
// element without tag or digest, with "_" and "." made "-". (kubectl then
// adds five random characters to such a sanitised name; kubeloop does not,
// so that the name is the same in every run.)
func containerNameFor(image string) string {
	name := image[strings.LastIndex(image, "/")+1:]
	name, _, _ = strings.Cut(name, "@")
	name, _, _ = strings.Cut(name, ":")
	return strings.NewReplacer("_", "-", ".", "-").Replace(name)
}

func runExpose(s *Session, args []string, _ string) error {
	f, err := s.Parse(args)
	if err != nil {
		return err
	}
	dry, err := parseDryRun(f)
	if err != nil {
		return err
	}
	refs, err := parseResources(f.Args, false)
	if err != nil {
		return err
	}
	if len(refs) == 0 || len(refs[0].names) == 0 {
		return usagef("You must provide the resource and name to expose: expose deployment NAME --port=PORT")
	}
	ns := namespaceFlag(s, f)
	targets, errs := findObjects(s, refs, findOpts{namespace: ns})
	if len(errs) > 0 {
		return joinErrors(errs)
	}
	for _, t := range targets {
		svc, err := serviceFor(f, t)
		if err != nil {
			return err
		}
		svc.Namespace = ns
		if _, err := createObject(s, svc, dry); err != nil {
			return kubectlError(err)
		}
		printCreated(s, f, qualifiedRef(kinds.Service, svc.Name), "exposed", dry)
	}
	return nil
}

// serviceFor builds kubectl expose's Service (the "service/v2" generator).
func serviceFor(f *Flags, t target) (*corev1.Service, error) {
	var selector map[string]string
	var podSpec *corev1.PodSpec
	switch o := t.obj.(type) {
	case *appsv1.Deployment:
		sel, err := mapSelector(o.Spec.Selector)
		if err != nil {
			return nil, err
		}
		selector, podSpec = sel, &o.Spec.Template.Spec
	case *appsv1.ReplicaSet:
		sel, err := mapSelector(o.Spec.Selector)
		if err != nil {
			return nil, err
		}
		selector, podSpec = sel, &o.Spec.Template.Spec
	case *corev1.Pod:
		if len(o.Labels) == 0 {
			return nil, usagef("couldn't retrieve selectors via --selector flag or introspection: the pod has no labels and cannot be exposed")
		}
		selector, podSpec = o.Labels, &o.Spec
	case *corev1.Service:
		if len(o.Spec.Selector) == 0 {
			return nil, usagef("couldn't retrieve selectors via --selector flag or introspection: the service has no pod selector set")
		}
		selector = o.Spec.Selector
	default:
		return nil, kerrorf("cannot expose a %s", t.kind.Kind)
	}
	if f.Changed("selector") {
		selector = map[string]string{}
		for _, kv := range strings.Split(f.String("selector"), ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return nil, kerrorf("invalid selector %q: expected key=value pairs", f.String("selector"))
			}
			selector[k] = v
		}
	}
	name := t.obj.GetName()
	if f.Changed("name") {
		name = f.String("name")
	}
	if len(name) > 63 {
		name = name[:63]
	}

	// Ports: --port, or every container port of the pods.
	type portProto struct {
		port  int32
		proto corev1.Protocol
	}
	var ports []portProto
	protoOf := map[int32]corev1.Protocol{}
	if podSpec != nil {
		for _, c := range podSpec.Containers {
			for _, p := range c.Ports {
				proto := p.Protocol
				if proto == "" {
					proto = corev1.ProtocolTCP
				}
				protoOf[p.ContainerPort] = proto
				ports = append(ports, portProto{p.ContainerPort, proto})
			}
		}
	}
	if svc, ok := t.obj.(*corev1.Service); ok {
		for _, p := range svc.Spec.Ports {
			ports = append(ports, portProto{p.Port, p.Protocol})
		}
	}
	if f.Changed("port") {
		n, err := strconv.Atoi(f.String("port"))
		if err != nil {
			return nil, kerrorf("invalid port %q: %v", f.String("port"), err)
		}
		proto := protoOf[int32(n)]
		if proto == "" {
			proto = corev1.ProtocolTCP
		}
		ports = []portProto{{int32(n), proto}}
	}
	if len(ports) == 0 {
		return nil, usagef("couldn't find port via --port flag or introspection")
	}
	if f.Changed("protocol") {
		for i := range ports {
			ports[i].proto = corev1.Protocol(f.String("protocol"))
		}
	}
	svc := &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: copyMap(t.obj.GetLabels())},
		Spec:       corev1.ServiceSpec{Selector: copyMap(selector)},
	}
	for i, p := range ports {
		sp := corev1.ServicePort{Port: p.port, Protocol: p.proto, TargetPort: intstr.FromInt32(p.port)}
		if len(ports) > 1 {
			sp.Name = fmt.Sprintf("port-%d", i+1)
		}
		if f.Changed("target-port") {
			sp.TargetPort = intstr.Parse(f.String("target-port"))
		}
		svc.Spec.Ports = append(svc.Spec.Ports, sp)
	}
	if f.Changed("type") {
		svc.Spec.Type = corev1.ServiceType(f.String("type"))
	}
	return svc, nil
}

// mapSelector turns a label selector into the map a Service needs; a
// selector with expressions cannot be one.
func mapSelector(sel *metav1.LabelSelector) (map[string]string, error) {
	if sel == nil {
		return nil, usagef("couldn't retrieve selectors via --selector flag or introspection: the object has no selector")
	}
	if len(sel.MatchExpressions) > 0 {
		var exprs []string
		for _, e := range sel.MatchExpressions {
			vals := append([]string(nil), e.Values...)
			sort.Strings(vals)
			exprs = append(exprs, fmt.Sprintf("%s %s [%s]", e.Key, e.Operator, strings.Join(vals, " ")))
		}
		return nil, usagef("couldn't retrieve selectors via --selector flag or introspection: couldn't convert expressions - %q to map-based selector format",
			strings.Join(exprs, ","))
	}
	return sel.MatchLabels, nil
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
