package printers

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// generic is kubectl's genericDescriber, used for kinds without a describer
// of their own (Event, Lease): the metadata, then every other field of the
// object's JSON shape, sorted, with labels made from the field names.
func (d *describer) generic(obj kinds.Object, events []*corev1.Event) {
	d.write(0, "Name:\t%s\n", obj.GetName())
	d.write(0, "Namespace:\t%s\n", obj.GetNamespace())
	d.labels("", "Labels", obj.GetLabels())
	d.annotations("Annotations", obj.GetAnnotations())
	content := integers(ToJSONValue(obj)).(map[string]any)
	d.unstructured(0, content, "", ".metadata.managedFields", ".metadata.name",
		".metadata.namespace", ".metadata.labels", ".metadata.annotations")
	d.events(events)
}

// unstructured is printUnstructuredContent.
func (d *describer) unstructured(level int, content map[string]any, skipPrefix string, skip ...string) {
	fields := make([]string, 0, len(content))
	for f := range content {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	skipped := func(expr string) bool {
		for _, s := range skip {
			if s == expr {
				return true
			}
		}
		return false
	}
	for _, f := range fields {
		expr := skipPrefix + "." + f
		if skipped(expr) {
			continue
		}
		switch v := content[f].(type) {
		case map[string]any:
			d.write(level, "%s:\n", smartLabelFor(f))
			d.unstructured(level+1, v, expr, skip...)
		case []any:
			d.write(level, "%s:\n", smartLabelFor(f))
			for _, child := range v {
				if m, ok := child.(map[string]any); ok {
					d.unstructured(level+1, m, expr, skip...)
				} else {
					d.write(level+1, "%v\n", child)
				}
			}
		default:
			d.write(level, "%s:\t%v\n", smartLabelFor(f), v)
		}
	}
}

// smartLabelFor turns a field name into describe's label:
// "leaseDurationSeconds" into "Lease Duration Seconds", "apiVersion" into
// "API Version".
func smartLabelFor(field string) string {
	if strings.IndexFunc(field, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' }) != -1 {
		return field
	}
	acronyms := map[string]bool{"API": true, "URL": true, "UID": true, "OSB": true, "GUID": true}
	var out []string
	for _, part := range splitCamelCase(field) {
		if part == "_" {
			continue
		}
		if acronyms[strings.ToUpper(part)] {
			part = strings.ToUpper(part)
		} else {
			part = title(part)
		}
		out = append(out, part)
	}
	return strings.Join(out, " ")
}

// title is the deprecated strings.Title on one word: its first letter upper.
func title(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToTitle(r)) + s[n:]
}

// splitCamelCase is github.com/fatih/camelcase's Split: runs of lower,
// upper, digits and others, with the last upper of a run moved to the
// lower run after it ("PDFLoader" is "PDF", "Loader").
func splitCamelCase(src string) []string {
	if !utf8.ValidString(src) {
		return []string{src}
	}
	var runs [][]rune
	last := 0
	for _, r := range src {
		class := 4
		switch {
		case unicode.IsLower(r):
			class = 1
		case unicode.IsUpper(r):
			class = 2
		case unicode.IsDigit(r):
			class = 3
		}
		if class == last {
			runs[len(runs)-1] = append(runs[len(runs)-1], r)
		} else {
			runs = append(runs, []rune{r})
		}
		last = class
	}
	for i := 0; i < len(runs)-1; i++ {
		if unicode.IsUpper(runs[i][0]) && unicode.IsLower(runs[i+1][0]) {
			runs[i+1] = append([]rune{runs[i][len(runs[i])-1]}, runs[i+1]...)
			runs[i] = runs[i][:len(runs[i])-1]
		}
	}
	var out []string
	for _, r := range runs {
		if len(r) > 0 {
			out = append(out, string(r))
		}
	}
	return out
}
