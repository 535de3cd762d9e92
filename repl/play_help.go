package repl

import (
	"fmt"
	"runtime"
	"strings"
	"text/tabwriter"
)

// Version is kubeloop's version; a release build may set it with
// -ldflags "-X github.com/kubeloop/kubeloop/repl.Version=v1.2.3".
var Version = "v0.1.0-dev"

// KubernetesVersion is the Kubernetes release whose behaviour kubeloop
// models (k8s-facts.md covers 1.30 to 1.34).
const KubernetesVersion = "1.34"

func init() {
	register(&Command{
		Name:    "help",
		Aliases: []string{"?"},
		Usage:   "help [COMMAND]",
		Short:   "list the commands, or explain one",
		Example: "help\nhelp advance",
		Group:   GroupSession,
		Run:     runHelp,
	})
	register(&Command{
		Name:    "version",
		Usage:   "version",
		Short:   "print kubeloop's version",
		Example: "version",
		Group:   GroupSession,
		Run: func(s *Session, args []string, _ string) error {
			if len(args) > 0 {
				return usagef("version takes no arguments")
			}
			fmt.Fprintln(s.Out, VersionString())
			return nil
		},
	})
	register(&Command{
		Name:    "quit",
		Aliases: []string{"exit"},
		Usage:   "quit",
		Short:   "leave kubeloop (Ctrl-D does too)",
		Example: "quit",
		Group:   GroupSession,
		Run: func(s *Session, args []string, _ string) error {
			s.quit = true
			return nil
		},
	})
}

// VersionString is what `kubeloop version` prints.
func VersionString() string {
	return fmt.Sprintf("kubeloop %s (models Kubernetes %s; %s)", Version, KubernetesVersion, runtime.Version())
}

var groupTitles = []struct{ group, title string }{
	{GroupKubectl, "kubectl commands (kubectl's syntax; a leading \"kubectl \" is ignored)"},
	{GroupPlayground, "Playground"},
	{GroupSession, "Session"},
}

func runHelp(s *Session, args []string, _ string) error {
	switch len(args) {
	case 0:
		writeHelp(s)
		return nil
	case 1:
		c, ok := lookup(args[0])
		if !ok {
			return unknownCommand(args[0])
		}
		writeCommandHelp(s, c)
		return nil
	}
	return usagef("help takes at most one COMMAND")
}

func writeHelp(s *Session) {
	fmt.Fprintln(s.Out, "kubeloop drives a simulated Kubernetes cluster with kubectl-shaped commands.")
	for _, g := range groupTitles {
		var cs []*Command
		for _, c := range Commands() {
			if c.group() == g.group {
				cs = append(cs, c)
			}
		}
		if len(cs) == 0 {
			continue
		}
		fmt.Fprintf(s.Out, "\n%s:\n", s.pal.bold(g.title))
		tw := tabwriter.NewWriter(s.Out, 0, 4, 2, ' ', 0)
		for _, c := range cs {
			fmt.Fprintf(tw, "  %s\t%s\n", c.Name, c.Short)
		}
		tw.Flush()
	}
	fmt.Fprint(s.Out, `
One command per line; # starts a comment. apply -f - <<EOF ... EOF reads a
manifest written inline. A line starting with "! " must fail (as in Go's
testscript). Type "help COMMAND" for a command's usage, flags and examples.
`)
}

func writeCommandHelp(s *Session, c *Command) {
	fmt.Fprintf(s.Out, "usage: %s\n", c.Usage)
	body := c.Long
	if body == "" {
		body = c.Short
	}
	if body != "" {
		fmt.Fprintf(s.Out, "\n%s\n", strings.TrimRight(body, "\n"))
	}
	if len(c.Flags) > 0 {
		fmt.Fprintln(s.Out, "\nFlags:")
		tw := tabwriter.NewWriter(s.Out, 0, 4, 3, ' ', 0)
		for _, f := range c.Flags {
			name := "    --" + f.Name
			if f.Short != "" {
				name = "-" + f.Short + ", --" + f.Name
			}
			if !f.IsBool() {
				name += " " + f.Value
			}
			usage := f.Usage
			if len(f.Values) > 0 && f.Value != "DURATION" && !strings.Contains(usage, f.Values[0]) {
				usage += " (" + strings.Join(f.Values, ", ") + ")"
			}
			if f.Default != "" {
				usage += " (default " + f.Default + ")"
			}
			fmt.Fprintf(tw, "  %s\t%s\n", name, usage)
		}
		tw.Flush()
	}
	if len(c.Aliases) > 0 {
		fmt.Fprintf(s.Out, "\nAliases: %s\n", strings.Join(c.Aliases, ", "))
	}
	if c.Example != "" {
		fmt.Fprintln(s.Out, "\nExample:")
		for _, l := range strings.Split(strings.TrimRight(c.Example, "\n"), "\n") {
			fmt.Fprintln(s.Out, "  "+l)
		}
	}
}
