package repl

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/engine/store"
)

// fuzzSeeds are sessions a learner might type, for FuzzSession to mutate:
// every command family, here-documents, flags, expressions, "! " lines.
var fuzzSeeds = []string{
	"get pods\n",
	"create deployment api --image=nginx:1.27 --replicas=3\nadvance 30s\nget pods -o wide\n",
	"apply -f - <<EOF\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\nEOF\nadvance 20s\nexpose deployment web --port=80\nget endpointslices\n",
	"apply -f - <<EOF\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: busybox, resources: {requests: {cpu: 50m}}}]\nEOF\nadvance 10s\ndescribe pod p\ndelete pod p\n",
	"create deployment api --image=nginx --replicas=2\nadvance 20s\nscale deployment api --replicas=5\nset image deployment/api nginx=nginx:1.28\nrollout status deployment/api\nrollout undo deployment/api\n",
	"create deployment api --image=nginx\nadvance 20s\nkill pod -l app=api\nbreak deployment/api\nheal deployment/api\nlogs deployment/api\n",
	"node fail n2\nadvance 1m\nget nodes\nnode recover n2\ncordon n1\ndrain n3 --ignore-daemonsets\nuncordon n1\ntaint nodes n1 k=v:NoSchedule\n",
	"create deployment api --image=nginx\nautoscale deployment api --min=1 --max=4 --cpu-percent=50\nload deployment/api --cpu 80m\nadvance 2m\ntop pods\nget hpa\n",
	"eval count(pods)\nassert count(nodes) == 3\nuntil count(pods, .status.phase == \"Running\") == 0 --timeout 10s\n! get pod missing\n",
	"trace --last 20\nwhy deployment/api\ndiagram\nlabel node n1 zone=a\nannotate node n1 note=x\nget events\n",
	"get deployment api -o yaml\nget pods -o json\nget all\napi-resources\nimages\nseed\nversion\nhelp get\n",
}

// FuzzSession types arbitrary input at a session and requires what the
// contract promises of bad input: it never crashes the REPL (a recovered
// panic is an internal error, a bug) and never leaves the store in a state
// its own history does not rebuild. Inputs that would read or write files
// (-f with a path, lessons) or have a number of three digits or more are
// skipped: they touch the machine, or simulate for long (999 replicas
// retried for 99 hours), which tests no parser.
func FuzzSession(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	skip := regexp.MustCompile(`(-f|--filename|-R|-k|--kustomize)[ =]*[^-\s]|(-f|--filename)[ =]*-[^\s]|lesson|\d{3,}`)
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 4096 || skip.MatchString(src) {
			t.Skip()
		}
		var out bytes.Buffer
		s := NewSession(&out, &out, Config{Seed: 1})
		for _, line := range strings.SplitAfter(src, "\n") {
			// Each line at the prompt, as typed; a here-document's body
			// only reads as such when run as a script (below).
			if s.Quit() {
				break
			}
			_ = s.Exec(line)
		}
		_ = s.RunScript("fuzz.kl", strings.NewReader(src))
		if s.Panics > 0 {
			t.Fatalf("%d internal errors on input %q:\n%s", s.Panics, src, out.String())
		}
		checkStoreReadsBack(t, s)
	})
}

// checkStoreReadsBack checks that every object the store holds is what
// its history last wrote for it: bad input has corrupted nothing.
func checkStoreReadsBack(t *testing.T, s *Session) {
	t.Helper()
	evs, err := s.Eng.Store.Since(s.Eng.Store.CompactRev())
	if err != nil {
		t.Fatalf("reading history: %v", err)
	}
	last := map[string]store.Event{}
	for _, ev := range evs {
		last[ev.Key()] = ev
	}
	for key, ev := range last {
		if ev.Type == store.Deleted {
			continue
		}
		k, ns, name := ev.Kind, ev.Object.GetNamespace(), ev.Object.GetName()
		cur, ok := s.Eng.Store.Lookup(k, ns, name)
		if !ok {
			t.Fatalf("%s: history's last write is a %v, but the store has no object", key, ev.Type)
		}
		if cur.GetResourceVersion() != ev.Object.GetResourceVersion() {
			t.Fatalf("%s: stored at resourceVersion %s, history's last write %s", key, cur.GetResourceVersion(), ev.Object.GetResourceVersion())
		}
	}
}
