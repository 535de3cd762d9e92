package repl

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// TestWhyDeploymentNamesItsAutoscaler checks what why adds for a
// Deployment an HPA scales: the HPA, its bounds and its latest decision.
func TestWhyDeploymentNamesItsAutoscaler(t *testing.T) {
	var out bytes.Buffer
	s := NewSession(&out, &out, Config{})
	script := `apply -f - <<EOF
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: registry.k8s.io/hpa-example
        resources: {requests: {cpu: 200m}}
EOF
autoscale deployment web --cpu-percent=50 --min=1 --max=4
advance 1m
`
	if err := s.RunScript("t.kl", strings.NewReader(script)); err != nil {
		t.Fatalf("script: %v\n%s", err, out.String())
	}
	o, ok := s.Eng.Store.Lookup(kinds.Deployment, "default", "web")
	if !ok {
		t.Fatal("no deployment")
	}
	got := autoscalingWhy(s, o)
	for _, want := range []string{
		"Its replicas are set by horizontalpodautoscaler/web (min 1, max 4).",
		"The HPA controller's latest sync (at 1m, 0s ago):",
		"Why it did not scale:",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("why deployment/web lacks %q:\n%s", want, got)
		}
	}
}
