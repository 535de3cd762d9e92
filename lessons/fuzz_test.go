package lessons

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// FuzzLoad feeds arbitrary lesson files to the loader, seeded with the
// course's own: an instructor's typo must come back as located errors
// (file, a line within the file, a message), never as a crash or a lesson
// half-loaded.
func FuzzLoad(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("course", "*.yaml"))
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("title: t\nsteps:\n- say: hi\n  check: count(pods) == 0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fsys := fstest.MapFS{"l.yaml": {Data: data}, "app.yaml": {Data: []byte("kind: Pod\n")}}
		l, err := Load(fsys, "l.yaml")
		if err == nil {
			if l == nil {
				t.Fatal("no lesson and no error")
			}
			return
		}
		if l != nil {
			t.Fatalf("a lesson and an error: %v", err)
		}
		var es Errors
		if !errors.As(err, &es) || len(es) == 0 {
			t.Fatalf("error %T %q is not located Errors", err, err)
		}
		lines := strings.Count(string(data), "\n") + 1
		for _, e := range es {
			if e.File != "l.yaml" || e.Msg == "" || e.Line < 0 || e.Line > lines || e.Step < 0 {
				t.Fatalf("badly located error %+v in a %d-line file", e, lines)
			}
		}
	})
}
