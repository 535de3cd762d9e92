package printers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	yamlv3 "go.yaml.in/yaml/v3"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// TestGolden runs the datadriven files in testdata/. Each directive prints
// the objects its input holds (YAML manifests, "---" between them):
//
//	get KIND [wide] [show-labels] [all-namespaces] [no-headers] [with-kind] [now=D] [ns=NS]
//	output json|yaml|name [list]
//	describe [now=D]        the first object is described, the rest is its DescribeContext
//
// now is the virtual time since 2025-01-01T00:00:00Z (default 1h). An empty
// table prints "stderr: " and NoResourcesFound.
//
// The expected outputs are what kubectl 1.32 prints for the same objects:
// TestAgainstKubectl serves these inputs to a real kubectl and compares, when
// kubectl is installed. Regenerate with `go test -run TestGolden -rewrite`,
// and, as raft's interaction tests say, only commit the changes if you
// understand what caused them.
func TestGolden(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			out, err := runDirective(td)
			if err != nil {
				t.Fatalf("%s: %v", td.Pos, err)
			}
			return out
		})
	})
}

// directive is a parsed test directive.
type directive struct {
	cmd  string // get, output, describe
	kind *kinds.Kind
	opts Options
	ns   string
	fmt  string // output's format
	list bool
	objs []kinds.Object
}

func parseDirective(td *datadriven.TestData) (*directive, error) {
	d := &directive{cmd: td.Cmd, ns: "default"}
	now := time.Hour
	for _, a := range td.CmdArgs {
		switch a.Key {
		case "now":
			var err error
			if now, err = time.ParseDuration(a.Vals[0]); err != nil {
				return nil, err
			}
		case "ns":
			d.ns = a.Vals[0]
		case "wide":
			d.opts.Wide = true
		case "show-labels":
			d.opts.ShowLabels = true
		case "all-namespaces":
			d.opts.AllNamespaces = true
		case "no-headers":
			d.opts.NoHeaders = true
		case "with-kind":
			d.opts.WithKind = true
		case "list":
			d.list = true
		case "json", "yaml", "name":
			d.fmt = a.Key
		default:
			if k, ok := kinds.Lookup(a.Key); ok && d.cmd == "get" {
				d.kind = k
				continue
			}
			return nil, fmt.Errorf("unknown argument %q", a.Key)
		}
	}
	d.opts.Now = t0.Add(now)
	objs, err := decodeObjects(td.Input)
	if err != nil {
		return nil, err
	}
	d.objs = objs
	return d, nil
}

func runDirective(td *datadriven.TestData) (string, error) {
	d, err := parseDirective(td)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	switch d.cmd {
	case "get":
		if d.kind == nil {
			return "", errors.New("get needs a kind")
		}
		if err := PrintTable(&b, d.kind, d.objs, d.opts); err != nil {
			return "", err
		}
		if len(d.objs) == 0 {
			b.WriteString("stderr: " + NoResourcesFound(d.kind, d.ns, d.opts.AllNamespaces) + "\n")
		}
	case "output":
		if err := PrintObject(&b, d.fmt, d.objs, d.list); err != nil {
			return "", err
		}
	case "describe":
		if len(d.objs) == 0 {
			return "", errors.New("describe needs an object")
		}
		if err := Describe(&b, d.objs[0], describeContext(d.opts.Now, d.objs[1:])); err != nil {
			return "", err
		}
	default:
		return "", fmt.Errorf("unknown directive %q", d.cmd)
	}
	return b.String(), nil
}

// describeContext sorts context objects into a DescribeContext.
func describeContext(now time.Time, objs []kinds.Object) DescribeContext {
	ctx := DescribeContext{Now: now}
	for _, o := range objs {
		switch x := o.(type) {
		case *corev1.Event:
			ctx.Events = append(ctx.Events, x)
		case *corev1.Pod:
			ctx.Pods = append(ctx.Pods, x)
		case *appsv1.ReplicaSet:
			ctx.ReplicaSets = append(ctx.ReplicaSets, x)
		case *discoveryv1.EndpointSlice:
			ctx.EndpointSlices = append(ctx.EndpointSlices, x)
		case *coordinationv1.Lease:
			ctx.Leases = append(ctx.Leases, x)
		}
	}
	return ctx
}

// decodeObjects reads YAML manifests into typed objects of the served kinds.
func decodeObjects(input string) ([]kinds.Object, error) {
	var out []kinds.Object
	dec := yamlv3.NewDecoder(strings.NewReader(input))
	for {
		var doc map[string]any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if doc == nil {
			continue
		}
		b, err := json.Marshal(doc)
		if err != nil {
			return nil, err
		}
		apiVersion, _ := doc["apiVersion"].(string)
		kind, _ := doc["kind"].(string)
		k, ok := kinds.ForGVK(apiVersion, kind)
		if !ok {
			return nil, fmt.Errorf("no kind %s %s", apiVersion, kind)
		}
		obj := k.New()
		dj := json.NewDecoder(bytes.NewReader(b))
		dj.DisallowUnknownFields()
		if err := dj.Decode(obj); err != nil {
			return nil, fmt.Errorf("%s %v: %w", kind, doc["metadata"], err)
		}
		out = append(out, obj)
	}
}
