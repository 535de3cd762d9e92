package repl

import (
	"bytes"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// determinismScript exercises the seeded choices: generated names, UIDs,
// scheduler tie-breaks; and everything that follows from them.
const determinismScript = `create deployment api --image=nginx:1.27 --replicas=4
advance 1m
get pods
get deployments
delete pods -l app=api
until count(pods, .status.phase == "Running" && .metadata.deletionTimestamp == nil) == 4 --timeout 2m
get replicasets
eval map(pods, .metadata.uid)
trace --last 40
`

func runDeterminism(t *testing.T, seed uint64) string {
	t.Helper()
	for _, c := range []string{"create", "get", "delete", "trace"} {
		if _, ok := lookup(c); !ok {
			t.Skipf("needs the %s command", c)
		}
	}
	var out bytes.Buffer
	s := NewSession(&out, &out, Config{Seed: seed})
	if err := s.RunScript("determinism.kl", strings.NewReader(determinismScript)); err != nil {
		t.Fatalf("seed %d: %v\n%s", seed, err, out.String())
	}
	return out.String()
}

// TestDeterminism runs one script twice with the same seed and expects the
// same bytes; with another seed the output differs, but only in what the
// seed chooses: once generated name suffixes, UIDs and node names are
// masked, the two runs tell the same story.
func TestDeterminism(t *testing.T) {
	a, b := runDeterminism(t, 1), runDeterminism(t, 1)
	if a != b {
		t.Fatalf("two runs with seed 1 differ:\n--- first\n%s\n--- second\n%s", a, b)
	}
	c := runDeterminism(t, 2)
	if a == c {
		t.Fatalf("seeds 1 and 2 gave the same output; the seed chooses nothing")
	}
	if ma, mc := maskSeeded(a), maskSeeded(c); ma != mc {
		t.Errorf("seeds 1 and 2 differ beyond seeded choices:\n--- seed 1\n%s\n--- seed 2\n%s", ma, mc)
	}
}

var (
	// A generated name's suffix: apimachinery's five consonants and digits.
	generatedSuffix = regexp.MustCompile(`-[bcdfghjklmnpqrstvwxz2456789]{5}\b`)
	uuid            = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	nodeName        = regexp.MustCompile(`\bn[0-9]+\b`)
	podIP           = regexp.MustCompile(`\b10\.244\.[0-9]+\.[0-9]+\b`)
)

// maskSeeded hides what the seed chooses and sorts the lines, since the
// order of names listed depends on the names.
func maskSeeded(s string) string {
	s = generatedSuffix.ReplaceAllString(s, "-XXXXX")
	s = uuid.ReplaceAllString(s, "UID")
	s = nodeName.ReplaceAllString(s, "nN")
	s = podIP.ReplaceAllString(s, "IP")
	lines := strings.Split(s, "\n")
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
