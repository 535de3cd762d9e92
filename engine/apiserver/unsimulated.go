package apiserver

import (
	"fmt"
	"strings"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// UnsimulatedField is a field that real Kubernetes accepts and acts on but
// that kubeloop does not simulate yet. A manifest that sets one is accepted
// (it is valid Kubernetes, and it is stored and shown as given) and the
// field is reported by name in a warning: never silently dropped.
type UnsimulatedField struct {
	// Scope says where Path starts: PodSpec for every pod spec (a Pod's
	// spec, a Deployment's or ReplicaSet's spec.template.spec), or a Kind
	// ("Service") for that kind's object root.
	Scope string
	// Path is the field below Scope; [*] matches every list item:
	// "containers[*].volumeMounts".
	Path string
	// Until names the issue expected to model the field, if one is
	// planned.
	Until string
}

// PodSpec is the Scope of fields of any pod spec.
const PodSpec = "PodSpec"

// Unsimulated is the one table of fields kubeloop accepts but does not
// simulate yet. Each later issue that models a field removes its row.
var Unsimulated = []UnsimulatedField{
	{Scope: PodSpec, Path: "volumes"},
	{Scope: PodSpec, Path: "containers[*].volumeMounts"},
	{Scope: PodSpec, Path: "containers[*].volumeDevices"},
	{Scope: PodSpec, Path: "initContainers"},
	{Scope: PodSpec, Path: "containers[*].envFrom"},
	{Scope: PodSpec, Path: "containers[*].env[*].valueFrom"},
	{Scope: PodSpec, Path: "containers[*].lifecycle"},
	{Scope: PodSpec, Path: "containers[*].securityContext"},
	{Scope: PodSpec, Path: "containers[*].restartPolicy"},
	{Scope: PodSpec, Path: "containers[*].resizePolicy"},
	{Scope: PodSpec, Path: "containers[*].stdin"},
	{Scope: PodSpec, Path: "containers[*].tty"},
	{Scope: PodSpec, Path: "securityContext"},
	{Scope: PodSpec, Path: "hostNetwork"},
	{Scope: PodSpec, Path: "hostPID"},
	{Scope: PodSpec, Path: "hostIPC"},
	{Scope: PodSpec, Path: "hostUsers"},
	{Scope: PodSpec, Path: "shareProcessNamespace"},
	{Scope: PodSpec, Path: "serviceAccountName"},
	{Scope: PodSpec, Path: "serviceAccount"},
	{Scope: PodSpec, Path: "automountServiceAccountToken"},
	{Scope: PodSpec, Path: "imagePullSecrets"},
	{Scope: PodSpec, Path: "dnsConfig"},
	{Scope: PodSpec, Path: "hostAliases"},
	{Scope: PodSpec, Path: "hostname"},
	{Scope: PodSpec, Path: "subdomain"},
	{Scope: PodSpec, Path: "readinessGates"},
	{Scope: PodSpec, Path: "runtimeClassName"},
	{Scope: PodSpec, Path: "overhead"},
	{Scope: PodSpec, Path: "os"},
	{Scope: PodSpec, Path: "resourceClaims"},
	{Scope: PodSpec, Path: "resources"},
	{Scope: PodSpec, Path: "activeDeadlineSeconds"},
	{Scope: "Service", Path: "spec.externalIPs"},
	{Scope: "Service", Path: "spec.externalName"},
	{Scope: "Service", Path: "spec.loadBalancerIP"},
	{Scope: "Service", Path: "spec.loadBalancerSourceRanges"},
	{Scope: "Service", Path: "spec.loadBalancerClass"},
	{Scope: "Service", Path: "spec.healthCheckNodePort"},
	{Scope: "Service", Path: "spec.trafficDistribution"},
}

// podSpecRoots says where a kind keeps its pod spec.
var podSpecRoots = map[*kinds.Kind][]string{
	kinds.Pod:        {"spec"},
	kinds.Deployment: {"spec", "template", "spec"},
	kinds.ReplicaSet: {"spec", "template", "spec"},
}

// unsimulatedWarnings lists, in table order, the unsimulated fields raw
// sets to something other than a zero value.
func unsimulatedWarnings(k *kinds.Kind, raw map[string]any) []string {
	var out []string
	for _, f := range Unsimulated {
		var root []string
		switch {
		case f.Scope == PodSpec:
			var ok bool
			if root, ok = podSpecRoots[k]; !ok {
				continue
			}
		case f.Scope != k.Kind:
			continue
		}
		start := any(raw)
		prefix := ""
		for _, key := range root {
			m, ok := start.(map[string]any)
			if !ok {
				start = nil
				break
			}
			start = m[key]
			prefix = joinPath(prefix, key)
		}
		if start == nil {
			continue
		}
		for _, p := range matchPattern(start, strings.Split(f.Path, "."), prefix) {
			w := fmt.Sprintf("%s is valid Kubernetes but kubeloop does not simulate it yet; it has no effect", p)
			if f.Until != "" {
				w += fmt.Sprintf(" (the %s issue adds it)", f.Until)
			}
			out = append(out, w)
		}
	}
	return out
}

// matchPattern returns the concrete paths under v that pattern names and
// that hold a non-zero value.
func matchPattern(v any, pattern []string, path string) []string {
	if len(pattern) == 0 {
		if isZeroValue(v) {
			return nil
		}
		return []string{path}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	seg := pattern[0]
	key, all := strings.CutSuffix(seg, "[*]")
	x, ok := m[key]
	if !ok {
		return nil
	}
	p := joinPath(path, key)
	if !all {
		return matchPattern(x, pattern[1:], p)
	}
	list, _ := x.([]any)
	var out []string
	for i, e := range list {
		out = append(out, matchPattern(e, pattern[1:], fmt.Sprintf("%s[%d]", p, i))...)
	}
	return out
}

func isZeroValue(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case string:
		return x == ""
	case int64:
		return x == 0
	case float64:
		return x == 0
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}
