package repl

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestKubectlGolden replays testdata/kubectl_*.txt: each directive is one
// line of kubeloop's language (the here-document, if any, is the directive's
// input), and the expected output is what the session printed, standard
// output and errors interleaved as a terminal shows them. Each file starts a
// fresh session on the built-in cluster with the default seed.
//
// Regenerate with `go test ./repl -run Golden -rewrite`, then inspect the
// diff and only commit the changes if you understand what caused them
// (raft's interaction_test.go warning): the transcripts are the contract
// with learners.
func TestKubectlGolden(t *testing.T) { runGoldenFiles(t, "kubectl_") }

// TestTraceGolden replays testdata/trace_*.txt the same way, for trace,
// diagram and why. The same warning applies: read every rewritten line as
// a learner would before committing it.
func TestTraceGolden(t *testing.T) { runGoldenFiles(t, "trace_") }

func runGoldenFiles(t *testing.T, prefix string) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		if !strings.HasPrefix(filepath.Base(path), prefix) {
			t.Skip("not a " + prefix + " file")
		}
		lines := fileLines(t, path)
		var out bytes.Buffer
		s := NewSession(&out, &out, Config{})
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			out.Reset()
			line := directiveLine(t, lines, d)
			src := line + "\n"
			if d.Input != "" {
				src = line + " <<'EOF'\n" + d.Input + "\nEOF\n"
			}
			_ = s.Exec(src) // failures are output, printed by the session
			if s.Panics > 0 {
				t.Fatalf("%s: internal error:\n%s", d.Pos, out.String())
			}
			return out.String()
		})
	})
}

// directiveLine is the directive exactly as written in the file:
// datadriven re-renders arguments (key=value pairs), which would change
// kubectl flags, so the harness reads the line back from the file.
func directiveLine(t *testing.T, lines []string, d *datadriven.TestData) string {
	i := strings.LastIndexByte(d.Pos, ':')
	n, err := strconv.Atoi(d.Pos[i+1:])
	if err != nil || n < 1 || n > len(lines) {
		t.Fatalf("bad directive position %q", d.Pos)
	}
	return strings.TrimSpace(lines[n-1])
}

func fileLines(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}
