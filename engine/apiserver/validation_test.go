package apiserver

import (
	"strings"
	"testing"
)

// TestValidationMessages decodes, defaults and validates manifests and
// compares the field errors, joined as kube-apiserver's 422 joins them,
// with Kubernetes' wording.
func TestValidationMessages(t *testing.T) {
	pod := func(spec string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n" + spec
	}
	tests := []struct {
		name, manifest, want string
	}{
		{"valid deployment", apiDeployment, ""},
		{"no containers", pod("  containers: []\n"), "spec.containers: Required value"},
		{"duplicate container names", pod("  containers:\n  - {name: a, image: x}\n  - {name: a, image: z}\n"),
			`spec.containers[1].name: Duplicate value: "a"`},
		{"container name not a DNS label", pod("  containers:\n  - {name: A, image: x}\n"),
			`spec.containers[0].name: Invalid value: "A": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', ` +
				`and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`},
		{"protocol", pod("  containers:\n  - name: a\n    image: x\n    ports: [{containerPort: 80, protocol: tcp}]\n"),
			`spec.containers[0].ports[0].protocol: Unsupported value: "tcp": supported values: "SCTP", "TCP", "UDP"`},
		{"requests above limits", pod("  containers:\n  - name: a\n    image: x\n    resources:\n      requests: {cpu: 2}\n      limits: {cpu: 1}\n"),
			`spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1`},
		{"negative quantity", pod("  containers:\n  - name: a\n    image: x\n    resources:\n      requests: {memory: -1Mi}\n"),
			`spec.containers[0].resources.requests[memory]: Invalid value: "-1Mi": must be greater than or equal to 0`},
		{"unknown resource", pod("  containers:\n  - name: a\n    image: x\n    resources:\n      requests: {gpu: 1}\n"),
			`spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a standard resource for containers`},
		{"probe without handler", pod("  containers:\n  - name: a\n    image: x\n    readinessProbe: {periodSeconds: 5}\n"),
			`spec.containers[0].readinessProbe: Required value: must specify a handler type`},
		{"negative probe period", pod("  containers:\n  - name: a\n    image: x\n    readinessProbe: {tcpSocket: {port: 80}, periodSeconds: -5}\n"),
			`spec.containers[0].readinessProbe.periodSeconds: Invalid value: -5: must be greater than or equal to 0`},
		{"startup successThreshold", pod("  containers:\n  - name: a\n    image: x\n    startupProbe: {exec: {command: [ok]}, successThreshold: 3}\n"),
			`spec.containers[0].startupProbe.successThreshold: Invalid value: 3: must be 1`},
		{"restart policy", pod("  restartPolicy: Sometimes\n  containers: [{name: a, image: x}]\n"),
			`spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`},
		{"toleration without key", pod("  tolerations: [{operator: Equal, value: x}]\n  containers: [{name: a, image: x}]\n"),
			"spec.tolerations[0].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty, which means \"match all values and all keys\""},
		{"tolerationSeconds needs NoExecute", pod("  tolerations: [{key: k, operator: Exists, effect: NoSchedule, tolerationSeconds: 5}]\n  containers: [{name: a, image: x}]\n"),
			"spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set"},
		{"bad label", strings.Replace(apiDeployment, "name: api\nspec", "name: api\n  labels: {\"-bad\": x}\nspec", 1),
			`metadata.labels: Invalid value: "-bad": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end ` +
				`with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`},
		{"empty selector", strings.Replace(strings.Replace(apiDeployment, "matchLabels: {app: api}", "matchLabels: {}", 1), "      labels: {app: api}\n", "", 1),
			"spec.selector: Invalid value: {}: empty selector is invalid for deployment"},
		// kube checks the template against LabelSelectorAsSelector(nil),
		// which matches nothing: the well-known pair of errors of an
		// apps/v1 Deployment written without a selector.
		{"no selector", strings.Replace(apiDeployment, "  selector:\n    matchLabels: {app: api}\n", "", 1),
			"spec.selector: Required value, spec.template.metadata.labels: Invalid value: {\"app\":\"api\"}: `selector` does not match template `labels`"},
		{"replicaset without selector or containers", "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: rs}\nspec:\n  template:\n    metadata: {labels: {app: a}}\n",
			"spec.selector: Required value, spec.template.metadata.labels: Invalid value: {\"app\":\"a\"}: `selector` does not match template `labels`, " +
				"spec.template.spec.containers: Required value"},
		{"surge and unavailable both zero", strings.Replace(apiDeployment, "  replicas: 3\n", "  replicas: 3\n  strategy:\n    rollingUpdate: {maxSurge: 0, maxUnavailable: 0}\n", 1),
			"spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0"},
		{"bad percentage", strings.Replace(apiDeployment, "  replicas: 3\n", "  replicas: 3\n  strategy:\n    rollingUpdate: {maxSurge: 10}\n    type: Recreate\n", 1),
			"spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"},
		{"YAML 1.1: an unquoted y is a boolean", pod("  containers:\n  - {name: a, image: y}\n"), "decode error"},
		{"service without ports", "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {selector: {app: web}}\n",
			"spec.ports: Required value"},
		{"service port names", "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  ports: [{port: 80}, {port: 443}]\n",
			"spec.ports[0].name: Required value, spec.ports[1].name: Required value"},
		{"service targetPort", "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  ports: [{port: 80, targetPort: 70000}]\n",
			"spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive"},
		{"service type", "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  type: Internal\n  ports: [{port: 80}]\n",
			`spec.type: Unsupported value: "Internal": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"`},
		{"namespace name", "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop.prod}\n",
			`metadata.name: Invalid value: "shop.prod": must not contain dots`},
		{"node taint effect", "apiVersion: v1\nkind: Node\nmetadata: {name: n9}\nspec:\n  taints: [{key: gpu, effect: NoScheduling}]\n",
			`spec.taints[0].effect: Unsupported value: "NoScheduling": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`},
		{"hpa bounds", "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: api}\nspec:\n" +
			"  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}\n  minReplicas: 5\n  maxReplicas: 2\n",
			"spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs, err := Decode("t.yaml", []byte(tt.manifest))
			if tt.want == "decode error" {
				if err == nil {
					t.Errorf("Decode succeeded; want an error")
				}
				return
			}
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			obj := docs[0].Object
			if obj.GetNamespace() == "" && docs[0].Kind.Namespaced {
				obj.SetNamespace("default")
			}
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
