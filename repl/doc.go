// Package repl is kubeloop's command language and the REPL that speaks it.
//
// One language serves the REPL, `kubeloop run` scripts, stdin and lessons:
// one command per line, `#` comments, words split as a shell splits them,
// here-documents for inline manifests (`apply -f - <<EOF` ... `EOF`), a
// leading `kubectl ` ignored so that real commands can be pasted, and a
// leading `! ` meaning "this command must fail" (as in Go's testscript).
// Parsing lives in parse.go (Scanner, Stmt), dispatching in session.go
// (Session.Exec, Session.RunScript), whole-session golden transcripts in
// transcript.go (Session.Transcript), completion in complete.go, and the
// REPL loop and `kubeloop run` in run.go (Run, RunFiles).
//
// assert, eval and until take expressions (expr.go, expr-lang) over the
// cluster's objects in their Kubernetes JSON shape; only the lists an
// expression names are built, through a cache of converted objects, and
// until re-evaluates only after writes to those kinds.
//
// Commands come from one table (command.go): each file registers its
// commands in an init function with register(&Command{...}), and the table
// generates `help`, `help NAME` and tab completion. A command's Run gets the
// Session, its words and the here-document; it writes output to s.Out and
// returns an error, which the dispatcher prints (with FILE:LINE in scripts,
// then the usage line for a usage error). Helpers for command authors:
//
//   - s.Parse(args) parses the command's declared Flags kubectl-style
//     (`-o wide`, `-owide`, `--output=wide`, `-A`, repeated flags, flags
//     anywhere); see Flag, Flags and the shared FlagNamespace,
//     FlagAllNamespaces, FlagSelector, FlagOutput, FlagFilename, FlagQuiet.
//   - usagef(...) returns an error after which the usage line is printed.
//   - s.Actor() records the command in the trace (once) and returns the
//     apiserver.Actor for its writes, so the trace leads back to the line.
//   - s.pal colours text by trace column and lane, errors and warnings;
//     it is the identity when colour is off.
//
// After every command the dispatcher settles the engine: the control plane
// reacts to a write within the same virtual instant, and only advance and
// until move time. A panic in a command is recovered and reported as
// `internal error (seed=N): ...`; the session goes on, the script fails.
package repl
