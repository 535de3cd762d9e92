package printers

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	yaml "go.yaml.in/yaml/v2"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// PrintObject writes objs as `kubectl get -o FORMAT` does, for format
// "json", "yaml" or "name".
//
// kubectl prints a single object by itself when the command named exactly
// one (`get pod web-1 -o json`), and otherwise wraps the objects in a v1
// List, even for one or zero objects (`get pods -o json`); isList says
// which. -o name prints one `kind.group/name` line per object.
//
// JSON is what kubectl prints: keys sorted (kubectl decodes the server's
// answer into maps), four-space indentation, HTML characters escaped, a
// final newline. YAML is kubectl's too: sigs.k8s.io/yaml turns that JSON
// into YAML with go.yaml.in/yaml/v2, which sorts keys in its own natural
// order (tier2 before tier10), indents by two without indenting lists, and
// folds long strings at 80 columns; kubeloop uses the same encoder.
func PrintObject(w io.Writer, format string, objs []kinds.Object, isList bool) error {
	switch format {
	case "name":
		for _, o := range objs {
			if _, err := fmt.Fprintln(w, ResourceName(o)); err != nil {
				return err
			}
		}
		return nil
	case "json", "yaml":
	default:
		return fmt.Errorf("unable to match a printer suitable for the output format %q, allowed formats are: json,name,yaml", format)
	}
	var v any
	if !isList && len(objs) == 1 {
		v = ToJSONValue(objs[0])
	} else {
		v = ListValue(ToJSONValues(objs))
	}
	var b []byte
	var err error
	if format == "json" {
		b, err = MarshalJSON(v)
	} else {
		b, err = MarshalYAML(v)
	}
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// ListValue is the v1 List kubectl wraps several objects in.
func ListValue(items []any) map[string]any {
	if items == nil {
		items = []any{}
	}
	return map[string]any{
		"apiVersion": "v1",
		"items":      items,
		"kind":       "List",
		"metadata":   map[string]any{"resourceVersion": ""},
	}
}

// MarshalJSON encodes a JSON value (as ToJSONValue returns) the way kubectl
// -o json prints it.
func MarshalJSON(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "    ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// MarshalYAML encodes a JSON value the way kubectl -o yaml prints it.
func MarshalYAML(v any) ([]byte, error) {
	// sigs.k8s.io/yaml decodes the JSON with yaml.v2, which reads whole
	// numbers as ints; do the same so 3 prints as 3 and not 3.0e+00.
	return yaml.Marshal(integers(v))
}

func integers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = integers(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = integers(e)
		}
		return out
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x)
		}
	}
	return v
}

// ResourceName is the name kubectl -o name prints and apply, create and
// delete messages start with: "pod/web-1", "deployment.apps/api".
func ResourceName(obj kinds.Object) string {
	k := kinds.Of(obj)
	return KindPrefix(k) + obj.GetName()
}

// KindPrefix is "pod/" or "deployment.apps/": the lower-case Kind, its group
// for non-core kinds, and a slash.
func KindPrefix(k *kinds.Kind) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(k.Kind))
	if k.Group != "" {
		b.WriteByte('.')
		b.WriteString(k.Group)
	}
	b.WriteByte('/')
	return b.String()
}
