package repl

import (
	"errors"
	"fmt"
	"strings"
)

func init() {
	register(&Command{
		Name:  "assert",
		Usage: "assert EXPR",
		Short: "check an expression over the cluster; fail, showing the values, if it is false",
		Long: `assert evaluates EXPR, an expr-lang expression (https://expr-lang.org), over
the cluster as it is now, and fails if it is not true. A failed assert prints
the expression and the value of each part it looked at; in a script it stops
the run with FILE:LINE.

Objects have their Kubernetes JSON shape, as ` + "`kubectl get -o json`" + ` prints
them (.metadata, .spec, .status; numbers, strings, lists and maps). The names:

  ` + listNames() + `
      every object of that kind, in all namespaces, as a list
  now   the virtual time, as the timestamps objects carry ("2025-01-01T00:01:00Z")

expr's builtins work on the lists: count, filter, find, all, any, none, map,
len, sum, ... Inside a predicate, .field (or #.field) is the element's field.
kubeloop adds:

` + exprFuncHelp(),
		Example: `assert count(pods, .status.phase == "Running") == 3
assert find(deployments, .metadata.name == "api").status.availableReplicas == 3
assert all(pods, ready(#) && restarts(#) == 0)`,
		Group: GroupPlayground,
		Raw:   true,
		Run:   runAssert,
	})
	register(&Command{
		Name:  "eval",
		Usage: "eval EXPR",
		Short: "print the value of an expression over the cluster",
		Long: `eval evaluates EXPR as assert does (see help assert) and prints the value:
scalars as they are, lists and objects as indented JSON.`,
		Example: `eval map(pods, .metadata.name)
eval find(nodes, .metadata.name == "n1").status.capacity
eval count(pods, ready(#))`,
		Group: GroupPlayground,
		Raw:   true,
		Run:   runEval,
	})
}

func exprFuncHelp() string {
	var b strings.Builder
	for _, f := range exprFuncs {
		fmt.Fprintf(&b, "  %-17s %s\n", f.sig, f.doc)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func runAssert(s *Session, args []string, _ string) error {
	if len(args) == 0 {
		return usagef("assert needs an expression")
	}
	c, err := s.compileExpr(args[0])
	if err != nil {
		return err
	}
	ok, env, err := s.evalBool(c)
	if err != nil {
		lines := append([]string{err.Error()}, s.explain(c, env)...)
		return errors.New(strings.Join(lines, "\n"))
	}
	if ok {
		return nil
	}
	lines := append([]string{"assertion failed: " + c.src}, s.explain(c, env)...)
	return errors.New(strings.Join(lines, "\n"))
}

func runEval(s *Session, args []string, _ string) error {
	if len(args) == 0 {
		return usagef("eval needs an expression")
	}
	c, err := s.compileExpr(args[0])
	if err != nil {
		return err
	}
	v, _, err := s.evalExpr(c)
	if err != nil {
		return err
	}
	fmt.Fprintln(s.Out, longValue(v))
	return nil
}
