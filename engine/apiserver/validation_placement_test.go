package apiserver

import (
	"strings"
	"testing"
)

// TestPlacementValidation checks affinity and topology spread manifests
// against kube-apiserver's messages (pkg/apis/core/validation).
func TestPlacementValidation(t *testing.T) {
	pod := func(spec string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers: [{name: a, image: x}]\n" + spec
	}
	anti := func(term string) string {
		return pod("  affinity:\n    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - " + term + "\n")
	}
	spread := func(c string) string { return pod("  topologySpreadConstraints:\n  - " + c + "\n") }
	const sel = "labelSelector: {matchLabels: {app: web}}"
	tests := []struct{ name, manifest, want string }{
		{"valid anti-affinity", anti("{topologyKey: kubernetes.io/hostname, " + sel + "}"), ""},
		{"topologyKey missing", anti("{" + sel + "}"),
			"spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: can not be empty, " +
				`spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: "": name part must be non-empty, ` +
				`spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`},
		{"invalid label selector operator", anti("{topologyKey: zone, labelSelector: {matchExpressions: [{key: app, operator: Near, values: [web]}]}}"),
			`spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator`},
		{"In without values", anti("{topologyKey: zone, labelSelector: {matchExpressions: [{key: app, operator: In}]}}"),
			"spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"},
		{"preferred weight out of range", pod("  affinity:\n    podAffinity:\n      preferredDuringSchedulingIgnoredDuringExecution:\n      - weight: 101\n        podAffinityTerm: {topologyKey: zone, " + sel + "}\n"),
			"spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 101: must be in the range 1-100"},
		{"invalid node selector operator", pod("  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions: [{key: zone, operator: Within, values: [a]}]\n"),
			`spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: "Within": not a valid selector operator`},
		{"Gt needs one value", pod("  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions: [{key: cores, operator: Gt, values: ['1', '2']}]\n"),
			"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'"},
		{"no node selector terms", pod("  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms: []\n"),
			"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term"},
		{"valid spread", spread("{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, " + sel + "}"), ""},
		{"maxSkew 0", spread("{maxSkew: 0, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, " + sel + "}"),
			"spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero"},
		{"spread topologyKey missing", spread("{maxSkew: 1, whenUnsatisfiable: DoNotSchedule, " + sel + "}"),
			"spec.topologySpreadConstraints[0].topologyKey: Required value: can not be empty"},
		{"whenUnsatisfiable", spread("{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: Never, " + sel + "}"),
			`spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: "Never": supported values: "DoNotSchedule", "ScheduleAnyway"`},
		{"minDomains with ScheduleAnyway", spread("{maxSkew: 1, minDomains: 3, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway, " + sel + "}"),
			"spec.topologySpreadConstraints[0].minDomains: Invalid value: 3: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway"},
		{"repeated constraint", pod("  topologySpreadConstraints:\n  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}\n  - {maxSkew: 2, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}\n"),
			`spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: Duplicate value: "{zone, DoNotSchedule}"`},
		{"nodeTaintsPolicy", spread("{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, nodeTaintsPolicy: Always}"),
			`spec.topologySpreadConstraints[0].nodeTaintsPolicy: Unsupported value: "Always": supported values: "Honor", "Ignore"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs, err := Decode("t.yaml", []byte(tt.manifest))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			obj := docs[0].Object
			obj.SetNamespace("default")
			Default(obj)
			var msgs []string
			for _, e := range Validate(obj) {
				msgs = append(msgs, e.Error())
			}
			if got := strings.Join(msgs, ", "); got != tt.want {
				t.Errorf("Validate =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}
