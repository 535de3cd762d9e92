// Command kubeloop is an educational playground for Kubernetes: a REPL
// that drives a miniature, simulated, deterministic control plane.
//
//	kubeloop                      the REPL on the built-in cluster (stdin a terminal)
//	kubeloop < script             stdin, when it is not a terminal, is a script
//	kubeloop run FILE...          run script files; exit 1 at the first failure
//	kubeloop lesson list|start NAME|check [FILE|NAME...]|record FILE|new NAME
//	                              the guided course and the instructor's tools
//	kubeloop version              print the version
//	kubeloop help [COMMAND]       list the commands, or explain one
//
// Global flags, before or after the subcommand: --seed N, --nodes N,
// --no-color. Colour is also off when NO_COLOR is set or stdout is not a
// terminal (unless CLICOLOR_FORCE is set).
//
// This file only parses flags and wires the terminal; everything else is
// in package repl (STYLE.md rule 10).
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/chzyer/readline"

	"github.com/kubeloop/kubeloop/lessons"
	"github.com/kubeloop/kubeloop/repl"
)

func main() { os.Exit(kubeloop(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

// Exit statuses.
const (
	exitOK      = 0
	exitFailed  = 1 // a command or an assert failed
	exitUsage   = 2 // kubeloop itself was called wrongly
	usageString = `usage: kubeloop [--seed N] [--nodes N] [--no-color] [run FILE... | lesson ... | version | help [COMMAND]]`
)

var globalFlags = []repl.Flag{
	{Name: "seed", Value: "N", Usage: "root seed of every random choice (default 1)"},
	{Name: "nodes", Value: "N", Usage: "nodes in the built-in cluster (default 3)"},
	{Name: "no-color", Usage: "no colour, even on a terminal (NO_COLOR does the same)"},
	{Name: "help", Short: "h", Usage: "print this help"},
}

// subcommands are kubeloop's verbs besides the REPL.
var subcommands = map[string]func(args []string, cfg repl.Config, stdin io.Reader, stdout, stderr io.Writer) int{
	"run":     runFiles,
	"version": version,
	"help":    help,
	"lesson":  lessonCmd, // list, start, check, record, new: package lessons
}

// lessonCmd is `kubeloop lesson ...`; a guided lesson at a terminal is the
// interactive REPL.
func lessonCmd(args []string, cfg repl.Config, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg.Interactive = isTerminal(stdin)
	if cfg.Interactive {
		cfg.HistoryFile = historyFile()
	}
	return lessons.Main(args, cfg, stdin, stdout, stderr)
}

func kubeloop(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f, err := repl.ParseFlags(globalFlags, args)
	if err != nil {
		fmt.Fprintf(stderr, "kubeloop: %v\n%s\n", err, usageString)
		return exitUsage
	}
	if f.Bool("help") {
		return help(nil, repl.Config{}, stdin, stdout, stderr)
	}
	cfg := repl.Config{}
	if f.Changed("seed") {
		seed, err := strconv.ParseUint(f.String("seed"), 10, 64)
		if err != nil || seed == 0 {
			fmt.Fprintf(stderr, "kubeloop: --seed wants a whole number from 1, not %q\n", f.String("seed"))
			return exitUsage
		}
		cfg.Seed = seed
	}
	if f.Changed("nodes") {
		n, err := f.Int("nodes")
		if err != nil || n < 0 {
			fmt.Fprintf(stderr, "kubeloop: --nodes wants a number of nodes, not %q\n", f.String("nodes"))
			return exitUsage
		}
		if n == 0 {
			n = -1 // an explicit empty cluster, not the default
		}
		cfg.Nodes = n
	}
	cfg.Color = useColor(f.Bool("no-color"), stdout)

	if len(f.Args) > 0 {
		sub, ok := subcommands[f.Args[0]]
		if !ok {
			fmt.Fprintf(stderr, "kubeloop: unknown subcommand %q\n%s\n", f.Args[0], usageString)
			return exitUsage
		}
		return sub(f.Args[1:], cfg, stdin, stdout, stderr)
	}

	cfg.Interactive = isTerminal(stdin)
	if cfg.Interactive {
		cfg.HistoryFile = historyFile()
	}
	cfg.LessonNames = lessons.Names()
	if err := repl.Run(stdin, stdout, stderr, cfg); err != nil {
		return exitFailed
	}
	return exitOK
}

func runFiles(args []string, cfg repl.Config, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintf(stderr, "kubeloop run: no script files\nusage: kubeloop run FILE...\n")
		return exitUsage
	}
	if err := repl.RunFiles(stdout, stderr, cfg, args...); err != nil {
		return exitFailed
	}
	return exitOK
}

func version(args []string, _ repl.Config, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintln(stderr, "usage: kubeloop version")
		return exitUsage
	}
	fmt.Fprintln(stdout, repl.VersionString())
	return exitOK
}

func help(args []string, cfg repl.Config, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintf(stdout, `kubeloop is a playground for Kubernetes: a simulated, deterministic control
plane you drive with kubectl-shaped commands.

%s

  kubeloop              the REPL on the built-in cluster (a script, if stdin is not a terminal)
  kubeloop run FILE...  run scripts; exit status 1 at the first failed command, naming FILE:LINE
  kubeloop lesson list  the guided course (lesson start NAME, check, record, new: see help lesson)
  kubeloop version      print the version
  kubeloop help [CMD]   this help, or a REPL command's

Flags:
  --seed N      root seed of every random choice (default 1)
  --nodes N     nodes in the built-in cluster (default 3)
  --no-color    no colour (also when NO_COLOR is set or output is not a terminal)

`, usageString)
	}
	s := repl.NewSession(stdout, stderr, cfg)
	line := "help"
	for _, a := range args {
		line += " " + strconv.Quote(a)
	}
	if err := s.Exec(line); err != nil {
		return exitUsage
	}
	return exitOK
}

// historyFile is the REPL's history: $XDG_STATE_HOME/kubeloop/history, or
// ~/.local/state/kubeloop/history; "" (no history) if neither is known.
func historyFile() string {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "kubeloop", "history")
}

// useColor decides colour: never with --no-color or NO_COLOR
// (https://no-color.org); otherwise when stdout is a terminal, or when
// CLICOLOR_FORCE is set (https://bixense.com/clicolors), which is how tests
// see colour without a terminal.
func useColor(noColor bool, stdout io.Writer) bool {
	if noColor || os.Getenv("NO_COLOR") != "" {
		return false
	}
	if v := os.Getenv("CLICOLOR_FORCE"); v != "" && v != "0" {
		return true
	}
	return isTerminal(stdout)
}

func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && readline.IsTerminal(int(f.Fd()))
}
