package lessons

import (
	"slices"
	"testing"
)

// TestRanMatches: a ran entry matches the commands a learner may type for
// it, in any of kubectl's spellings, and no other.
func TestRanMatches(t *testing.T) {
	for _, c := range []struct {
		ran  []string
		text string
		want bool
	}{
		{[]string{"describe pod"}, "describe pod web", true},
		{[]string{"describe pod"}, "kubectl describe pods web", true},
		{[]string{"describe pod"}, "describe po/web", true},
		{[]string{"describe pod"}, "describe -n shop pod web", true},
		{[]string{"describe pod"}, "describe --namespace=shop pod web", true},
		{[]string{"describe pod"}, "describe deploy web", false},
		{[]string{"describe pod"}, "describe", false},
		{[]string{"describe pod patient"}, "describe pod/patient", true},
		{[]string{"describe pod patient"}, "describe pod patient-2", true}, // the last word is a prefix
		{[]string{"describe pod patient"}, "describe pod other", false},
		{[]string{"why pod/"}, "why pod/web-7d9f8", true},
		{[]string{"why pod/"}, "why pods web-7d9f8", true},
		{[]string{"why pod/"}, "why pod", false}, // a pod named, not the kind alone
		{[]string{"why pod/checkout"}, "why po/checkout", true},
		{[]string{"why hpa/"}, "why horizontalpodautoscaler/web", true},
		{[]string{"get deploy", "eval"}, "get deployments.apps", true},
		{[]string{"get deploy", "eval"}, `eval count(pods, ready(#))`, true},
		{[]string{"get endpointslice"}, "get endpointslices.discovery.k8s.io -l app=web", true},
		{[]string{"get endpointslice"}, "get -l app=web endpointslices", true},
		{[]string{"trace"}, "trace --column Maintain", true},
		{[]string{"diagram"}, "why pod/web", false},
		{[]string{"apply"}, "apply -f -\napiVersion: v1\nkind: Pod", true},
	} {
		if got := ranMatches(c.ran, c.text); got != c.want {
			t.Errorf("ranMatches(%q, %q) = %v; want %v (words %q)", c.ran, c.text, got, c.want, commandWords(c.text))
		}
	}
}

func TestCommandWords(t *testing.T) {
	for _, c := range []struct {
		line string
		want []string
	}{
		{"kubectl get po -o wide", []string{"get", "pod"}},
		{"describe -n shop deploy/web", []string{"describe", "deployment", "web"}},
		{"why pod/", []string{"why", "pod", ""}},
		{"logs web -c sidecar --tail=5", []string{"logs", "web"}},
		{`eval "a b"`, []string{"eval", "a b"}},
		{"", nil},
	} {
		if got := commandWords(c.line); !slices.Equal(got, c.want) {
			t.Errorf("commandWords(%q) = %q; want %q", c.line, got, c.want)
		}
	}
}
