package printers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// TestAgainstKubectl checks the golden files against the real kubectl: it
// serves each directive's objects from a minimal fake API server and runs
// kubectl describe / kubectl get against it, then compares kubectl's output
// with this package's for the same objects. It is skipped when kubectl is
// not installed (the golden files keep the result).
//
// kubectl computes ages from the wall clock, so the served objects are
// shifted to "now" and printed here with that same now; the shift leaves
// half a second of slack for kubectl to start. Tables come from the server
// (the Table API), so for get this checks the layout kubectl gives our cells:
// headers, widths, -o wide, -A, --show-labels, --no-headers.
func TestAgainstKubectl(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl not installed")
	}
	if testing.Short() {
		t.Skip("starts kubectl many times")
	}
	srv := newFakeAPIServer()
	ts := httptest.NewServer(srv)
	defer ts.Close()
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: fake, cluster: {server: %q}}]
users: [{name: fake, user: {}}]
contexts: [{name: fake, context: {cluster: fake, user: fake, namespace: default}}]
current-context: fake
`, ts.URL)
	if err := os.WriteFile(kubeconfig, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, string) {
		cmd := exec.Command(kubectl, append([]string{"--kubeconfig", kubeconfig, "--cache-dir", filepath.Join(dir, "cache")}, args...)...)
		cmd.Env = []string{"TZ=UTC", "HOME=" + dir, "PATH=" + os.Getenv("PATH")}
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		_ = cmd.Run()
		return out.String(), errOut.String()
	}

	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			d, err := parseDirective(td)
			if err != nil {
				t.Fatalf("%s: %v", td.Pos, err)
			}
			if d.opts.WithKind {
				return td.Expected // kubectl prefixes kinds only for several kinds at once
			}
			// kubectl may be slow to start on a busy machine, and an age
			// that crossed a second meanwhile differs. A try that took
			// longer than the shift's slack says nothing about the ages,
			// so only quick tries count: three of them, within ten tries.
			quick := 0
			for attempt := 1; ; attempt++ {
				started := time.Now()
				kubectlOut, mine, ok := compareWithKubectl(t, td, d, srv, run)
				if time.Since(started) < 500*time.Millisecond {
					quick++
				}
				if ok || quick == 3 || attempt == 10 {
					if !ok {
						t.Errorf("%s: kubectl printed (-) and kubeloop printed (+):\n%s", td.Pos, lineDiff(kubectlOut, mine))
					}
					return td.Expected
				}
			}
		})
	})
}

// compareWithKubectl runs one directive through kubectl and through this
// package and says whether they printed the same.
func compareWithKubectl(t *testing.T, td *datadriven.TestData, d *directive, srv *fakeAPIServer,
	run func(args ...string) (string, string)) (kubectlOut, mineOut string, ok bool) {
	// Shift the objects so that kubectl, starting now, sees the virtual
	// ages plus a millisecond (and whatever it takes to start).
	wall := time.Now()
	delta := wall.Sub(d.opts.Now).Truncate(time.Microsecond) - time.Millisecond
	objs, err := shiftObjects(d.objs, delta)
	if err != nil {
		t.Fatal(err)
	}
	now := d.opts.Now.Add(delta)
	srv.load(objs, now)

	var mine bytes.Buffer
	var kubectlErr string
	switch d.cmd {
	case "describe":
		o := objs[0]
		k := kinds.Of(o)
		kubectlOut, kubectlErr = run("describe", k.Resource, o.GetName(), "-n", nsOr(o.GetNamespace()))
		if err := Describe(&mine, o, describeContext(now, objs[1:])); err != nil {
			t.Fatal(err)
		}
	case "output":
		args := []string{"get", "-o", d.fmt}
		if !d.list && len(objs) == 1 {
			args = append(args, kinds.Of(objs[0]).Resource, objs[0].GetName(), "-n", nsOr(objs[0].GetNamespace()))
		} else {
			var refs []string
			for _, o := range objs {
				refs = append(refs, kinds.Of(o).Resource+"/"+o.GetName())
			}
			if len(refs) == 0 {
				refs = []string{"pods"}
			}
			args = append(args, refs...)
			if len(objs) > 0 {
				args = append(args, "-n", nsOr(objs[0].GetNamespace()))
			}
		}
		kubectlOut, kubectlErr = run(args...)
		if err := PrintObject(&mine, d.fmt, objs, d.list || len(objs) != 1); err != nil {
			t.Fatal(err)
		}
	case "get":
		args := []string{"get", d.kind.Resource, "-n", d.ns}
		if d.opts.Wide {
			args = append(args, "-o", "wide")
		}
		if d.opts.ShowLabels {
			args = append(args, "--show-labels")
		}
		if d.opts.AllNamespaces {
			args = append(args, "-A")
		}
		if d.opts.NoHeaders {
			args = append(args, "--no-headers")
		}
		kubectlOut, kubectlErr = run(args...)
		if kubectlErr != "" {
			kubectlOut += "stderr: " + kubectlErr
			kubectlErr = ""
		}
		// kubectl prints in the API server's order: namespace, then name.
		sorted := append([]kinds.Object(nil), objs...)
		sortByKey(sorted)
		opts := d.opts
		opts.Now = now
		if err := PrintTable(&mine, d.kind, sorted, opts); err != nil {
			t.Fatal(err)
		}
		if len(sorted) == 0 {
			mine.WriteString("stderr: " + NoResourcesFound(d.kind, d.ns, d.opts.AllNamespaces) + "\n")
		}
	}
	if kubectlErr != "" {
		t.Fatalf("%s: kubectl: %s", td.Pos, kubectlErr)
	}
	return kubectlOut, mine.String(), kubectlOut == mine.String()
}

func nsOr(ns string) string {
	if ns == "" {
		return "default"
	}
	return ns
}

// lineDiff shows two texts line by line where they differ.
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out strings.Builder
	for i := 0; i < max(len(al), len(bl)); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x == y {
			fmt.Fprintf(&out, "  %s\n", x)
		} else {
			fmt.Fprintf(&out, "- %q\n+ %q\n", x, y)
		}
	}
	return out.String()
}

var rfc3339Re = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$`)

// shiftObjects moves every timestamp of objs by delta (keeping microseconds,
// which both metav1.Time and MicroTime parse) by rewriting their JSON.
func shiftObjects(objs []kinds.Object, delta time.Duration) ([]kinds.Object, error) {
	var shift func(v any) any
	shift = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = shift(e)
			}
		case []any:
			for i, e := range x {
				x[i] = shift(e)
			}
		case string:
			if rfc3339Re.MatchString(x) {
				tm, err := time.Parse(time.RFC3339Nano, x)
				if err == nil {
					return tm.Add(delta).UTC().Format("2006-01-02T15:04:05.000000Z07:00")
				}
			}
		}
		return v
	}
	out := make([]kinds.Object, len(objs))
	for i, o := range objs {
		b, err := json.Marshal(shift(ToJSONValue(o)))
		if err != nil {
			return nil, err
		}
		n := kinds.Of(o).New()
		if err := json.Unmarshal(b, n); err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// fakeAPIServer serves discovery, GET and LIST (with label and field
// selectors, and the Table form kubectl get asks for) over a fixed set of
// objects: just what kubectl get and describe need.
type fakeAPIServer struct {
	objs []kinds.Object
	now  time.Time
}

func newFakeAPIServer() *fakeAPIServer { return &fakeAPIServer{} }

func (s *fakeAPIServer) load(objs []kinds.Object, now time.Time) { s.objs, s.now = objs, now }

// resourceList is the discovery document of one group version.
func resourceList(gv string) map[string]any {
	var res []any
	for _, k := range kinds.All {
		if k.APIVersion() != gv {
			continue
		}
		res = append(res, map[string]any{"name": k.Resource, "singularName": k.Singular, "namespaced": k.Namespaced,
			"kind": k.Kind, "verbs": []string{"get", "list"}, "shortNames": k.ShortNames})
	}
	if gv == "v1" {
		for _, r := range []string{"resourcequotas", "limitranges"} {
			res = append(res, map[string]any{"name": r, "namespaced": true, "kind": "X", "verbs": []string{"list"}})
		}
	}
	return map[string]any{"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": res}
}

func (s *fakeAPIServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	reply := func(v any) {
		w.Header().Set("Content-Type", "application/json")
		b, _ := json.Marshal(v)
		_, _ = w.Write(b)
	}
	path := strings.Trim(r.URL.Path, "/")
	switch path {
	case "api":
		reply(map[string]any{"kind": "APIVersions", "versions": []string{"v1"},
			"serverAddressByClientCIDRs": []any{map[string]any{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}}})
		return
	case "apis":
		var groups []any
		seen := map[string]bool{}
		for _, k := range kinds.All {
			if k.Group == "" || seen[k.Group] {
				continue
			}
			seen[k.Group] = true
			gv := map[string]any{"groupVersion": k.APIVersion(), "version": k.Version}
			groups = append(groups, map[string]any{"name": k.Group, "versions": []any{gv}, "preferredVersion": gv})
		}
		reply(map[string]any{"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
		return
	case "api/v1":
		reply(resourceList("v1"))
		return
	case "version":
		reply(map[string]any{"major": "1", "minor": "34", "gitVersion": "v1.34.1"})
		return
	}
	parts := strings.Split(path, "/")
	var gv string
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		gv, parts = parts[1], parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		gv, parts = parts[1]+"/"+parts[2], parts[3:]
	default:
		http.NotFound(w, r)
		return
	}
	if len(parts) == 0 {
		reply(resourceList(gv))
		return
	}
	ns := ""
	if parts[0] == "namespaces" && len(parts) >= 3 {
		ns, parts = parts[1], parts[2:]
	}
	resource, name := parts[0], ""
	if len(parts) > 1 {
		name = parts[1]
	}
	if resource == "resourcequotas" || resource == "limitranges" {
		reply(map[string]any{"kind": "List", "apiVersion": "v1", "metadata": map[string]any{"resourceVersion": "1"}, "items": []any{}})
		return
	}
	var kind *kinds.Kind
	for _, k := range kinds.All {
		if k.Resource == resource && k.APIVersion() == gv {
			kind = k
		}
	}
	if kind == nil {
		http.NotFound(w, r)
		return
	}
	if name != "" {
		for _, o := range s.objs {
			if kinds.Of(o) == kind && o.GetName() == name && o.GetNamespace() == ns {
				reply(ToJSONValue(o))
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		reply(map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404,
			"message": fmt.Sprintf("%s %q not found", kind.GroupResource(), name)})
		return
	}
	lsel, err := labels.Parse(r.URL.Query().Get("labelSelector"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	fsel, err := fields.ParseSelector(r.URL.Query().Get("fieldSelector"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var items []kinds.Object
	for _, o := range s.objs {
		if kinds.Of(o) != kind || (ns != "" && o.GetNamespace() != ns) {
			continue
		}
		if !lsel.Matches(labels.Set(o.GetLabels())) || !fsel.Matches(objectFields(o)) {
			continue
		}
		items = append(items, o)
	}
	sortByKey(items)
	if strings.Contains(r.Header.Get("Accept"), "as=Table") {
		reply(s.table(kind, items))
		return
	}
	values := make([]any, len(items))
	for i, o := range items {
		values[i] = ToJSONValue(o)
	}
	reply(map[string]any{"kind": kind.Kind + "List", "apiVersion": gv, "metadata": map[string]any{"resourceVersion": "1"}, "items": values})
}

// table is the Table API answer: this package's cells, all columns, wide
// ones marked priority 1, as the API server sends them.
func (s *fakeAPIServer) table(k *kinds.Kind, items []kinds.Object) map[string]any {
	t := tables[k]
	var cols []any
	for _, c := range t.columns {
		col := map[string]any{"name": c.name, "type": "string", "format": "", "description": "", "priority": 0}
		if c.name == "Name" {
			col["format"] = "name"
		}
		if c.wide {
			col["priority"] = 1
		}
		cols = append(cols, col)
	}
	rows := []any{}
	for _, o := range items {
		cells := t.row(o, s.now)
		anyCells := make([]any, len(cells))
		for i, c := range cells {
			anyCells[i] = c
		}
		rows = append(rows, map[string]any{"cells": anyCells, "object": ToJSONValue(o)})
	}
	return map[string]any{"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": map[string]any{"resourceVersion": "1"},
		"columnDefinitions": cols, "rows": rows}
}

// sortByKey orders objects as etcd keys are: by namespace, then name.
func sortByKey(objs []kinds.Object) {
	sort.SliceStable(objs, func(i, j int) bool {
		if objs[i].GetNamespace() != objs[j].GetNamespace() {
			return objs[i].GetNamespace() < objs[j].GetNamespace()
		}
		return objs[i].GetName() < objs[j].GetName()
	})
}

// objectFields are the field selector fields kubectl uses.
func objectFields(o kinds.Object) fields.Set {
	set := fields.Set{"metadata.name": o.GetName(), "metadata.namespace": o.GetNamespace()}
	switch x := o.(type) {
	case *corev1.Event:
		io := x.InvolvedObject
		set["involvedObject.kind"] = io.Kind
		set["involvedObject.namespace"] = io.Namespace
		set["involvedObject.name"] = io.Name
		set["involvedObject.uid"] = string(io.UID)
		set["involvedObject.apiVersion"] = io.APIVersion
	case *corev1.Pod:
		set["spec.nodeName"] = x.Spec.NodeName
		set["status.phase"] = string(x.Status.Phase)
	}
	return set
}
