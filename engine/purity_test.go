package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestEngineIsPure enforces the determinism contract mechanically (STYLE.md
// rule 1): no file under engine/ may import os, net, sync, the global
// math/rand, or unsafe; start a goroutine; use channels or select; print; or
// read the wall clock. Tests are exempt: they may measure.
func TestEngineIsPure(t *testing.T) {
	forbiddenImports := map[string]string{
		"os": "the engine touches no files or environment", "net": "the engine has no network",
		"sync": "the engine is single-threaded", "sync/atomic": "the engine is single-threaded",
		"math/rand": "use sim.Rand, seeded from the root", "crypto/rand": "use sim.Rand, seeded from the root",
		"unsafe": "no tricks in teaching code", "log": "record in the trace instead",
	}
	forbiddenCalls := map[string]map[string]bool{
		"time": {"Now": true, "Since": true, "Until": true, "Sleep": true, "After": true, "AfterFunc": true,
			"Tick": true, "NewTimer": true, "NewTicker": true},
		"fmt": {"Print": true, "Printf": true, "Println": true},
	}
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		files++
		imported := map[string]string{} // local name -> path
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if why, bad := forbiddenImports[p]; bad {
				t.Errorf("%s imports %q: %s", fset.Position(im.Pos()), p, why)
			}
			name := p[strings.LastIndex(p, "/")+1:]
			if im.Name != nil {
				name = im.Name.Name
			}
			imported[name] = p
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				t.Errorf("%s starts a goroutine: the engine is single-threaded", fset.Position(n.Pos()))
			case *ast.ChanType:
				t.Errorf("%s uses a channel: the engine is single-threaded", fset.Position(n.Pos()))
			case *ast.SelectStmt:
				t.Errorf("%s uses select: the engine is single-threaded", fset.Position(n.Pos()))
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok {
					if calls := forbiddenCalls[imported[x.Name]]; calls[n.Sel.Name] {
						t.Errorf("%s calls %s.%s: virtual time and the trace only", fset.Position(n.Pos()), x.Name, n.Sel.Name)
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 10 {
		t.Fatalf("checked only %d files; is the walk rooted at engine/?", files)
	}
}
