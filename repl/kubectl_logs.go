package repl

// logs: what a container's simulated process printed, read from its node's
// kubelet through the API server as kubectl logs reads it.

import (
	"fmt"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/kubelet"
)

// logsSelectorTail is kubectl logs' --tail when a selector picks the pods:
// the last 10 lines of each.
const logsSelectorTail = 10

func init() {
	register(&Command{
		Name:  "logs",
		Usage: "logs (POD | TYPE/NAME | -l SELECTOR) [-c CONTAINER] [-p] [--tail N] [--timestamps] [--all-containers] [--prefix]",
		Short: "print what a container's process printed",
		Long: `logs prints what a container wrote to its standard output, as kubectl logs
does: kubeloop's simulated images print what the real ones print when they
start (nginx's entrypoint lines, say), with virtual timestamps.

A pod with several containers needs -c, or kubectl's default: the first
container (it says which on stderr). TYPE/NAME takes one pod of a
deployment, replicaset or service, preferring running and ready pods, as
kubectl does ("Found 3 pods, using pod/..."). -l prints the last 10 lines of
every matching pod unless --tail says otherwise.

-p (--previous) asks for the container instance before the last restart.
Time moves only with advance, so there is no -f.`,
		Example: "logs api-7d9f8c6b5-x2k4q\nlogs deployment/api --tail 5\nlogs -l app=api --prefix",
		Flags: []Flag{
			{Name: "container", Short: "c", Value: "CONTAINER", Usage: "the container to print"},
			{Name: "previous", Short: "p", Usage: "the previous, terminated instance of the container"},
			{Name: "tail", Value: "N", Default: "-1", Usage: "only the last N lines (-1: all; 10 with -l)"},
			{Name: "timestamps", Usage: "start each line with its virtual RFC 3339 time"},
			{Name: "all-containers", Usage: "every container of the pod, one after another"},
			{Name: "prefix", Usage: "start each line with [pod/NAME/CONTAINER]"},
			{Name: "follow", Short: "f", Usage: "(not in kubeloop: time moves only with advance)"},
			FlagSelector, FlagNamespace,
		},
		Complete: completeLogs,
		Run:      runLogs,
	})
}

// completeLogs offers pod names, or TYPE/NAME for the kinds logs can read
// through, and leaves flags and their values to the usual completion.
func completeLogs(s *Session, args []string, word string) []string {
	c, _ := lookup("logs")
	prevTakesValue := false
	if n := len(args); n > 0 && strings.HasPrefix(args[n-1], "-") && !strings.Contains(args[n-1], "=") {
		if f := flagNamed(c, args[n-1]); f != nil && !f.IsBool() {
			prevTakesValue = true
		}
	}
	if strings.HasPrefix(word, "-") || prevTakesValue {
		return s.completeArgs(c, args, word)
	}
	ns := s.Namespace
	if kind, _, ok := strings.Cut(word, "/"); ok {
		k, found := kinds.Lookup(kind)
		if !found {
			return nil
		}
		var out []string
		for _, n := range s.objectNames(k, ns) {
			out = append(out, kind+"/"+n)
		}
		return out
	}
	out := s.objectNames(kinds.Pod, ns)
	return append(out, "deployment/", "replicaset/", "service/", "pod/")
}

func runLogs(s *Session, args []string, _ string) error {
	f, err := s.Parse(args)
	if err != nil {
		return err
	}
	if f.Bool("follow") {
		return kerrorf("kubeloop has no --follow: virtual time moves only with advance or until; run logs again after advance")
	}
	tail, err := f.Int("tail")
	if err != nil {
		return err
	}
	ns := namespaceFlag(s, f)
	container := f.String("container")
	selector := f.String("selector")
	var pods []*corev1.Pod
	switch {
	case selector != "" && len(f.Args) > 0:
		return kerrorf("only a selector (-l) or a POD name is allowed")
	case selector != "":
		sel, err := parseSelector(selector)
		if err != nil {
			return err
		}
		for _, o := range s.Eng.Store.List(kinds.Pod, ns) {
			if sel.Matches(labels.Set(o.GetLabels())) {
				pods = append(pods, o.(*corev1.Pod))
			}
		}
		if len(pods) == 0 {
			fmt.Fprintf(s.Err, "No resources found in %s namespace.\n", ns)
			return nil
		}
		if !f.Changed("tail") {
			tail = logsSelectorTail
		}
	case len(f.Args) == 0 || len(f.Args) > 2:
		return usagef("expected POD, TYPE/NAME or -l SELECTOR (and an optional CONTAINER)")
	default:
		p, err := logsPod(s, f.Args[0], ns)
		if err != nil {
			return err
		}
		pods = []*corev1.Pod{p}
		if len(f.Args) == 2 { // kubectl logs POD CONTAINER, the old form
			if f.Changed("container") {
				return kerrorf("only one of -c or an inline [CONTAINER] arg is allowed")
			}
			container = f.Args[1]
		}
	}

	var out strings.Builder
	var errs []error
	for _, p := range pods {
		containers, err := logsContainers(s, p, container, f.Bool("all-containers"))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, c := range containers {
			lines, err := s.Eng.Kubelets().Logs(p.Namespace, p.Name, c, f.Bool("previous"))
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if tail >= 0 && len(lines) > tail {
				lines = lines[len(lines)-tail:]
			}
			text := kubelet.FormatLogs(lines, f.Bool("timestamps"))
			if f.Bool("prefix") {
				prefix := "[pod/" + p.Name + "/" + c + "] "
				text = strings.ReplaceAll(strings.TrimSuffix(text, "\n"), "\n", "\n"+prefix)
				if text != "" {
					text = prefix + text + "\n"
				}
			}
			out.WriteString(text)
		}
	}
	fmt.Fprint(s.Out, out.String())
	return joinErrors(errs)
}

// logsContainers picks the containers to print, as kubectl logs does: -c,
// every container with --all-containers (init containers first), or the
// pod's default container (the kubectl.kubernetes.io/default-container
// annotation, else the first, saying so when there was a choice).
func logsContainers(s *Session, p *corev1.Pod, name string, all bool) ([]string, error) {
	if all {
		if name != "" {
			return nil, kerrorf("--all-containers=true should not be specified with container name %s", name)
		}
		var names []string
		for _, c := range p.Spec.InitContainers {
			names = append(names, c.Name)
		}
		for _, c := range p.Spec.Containers {
			names = append(names, c.Name)
		}
		return names, nil
	}
	if name == "" {
		if d := p.Annotations["kubectl.kubernetes.io/default-container"]; d != "" {
			if hasContainer(p, d) {
				name = d
			} else {
				fmt.Fprintf(s.Err, "Default container name %q not found in pod %s\n", d, p.Name)
			}
		}
	}
	if name == "" {
		name = p.Spec.Containers[0].Name
		if len(p.Spec.Containers) > 1 || len(p.Spec.InitContainers) > 0 || len(p.Spec.EphemeralContainers) > 0 {
			fmt.Fprintf(s.Err, "Defaulted container %q out of: %s\n", name, allContainerNames(p))
		}
	}
	if !hasContainer(p, name) {
		return nil, kerrorf("container %s is not valid for pod %s", name, p.Name)
	}
	return []string{name}, nil
}

func hasContainer(p *corev1.Pod, name string) bool {
	for _, c := range p.Spec.Containers {
		if c.Name == name {
			return true
		}
	}
	for _, c := range p.Spec.InitContainers {
		if c.Name == name {
			return true
		}
	}
	return false
}

// allContainerNames is kubectl's list for "Defaulted container": app
// containers, then ephemeral and init containers, marked.
func allContainerNames(p *corev1.Pod) string {
	var names []string
	for _, c := range p.Spec.Containers {
		names = append(names, c.Name)
	}
	for _, c := range p.Spec.EphemeralContainers {
		names = append(names, c.Name+" (ephem)")
	}
	for _, c := range p.Spec.InitContainers {
		names = append(names, c.Name+" (init)")
	}
	return strings.Join(names, ", ")
}

// logsPod resolves logs' argument: a pod name, pod/NAME, or a deployment,
// replicaset or service whose pods are ranked as kubectl's ByLogging ranks
// them (on a node, running, ready, ready the longest, most restarts,
// oldest), the first taken.
func logsPod(s *Session, arg, ns string) (*corev1.Pod, error) {
	kindName, name, slash := strings.Cut(arg, "/")
	if !slash {
		kindName, name = "pod", arg
	}
	k, err := lookupKind(kindName)
	if err != nil {
		return nil, err
	}
	obj, ok := s.Eng.Store.Lookup(k, ns, name)
	if !ok {
		return nil, kubectlError(notFound(k, name))
	}
	var sel labels.Selector
	switch o := obj.(type) {
	case *corev1.Pod:
		return o, nil
	case *appsv1.Deployment:
		sel, err = metav1.LabelSelectorAsSelector(o.Spec.Selector)
	case *appsv1.ReplicaSet:
		sel, err = metav1.LabelSelectorAsSelector(o.Spec.Selector)
	case *corev1.Service:
		if len(o.Spec.Selector) == 0 {
			return nil, kerrorf("cannot get the logs from *v1.Service: invalid service '%s': Service is defined without a selector", o.Name)
		}
		sel = labels.SelectorFromSet(o.Spec.Selector)
	default:
		return nil, kerrorf("cannot get the logs from %s", k.GroupVersionKind())
	}
	if err != nil {
		return nil, kerrorf("cannot get the logs from %s: %v", k.Kind, err)
	}
	var pods []*corev1.Pod
	for _, o := range s.Eng.Store.List(kinds.Pod, ns) {
		if sel.Matches(labels.Set(o.GetLabels())) {
			pods = append(pods, o.(*corev1.Pod))
		}
	}
	if len(pods) == 0 {
		// kubectl waits --pod-running-timeout (20s) for a pod, then gives up.
		return nil, kerrorf("timed out waiting for the condition")
	}
	// kubectl's sort.Sort over a few pods is an insertion sort: stable.
	sort.SliceStable(pods, func(i, j int) bool { return byLogging(pods[i], pods[j]) })
	if len(pods) > 1 {
		fmt.Fprintf(s.Err, "Found %d pods, using pod/%s\n", len(pods), pods[0].Name)
	}
	return pods[0], nil
}

// byLogging is kubectl's podutils.ByLogging: the best pod to read logs from
// sorts first.
func byLogging(a, b *corev1.Pod) bool {
	if a.Spec.NodeName != b.Spec.NodeName && (a.Spec.NodeName == "" || b.Spec.NodeName == "") {
		return a.Spec.NodeName != ""
	}
	phase := map[corev1.PodPhase]int{corev1.PodRunning: 0, corev1.PodUnknown: 1, corev1.PodPending: 2}
	if phase[a.Status.Phase] != phase[b.Status.Phase] {
		return phase[a.Status.Phase] < phase[b.Status.Phase]
	}
	if podReady(a) != podReady(b) {
		return podReady(a)
	}
	if podReady(a) && podReady(b) {
		ta, tb := readyTime(a), readyTime(b)
		if !ta.Equal(&tb) {
			return afterOrZero(tb, ta)
		}
	}
	if ra, rb := maxRestarts(a), maxRestarts(b); ra != rb {
		return ra > rb
	}
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return afterOrZero(b.CreationTimestamp, a.CreationTimestamp)
	}
	return false
}

func afterOrZero(t1, t2 metav1.Time) bool {
	if t1.IsZero() || t2.IsZero() {
		return t1.IsZero()
	}
	return t1.After(t2.Time)
}

func readyTime(p *corev1.Pod) metav1.Time {
	if c := podCondition(p, corev1.PodReady); c != nil && c.Status == corev1.ConditionTrue {
		return c.LastTransitionTime
	}
	return metav1.Time{}
}

func maxRestarts(p *corev1.Pod) int32 {
	var n int32
	for _, c := range p.Status.ContainerStatuses {
		n = max(n, c.RestartCount)
	}
	return n
}
