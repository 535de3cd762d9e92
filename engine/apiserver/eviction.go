package apiserver

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/trace"
)

// The Eviction API's words (pkg/registry/core/pod/storage/eviction.go).
const (
	// EvictionBlockedMessage is the 429 a PodDisruptionBudget answers with.
	EvictionBlockedMessage = "Cannot evict pod as it would violate the pod's disruption budget."
	// EvictionReason and EvictionMessage are the DisruptionTarget condition
	// an evicted pod gets.
	EvictionReason  = "EvictionByEvictionAPI"
	EvictionMessage = "Eviction API: evicting"
	// MaxDisruptedPodSize bounds status.disruptedPods.
	MaxDisruptedPodSize = 2000
)

const whyEvict = "The Eviction API is a delete that asks the pod's PodDisruptionBudget first: it refuses with 429 " +
	"while the budget allows no more disruptions, so voluntary disruptions never take too many pods at once."

// Evict is the pods/eviction subresource (POST .../pods/NAME/eviction): it
// deletes the pod if its PodDisruptionBudget allows one more disruption,
// and records it in the budget's status.disruptedPods, as kube-apiserver
// does. A pod that is not running (Pending, Succeeded, Failed) or already
// terminating is deleted without consulting a budget; a pod with no budget
// is simply deleted; a not-Ready pod may go if the budget is healthy
// (unhealthyPodEvictionPolicy IfHealthyBudget) or always (AlwaysAllow).
// Otherwise the answer is 429 TooManyRequests, "Cannot evict pod as it
// would violate the pod's disruption budget.", with the budget's numbers
// as the cause. opts are the eviction's delete options.
func (s *Server) Evict(a Actor, namespace, name string, opts DeleteOptions) error {
	if namespace == "" {
		namespace = metav1.NamespaceDefault
	}
	cur, err := s.store.Get(kinds.Pod, namespace, name)
	if err != nil {
		return err
	}
	pod := cur.(*corev1.Pod)
	if canIgnorePDB(pod) {
		return s.evictDelete(a, pod, opts, "the pod is not running, so no disruption budget applies")
	}
	pdbs := s.matchingPDBs(pod)
	switch len(pdbs) {
	case 0:
		return s.evictDelete(a, pod, opts, "no PodDisruptionBudget selects the pod")
	case 1:
	default:
		return apierrors.NewInternalError(fmt.Errorf("This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."))
	}
	pdb := pdbs[0]
	if pdb.Status.ObservedGeneration < pdb.Generation {
		return tooManyRequests(fmt.Sprintf("The disruption budget %s is still being processed by the server.", pdb.Name))
	}
	if !podReady(pod) {
		policy := policyv1.IfHealthyBudget
		if pdb.Spec.UnhealthyPodEvictionPolicy != nil {
			policy = *pdb.Spec.UnhealthyPodEvictionPolicy
		}
		if policy == policyv1.AlwaysAllow {
			return s.evictDelete(a, pod, opts, "the pod is not Ready and budget "+pdb.Name+" says AlwaysAllow")
		}
		if pdb.Status.CurrentHealthy >= pdb.Status.DesiredHealthy && pdb.Status.DesiredHealthy > 0 {
			return s.evictDelete(a, pod, opts, fmt.Sprintf("the pod is not Ready and budget %s is healthy (%d of %d)",
				pdb.Name, pdb.Status.CurrentHealthy, pdb.Status.DesiredHealthy))
		}
	}
	switch {
	case pdb.Status.DisruptionsAllowed < 0:
		return apierrors.NewForbidden(kinds.Pod.GroupResource(), name, fmt.Errorf("pdb disruptions allowed is negative"))
	case len(pdb.Status.DisruptedPods) > MaxDisruptedPodSize:
		return apierrors.NewForbidden(kinds.Pod.GroupResource(), name, fmt.Errorf("DisruptedPods map too big - too many evictions not confirmed by PDB controller"))
	case pdb.Status.DisruptionsAllowed == 0:
		err := tooManyRequests(fmt.Sprintf("The disruption budget %s needs %d healthy pods and has %d currently",
			pdb.Name, pdb.Status.DesiredHealthy, pdb.Status.CurrentHealthy))
		if a.learner() {
			s.trace.Record(trace.Event{Component: "apiserver", Lane: trace.ControlPlane, Column: trace.Declare,
				Namespace: namespace, Object: "pod/" + name, Cause: a.Cause, Why: whyEvict,
				Message: fmt.Sprintf("refused to evict pod/%s (429): budget %s allows 0 disruptions (%d healthy, %d needed)",
					name, pdb.Name, pdb.Status.CurrentHealthy, pdb.Status.DesiredHealthy)})
		}
		return err
	}
	// checkAndDecrement: one disruption fewer, and this pod on the list
	// the disruption controller confirms or times out.
	upd := pdb.DeepCopy()
	upd.Status.DisruptionsAllowed--
	if upd.Status.DisruptedPods == nil {
		upd.Status.DisruptedPods = map[string]metav1.Time{}
	}
	upd.Status.DisruptedPods[name] = s.now()
	seq := a.Cause
	reason := fmt.Sprintf("budget %s allowed it (%d disruptions allowed before, %d after)", pdb.Name,
		pdb.Status.DisruptionsAllowed, upd.Status.DisruptionsAllowed)
	if a.learner() {
		seq = s.traceAPIServer(a, kinds.Pod, namespace, name, "evicting pod/"+name+": "+reason)
	}
	if _, err := s.UpdateStatus(Actor{Component: "apiserver", Cause: seq}, upd); err != nil {
		return err
	}
	return s.deleteEvicted(Actor{Component: a.Component, Cause: seq}, pod, opts)
}

func tooManyRequests(cause string) error {
	err := apierrors.NewTooManyRequests(EvictionBlockedMessage, 0)
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes,
		metav1.StatusCause{Type: policyv1.DisruptionBudgetCause, Message: cause})
	return err
}

// canIgnorePDB: pods that are not running, or already going, are not
// disrupted by an eviction.
func canIgnorePDB(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed ||
		p.Status.Phase == corev1.PodPending || p.DeletionTimestamp != nil
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// matchingPDBs are the budgets in the pod's namespace whose selector
// matches it; in policy/v1 an empty selector matches every pod and a nil
// one none.
func (s *Server) matchingPDBs(pod *corev1.Pod) []*policyv1.PodDisruptionBudget {
	var out []*policyv1.PodDisruptionBudget
	for _, o := range s.store.List(kinds.PDB, pod.Namespace) {
		pdb := o.(*policyv1.PodDisruptionBudget)
		if pdb.Spec.Selector == nil {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || !sel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		out = append(out, pdb)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (s *Server) evictDelete(a Actor, pod *corev1.Pod, opts DeleteOptions, reason string) error {
	seq := a.Cause
	if a.learner() {
		seq = s.traceAPIServer(a, kinds.Pod, pod.Namespace, pod.Name, "evicting pod/"+pod.Name+": "+reason)
	}
	return s.deleteEvicted(Actor{Component: a.Component, Cause: seq}, pod, opts)
}

// deleteEvicted adds the DisruptionTarget condition (unless the pod is
// already going) and deletes the pod.
func (s *Server) deleteEvicted(a Actor, pod *corev1.Pod, opts DeleteOptions) error {
	if pod.DeletionTimestamp == nil {
		upd := pod.DeepCopy()
		setPodCondition(&upd.Status, corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
			Reason: EvictionReason, Message: EvictionMessage, LastTransitionTime: s.now()})
		if _, err := s.UpdateStatus(Actor{Component: "apiserver", Cause: a.Cause}, upd); err != nil {
			return err
		}
	}
	_, err := s.Delete(a, kinds.Pod, pod.Namespace, pod.Name, opts)
	return err
}
