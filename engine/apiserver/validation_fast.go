package apiserver

import (
	"strings"

	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validation fast paths.
//
// apimachinery's validators build a field.Path for every field they look
// at (metadata.name, metadata.labels, ...) before they know whether there
// is anything to report, and kubeloop validates every write: each pod, each
// of its six Events, each Deployment status write. Almost every one of
// them is valid, so those paths are built to be thrown away.
//
// The functions here answer the same question, "would the full validation
// find nothing?", without building a path: they apply exactly the checks
// of the apimachinery function they stand for, through the same string
// validators, in terms of booleans. The full validation still runs
// whenever one of them says no, so the errors a learner sees (field paths,
// messages, order) are always the full validation's own. They must accept
// exactly when the full validation returns no error;
// validation_fast_test.go checks that on valid and invalid inputs of every
// kind, field by field.

// metaValid reports whether apimachineryvalidation.ValidateObjectMeta (with
// the same namespaced and nameFn) returns no errors: the checks of
// ValidateObjectMetaAccessor, in its order.
func metaValid(m *metav1.ObjectMeta, namespaced bool, nameFn apimachineryvalidation.ValidateNameFunc) bool {
	if m.GenerateName != "" && len(nameFn(m.GenerateName, true)) != 0 {
		return false
	}
	if m.Name == "" || len(nameFn(m.Name, false)) != 0 {
		return false
	}
	if namespaced {
		if !dns1123LabelValid(m.Namespace) { // ValidateNamespaceName is IsDNS1123Label
			return false
		}
	} else if m.Namespace != "" {
		return false
	}
	return m.Generation >= 0 && labelsValid(m.Labels) && annotationsValid(m.Annotations) &&
		ownerReferencesValid(m.OwnerReferences) && finalizersValid(m.Finalizers) && managedFieldsValid(m.ManagedFields)
}

// metaUpdateValid reports whether
// apimachineryvalidation.ValidateObjectMetaAccessorUpdate(obj, old, ...)
// returns no errors.
func metaUpdateValid(obj, old metav1.Object) bool {
	if old.GetDeletionTimestamp() != nil && !noNewFinalizers(obj.GetFinalizers(), old.GetFinalizers()) {
		return false
	}
	if obj.GetResourceVersion() == "" || obj.GetGeneration() < old.GetGeneration() {
		return false
	}
	// ValidateImmutableField compares with equality.Semantic.DeepEqual: ==
	// for strings, and for times the Semantic rule a.UTC() == b.UTC().
	if obj.GetName() != old.GetName() || obj.GetNamespace() != old.GetNamespace() || obj.GetUID() != old.GetUID() {
		return false
	}
	if obj.GetCreationTimestamp().UTC() != old.GetCreationTimestamp().UTC() {
		return false
	}
	if a, b := obj.GetDeletionTimestamp(), old.GetDeletionTimestamp(); (a == nil) != (b == nil) || a != nil && a.UTC() != b.UTC() {
		return false
	}
	if a, b := obj.GetDeletionGracePeriodSeconds(), old.GetDeletionGracePeriodSeconds(); (a == nil) != (b == nil) || a != nil && *a != *b {
		return false
	}
	return labelsValid(obj.GetLabels()) && annotationsValid(obj.GetAnnotations()) &&
		ownerReferencesValid(obj.GetOwnerReferences()) && managedFieldsValid(obj.GetManagedFields())
}

// noNewFinalizers is ValidateNoNewFinalizers without errors: every
// finalizer of now is one of old's.
func noNewFinalizers(now, old []string) bool {
	for _, f := range now {
		if !hasValue(old, f) {
			return false
		}
	}
	return true
}

// labelsValid is metav1validation.ValidateLabels without errors: keys are
// qualified names, values label values.
func labelsValid(labels map[string]string) bool {
	for k, v := range labels {
		if !qualifiedNameValid(k) || !labelValueValid(v) {
			return false
		}
	}
	return true
}

// annotationsValid is apimachineryvalidation.ValidateAnnotations without
// errors: keys are qualified names but for case, and keys and values
// together fit in 256 kB.
func annotationsValid(annotations map[string]string) bool {
	size := 0
	for k, v := range annotations {
		if !qualifiedNameValid(strings.ToLower(k)) { // ToLower returns k itself when it has no upper case
			return false
		}
		size += len(k) + len(v)
	}
	return size <= apimachineryvalidation.TotalAnnotationSizeLimitB
}

// ownerReferencesValid is apimachineryvalidation.ValidateOwnerReferences
// without errors: each reference names a version, kind, name and uid, is
// not an Event, and at most one is the controller.
func ownerReferencesValid(refs []metav1.OwnerReference) bool {
	controllers := 0
	for _, ref := range refs {
		gvk := schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind)
		if gvk.Version == "" || gvk.Kind == "" || ref.Name == "" || ref.UID == "" {
			return false
		}
		if _, banned := apimachineryvalidation.BannedOwners[gvk]; banned {
			return false
		}
		if ref.Controller != nil && *ref.Controller {
			controllers++
		}
	}
	return controllers <= 1
}

// finalizersValid is apimachineryvalidation.ValidateFinalizers without
// errors: qualified names, and not both orphan and foreground deletion.
func finalizersValid(finalizers []string) bool {
	for _, f := range finalizers {
		if !qualifiedNameValid(f) {
			return false
		}
	}
	return !hasValue(finalizers, metav1.FinalizerOrphanDependents) || !hasValue(finalizers, metav1.FinalizerDeleteDependents)
}

// managedFieldsValid is metav1validation.ValidateManagedFields without
// errors. The API server clears managedFields on create and kubeloop's
// components never set them, so the full check (which builds paths) only
// runs for the rare object that has some.
func managedFieldsValid(entries []metav1.ManagedFieldsEntry) bool {
	return len(entries) == 0 ||
		len(metav1validation.ValidateManagedFields(entries, field.NewPath("metadata", "managedFields"))) == 0
}

// qualifiedNameValid reports whether validation.IsQualifiedName(v) returns
// no message, without the slice its strings.Split allocates: an optional
// DNS subdomain prefix and "/", then a name of 1 to 63 characters that
// matches ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9].
func qualifiedNameValid(v string) bool {
	name := v
	if i := strings.IndexByte(v, '/'); i >= 0 {
		prefix := v[:i]
		name = v[i+1:]
		if strings.IndexByte(name, '/') >= 0 { // more than one "/"
			return false
		}
		if !dns1123SubdomainValid(prefix) {
			return false
		}
	}
	return name != "" && labelValueValid(name) // the same rule, but not empty
}

// labelValueValid reports whether validation.IsValidLabelValue(v) returns
// no message, without its regular expression (every pod's labels are
// checked with it): at most 63 characters that match
// (([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?, so empty is valid.
func labelValueValid(v string) bool {
	if v == "" {
		return true
	}
	if len(v) > validation.LabelValueMaxLength || !isAlphanumeric(v[0]) || !isAlphanumeric(v[len(v)-1]) {
		return false
	}
	for i := 1; i < len(v)-1; i++ {
		if c := v[i]; !isAlphanumeric(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

func isAlphanumeric(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// dns1123LabelValid reports whether validation.IsDNS1123Label(s) returns no
// message, without its regular expression (every pod and Event is created
// in a namespace checked with it): 1 to 63 characters of [-a-z0-9],
// starting and ending with a letter or digit.
func dns1123LabelValid(s string) bool {
	if len(s) == 0 || len(s) > validation.DNS1123LabelMaxLength {
		return false
	}
	return dns1123Part(s)
}

// dns1123Label is validation.IsDNS1123Label, with the regular expression
// skipped for a valid label (every pod's container names are checked with
// it); an invalid one gets apimachinery's own messages.
func dns1123Label(s string) []string {
	if dns1123LabelValid(s) {
		return nil
	}
	return validation.IsDNS1123Label(s)
}

// dns1123SubdomainValid reports whether validation.IsDNS1123Subdomain(s)
// returns no message, without its regular expression: at most 253
// characters, labels of [-a-z0-9] that start and end with a letter or
// digit, joined by dots (a label's own length is not limited here).
func dns1123SubdomainValid(s string) bool {
	if len(s) == 0 || len(s) > validation.DNS1123SubdomainMaxLength {
		return false
	}
	for {
		i := strings.IndexByte(s, '.')
		if i < 0 {
			return dns1123Part(s)
		}
		if !dns1123Part(s[:i]) {
			return false
		}
		s = s[i+1:]
	}
}

// dns1123Part reports whether s matches [a-z0-9]([-a-z0-9]*[a-z0-9])?.
func dns1123Part(s string) bool {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// nameIsDNSSubdomain is apimachineryvalidation.NameIsDNSSubdomain, the name
// rule of most kinds, with the regular expression skipped for a valid name;
// an invalid one gets apimachinery's own messages.
func nameIsDNSSubdomain(name string, prefix bool) []string {
	check := name
	if prefix && len(check) > 1 && check[len(check)-1] == '-' {
		// apimachinery's maskTrailingDash, which drops the dash and the
		// character before it: "web-" is checked as "wea".
		check = check[:len(check)-2] + "a"
	}
	if dns1123SubdomainValid(check) {
		return nil
	}
	return apimachineryvalidation.NameIsDNSSubdomain(name, prefix)
}
