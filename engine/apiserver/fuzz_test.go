package apiserver

import (
	"errors"
	"testing"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// fuzzSeeds are the manifests of the other tests: good ones, and every
// kind of bad one.
func fuzzSeeds() []string {
	seeds := []string{
		apiDeployment, apiService, apiDeployment + "---\n" + apiService,
		"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata: {name: a}\n",
		`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"x"}}`,
		"apiVersion: v1\nkind: Node\nmetadata: {name: n9}\nstatus:\n  capacity: {cpu: 8, memory: 32Gi, pods: 110}\n",
		"apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: api}\nspec:\n" +
			"  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}\n  maxReplicas: 5\n",
		"a: &a [*a]\n", "x: &x {a: *x}\n", "- &a [a, a]\n- &b [*a, *a]\n- &c [*b, *b]\n",
		"<<: {a: 1}\nkind: Pod\n", "x: &x {a: 1, <<: *x}\n", "- &a {b: 1}\n- <<: [*a, *a]\n", "---\n---\n", "", "\t", "{", "[1,2]",
	}
	for _, b := range badInputs {
		seeds = append(seeds, b.manifest)
	}
	return seeds
}

// FuzzDecode checks that Decode never panics and returns either objects
// or errors that print.
func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, err := Decode("f.yaml", data)
		if err != nil {
			var errs RequestErrors
			if !errors.As(err, &errs) || len(errs) == 0 {
				t.Fatalf("error %T %v is not a non-empty RequestErrors", err, err)
			}
			if docs != nil {
				t.Fatalf("Decode returned documents with an error")
			}
			for _, e := range errs {
				_ = e.Kubectl()
				_ = e.Locate()
				_ = e.Status()
			}
			return
		}
		for _, d := range docs {
			if d.Object == nil || kinds.Of(d.Object) != d.Kind {
				t.Fatalf("document %d: object %T for kind %v", d.Index, d.Object, d.Kind)
			}
		}
	})
}

// FuzzApply checks that Apply never panics and is all or nothing: on error
// neither the store nor the trace moves; on success every result is what
// the store holds.
func FuzzApply(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ts := newTestServer(t)
		ts.mustApply(t, apiDeployment) // something to configure
		rev, next := ts.store.Rev(), ts.trace.NextSeq()
		res, err := ts.Apply(ts.learner("apply -f f.yaml"), "f.yaml", data, ApplyOptions{})
		if err != nil {
			if ts.store.Rev() != rev {
				t.Fatalf("failed apply moved the store from %d to %d: %v", rev, ts.store.Rev(), err)
			}
			if ts.trace.NextSeq() != next+1 { // the learner's command only
				t.Fatalf("failed apply traced %d events: %v", ts.trace.NextSeq()-next-1, err)
			}
			return
		}
		for _, r := range res {
			got, gerr := ts.Get(r.Kind, r.Namespace, r.Name)
			if gerr != nil {
				t.Fatalf("%s: %v after a successful apply", r, gerr)
			}
			if r.Action != Unchanged && got.GetResourceVersion() == "" {
				t.Fatalf("%s: stored object has no resourceVersion", r)
			}
		}
	})
}
