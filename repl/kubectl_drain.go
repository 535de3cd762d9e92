package repl

// drain: cordon a node, then evict its pods through the Eviction API,
// honouring PodDisruptionBudgets, with kubectl's filters, retries and
// words (staging/src/k8s.io/kubectl/pkg/drain and pkg/cmd/drain).

import (
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
)

// kubectl drain's filter messages (pkg/drain/filters.go).
const (
	drainDaemonSetFatal   = "DaemonSet-managed Pods (use --ignore-daemonsets to ignore)"
	drainDaemonSetWarning = "ignoring DaemonSet-managed Pods"
	drainLocalFatal       = "Pods with local storage (use --delete-emptydir-data to override)"
	drainLocalWarning     = "deleting Pods with local storage"
	drainUnmanagedFatal   = "cannot delete Pods that declare no controller (use --force to override)"
	drainUnmanagedWarning = "deleting Pods that declare no controller"
	// drainRetry is how long kubectl waits after a 429 before evicting again.
	drainRetry = 5 * sim.Second
)

func init() {
	register(&Command{
		Name:  "drain",
		Usage: "drain NODE [--ignore-daemonsets] [--delete-emptydir-data] [--force] [--grace-period N] [--timeout D] [--disable-eviction]",
		Short: "cordon a node and evict its pods, respecting PodDisruptionBudgets",
		Long: `drain prepares a node for maintenance, as kubectl drain does: it cordons the
node (no new pods), then evicts every pod on it through the Eviction API,
which refuses (429) while the pod's PodDisruptionBudget allows no more
disruptions; drain then retries every 5 s until the budget allows it or
--timeout passes (0, the default, waits for ever). Virtual time advances
while it waits. Each evicted pod is replaced by its ReplicaSet elsewhere.
Pods no controller would replace need --force; pods with emptyDir volumes
need --delete-emptydir-data. --disable-eviction deletes instead of evicting,
bypassing the budgets.`,
		Example: "drain n1 --ignore-daemonsets\ndrain n2 --ignore-daemonsets --delete-emptydir-data --timeout 2m",
		Group:   GroupKubectl,
		Flags: []Flag{
			{Name: "ignore-daemonsets", Usage: "ignore DaemonSet-managed pods"},
			{Name: "delete-emptydir-data", Usage: "continue even if there are pods using emptyDir"},
			{Name: "force", Usage: "continue even if there are pods that do not declare a controller"},
			{Name: "grace-period", Value: "N", Default: "-1", Usage: "seconds each pod gets to terminate (-1: the pod's own)"},
			{Name: "timeout", Value: "D", Default: "0s", Usage: "how long to wait before giving up (0: for ever)"},
			{Name: "disable-eviction", Usage: "delete pods instead of evicting them, bypassing PodDisruptionBudgets"},
		},
		Run: runDrain,
	})
}

// drainPod is one pod drain is removing.
type drainPod struct {
	pod     *corev1.Pod
	nextTry sim.Tick
	evicted bool // the eviction (or delete) was accepted
	gone    bool
}

func runDrain(s *Session, args []string, _ string) error {
	f, err := s.Parse(args)
	if err != nil {
		return err
	}
	if len(f.Args) != 1 {
		return usagef("USAGE: drain NODE [flags]")
	}
	name := f.Args[0]
	grace, err := f.Int("grace-period")
	if err != nil {
		return err
	}
	timeout, err := f.Duration("timeout")
	if err != nil {
		return err
	}
	o, ok := s.Eng.Store.Lookup(kinds.Node, "", name)
	if !ok {
		return kubectlError(apierrors.NewNotFound(kinds.Node.GroupResource(), name))
	}
	node := o.(*corev1.Node)

	// 1. Cordon.
	if node.Spec.Unschedulable {
		fmt.Fprintf(s.Out, "node/%s already cordoned\n", name)
	} else {
		cp := node.DeepCopy()
		cp.Spec.Unschedulable = true
		if _, err := s.Eng.API.Update(s.Actor(), cp); err != nil {
			return kubectlError(err)
		}
		fmt.Fprintf(s.Out, "node/%s cordoned\n", name)
	}

	// 2. Which pods go, and which stop the drain.
	var pods []*drainPod
	var fatal, warn = map[string][]string{}, map[string][]string{}
	for _, o := range s.Eng.Store.List(kinds.Pod, "") {
		p := o.(*corev1.Pod)
		if p.Spec.NodeName != name {
			continue
		}
		if _, mirror := p.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
			continue
		}
		ref := p.Namespace + "/" + p.Name
		finished := p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
		ctl := metav1.GetControllerOfNoCopy(p)
		if ctl != nil && ctl.Kind == "DaemonSet" && !finished {
			if f.Bool("ignore-daemonsets") {
				warn[drainDaemonSetWarning] = append(warn[drainDaemonSetWarning], ref)
			} else {
				fatal[drainDaemonSetFatal] = append(fatal[drainDaemonSetFatal], ref)
			}
			continue
		}
		if hasEmptyDir(p) && !finished {
			if f.Bool("delete-emptydir-data") {
				warn[drainLocalWarning] = append(warn[drainLocalWarning], ref)
			} else {
				fatal[drainLocalFatal] = append(fatal[drainLocalFatal], ref)
				continue
			}
		}
		if ctl == nil && !finished {
			if f.Bool("force") {
				warn[drainUnmanagedWarning] = append(warn[drainUnmanagedWarning], ref)
			} else {
				fatal[drainUnmanagedFatal] = append(fatal[drainUnmanagedFatal], ref)
				continue
			}
		}
		pods = append(pods, &drainPod{pod: p})
	}
	if len(fatal) > 0 {
		msg := drainMessages(fatal, "cannot delete ")
		fmt.Fprintf(s.Err, "error: unable to drain node %q due to error: %s, continuing command...\n", name, msg)
		fmt.Fprintf(s.Err, "There are pending nodes to be drained:\n %s\n", name)
		return kerrorf("%s", msg)
	}
	if len(warn) > 0 {
		fmt.Fprintf(s.Err, "Warning: %s\n", drainMessages(warn, ""))
	}

	// 3. Evict (or delete), retrying refusals every 5 s; wait for each pod
	// to be gone.
	start := s.Eng.Now()
	deadline := sim.Tick(-1)
	if timeout > 0 {
		deadline = start + sim.FromDuration(timeout)
	}
	opts := apiserver.DeleteOptions{}
	if grace >= 0 {
		g := int64(grace)
		opts.GracePeriodSeconds = &g
	}
	useEviction := !f.Bool("disable-eviction")
	for {
		now := s.Eng.Now()
		for _, d := range pods {
			if d.evicted || d.nextTry > now {
				continue
			}
			var err error
			if useEviction {
				err = s.Eng.API.Evict(s.Actor(), d.pod.Namespace, d.pod.Name, opts)
			} else {
				_, err = s.Eng.API.Delete(s.Actor(), kinds.Pod, d.pod.Namespace, d.pod.Name, opts)
			}
			switch {
			case err == nil:
				d.evicted = true
				verb := "evicting"
				if !useEviction {
					verb = "deleting"
				}
				fmt.Fprintf(s.Out, "%s pod %s/%s\n", verb, d.pod.Namespace, d.pod.Name)
			case apierrors.IsNotFound(err):
				d.evicted, d.gone = true, true
			case apierrors.IsTooManyRequests(err):
				fmt.Fprintf(s.Err, "error when evicting pods/%q -n %q (will retry after 5s): %v\n", d.pod.Name, d.pod.Namespace, err)
				d.nextTry = now + drainRetry
			default:
				return kerrorf("error when evicting pods/%q -n %q: %v", d.pod.Name, d.pod.Namespace, err)
			}
		}
		s.Eng.Settle()
		s.reportGone(pods, useEviction)
		if allGone(pods) {
			break
		}
		if deadline >= 0 && s.Eng.Now() >= deadline {
			var msgs []string
			for _, d := range pods {
				if !d.gone {
					msgs = append(msgs, fmt.Sprintf("error when evicting pods/%q -n %q: global timeout reached: %v",
						d.pod.Name, d.pod.Namespace, timeout))
				}
			}
			msg := strings.Join(msgs, ", ")
			if len(msgs) > 1 {
				msg = "[" + msg + "]"
			}
			fmt.Fprintf(s.Err, "error: unable to drain node %q due to error: %s, continuing command...\n", name, msg)
			fmt.Fprintf(s.Err, "There are pending nodes to be drained:\n %s\n", name)
			return kerrorf("%s", msg)
		}
		// Wait for a pod to go or the next retry, whichever comes first.
		next := sim.Tick(-1)
		for _, d := range pods {
			if !d.evicted && (next < 0 || d.nextTry < next) {
				next = d.nextTry
			}
		}
		if deadline >= 0 && (next < 0 || deadline < next) {
			next = deadline
		}
		limit := 24 * time.Hour // kubectl's 0 timeout waits for ever; a stuck drain stops somewhere
		wait := sim.FromDuration(limit)
		if next >= 0 {
			wait = next - s.Eng.Now()
		}
		if wait <= 0 {
			continue
		}
		if !s.Eng.AdvanceUntil(func() bool { return anyGone(s, pods) }, wait) && next < 0 {
			return kerrorf("drain of node %q did not finish within %v of virtual time", name, limit)
		}
	}
	fmt.Fprintf(s.Out, "node/%s drained\n", name)
	return nil
}

// drainMessages joins filter messages as kubectl does: "<msg>: ns/a, ns/b"
// per message, "; " between messages, in a fixed order.
func drainMessages(m map[string][]string, prefix string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		msg := k
		if prefix != "" && !strings.HasPrefix(k, prefix) {
			msg = prefix + k
		}
		parts[i] = msg + ": " + strings.Join(m[k], ", ")
	}
	return strings.Join(parts, "; ")
}

func hasEmptyDir(p *corev1.Pod) bool {
	for _, v := range p.Spec.Volumes {
		if v.EmptyDir != nil {
			return true
		}
	}
	return false
}

// anyGone reports whether some evicted pod has left the API (the same name
// may come back as a new pod: the UID tells them apart).
func anyGone(s *Session, pods []*drainPod) bool {
	for _, d := range pods {
		if d.evicted && !d.gone && podGone(s, d.pod) {
			return true
		}
	}
	return false
}

func podGone(s *Session, p *corev1.Pod) bool {
	o, ok := s.Eng.Store.Lookup(kinds.Pod, p.Namespace, p.Name)
	return !ok || o.GetUID() != p.UID
}

func (s *Session) reportGone(pods []*drainPod, eviction bool) {
	verb := "evicted"
	if !eviction {
		verb = "deleted"
	}
	for _, d := range pods {
		if d.evicted && !d.gone && podGone(s, d.pod) {
			d.gone = true
			fmt.Fprintf(s.Out, "pod/%s %s\n", d.pod.Name, verb)
		}
	}
}

func allGone(pods []*drainPod) bool {
	for _, d := range pods {
		if !d.gone {
			return false
		}
	}
	return true
}
