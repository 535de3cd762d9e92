package main

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kubeloop/kubeloop/repl"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output in testdata/script/*.txtar (review the diff before committing)")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"kubeloop": func() { os.Exit(kubeloop(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the built binary over the scripts in testdata/script:
// the REPL over stdin, `kubeloop run` with passing and failing scripts,
// "! " lines, colour, help, and the README's tour. The expected outputs in
// the .txtar files are golden transcripts: with -rewrite they are
// rewritten from what kubeloop prints now. Only commit the changes if you
// understand what caused them.
//
// The condition [cmd:NAME] holds when the REPL has a command NAME, so that
// scripts that need the kubectl commands wait for them.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *rewrite,
		Setup: func(env *testscript.Env) error {
			// A terminal-free, colour-free environment unless a script asks.
			env.Setenv("NO_COLOR", "")
			env.Setenv("CLICOLOR_FORCE", "")
			env.Setenv("XDG_STATE_HOME", env.WorkDir+"/state")
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if name, ok := strings.CutPrefix(cond, "cmd:"); ok {
				for _, c := range repl.Commands() {
					if c.Name == name {
						return true, nil
					}
				}
				return false, nil
			}
			return false, nil
		},
	})
}
