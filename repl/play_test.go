package repl

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestPlayTranscripts replays testdata/transcripts/*.kl, scripts of the
// playground commands (advance, until, assert, eval, reset, seed, node add,
// images), and compares each session's transcript (Session.Transcript:
// commands echoed after "> ", then their output) with NAME.golden beside
// it. Every file starts a fresh session on the built-in cluster, seed 1.
//
// Regenerate with `go test ./repl -run Transcripts -rewrite`; inspect the
// diff and only commit the changes if you understand what caused them: the
// transcripts are what a learner sees.
func TestPlayTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/transcripts/*.kl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".kl")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			s := NewSession(&got, &got, Config{})
			if _, err := s.Transcript(filepath.Base(file), bytes.NewReader(src), &got); err != nil {
				t.Fatal(err)
			}
			if s.Panics > 0 {
				t.Fatalf("internal error in the transcript:\n%s", got.String())
			}
			golden := strings.TrimSuffix(file, ".kl") + ".golden"
			if rewriting() {
				if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -rewrite to create it)", err)
			}
			if got.String() != string(want) {
				t.Errorf("%s differs from the session:\n%s", golden, lineDiff(string(want), got.String()))
			}
		})
	}
}

// rewriting reads -rewrite, the flag datadriven defines for the package's
// golden files; the transcripts share it rather than define a second one.
func rewriting() bool {
	f := flag.Lookup("rewrite")
	return f != nil && f.Value.String() == "true"
}

// lineDiff shows the first lines where want and got part.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			lo := max(i-2, 0)
			var b strings.Builder
			for j := lo; j < i; j++ {
				b.WriteString("  " + w[j] + "\n")
			}
			b.WriteString("- " + wl + "\n+ " + gl + "\n")
			return b.String()
		}
	}
	return ""
}

func TestOccurrences(t *testing.T) {
	for _, c := range []struct {
		name string
		ev   corev1.Event
		want int32
	}{
		{"core/v1, counted", corev1.Event{Count: 4}, 4},
		{"core/v1, once", corev1.Event{Count: 1}, 1},
		{"events.k8s.io/v1 singleton: no count", corev1.Event{}, 1},
		{"events.k8s.io/v1 series", corev1.Event{Series: &corev1.EventSeries{Count: 7}}, 7},
	} {
		if got := occurrences(&c.ev); got != c.want {
			t.Errorf("%s: occurrences = %d; want %d", c.name, got, c.want)
		}
	}
}
