package repl

import (
	"io"
	"sort"

	"github.com/kubeloop/kubeloop/engine"
)

// Command is one command of kubeloop's language: the same table serves the
// REPL, scripts and lessons, and generates `help` (cmd/go's base.Command
// shape).
type Command struct {
	// Name is the command word ("get", "advance", "rollout").
	Name string
	// Aliases are other words that run it ("vars" for "var", as ivy has).
	Aliases []string
	// Usage is the one-line syntax: "get KIND [NAME] [-o wide|yaml|json|name] [-l SELECTOR]".
	Usage string
	// Short is a one-line description for `help`.
	Short string
	// Long explains the command for `help NAME`.
	Long string
	// Example is at least one line a learner can paste.
	Example string
	// Run executes the command. args are the words after the name, already
	// split as a shell would; input is the here-document body, if any.
	Run func(s *Session, args []string, input string) error
}

// Session is the state one REPL, script run or lesson works on.
type Session struct {
	Eng   *engine.Engine
	Out   io.Writer
	Err   io.Writer
	Color bool
}

var commands = map[string]*Command{}

// register adds c to the command table; each command's file registers its
// own commands in an init function. Duplicate names panic.
func register(c *Command) {
	for _, n := range append([]string{c.Name}, c.Aliases...) {
		if _, dup := commands[n]; dup {
			panic("repl: duplicate command " + n)
		}
		commands[n] = c
	}
}

// lookup finds a command by name or alias.
func lookup(name string) (*Command, bool) {
	c, ok := commands[name]
	return c, ok
}

// Commands lists every command once, sorted by name, for help and completion.
func Commands() []*Command {
	seen := map[*Command]bool{}
	var out []*Command
	for _, c := range commands {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
