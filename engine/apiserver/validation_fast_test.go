package apiserver

import (
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The fast paths of validation_fast.go must accept exactly when the full
// validation finds nothing. These tests compare the two on every string of
// a small alphabet and on random metadata built from valid and invalid
// values of every field.

// strs are candidate strings for names, keys and values: valid and invalid
// in every way the validators distinguish (case, length, characters,
// prefixes, trailing dashes and dots, slashes).
var strs = []string{
	"", "a", "A", "0", "-", "_", ".", "/", "a-", "-a", "a.b", "a..b", "a_b", "A_b", "a b", " a", "a\n", "é",
	"web", "web-1", "api-7d9f8c6b5-", "api-7d9f8c6b5-x2k4q", "app.kubernetes.io/name", "example.com/", "/name",
	"Example.com/x", "example.com/X_y.z", "a/b/c", "kubernetes.io/", "x/-a", "deployment.kubernetes.io/revision",
	"pod-template-hash", "7d9f8c6b5", "foregroundDeletion", "orphan", "default", "kube-system", "Default",
	strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a", 253), strings.Repeat("a", 254),
	strings.Repeat("a.", 126) + "a", "p/" + strings.Repeat("b", 63), "p/" + strings.Repeat("b", 64),
	strings.Repeat("a", 62) + "-", "1.2.3", "a.-b", "a-.b",
}

var nameFns = []apimachineryvalidation.ValidateNameFunc{
	apimachineryvalidation.NameIsDNSSubdomain, apimachineryvalidation.NameIsDNSLabel, apimachineryvalidation.NameIsDNS1035Label,
}

// stringValidators pairs each fast string check with the apimachinery
// validator it must agree with.
var stringValidators = []struct {
	name string
	fast func(string) bool
	full func(string) []string
}{
	{"qualifiedNameValid", qualifiedNameValid, validation.IsQualifiedName},
	{"labelValueValid", labelValueValid, validation.IsValidLabelValue},
}

// agree checks that each fast string check accepts s exactly when its
// apimachinery validator does.
func agree(t *testing.T, s string) {
	t.Helper()
	for _, v := range stringValidators {
		if got, want := v.fast(s), len(v.full(s)) == 0; got != want {
			t.Errorf("%s(%q) = %v; apimachinery says %v", v.name, s, got, want)
		}
	}
}

func TestStringValidators(t *testing.T) {
	for _, s := range strs {
		agree(t, s)
	}
	// Every string of up to 5 characters over an alphabet with one
	// character of each class the validators tell apart.
	eachString([]string{"a", "Z", "5", "-", "_", ".", "/", " ", "\xff"}, 5, func(s string) { agree(t, s) })
}

// eachString calls fn with every string of up to n characters over alphabet.
func eachString(alphabet []string, n int, fn func(string)) {
	var gen func(prefix string, n int)
	gen = func(prefix string, n int) {
		fn(prefix)
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			gen(prefix+c, n-1)
		}
	}
	gen("", n)
}

// FuzzStringValidators compares the fast string checks with
// apimachinery's validators.
func FuzzStringValidators(f *testing.F) {
	for _, s := range strs {
		f.Add(s)
	}
	f.Fuzz(agree)
}

// randomMeta is metadata whose every field is, with some probability, set
// from strs: mostly valid, sometimes not, in every field.
func randomMeta(r *rand.Rand) *metav1.ObjectMeta {
	pick := func() string { return strs[r.Intn(len(strs))] }
	maybe := func(good, bad string) string {
		if r.Intn(8) == 0 {
			return bad
		}
		return good
	}
	m := &metav1.ObjectMeta{
		Name:      maybe("web-1", pick()),
		Namespace: maybe("default", pick()),
	}
	if r.Intn(3) == 0 {
		m.GenerateName = maybe("api-7d9f8c6b5-", pick())
	}
	if r.Intn(10) == 0 {
		m.Generation = -1
	}
	for range r.Intn(3) {
		if m.Labels == nil {
			m.Labels = map[string]string{}
		}
		m.Labels[maybe("app.kubernetes.io/name", pick())] = maybe("web", pick())
	}
	for range r.Intn(3) {
		if m.Annotations == nil {
			m.Annotations = map[string]string{}
		}
		m.Annotations[maybe("deployment.kubernetes.io/revision", pick())] = maybe("1", pick())
	}
	if r.Intn(20) == 0 {
		m.Annotations = map[string]string{"big": strings.Repeat("x", apimachineryvalidation.TotalAnnotationSizeLimitB-3+r.Intn(2))}
	}
	for range r.Intn(3) {
		yes, no := true, false
		ref := metav1.OwnerReference{APIVersion: maybe("apps/v1", []string{"", "/", "v1", "apps/", "a/b/c"}[r.Intn(5)]),
			Kind: maybe("ReplicaSet", []string{"", "Event"}[r.Intn(2)]), Name: maybe("api", ""), UID: types.UID(maybe("u-1", ""))}
		switch r.Intn(3) {
		case 0:
			ref.Controller = &yes
		case 1:
			ref.Controller = &no
		}
		m.OwnerReferences = append(m.OwnerReferences, ref)
	}
	for range r.Intn(3) {
		m.Finalizers = append(m.Finalizers, maybe([]string{"example.com/x", metav1.FinalizerOrphanDependents,
			metav1.FinalizerDeleteDependents}[r.Intn(3)], pick()))
	}
	if r.Intn(10) == 0 {
		m.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: maybe("kubectl", ""),
			Operation: metav1.ManagedFieldsOperationType(maybe("Update", "Patch"))}}
	}
	return m
}

func TestMetaValid(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	accepted, rejected := 0, 0
	for i := 0; i < 8000; i++ {
		m := randomMeta(r)
		for fi, fn := range nameFns {
			for _, namespaced := range []bool{true, false} {
				errs := apimachineryvalidation.ValidateObjectMeta(m, namespaced, fn, field.NewPath("metadata"))
				got := metaValid(m, namespaced, fn)
				if got != (len(errs) == 0) {
					t.Fatalf("metaValid(%+v, namespaced=%v, nameFn %d) = %v; full validation: %v", m, namespaced, fi, got, errs)
				}
				if got {
					accepted++
				} else {
					rejected++
				}
				if full := validateMeta(m, namespaced, fn); len(full) != len(errs) || got && full != nil {
					t.Fatalf("validateMeta = %v; want %v", full, errs)
				}
			}
		}
	}
	if accepted < 4000 || rejected < 4000 {
		t.Fatalf("accepted %d, rejected %d: the inputs must exercise both answers", accepted, rejected)
	}
}

func TestMetaUpdateValid(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	accepted, rejected := 0, 0
	for i := 0; i < 20000; i++ {
		old := randomMeta(r)
		old.UID, old.ResourceVersion, old.Generation, old.CreationTimestamp = "u-1", "7", 3, t0
		if r.Intn(4) == 0 {
			ts := metav1.NewTime(t0.Add(time.Minute))
			g := int64(30)
			old.DeletionTimestamp, old.DeletionGracePeriodSeconds = &ts, &g
		}
		obj := old.DeepCopy()
		// Change a few fields, some in ways the update rules refuse.
		for range r.Intn(3) {
			switch r.Intn(12) {
			case 0:
				obj.Name = strs[r.Intn(len(strs))]
			case 1:
				obj.Namespace = strs[r.Intn(len(strs))]
			case 2:
				obj.UID = types.UID(strs[r.Intn(len(strs))])
			case 3:
				obj.ResourceVersion = []string{"", "7", "8"}[r.Intn(3)]
			case 4:
				obj.Generation += int64(r.Intn(3) - 1)
			case 5:
				// The same instant in another zone is the same time; a
				// different instant is not.
				obj.CreationTimestamp = metav1.NewTime(t0.In(time.FixedZone("x", 3600)).Add(time.Duration(r.Intn(2)) * time.Second))
			case 6:
				switch r.Intn(3) {
				case 0:
					obj.DeletionTimestamp = nil
				case 1:
					ts := metav1.NewTime(t0.Add(time.Duration(r.Intn(2)) * time.Minute))
					obj.DeletionTimestamp = &ts
				}
			case 7:
				switch r.Intn(3) {
				case 0:
					obj.DeletionGracePeriodSeconds = nil
				case 1:
					g := int64(r.Intn(2) * 30)
					obj.DeletionGracePeriodSeconds = &g
				}
			case 8:
				obj.Finalizers = append(obj.Finalizers, []string{"example.com/x", metav1.FinalizerOrphanDependents}[r.Intn(2)])
			case 9:
				n := randomMeta(r)
				obj.Labels, obj.Annotations = n.Labels, n.Annotations
			case 10:
				obj.OwnerReferences = randomMeta(r).OwnerReferences
			case 11:
				obj.ManagedFields = randomMeta(r).ManagedFields
			}
		}
		errs := apimachineryvalidation.ValidateObjectMetaAccessorUpdate(obj, old, field.NewPath("metadata"))
		got := metaUpdateValid(obj, old)
		if got != (len(errs) == 0) {
			t.Fatalf("metaUpdateValid(%+v, %+v) = %v; full validation: %v", obj, old, got, errs)
		}
		if got {
			accepted++
		} else {
			rejected++
		}
	}
	if accepted < 3000 || rejected < 3000 {
		t.Fatalf("accepted %d, rejected %d: the inputs must exercise both answers", accepted, rejected)
	}
}

// The DNS-1123 checks and the name rule built on them, against
// apimachinery's regular expressions: every string of up to 5 characters
// over an alphabet with one character of each class they tell apart, the
// shared strings, the length limits, and (FuzzDNS1123) whatever the fuzzer
// finds.
func TestDNS1123Valid(t *testing.T) {
	check := func(s string) {
		t.Helper()
		if got, want := dns1123LabelValid(s), len(validation.IsDNS1123Label(s)) == 0; got != want {
			t.Errorf("dns1123LabelValid(%q) = %v; IsDNS1123Label says %v", s, got, want)
		}
		if got, want := dns1123SubdomainValid(s), len(validation.IsDNS1123Subdomain(s)) == 0; got != want {
			t.Errorf("dns1123SubdomainValid(%q) = %v; IsDNS1123Subdomain says %v", s, got, want)
		}
		if got, want := dns1123Label(s), validation.IsDNS1123Label(s); !slices.Equal(got, want) {
			t.Errorf("dns1123Label(%q) = %q; IsDNS1123Label says %q", s, got, want)
		}
		for _, prefix := range []bool{false, true} {
			got, want := nameIsDNSSubdomain(s, prefix), apimachineryvalidation.NameIsDNSSubdomain(s, prefix)
			if !slices.Equal(got, want) {
				t.Errorf("nameIsDNSSubdomain(%q, %v) = %q; apimachinery says %q", s, prefix, got, want)
			}
		}
	}
	for _, s := range strs {
		check(s)
	}
	for _, n := range []int{62, 63, 64, 252, 253, 254} {
		check(strings.Repeat("a", n))
		check(strings.Repeat("a", n-1) + "-")
		check(strings.Repeat("a.", n/2)[:n-1] + "b")
	}
	eachString([]string{"a", "Z", "5", "-", "_", ".", "/"}, 5, check)
}

func FuzzDNS1123(f *testing.F) {
	for _, s := range strs {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := dns1123SubdomainValid(s), len(validation.IsDNS1123Subdomain(s)) == 0; got != want {
			t.Fatalf("dns1123SubdomainValid(%q) = %v; IsDNS1123Subdomain says %v", s, got, want)
		}
		if got, want := dns1123LabelValid(s), len(validation.IsDNS1123Label(s)) == 0; got != want {
			t.Fatalf("dns1123LabelValid(%q) = %v; IsDNS1123Label says %v", s, got, want)
		}
		if got, want := nameIsDNSSubdomain(s, true), apimachineryvalidation.NameIsDNSSubdomain(s, true); !slices.Equal(got, want) {
			t.Fatalf("nameIsDNSSubdomain(%q, true) = %q; apimachinery says %q", s, got, want)
		}
	})
}
