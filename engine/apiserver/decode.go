package apiserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	yaml2 "go.yaml.in/yaml/v2"
	yaml "go.yaml.in/yaml/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	sigsjson "sigs.k8s.io/json"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// Document is one object decoded from a manifest: typed, strictly checked,
// not yet defaulted.
type Document struct {
	Source string // the file name as given; "-" is stdin
	Index  int    // 0-based index of the YAML document in the file
	Item   int    // index in a `kind: List`'s items; -1 if not from a List
	Line   int    // the line in the file where the object starts
	Kind   *kinds.Kind
	Object kinds.Object
	// Raw is the object as kubectl sends it: the YAML converted to JSON
	// values (map[string]any, []any, string, int64, float64, bool, nil).
	Raw map[string]any
	// Warnings name the fields that are valid Kubernetes but that kubeloop
	// does not simulate (see Unsimulated).
	Warnings []string

	node      *yaml.Node // the object's YAML, for locating fields
	lineShift int        // file line of the document's line 1, minus 1
}

// FieldLine is the file line of a field path ("spec.replicas",
// "spec.template.spec.containers[0].image") in the document, or of the
// nearest enclosing field that is present; the document's line if none is.
func (d *Document) FieldLine(path string) int {
	if d.node == nil {
		return d.Line
	}
	if _, l := locateLine(d.node, parsePath(path)); l > 0 {
		return l + d.lineShift
	}
	return d.Line
}

// maxNodes bounds the work one document may cause (aliases can expand a
// small file into a huge tree: the "billion laughs").
const maxNodes = 200_000

// Decode reads a manifest file: YAML documents separated by `---` lines (or
// a stream of JSON objects), each an object of a served kind or a `kind:
// List` of them. It checks every document as kubectl and kube-apiserver's
// strict field validation do, and returns either every object, or, if any
// document is bad, a RequestErrors naming each bad document, its line and
// its field. Empty documents are skipped, as kubectl skips them.
func Decode(source string, data []byte) ([]*Document, error) {
	var docs []*Document
	var errs RequestErrors
	chunks, err := splitDocuments(source, data)
	if err != nil {
		return nil, RequestErrors{err}
	}
	for i, ch := range chunks {
		root, perr := parseChunk(ch)
		if perr != nil {
			errs = append(errs, chunkError(source, i, ch, perr))
			// A syntax error leaves the rest of the stream unreadable for
			// kubectl too; later documents are not examined.
			break
		}
		if root == nil {
			continue
		}
		d, derrs := decodeNode(source, i, -1, ch.startLine-1, root, ch.json)
		errs = append(errs, derrs...)
		docs = append(docs, d...)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return docs, nil
}

type chunk struct {
	text      []byte
	startLine int // file line of the chunk's first line
	json      bool
}

// splitDocuments cuts a stream into documents as kubectl's
// YAMLOrJSONDecoder does: a stream starting with '{' is JSON objects one
// after another; otherwise YAML documents separated by lines that start
// with "---" followed by nothing but spaces or a comment.
func splitDocuments(source string, data []byte) ([]chunk, *RequestError) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return splitJSON(source, data)
	}
	var out []chunk
	start, startLine, line := 0, 1, 1
	for pos := 0; pos < len(data); {
		end := bytes.IndexByte(data[pos:], '\n')
		next := len(data)
		if end >= 0 {
			next = pos + end + 1
		}
		l := data[pos:next]
		if bytes.HasPrefix(l, []byte("---")) {
			rest := strings.TrimSpace(string(l[3:]))
			if rest == "" || strings.HasPrefix(rest, "#") {
				out = append(out, chunk{text: data[start:pos], startLine: startLine})
				start, startLine = next, line+1
			}
		}
		pos = next
		line++
	}
	out = append(out, chunk{text: data[start:], startLine: startLine})
	return out, nil
}

func splitJSON(source string, data []byte) ([]chunk, *RequestError) {
	var out []chunk
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		// Skip white space to find where the next value starts.
		off := int(dec.InputOffset())
		for off < len(data) && strings.IndexByte(" \t\r\n", data[off]) >= 0 {
			off++
		}
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			line := 1 + bytes.Count(data[:min(off, len(data))], []byte("\n"))
			var se *json.SyntaxError
			msg := err.Error()
			if errors.As(err, &se) {
				line = 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
				msg = fmt.Sprintf("json: offset %d: %s", se.Offset, se.Error())
			}
			return nil, &RequestError{Source: source, Doc: len(out), Line: line, Client: true,
				Err:  fmt.Errorf("error parsing %s: %s", SourceName(source), msg),
				Hint: "malformed JSON: " + strings.TrimPrefix(err.Error(), "json: ")}
		}
		out = append(out, chunk{text: raw, startLine: 1 + bytes.Count(data[:off], []byte("\n")), json: true})
	}
}

// parseChunk parses one document; nil means an empty document.
func parseChunk(ch chunk) (*yaml.Node, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(ch.text))
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return nil, nil
		}
		return nil, err
	}
	if doc.Kind == yaml.DocumentNode {
		if len(doc.Content) == 0 {
			return nil, nil
		}
		n := doc.Content[0]
		if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
			return nil, nil
		}
		return n, nil
	}
	return &doc, nil
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): `)

// yamlParserErrors are the messages libyaml's parser (not its scanner)
// reports. go.yaml.in/yaml/v2 prints a parser error's line counting from 0
// and a scanner error's counting from 1; kubeloop's locating line needs to
// know which it is.
var yamlParserErrors = []string{
	"did not find expected key", "did not find expected node content", "did not find expected ',' or",
	"did not find expected '-' indicator", "did not find expected <", "found duplicate %",
	"found incompatible YAML document", "found undefined tag handle",
}

// chunkError reports a YAML syntax error with kubectl's message (kubectl's
// YAML-to-JSON conversion is go.yaml.in/yaml/v2's, which counts lines from
// the start of the document, as its YAML reader hands documents one by
// one) plus the line in the file.
func chunkError(source string, idx int, ch chunk, err error) *RequestError {
	msg := err.Error()
	var v any
	if err2 := yaml2.Unmarshal(ch.text, &v); err2 != nil {
		msg = err2.Error()
	}
	line := ch.startLine
	hint := msg
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		hint = msg[len(m[0]):]
		line = ch.startLine + n - 1
		for _, p := range yamlParserErrors {
			if strings.HasPrefix(hint, p) {
				line++ // counted from 0
				break
			}
		}
	}
	hint = strings.TrimPrefix(hint, "yaml: ")
	return &RequestError{Source: source, Doc: idx, Line: line, Client: true,
		Err:  fmt.Errorf("error parsing %s: error converting YAML to JSON: %s", SourceName(source), msg),
		Hint: "malformed YAML: " + hint}
}

// decodeNode turns one document's root into documents (several for a List).
func decodeNode(source string, idx, item, shift int, root *yaml.Node, isJSON bool) ([]*Document, RequestErrors) {
	docLine := root.Line + shift
	fail := func(e *RequestError) ([]*Document, RequestErrors) {
		e.Source, e.Doc = source, idx
		if e.Line == 0 {
			e.Line = docLine
		}
		return nil, RequestErrors{e}
	}
	c := &converter{budget: maxNodes, json: isJSON}
	v, err := c.value(root, "")
	if err != nil {
		return fail(&RequestError{Client: true,
			Err:  fmt.Errorf("error parsing %s: error converting YAML to JSON: %v", SourceName(source), err),
			Hint: err.Error()})
	}
	if len(c.dups) > 0 && !isJSON {
		d := c.dups[0]
		return fail(&RequestError{Client: true, Line: d.line + shift, Field: d.path,
			Err: fmt.Errorf("error parsing %s: error converting YAML to JSON: yaml: unmarshal errors:\n  line %d: key %q already set in map",
				SourceName(source), d.line, d.key),
			Hint: fmt.Sprintf("duplicate key (first set at line %d)", d.first+shift)})
	}
	raw, ok := v.(map[string]any)
	if !ok {
		return fail(&RequestError{Client: true,
			Err:  fmt.Errorf("error parsing %s: json: cannot unmarshal %s into Go value of type map[string]interface {}", SourceName(source), jsonKind(v)),
			Hint: "a manifest document must be a mapping with apiVersion, kind and metadata"})
	}
	apiVersion, _ := raw["apiVersion"].(string)
	kind, _ := raw["kind"].(string)
	meta, _ := raw["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	ns, _ := meta["namespace"].(string)
	if kind == "" {
		js, _ := json.Marshal(raw)
		return fail(&RequestError{Client: true, Field: "kind",
			Err:  fmt.Errorf("unable to decode %q: Object 'Kind' is missing in '%s'", SourceName(source), js),
			Hint: "required field is missing"})
	}
	if kind == "List" && (apiVersion == "v1" || apiVersion == "") && item < 0 {
		return decodeList(source, idx, shift, root, raw, isJSON)
	}
	k, ok := kinds.ForGVK(apiVersion, kind)
	if !ok {
		field, hint := kindHint(apiVersion, kind)
		return fail(&RequestError{Client: true, Field: field, Line: fieldLine(root, shift, field),
			Err: fmt.Errorf("resource mapping not found for name: %q namespace: %q from %q: no matches for kind %q in version %q\nensure CRDs are installed first",
				name, ns, SourceName(source), kind, apiVersion),
			Hint: hint})
	}
	doc := &Document{Source: source, Index: idx, Item: item, Line: docLine, Kind: k, Raw: raw, node: root, lineShift: shift}
	obj, rerr := strictDecode(doc, c.dups)
	if rerr != nil {
		rerr.Source, rerr.Doc = source, idx
		return nil, RequestErrors{rerr}
	}
	doc.Object = obj
	doc.Warnings = unsimulatedWarnings(k, raw)
	return []*Document{doc}, nil
}

func decodeList(source string, idx, shift int, root *yaml.Node, raw map[string]any, isJSON bool) ([]*Document, RequestErrors) {
	itemsNode := locate(root, []pathSeg{{key: "items", index: -1}})
	items, _ := raw["items"].([]any)
	if len(items) == 0 {
		return nil, nil // an empty List applies nothing, as in kubectl
	}
	if itemsNode == nil || itemsNode.Kind != yaml.SequenceNode || len(itemsNode.Content) != len(items) {
		return nil, RequestErrors{{Source: source, Doc: idx, Line: root.Line + shift, Field: "items", Client: true,
			Err:  fmt.Errorf("unable to decode %q: items of a List must be a list of objects", SourceName(source)),
			Hint: "items must be a list of objects"}}
	}
	var docs []*Document
	var errs RequestErrors
	for i := range items {
		n := resolveAlias(itemsNode.Content[i])
		d, e := decodeNode(source, idx, i, shift, n, isJSON)
		for _, re := range e {
			if re.Field != "" {
				re.Field = fmt.Sprintf("items[%d].%s", i, re.Field)
			}
		}
		docs = append(docs, d...)
		errs = append(errs, e...)
	}
	return docs, errs
}

// kindHint explains an unknown apiVersion/kind pair.
func kindHint(apiVersion, kind string) (field, hint string) {
	if apiVersion == "" {
		if k, ok := kinds.ForKindName(kind); ok {
			return "apiVersion", fmt.Sprintf("required field is missing (%s is %s)", kind, k.APIVersion())
		}
		return "apiVersion", "required field is missing"
	}
	if k, ok := kinds.ForKindName(kind); ok {
		return "apiVersion", fmt.Sprintf("%s is served as %s, not %s (did you mean apiVersion: %s?)", kind, k.APIVersion(), apiVersion, k.APIVersion())
	}
	for _, k := range kinds.All {
		if strings.EqualFold(k.Kind, kind) {
			return "kind", fmt.Sprintf("kinds are case-sensitive (did you mean kind: %s?)", k.Kind)
		}
	}
	if v, ok := realKinds[kind]; ok {
		return "kind", fmt.Sprintf("%s is valid Kubernetes (%s) but kubeloop does not simulate it yet", kind, v)
	}
	best, bestD := "", 3
	for _, k := range kinds.All {
		if d := editDistance(strings.ToLower(k.Kind), strings.ToLower(kind)); d < bestD {
			best, bestD = k.Kind, d
		}
	}
	if best != "" {
		return "kind", fmt.Sprintf("no kind %q is served (did you mean %s?)", kind, best)
	}
	return "kind", fmt.Sprintf("no kind %q is served; kubeloop serves %s", kind, servedKindNames())
}

// realKinds are common Kubernetes kinds kubeloop does not serve yet, with
// their apiVersion, so that a learner is told the truth: the manifest is
// fine, the simulator is smaller.
var realKinds = map[string]string{
	"ConfigMap": "v1", "Secret": "v1", "ServiceAccount": "v1", "PersistentVolume": "v1",
	"PersistentVolumeClaim": "v1", "LimitRange": "v1", "ResourceQuota": "v1", "Endpoints": "v1",
	"ReplicationController": "v1", "PodTemplate": "v1", "StatefulSet": "apps/v1", "DaemonSet": "apps/v1",
	"ControllerRevision": "apps/v1", "Job": "batch/v1", "CronJob": "batch/v1", "Ingress": "networking.k8s.io/v1",
	"IngressClass": "networking.k8s.io/v1", "NetworkPolicy": "networking.k8s.io/v1",
	"PodDisruptionBudget": "policy/v1", "StorageClass": "storage.k8s.io/v1",
	"Role": "rbac.authorization.k8s.io/v1", "RoleBinding": "rbac.authorization.k8s.io/v1",
	"ClusterRole": "rbac.authorization.k8s.io/v1", "ClusterRoleBinding": "rbac.authorization.k8s.io/v1",
	"CustomResourceDefinition": "apiextensions.k8s.io/v1",
}

func servedKindNames() string {
	names := make([]string, len(kinds.All))
	for i, k := range kinds.All {
		names[i] = k.Kind
	}
	return strings.Join(names, ", ")
}

// strictDecode decodes raw into the kind's typed object as kube-apiserver
// does with fieldValidation=Strict (what kubectl sends by default).
func strictDecode(doc *Document, dups []dupKey) (kinds.Object, *RequestError) {
	k := doc.Kind
	data, err := json.Marshal(doc.Raw)
	if err != nil {
		return nil, &RequestError{Client: true, Line: doc.Line,
			Err:  fmt.Errorf("error parsing %s: error converting YAML to JSON: %v", SourceName(doc.Source), err),
			Hint: err.Error()}
	}
	obj := k.New()
	strictErrs, err := sigsjson.UnmarshalStrict(data, obj, sigsjson.DisallowUnknownFields)
	prefix := fmt.Sprintf("%s in version %q cannot be handled as a %s: ", k.Kind, k.Version, k.Kind)
	if err != nil {
		msg := prefix + err.Error()
		path, hint := decodeErrorPath(doc, obj, err)
		return nil, &RequestError{Err: apierrors.NewBadRequest(msg), Field: path, Line: doc.FieldLine(path), Hint: hint}
	}
	// Duplicate keys in JSON reach the server (kubectl forwards JSON as
	// is), whose strict decoding reports them with the unknown fields.
	for _, d := range dups {
		strictErrs = append(strictErrs, fmt.Errorf("duplicate field %q", d.path))
	}
	if len(strictErrs) == 0 {
		// apiVersion and kind are what the manifest said; the typed object
		// keeps them so that it prints as kubectl shows it.
		obj.GetObjectKind().SetGroupVersionKind(k.GroupVersionKind())
		return obj, nil
	}
	msgs := make([]string, len(strictErrs))
	var locs []Location
	for i, se := range strictErrs {
		msgs[i] = se.Error()
		path := ""
		var fe sigsjson.FieldError
		if errors.As(se, &fe) {
			path = fe.FieldPath()
		} else if strings.HasPrefix(se.Error(), "duplicate field ") {
			path, _ = strconv.Unquote(strings.TrimPrefix(se.Error(), "duplicate field "))
		}
		hint := "unknown field"
		if strings.HasPrefix(se.Error(), "duplicate") {
			hint = "duplicate field"
		} else if s := suggestField(reflect.TypeOf(obj), path); s != "" {
			hint += " (did you mean " + s + "?)"
		}
		locs = append(locs, Location{Line: doc.FieldLine(path), Field: path, Hint: hint})
	}
	msg := prefix + "strict decoding error: " + strings.Join(msgs, ", ")
	e := &RequestError{Err: apierrors.NewBadRequest(msg), Line: locs[0].Line, Field: locs[0].Field, Hint: locs[0].Hint, More: locs[1:]}
	return nil, e
}

// decodeErrorPath finds the field a non-strict decoding error is about.
func decodeErrorPath(doc *Document, obj kinds.Object, err error) (path, hint string) {
	msg := err.Error()
	// "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"
	if m := typeErrRE.FindStringSubmatch(msg); m != nil {
		value, field, typ := m[1], m[2], m[3]
		if i := strings.IndexByte(field, '.'); i >= 0 {
			field = field[i+1:] // drop the Go struct name
		}
		p := findTypeMismatch(doc.node, field, strings.Fields(value)[0])
		return p, fmt.Sprintf("expected %s, got %s", goTypeWord(typ), value)
	}
	// Errors from custom decoders (quantities, int-or-strings, times)
	// carry no path; find the first value of such a type that fails.
	if p, e := findBadCustomValue(doc.node, reflect.TypeOf(obj), ""); p != "" {
		return p, e
	}
	return "", ""
}

var typeErrRE = regexp.MustCompile(`^json: cannot unmarshal (.+?) into Go struct field ([^ ]+) of type (.+)$`)

func goTypeWord(t string) string {
	switch {
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "an integer"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case t == "string":
		return "a string"
	case t == "bool":
		return "true or false"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["):
		return "a mapping"
	}
	return "a " + t
}

// jsonKind names a converted value's JSON type as encoding/json does.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case string:
		return "string"
	case int64, float64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "value"
}

// findTypeMismatch finds the first node at a dotted path (without list
// indexes, as encoding/json reports it) whose JSON type is want.
func findTypeMismatch(root *yaml.Node, dotted, want string) string {
	var segs []string
	for _, s := range strings.Split(dotted, ".") {
		// encoding/json names embedded structs by their Go type
		// ("startupProbe.ProbeHandler.exec"); JSON has no such level.
		if s != "" && !(s[0] >= 'A' && s[0] <= 'Z') {
			segs = append(segs, s)
		}
	}
	var walk func(n *yaml.Node, i int, path string) string
	walk = func(n *yaml.Node, i int, path string) string {
		n = resolveAlias(n)
		if n == nil {
			return ""
		}
		if n.Kind == yaml.SequenceNode {
			for j, c := range n.Content {
				if p := walk(c, i, fmt.Sprintf("%s[%d]", path, j)); p != "" {
					return p
				}
			}
			// The list itself may be the mismatch.
			if i == len(segs) && want == "array" {
				return path
			}
			return ""
		}
		if i == len(segs) {
			c := &converter{budget: maxNodes}
			v, err := c.value(n, "")
			if err == nil && jsonKind(v) == want {
				return path
			}
			return ""
		}
		if n.Kind != yaml.MappingNode {
			return ""
		}
		for j := 0; j+1 < len(n.Content); j += 2 {
			if n.Content[j].Value == segs[i] {
				return walk(n.Content[j+1], i+1, joinPath(path, segs[i]))
			}
		}
		return ""
	}
	return walk(root, 0, "")
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

var unmarshalerType = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()

// findBadCustomValue walks the document along the Go type and returns the
// path of the first value whose own JSON decoder rejects it.
func findBadCustomValue(n *yaml.Node, t reflect.Type, path string) (string, string) {
	n = resolveAlias(n)
	if n == nil {
		return "", ""
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		c := &converter{budget: maxNodes}
		v, err := c.value(n, "")
		if err != nil {
			return "", ""
		}
		js, err := json.Marshal(v)
		if err != nil {
			return "", ""
		}
		if err := json.Unmarshal(js, reflect.New(t).Interface()); err != nil {
			return path, err.Error()
		}
		return "", ""
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return "", ""
		}
		fields := jsonFields(t)
		for j := 0; j+1 < len(n.Content); j += 2 {
			if ft, ok := fields[n.Content[j].Value]; ok {
				if p, e := findBadCustomValue(n.Content[j+1], ft, joinPath(path, n.Content[j].Value)); p != "" {
					return p, e
				}
			}
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return "", ""
		}
		for j, c := range n.Content {
			if p, e := findBadCustomValue(c, t.Elem(), fmt.Sprintf("%s[%d]", path, j)); p != "" {
				return p, e
			}
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return "", ""
		}
		for j := 0; j+1 < len(n.Content); j += 2 {
			if p, e := findBadCustomValue(n.Content[j+1], t.Elem(), fmt.Sprintf("%s[%s]", path, n.Content[j].Value)); p != "" {
				return p, e
			}
		}
	}
	return "", ""
}

// jsonFields maps a struct's JSON field names to their types, looking
// through inline (embedded) structs as encoding/json does.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" || strings.Contains(opts, "inline") {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range jsonFields(ft) {
					out[k] = v
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// suggestField proposes the field a learner probably meant for an unknown
// field path: a sibling with a close name, or the same name one level
// deeper or shallower ("spec.containers" in a Deployment is
// "spec.template.spec.containers").
func suggestField(t reflect.Type, path string) string {
	segs := parsePath(path)
	if len(segs) == 0 {
		return ""
	}
	// Walk to the parent struct type.
	parent := t
	for _, s := range segs[:len(segs)-1] {
		parent = derefType(parent)
		switch {
		case s.index >= 0:
			if parent.Kind() != reflect.Slice {
				return ""
			}
			parent = parent.Elem()
		default:
			if parent.Kind() == reflect.Map {
				parent = parent.Elem()
				continue
			}
			if parent.Kind() != reflect.Struct {
				return ""
			}
			ft, ok := jsonFields(parent)[s.key]
			if !ok {
				return ""
			}
			parent = ft
		}
	}
	parent = derefType(parent)
	if parent.Kind() != reflect.Struct {
		return ""
	}
	unknown := segs[len(segs)-1].key
	prefix := formatPath(segs[:len(segs)-1])
	fields := jsonFields(parent)
	names := make([]string, 0, len(fields))
	for n := range fields {
		names = append(names, n)
	}
	sort.Strings(names)
	best, bestD := "", 3
	if len(unknown) <= 4 {
		bestD = 2
	}
	for _, n := range names {
		d := editDistance(strings.ToLower(n), strings.ToLower(unknown))
		if strings.EqualFold(n, unknown) {
			d = 0
		}
		if d < bestD {
			best, bestD = n, d
		}
	}
	if best != "" {
		return joinPath(prefix, best)
	}
	// The same name somewhere below this level.
	if p := findFieldBelow(parent, unknown, 3); p != "" {
		return joinPath(prefix, p)
	}
	return ""
}

func derefType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// findFieldBelow looks for a field called name in t's sub-structs, breadth
// first, at most depth levels down, and returns its path.
func findFieldBelow(t reflect.Type, name string, depth int) string {
	type item struct {
		t    reflect.Type
		path string
	}
	level := []item{{t, ""}}
	for d := 0; d < depth && len(level) > 0; d++ {
		var next []item
		for _, it := range level {
			fields := jsonFields(it.t)
			names := make([]string, 0, len(fields))
			for n := range fields {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				ft := derefType(fields[n])
				p := joinPath(it.path, n)
				if ft.Kind() == reflect.Slice {
					ft = derefType(ft.Elem())
					p += "[0]"
				}
				if ft.Kind() != reflect.Struct {
					continue
				}
				if _, ok := jsonFields(ft)[name]; ok {
					return joinPath(p, name)
				}
				next = append(next, item{ft, p})
			}
		}
		level = next
	}
	return ""
}

func editDistance(a, b string) int {
	if a == b {
		return 0
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// pathSeg is one step of a field path: a key, or a list index.
type pathSeg struct {
	key   string
	index int // -1 for a key
}

// parsePath reads "spec.containers[0].image" and "metadata.labels[app]".
func parsePath(p string) []pathSeg {
	var out []pathSeg
	for p != "" {
		switch p[0] {
		case '.':
			p = p[1:]
		case '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return out
			}
			inner := p[1:end]
			if n, err := strconv.Atoi(inner); err == nil {
				out = append(out, pathSeg{index: n})
			} else {
				out = append(out, pathSeg{key: inner, index: -1})
			}
			p = p[end+1:]
		default:
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			out = append(out, pathSeg{key: p[:end], index: -1})
			p = p[end:]
		}
	}
	return out
}

func formatPath(segs []pathSeg) string {
	var b strings.Builder
	for _, s := range segs {
		if s.index >= 0 {
			fmt.Fprintf(&b, "[%d]", s.index)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.key)
	}
	return b.String()
}

// locate finds the node at path, or the nearest enclosing node that is
// present; nil for an empty tree.
func locate(root *yaml.Node, path []pathSeg) *yaml.Node {
	n, _ := locateLine(root, path)
	return n
}

// locateLine is locate that also gives the line a learner should look at:
// the key's line for a mapping value.
func locateLine(root *yaml.Node, path []pathSeg) (*yaml.Node, int) {
	n := resolveAlias(root)
	if n == nil {
		return nil, 0
	}
	line := n.Line
	for _, s := range path {
		var next *yaml.Node
		nextLine := 0
		switch {
		case s.index >= 0 && n.Kind == yaml.SequenceNode && s.index < len(n.Content):
			next = n.Content[s.index]
			nextLine = next.Line
		case s.index < 0 && n.Kind == yaml.MappingNode:
			for j := 0; j+1 < len(n.Content); j += 2 {
				if n.Content[j].Value == s.key {
					next, nextLine = n.Content[j+1], n.Content[j].Line
				}
			}
		}
		if next = resolveAlias(next); next == nil {
			break
		}
		n, line = next, nextLine
	}
	return n, line
}

func fieldLine(root *yaml.Node, shift int, path string) int {
	if _, l := locateLine(root, parsePath(path)); l > 0 {
		return l + shift
	}
	return 0
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// converter turns YAML into JSON values the way kubectl's YAML-to-JSON
// conversion (sigs.k8s.io/yaml over YAML 1.1 rules) does: unquoted yes, no,
// on, off, y and n are booleans, 0755 is octal, keys become strings.
type converter struct {
	budget int
	json   bool
	dups   []dupKey
	active map[*yaml.Node]bool // aliases being expanded, to catch cycles
}

type dupKey struct {
	path, key   string
	line, first int
}

func (c *converter) value(n *yaml.Node, path string) (any, error) {
	c.budget--
	if c.budget < 0 {
		return nil, errors.New("yaml: document contains excessive aliasing")
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.value(n.Content[0], path)
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, errors.New("yaml: unknown anchor")
		}
		if c.active[n.Alias] {
			return nil, fmt.Errorf("yaml: anchor '%s' value contains itself", n.Value)
		}
		if c.active == nil {
			c.active = map[*yaml.Node]bool{}
		}
		c.active[n.Alias] = true
		v, err := c.value(n.Alias, path)
		delete(c.active, n.Alias)
		return v, err
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for i, e := range n.Content {
			v, err := c.value(e, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := map[string]any{}
		seen := map[string]int{}
		// Merge keys (<<) first: explicit keys override what they bring.
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; k.Kind == yaml.ScalarNode && k.Value == "<<" && k.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0 {
				if err := c.merge(out, n.Content[i+1], path); err != nil {
					return nil, err
				}
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			kn := n.Content[i]
			if kn.Kind == yaml.ScalarNode && kn.Value == "<<" && kn.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0 {
				continue
			}
			key, err := c.key(kn)
			if err != nil {
				return nil, err
			}
			kp := joinPath(path, key)
			if first, ok := seen[key]; ok {
				c.dups = append(c.dups, dupKey{path: kp, key: key, line: kn.Line, first: first})
			}
			seen[key] = kn.Line
			v, err := c.value(n.Content[i+1], kp)
			if err != nil {
				return nil, err
			}
			out[key] = v
		}
		return out, nil
	case yaml.ScalarNode:
		return c.scalar(n)
	}
	return nil, fmt.Errorf("yaml: line %d: unexpected node", n.Line)
}

func (c *converter) merge(out map[string]any, n *yaml.Node, path string) error {
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil || c.active[n.Alias] {
			return fmt.Errorf("yaml: anchor '%s' value contains itself", n.Value)
		}
		if c.active == nil {
			c.active = map[*yaml.Node]bool{}
		}
		c.active[n.Alias] = true
		err := c.merge(out, n.Alias, path)
		delete(c.active, n.Alias)
		return err
	}
	c.budget--
	if c.budget < 0 {
		return errors.New("yaml: document contains excessive aliasing")
	}
	switch n.Kind {
	case yaml.MappingNode:
		v, err := c.value(n, path)
		if err != nil {
			return err
		}
		for k, x := range v.(map[string]any) {
			if _, ok := out[k]; !ok {
				out[k] = x
			}
		}
		return nil
	case yaml.SequenceNode:
		for _, e := range n.Content {
			if r := resolveAlias(e); r == nil || r.Kind != yaml.MappingNode {
				return fmt.Errorf("yaml: line %d: map merge requires map or sequence of maps as the value", e.Line)
			}
			if err := c.merge(out, e, path); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("yaml: line %d: map merge requires map or sequence of maps as the value", n.Line)
}

// key converts a mapping key to a JSON object key, as sigs.k8s.io/yaml
// does: booleans become "true"/"false", numbers their decimal form.
func (c *converter) key(n *yaml.Node) (string, error) {
	n = resolveAlias(n)
	if n.Kind != yaml.ScalarNode {
		return "", fmt.Errorf("yaml: line %d: mapping keys must be scalars", n.Line)
	}
	v, err := c.scalar(n)
	if err != nil {
		return "", err
	}
	switch x := v.(type) {
	case string:
		return x, nil
	case nil:
		return "null", nil
	case bool:
		return strconv.FormatBool(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), nil
	}
	return fmt.Sprint(v), nil
}

var yamlFloatRE = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// scalar resolves a scalar with YAML 1.1 rules (go.yaml.in/yaml/v2, which
// kubectl uses), not YAML 1.2's: the famous `value: yes` is a boolean.
func (c *converter) scalar(n *yaml.Node) (any, error) {
	s := n.Value
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return s, nil
	}
	if n.Style&yaml.TaggedStyle != 0 {
		switch n.Tag {
		case "!!str", "!!binary", "!!timestamp":
			return s, nil
		case "!!null":
			return nil, nil
		case "!!bool", "!!int", "!!float":
			v := resolvePlain(s)
			want := map[string]string{"!!bool": "bool", "!!int": "int", "!!float": "float"}[n.Tag]
			if got := plainKind(v); got == want || want == "float" && got == "int" {
				if want == "float" {
					if i, ok := v.(int64); ok {
						return float64(i), nil
					}
				}
				return v, nil
			}
			return nil, fmt.Errorf("yaml: line %d: cannot decode %s `%s` as a %s", n.Line, plainKind(v), s, n.Tag)
		}
		return s, nil
	}
	v := resolvePlain(s)
	if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
		return nil, fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(f, 'g', -1, 64))
	}
	return v, nil
}

func plainKind(v any) string {
	switch v.(type) {
	case bool:
		return "bool"
	case int64:
		return "int"
	case float64:
		return "float"
	case nil:
		return "null"
	}
	return "str"
}

// resolvePlain is go.yaml.in/yaml/v2's resolve for untagged plain scalars
// (timestamps excepted: they stay strings).
func resolvePlain(s string) any {
	switch s {
	case "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
		return true
	case "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
		return false
	case "", "~", "null", "Null", "NULL":
		return nil
	case ".nan", ".NaN", ".NAN":
		return math.NaN()
	case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF":
		return math.Inf(1)
	case "-.inf", "-.Inf", "-.INF":
		return math.Inf(-1)
	}
	c := s[0]
	if c == '.' {
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
		return s
	}
	if !(c == '+' || c == '-' || c >= '0' && c <= '9') {
		return s
	}
	plain := strings.ReplaceAll(s, "_", "")
	if i, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return i
	}
	if u, err := strconv.ParseUint(plain, 0, 64); err == nil {
		return float64(u) // beyond int64: encoding/json sees a number either way
	}
	if yamlFloatRE.MatchString(plain) {
		if f, err := strconv.ParseFloat(plain, 64); err == nil {
			return f
		}
	}
	return s
}
