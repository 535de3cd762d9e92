package apiserver

import (
	"crypto/sha1"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// PriorityClasses (scheduling.k8s.io/v1, cluster-scoped) and the Priority
// admission plugin, as in k/k pkg/apis/scheduling (validation, defaults,
// helpers) and plugin/pkg/admission/priority.
//
// A pod names a class in spec.priorityClassName; on create the Priority
// plugin copies the class's value into spec.priority and its
// preemptionPolicy into spec.preemptionPolicy. A pod that names no class
// gets the globalDefault class's (or 0 and PreemptLowerPriority when no
// class is the default). The scheduler never reads PriorityClasses: it
// orders its queue and chooses preemption victims by spec.priority alone,
// which is why changing a class later changes no running pod.

// Priority bounds (k/k pkg/apis/scheduling/types.go).
const (
	// HighestUserDefinablePriority is the largest value a class that is not
	// a system class may have.
	HighestUserDefinablePriority int32 = 1000000000
	// SystemCriticalPriority is system-cluster-critical's value;
	// system-node-critical's is 1000 more.
	SystemCriticalPriority = 2 * HighestUserDefinablePriority
	// SystemPriorityClassPrefix starts the names reserved for system classes.
	SystemPriorityClassPrefix = "system-"
)

// The built-in classes kube-apiserver creates at start-up.
const (
	SystemClusterCritical = "system-cluster-critical"
	SystemNodeCritical    = "system-node-critical"
)

// SystemPriorityClasses returns new copies of the two classes every
// cluster has, in the order kube-apiserver creates them (k/k
// pkg/apis/scheduling/v1/helpers.go).
func SystemPriorityClasses() []*schedulingv1.PriorityClass {
	mk := func(name string, value int32, desc string) *schedulingv1.PriorityClass {
		return &schedulingv1.PriorityClass{
			TypeMeta:   metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1", Kind: "PriorityClass"},
			ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value, Description: desc}
	}
	return []*schedulingv1.PriorityClass{
		mk(SystemNodeCritical, SystemCriticalPriority+1000,
			"Used for system critical pods that must not be moved from their current node."),
		mk(SystemClusterCritical, SystemCriticalPriority,
			"Used for system critical pods that must run in the cluster, but can be moved to another node if necessary."),
	}
}

// isKnownSystemPriorityClass is IsKnownSystemPriorityClass: name, value
// and globalDefault must be those of a built-in class.
func isKnownSystemPriorityClass(name string, value int32, globalDefault bool) error {
	for _, spc := range SystemPriorityClasses() {
		if spc.Name != name {
			continue
		}
		if spc.Value != value {
			return fmt.Errorf("value of %v PriorityClass must be %v", spc.Name, spc.Value)
		}
		if spc.GlobalDefault != globalDefault {
			return fmt.Errorf("globalDefault of %v PriorityClass must be %v", spc.Name, spc.GlobalDefault)
		}
		return nil
	}
	return fmt.Errorf("%v is not a known system priority class", name)
}

// defaultPriorityClass is SetDefaults_PriorityClass.
func defaultPriorityClass(pc *schedulingv1.PriorityClass) {
	if pc.PreemptionPolicy == nil {
		pc.PreemptionPolicy = ptrTo(corev1.PreemptLowerPriority)
	}
}

// validatePriorityClass is ValidatePriorityClass: a DNS subdomain name;
// names starting with "system-" only for the built-in classes, exactly as
// built in; other classes at most HighestUserDefinablePriority; a known
// preemptionPolicy.
func validatePriorityClass(pc *schedulingv1.PriorityClass) field.ErrorList {
	errs := validateMeta(&pc.ObjectMeta, false, nameIsDNSSubdomain)
	if strings.HasPrefix(pc.Name, SystemPriorityClassPrefix) {
		if err := isKnownSystemPriorityClass(pc.Name, pc.Value, pc.GlobalDefault); err != nil {
			errs = append(errs, field.Forbidden(field.NewPath("metadata", "name"),
				"priority class names with '"+SystemPriorityClassPrefix+"' prefix are reserved for system use only. error: "+err.Error()))
		}
	} else if pc.Value > HighestUserDefinablePriority {
		errs = append(errs, field.Forbidden(field.NewPath("value"),
			fmt.Sprintf("maximum allowed value of a user defined priority is %v", HighestUserDefinablePriority)))
	}
	if pc.PreemptionPolicy != nil {
		p := field.NewPath("preemptionPolicy")
		switch *pc.PreemptionPolicy {
		case corev1.PreemptLowerPriority, corev1.PreemptNever:
		case "":
			errs = append(errs, field.Required(p, ""))
		default:
			errs = append(errs, field.NotSupported(p, *pc.PreemptionPolicy,
				[]string{string(corev1.PreemptLowerPriority), string(corev1.PreemptNever)}))
		}
	}
	return errs
}

// validatePriorityClassUpdate is ValidatePriorityClassUpdate: value and
// preemptionPolicy cannot change (delete and recreate the class instead;
// pods already created keep the priority they were given).
func validatePriorityClassUpdate(pc, old *schedulingv1.PriorityClass) field.ErrorList {
	var errs field.ErrorList
	if pc.Value != old.Value {
		errs = append(errs, field.Forbidden(field.NewPath("value"), "may not be changed in an update."))
	}
	return append(errs, apimachineryvalidation.ValidateImmutableField(pc.PreemptionPolicy, old.PreemptionPolicy,
		field.NewPath("preemptionPolicy"))...)
}

// defaultPriorityClassIn is the Priority plugin's getDefaultPriorityClass:
// the globalDefault class, the lowest-valued one should a race have made
// two.
func defaultPriorityClassIn(v view) *schedulingv1.PriorityClass {
	var def *schedulingv1.PriorityClass
	for _, o := range v.List(kinds.PriorityClass, "") {
		pc := o.(*schedulingv1.PriorityClass)
		if pc.GlobalDefault && (def == nil || def.Value > pc.Value) {
			def = pc
		}
	}
	return def
}

// admitPriorityClass is the Priority plugin's validation of a class: only
// one class may be the globalDefault.
func admitPriorityClass(v view, pc *schedulingv1.PriorityClass, create bool) error {
	if !pc.GlobalDefault {
		return nil
	}
	if def := defaultPriorityClassIn(v); def != nil && (create || def.Name != pc.Name) {
		return apierrors.NewForbidden(kinds.PriorityClass.GroupResource(), pc.Name,
			fmt.Errorf("PriorityClass %v is already marked as default. Only one default can exist", def.Name))
	}
	return nil
}

// admitPodPriority is the Priority plugin's admitPod. On create it
// resolves spec.priorityClassName (or the globalDefault class when none is
// named, setting the name too) into spec.priority and
// spec.preemptionPolicy; a pod that sets either to something else is
// refused. On update it keeps what create set.
func admitPodPriority(v view, p *corev1.Pod, old *corev1.Pod) error {
	if old != nil {
		if p.Spec.Priority == nil && old.Spec.Priority != nil {
			p.Spec.Priority = old.Spec.Priority
		}
		if p.Spec.PreemptionPolicy == nil && old.Spec.PreemptionPolicy != nil {
			p.Spec.PreemptionPolicy = old.Spec.PreemptionPolicy
		}
		return nil
	}
	var prio int32
	policy := ptrTo(corev1.PreemptLowerPriority)
	if p.Spec.PriorityClassName == "" {
		if def := defaultPriorityClassIn(v); def != nil {
			p.Spec.PriorityClassName, prio, policy = def.Name, def.Value, def.PreemptionPolicy
		}
	} else {
		o, ok := v.Lookup(kinds.PriorityClass, "", p.Spec.PriorityClassName)
		if !ok {
			return forbiddenPod(p, fmt.Errorf("no PriorityClass with name %v was found", p.Spec.PriorityClassName))
		}
		pc := o.(*schedulingv1.PriorityClass)
		prio, policy = pc.Value, pc.PreemptionPolicy
	}
	if p.Spec.Priority != nil && *p.Spec.Priority != prio {
		return forbiddenPod(p, fmt.Errorf("the integer value of priority (%d) must not be provided in pod spec; priority admission controller computed %d from the given PriorityClass name", *p.Spec.Priority, prio))
	}
	p.Spec.Priority = &prio
	if policy != nil {
		if p.Spec.PreemptionPolicy != nil && *p.Spec.PreemptionPolicy != *policy {
			return forbiddenPod(p, fmt.Errorf("the string value of PreemptionPolicy (%s) must not be provided in pod spec; priority admission controller computed %s from the given PriorityClass name", *p.Spec.PreemptionPolicy, *policy))
		}
		p.Spec.PreemptionPolicy = ptrTo(*policy)
	}
	return nil
}

// forbiddenPod is admission.NewForbidden for a pod: before the name is
// generated, the error names the generateName prefix ("web-7d9f8-").
func forbiddenPod(p *corev1.Pod, err error) error {
	name := p.Name
	if name == "" {
		name = p.GenerateName
	}
	return apierrors.NewForbidden(kinds.Pod.GroupResource(), name, err)
}

// deletePriorityClassAllowed is the PriorityClass REST storage's Delete:
// the built-in classes cannot be deleted.
func deletePriorityClassAllowed(name string) error {
	for _, spc := range SystemPriorityClasses() {
		if spc.Name == name {
			return apierrors.NewForbidden(kinds.PriorityClass.GroupResource(), name,
				fmt.Errorf("this is a system priority class and cannot be deleted"))
		}
	}
	return nil
}

// CreateSystemPriorityClasses creates system-node-critical and
// system-cluster-critical, as kube-apiserver's post-start hook does, on an
// empty cluster. Their UIDs are derived from their names instead of drawn
// from the server's seeded source, so that every later UID and generated
// name stays what it was before kubeloop served PriorityClasses.
func (s *Server) CreateSystemPriorityClasses(a Actor) error {
	for _, pc := range SystemPriorityClasses() {
		if _, ok := s.store.Lookup(kinds.PriorityClass, "", pc.Name); ok {
			continue
		}
		pc.SetCreationTimestamp(s.now())
		pc.SetUID(nameUID(pc.Name))
		pc.SetGeneration(1)
		Default(pc)
		if err := s.validateCreate(s.store, pc); err != nil {
			return err
		}
		s.commitCreate(a, pc, "created")
	}
	return nil
}

// nameUID is a version-5-shaped UUID made from a name.
func nameUID(name string) types.UID {
	h := sha1.Sum([]byte("kubeloop/" + name))
	h[6] = h[6]&0x0f | 0x50
	h[8] = h[8]&0x3f | 0x80
	return types.UID(fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16]))
}
