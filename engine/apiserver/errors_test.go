package apiserver

import (
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// badInputs are manifests Kubernetes (or kubectl) rejects, with the exact
// kubectl output and kubeloop's locating line(s).
var badInputs = []struct {
	name     string
	manifest string
	kubectl  string
	locate   string
	// check tells apart the kinds of error: an API status reason, or
	// kubectl's own (client) error.
	reason string
}{
	{
		name:     "malformed YAML",
		manifest: "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  labels: {app: web\nspec: {}\n",
		kubectl:  `error: error parsing deploy.yaml: error converting YAML to JSON: yaml: line 5: did not find expected ',' or '}'`,
		locate:   `deploy.yaml:6: malformed YAML: did not find expected ',' or '}'`,
	},
	{
		name:     "malformed YAML in the second document counts lines from that document",
		manifest: apiService + "---\napiVersion: v1\nkind: Pod\nmetadata:\n\tname: web\n",
		kubectl:  `error: error parsing deploy.yaml: error converting YAML to JSON: yaml: line 4: found character that cannot start any token`,
		locate:   `deploy.yaml:14: malformed YAML: found character that cannot start any token`,
	},
	{
		name:     "unknown kind",
		manifest: "apiVersion: apps/v1\nkind: Deploymnet\nmetadata:\n  name: api\n",
		kubectl: "error: resource mapping not found for name: \"api\" namespace: \"\" from \"deploy.yaml\": " +
			"no matches for kind \"Deploymnet\" in version \"apps/v1\"\nensure CRDs are installed first",
		locate: `deploy.yaml:2: kind: no kind "Deploymnet" is served (did you mean Deployment?)`,
	},
	{
		name:     "kind in the wrong apiVersion",
		manifest: "apiVersion: extensions/v1beta1\nkind: Deployment\nmetadata:\n  name: api\n",
		kubectl: "error: resource mapping not found for name: \"api\" namespace: \"\" from \"deploy.yaml\": " +
			"no matches for kind \"Deployment\" in version \"extensions/v1beta1\"\nensure CRDs are installed first",
		locate: `deploy.yaml:1: apiVersion: Deployment is served as apps/v1, not extensions/v1beta1 (did you mean apiVersion: apps/v1?)`,
	},
	{
		name:     "missing kind",
		manifest: "apiVersion: v1\nmetadata:\n  name: web\n",
		kubectl:  `error: unable to decode "deploy.yaml": Object 'Kind' is missing in '{"apiVersion":"v1","metadata":{"name":"web"}}'`,
		locate:   `deploy.yaml:1: kind: required field is missing`,
	},
	{
		name:     "unknown field",
		manifest: strings.Replace(apiDeployment, "  replicas: 3", "  replica: 3", 1),
		kubectl: `Error from server (BadRequest): error when creating "deploy.yaml": Deployment in version "v1" cannot be handled as a Deployment: ` +
			`strict decoding error: unknown field "spec.replica"`,
		locate: `deploy.yaml:6: spec.replica: unknown field (did you mean spec.replicas?)`,
		reason: "BadRequest",
	},
	{
		name:     "two unknown fields",
		manifest: strings.Replace(strings.Replace(apiDeployment, "  replicas: 3", "  replica: 3", 1), "        image:", "        imagee: x\n        image:", 1),
		kubectl: `Error from server (BadRequest): error when creating "deploy.yaml": Deployment in version "v1" cannot be handled as a Deployment: ` +
			`strict decoding error: unknown field "spec.replica", unknown field "spec.template.spec.containers[0].imagee"`,
		locate: "deploy.yaml:6: spec.replica: unknown field (did you mean spec.replicas?)\n" +
			"deploy.yaml:15: spec.template.spec.containers[0].imagee: unknown field (did you mean spec.template.spec.containers[0].image?)",
		reason: "BadRequest",
	},
	{
		name:     "field at the wrong level",
		manifest: "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  containers: []\n",
		kubectl: `Error from server (BadRequest): error when creating "deploy.yaml": Deployment in version "v1" cannot be handled as a Deployment: ` +
			`strict decoding error: unknown field "spec.containers"`,
		locate: `deploy.yaml:6: spec.containers: unknown field (did you mean spec.template.spec.containers?)`,
		reason: "BadRequest",
	},
	{
		name:     "wrong type",
		manifest: strings.Replace(apiDeployment, "replicas: 3", "replicas: three", 1),
		kubectl: `Error from server (BadRequest): error when creating "deploy.yaml": Deployment in version "v1" cannot be handled as a Deployment: ` +
			`json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`,
		locate: `deploy.yaml:6: spec.replicas: expected an integer, got string`,
		reason: "BadRequest",
	},
	{
		name:     "YAML 1.1 boolean where a string is expected",
		manifest: strings.Replace(apiDeployment, "        ports:", "        env:\n        - name: DEBUG\n          value: yes\n        ports:", 1),
		kubectl: `Error from server (BadRequest): error when creating "deploy.yaml": Deployment in version "v1" cannot be handled as a Deployment: ` +
			`json: cannot unmarshal bool into Go struct field EnvVar.spec.template.spec.containers.env.value of type string`,
		locate: `deploy.yaml:18: spec.template.spec.containers[0].env[0].value: expected a string, got bool`,
		reason: "BadRequest",
	},
	{
		name:     "duplicate key",
		manifest: strings.Replace(apiDeployment, "  replicas: 3", "  replicas: 3\n  replicas: 4", 1),
		kubectl:  "error: error parsing deploy.yaml: error converting YAML to JSON: yaml: unmarshal errors:\n  line 7: key \"replicas\" already set in map",
		locate:   `deploy.yaml:7: spec.replicas: duplicate key (first set at line 6)`,
	},
	{
		name:     "bad quantity",
		manifest: strings.Replace(apiDeployment, "        ports:", "        resources:\n          requests:\n            memory: 1Gb\n        ports:", 1),
		kubectl: `Error from server (BadRequest): error when creating "deploy.yaml": Deployment in version "v1" cannot be handled as a Deployment: ` +
			`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
		locate: `deploy.yaml:18: spec.template.spec.containers[0].resources.requests[memory]: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
		reason: "BadRequest",
	},
	{
		name:     "bad name",
		manifest: strings.Replace(apiDeployment, "name: api\nspec", "name: My_API\nspec", 1),
		kubectl: `The Deployment "My_API" is invalid: metadata.name: Invalid value: "My_API": a lowercase RFC 1123 subdomain must consist of lower case ` +
			`alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is ` +
			`'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
		locate: `deploy.yaml:4: metadata.name: Invalid value: "My_API": a lowercase RFC 1123 subdomain must consist of lower case ` +
			`alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is ` +
			`'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
		reason: "Invalid",
	},
	{
		name:     "service name must be a DNS-1035 label",
		manifest: strings.Replace(apiService, "name: api", "name: 1api", 1),
		kubectl: `The Service "1api" is invalid: metadata.name: Invalid value: "1api": a DNS-1035 label must consist of lower case alphanumeric ` +
			`characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', ` +
			`regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
		locate: `deploy.yaml:4: metadata.name: Invalid value: "1api": a DNS-1035 label must consist of lower case alphanumeric ` +
			`characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', ` +
			`regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
		reason: "Invalid",
	},
	{
		name:     "selector does not match template labels",
		manifest: strings.Replace(apiDeployment, "      labels: {app: api}", "      labels: {app: web}", 1),
		kubectl:  "The Deployment \"api\" is invalid: spec.template.metadata.labels: Invalid value: {\"app\":\"web\"}: `selector` does not match template `labels`",
		locate:   "deploy.yaml:11: spec.template.metadata.labels: Invalid value: {\"app\":\"web\"}: `selector` does not match template `labels`",
		reason:   "Invalid",
	},
	{
		name:     "missing required field",
		manifest: strings.Replace(apiDeployment, "        image: shop/api:v2.1\n", "", 1),
		kubectl:  `The Deployment "api" is invalid: spec.template.spec.containers[0].image: Required value`,
		locate:   `deploy.yaml:14: spec.template.spec.containers[0].image: Required value`,
		reason:   "Invalid",
	},
	{
		name:     "negative replicas",
		manifest: strings.Replace(apiDeployment, "replicas: 3", "replicas: -1", 1),
		kubectl:  `The Deployment "api" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`,
		locate:   `deploy.yaml:6: spec.replicas: Invalid value: -1: must be greater than or equal to 0`,
		reason:   "Invalid",
	},
	{
		name: "several invalid fields",
		manifest: strings.Replace(strings.Replace(apiDeployment, "replicas: 3", "replicas: -1", 1),
			"containerPort: 8080", "containerPort: 80800", 1),
		kubectl: "The Deployment \"api\" is invalid: \n" +
			"* spec.replicas: Invalid value: -1: must be greater than or equal to 0\n" +
			"* spec.template.spec.containers[0].ports[0].containerPort: Invalid value: 80800: must be between 1 and 65535, inclusive",
		locate: "deploy.yaml:6: spec.replicas: Invalid value: -1: must be greater than or equal to 0\n" +
			"deploy.yaml:17: spec.template.spec.containers[0].ports[0].containerPort: Invalid value: 80800: must be between 1 and 65535, inclusive",
		reason: "Invalid",
	},
	{
		name:     "restartPolicy in a Deployment",
		manifest: strings.Replace(apiDeployment, "      containers:", "      restartPolicy: Never\n      containers:", 1),
		kubectl:  `The Deployment "api" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`,
		locate:   `deploy.yaml:13: spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`,
		reason:   "Invalid",
	},
	{
		name: "liveness successThreshold",
		manifest: strings.Replace(apiDeployment, "        ports:", "        livenessProbe:\n          httpGet: {port: 8080}\n"+
			"          successThreshold: 2\n        ports:", 1),
		kubectl: `The Deployment "api" is invalid: spec.template.spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1`,
		locate:  `deploy.yaml:18: spec.template.spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1`,
		reason:  "Invalid",
	},
	{
		name:     "namespace that does not exist",
		manifest: strings.Replace(apiDeployment, "name: api\nspec", "name: api\n  namespace: shop\nspec", 1),
		kubectl:  `Error from server (NotFound): error when creating "deploy.yaml": namespaces "shop" not found`,
		locate:   `deploy.yaml:1: namespaces "shop" not found`,
		reason:   "NotFound",
	},
	{
		name:     "generateName with apply",
		manifest: "apiVersion: v1\nkind: Pod\nmetadata:\n  generateName: web-\nspec:\n  containers: [{name: c, image: nginx}]\n",
		kubectl:  `error: from deploy.yaml: cannot use generate name with apply`,
		locate:   `deploy.yaml:4: metadata.generateName: kubectl apply needs metadata.name (use kubectl create for generated names)`,
	},
}

// TestBadInputChangesNothing applies each bad manifest, alone and after a
// good document in the same file, and checks kubectl's line, kubeloop's
// locating line, the error's reason, and that neither the store nor the
// trace moved beyond the learner's own command.
func TestBadInputChangesNothing(t *testing.T) {
	for _, tt := range badInputs {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestServer(t)
			rev := ts.store.Rev()
			a := ts.learner("apply -f deploy.yaml")
			traced := ts.trace.NextSeq()
			_, err := ts.Apply(a, "deploy.yaml", []byte(tt.manifest), ApplyOptions{})
			var errs RequestErrors
			if !errors.As(err, &errs) || len(errs) != 1 {
				t.Fatalf("Apply error = %v; want one RequestError", err)
			}
			e := errs[0]
			if got := e.Kubectl(); got != tt.kubectl {
				t.Errorf("kubectl line:\n got %s\nwant %s", got, tt.kubectl)
			}
			if got := e.Locate(); got != tt.locate {
				t.Errorf("locating line:\n got %s\nwant %s", got, tt.locate)
			}
			if got := string(apierrors.ReasonForError(err)); got != tt.reason {
				t.Errorf("ReasonForError = %q; want %q", got, tt.reason)
			}
			if got := ts.store.Rev(); got != rev {
				t.Errorf("store revision = %d after a rejected apply; want %d", got, rev)
			}
			if got := ts.trace.NextSeq(); got != traced {
				t.Errorf("trace grew by %d events after a rejected apply; want 0", got-traced)
			}
		})
	}
}

// TestOneBadDocumentAppliesNothing puts a good Service before each bad
// document: all or nothing.
func TestOneBadDocumentAppliesNothing(t *testing.T) {
	for _, tt := range badInputs {
		if strings.HasPrefix(tt.name, "malformed YAML in the second") {
			continue // already two documents
		}
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestServer(t)
			rev := ts.store.Rev()
			_, err := ts.Apply(ts.learner("apply"), "deploy.yaml", []byte(apiService+"---\n"+tt.manifest), ApplyOptions{})
			if err == nil {
				t.Fatal("Apply succeeded; want the bad document to fail the file")
			}
			if got := ts.store.Rev(); got != rev {
				t.Errorf("store revision = %d; want %d (the good Service must not be written)", got, rev)
			}
		})
	}
}

func TestRequestErrorsReportEveryBadDocument(t *testing.T) {
	ts := newTestServer(t)
	bad1 := strings.Replace(apiDeployment, "replicas: 3", "replicas: -1", 1)
	bad2 := strings.Replace(apiService, "port: 80", "port: 0", 1)
	_, err := ts.Apply(ts.learner("apply"), "app.yaml", []byte(bad1+"---\n"+apiService+"---\n"+bad2), ApplyOptions{})
	var errs RequestErrors
	if !errors.As(err, &errs) {
		t.Fatalf("error %v is not RequestErrors", err)
	}
	if len(errs) != 2 || errs[0].Doc != 0 || errs[1].Doc != 2 {
		t.Fatalf("errors = %v; want documents 0 and 2", err)
	}
	if !apierrors.IsInvalid(err) {
		t.Errorf("apierrors.IsInvalid(%v) = false; want true", err)
	}
	want := `app.yaml:36: spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive`
	if got := errs[1].Locate(); got != want {
		t.Errorf("second error locates\n got %s\nwant %s", got, want)
	}
}
