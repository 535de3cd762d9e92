package apiserver

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// Admission. kube-apiserver runs a chain of admission plugins on every
// write, after decoding and defaulting and around validation. kubeloop
// models the ones whose effects a learner sees:
//
//   - NamespaceLifecycle: nothing is created in a namespace that does not
//     exist (404 `namespaces "x" not found`) or that is being deleted (403),
//     and the default, kube-system and kube-public namespaces cannot be
//     deleted.
//   - DefaultTolerationSeconds: every pod tolerates the not-ready and
//     unreachable NoExecute taints for 300 s, which is why pods on a dead
//     node are evicted five minutes after the node is marked (k8s-facts §5).
//   - Priority: a pod gets priority 0 and preemptionPolicy
//     PreemptLowerPriority unless it names one of the built-in priority
//     classes (no PriorityClass objects are served yet).
//
// kubeloop is ServiceAccount-free: the ServiceAccount plugin, which in a
// real cluster sets spec.serviceAccountName to "default" and mounts a
// projected token volume (kube-api-access-xxxxx) into every pod, is not
// modelled, so pods show neither. Neither are LimitRanger, ResourceQuota,
// PodSecurity or webhooks: kubeloop has no such objects.

// DefaultTolerationSeconds is kube-apiserver's
// --default-not-ready-toleration-seconds and
// --default-unreachable-toleration-seconds.
const DefaultTolerationSeconds int64 = 300

// immortalNamespaces cannot be deleted (NamespaceLifecycle).
var immortalNamespaces = map[string]bool{
	metav1.NamespaceDefault: true, metav1.NamespaceSystem: true, metav1.NamespacePublic: true,
}

// systemPriorityClasses are the priority classes every cluster has.
var systemPriorityClasses = map[string]int32{
	"system-cluster-critical": 2000000000,
	"system-node-critical":    2000001000,
}

// admitNamespace is NamespaceLifecycle for a create of obj.
func admitNamespace(v view, k *kinds.Kind, obj kinds.Object) error {
	if !k.Namespaced {
		return nil
	}
	nsObj, ok := v.Lookup(kinds.Namespace, "", obj.GetNamespace())
	if !ok {
		return apierrors.NewNotFound(kinds.Namespace.GroupResource(), obj.GetNamespace())
	}
	ns := nsObj.(*corev1.Namespace)
	if ns.Status.Phase == corev1.NamespaceTerminating || ns.DeletionTimestamp != nil {
		err := apierrors.NewForbidden(k.GroupResource(), obj.GetName(),
			fmt.Errorf("unable to create new content in namespace %s because it is being terminated", ns.Name))
		err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
			Type:    corev1.NamespaceTerminatingCause,
			Message: fmt.Sprintf("namespace %s is being terminated", ns.Name),
			Field:   "metadata.namespace",
		})
		return err
	}
	return nil
}

// admitDelete is NamespaceLifecycle for a delete.
func admitDelete(k *kinds.Kind, name string) error {
	if k == kinds.Namespace && immortalNamespaces[name] {
		return apierrors.NewForbidden(k.GroupResource(), name, fmt.Errorf("this namespace may not be deleted"))
	}
	return nil
}

// Admit runs the mutating admission plugins kubeloop models on a new or
// updated object: DefaultTolerationSeconds and Priority for pods. It
// returns an error when a plugin rejects the object.
func Admit(obj kinds.Object, create bool) error {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return nil
	}
	addDefaultTolerations(p)
	if create {
		return admitPriority(p)
	}
	return nil
}

// addDefaultTolerations is the DefaultTolerationSeconds plugin.
func addDefaultTolerations(p *corev1.Pod) {
	notReady, unreachable := false, false
	for _, t := range p.Spec.Tolerations {
		if (t.Key == corev1.TaintNodeNotReady || t.Key == "") && (t.Effect == corev1.TaintEffectNoExecute || t.Effect == "") {
			notReady = true
		}
		if (t.Key == corev1.TaintNodeUnreachable || t.Key == "") && (t.Effect == corev1.TaintEffectNoExecute || t.Effect == "") {
			unreachable = true
		}
	}
	if !notReady {
		p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: corev1.TaintNodeNotReady,
			Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptrTo(DefaultTolerationSeconds)})
	}
	if !unreachable {
		p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: corev1.TaintNodeUnreachable,
			Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptrTo(DefaultTolerationSeconds)})
	}
}

// admitPriority is the Priority plugin without PriorityClass objects.
func admitPriority(p *corev1.Pod) error {
	prio := int32(0)
	if name := p.Spec.PriorityClassName; name != "" {
		v, ok := systemPriorityClasses[name]
		if !ok {
			return apierrors.NewForbidden(kinds.Pod.GroupResource(), p.Name,
				fmt.Errorf("no PriorityClass with name %s was found", name))
		}
		prio = v
	}
	if p.Spec.Priority != nil && *p.Spec.Priority != prio {
		return apierrors.NewForbidden(kinds.Pod.GroupResource(), p.Name,
			fmt.Errorf("the integer value of priority (%d) must not be provided in pod spec; priority admission controller computed %d from the given PriorityClass name", *p.Spec.Priority, prio))
	}
	p.Spec.Priority = &prio
	if p.Spec.PreemptionPolicy == nil {
		p.Spec.PreemptionPolicy = ptrTo(corev1.PreemptLowerPriority)
	}
	return nil
}
