package apiserver

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
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
//   - Priority: a pod gets spec.priority and spec.preemptionPolicy from
//     the PriorityClass it names, or from the globalDefault class (0 and
//     PreemptLowerPriority when there is none); a class that does not
//     exist is refused, as is a second globalDefault class
//     (priorityclass.go).
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

// admitDelete is NamespaceLifecycle for a delete, and the PriorityClass
// storage's refusal to delete a built-in class.
func admitDelete(k *kinds.Kind, name string) error {
	if k == kinds.Namespace && immortalNamespaces[name] {
		return apierrors.NewForbidden(k.GroupResource(), name, fmt.Errorf("this namespace may not be deleted"))
	}
	if k == kinds.PriorityClass {
		return deletePriorityClassAllowed(name)
	}
	return nil
}

// admit runs the admission plugins kubeloop models on a new object (old
// nil) or an update of old: DefaultTolerationSeconds and Priority for
// pods, Priority's globalDefault check for PriorityClasses. It reads other
// objects through v and returns an error when a plugin rejects the object.
func admit(v view, obj, old kinds.Object) error {
	switch o := obj.(type) {
	case *corev1.Pod:
		addDefaultTolerations(o)
		oldPod, _ := old.(*corev1.Pod)
		return admitPodPriority(v, o, oldPod)
	case *schedulingv1.PriorityClass:
		return admitPriorityClass(v, o, old == nil)
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
	if len(p.Spec.Tolerations) == 0 {
		// Most pods have no tolerations of their own: they all get the same
		// two, one shared array (objects from the store are read-only; its
		// capacity is its length, so an append copies). kube's plugin too
		// shares its TolerationSeconds between pods.
		p.Spec.Tolerations = defaultTolerations[:len(defaultTolerations):len(defaultTolerations)]
		return
	}
	if add := btoi(!notReady) + btoi(!unreachable); add > 0 {
		// One array for the pod's tolerations and the added ones, not an
		// append each: every pod created comes through here.
		p.Spec.Tolerations = append(make([]corev1.Toleration, 0, len(p.Spec.Tolerations)+add), p.Spec.Tolerations...)
	}
	if !notReady {
		p.Spec.Tolerations = append(p.Spec.Tolerations, defaultTolerations[0])
	}
	if !unreachable {
		p.Spec.Tolerations = append(p.Spec.Tolerations, defaultTolerations[1])
	}
}

// defaultTolerations are what DefaultTolerationSeconds adds: not-ready,
// then unreachable, each tolerated for DefaultTolerationSeconds.
var defaultTolerations = [2]corev1.Toleration{
	{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute,
		TolerationSeconds: ptrTo(DefaultTolerationSeconds)},
	{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute,
		TolerationSeconds: ptrTo(DefaultTolerationSeconds)},
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
