package repl

import (
	"sort"
	"strings"
)

// Command is one command of kubeloop's language: the same table serves the
// REPL, scripts and lessons, and generates `help`, `help NAME` and tab
// completion (cmd/go's base.Command shape).
//
// A command's file registers it in an init function:
//
//	func init() {
//		register(&Command{
//			Name:    "scale",
//			Usage:   "scale KIND/NAME --replicas=COUNT",
//			Short:   "set the number of replicas of a deployment or replicaset",
//			Example: "scale deployment/api --replicas=5",
//			Flags:   []Flag{{Name: "replicas", Value: "COUNT", Usage: "the new number of replicas"}},
//			Run: func(s *Session, args []string, input string) error {
//				f, err := s.Parse(args) // the flags of the running command
//				...
//			},
//		})
//	}
//
// Usage placeholders drive completion: KIND completes kind names, NAME the
// names of objects of the kind before it, KIND/NAME or TYPE/NAME "pod/web-1",
// NODE node names, COMMAND command names, DURATION a few durations, FILE
// files. Use them in Usage so that completion works without extra code.
type Command struct {
	// Name is the command word ("get", "advance", "rollout").
	Name string
	// Aliases are other words that run it ("vars" for "var", as ivy has).
	Aliases []string
	// Usage is the one-line syntax: "get KIND [NAME] [-o wide|yaml|json|name] [-l SELECTOR]".
	// It starts with the command's name and is printed as "usage: ..." after
	// a syntax error.
	Usage string
	// Short is a one-line description for `help`.
	Short string
	// Long explains the command for `help NAME`.
	Long string
	// Example is at least one line a learner can paste.
	Example string
	// Group is the heading `help` lists the command under; empty means
	// "kubectl" (the commands kubectl has).
	Group string
	// Flags are the flags the command accepts; Session.Parse parses them
	// and `help NAME` lists them.
	Flags []Flag
	// Raw commands get the rest of the line after their name as one
	// argument, unsplit and with quotes kept: assert, eval and until take an
	// expression, not shell words.
	Raw bool
	// Complete, if set, completes the word being typed (args are the words
	// before it); otherwise completion follows Usage's placeholders.
	Complete func(s *Session, args []string, word string) []string
	// Run executes the command. args are the words after the name, already
	// split as a shell would (for Raw commands, one string); input is the
	// here-document body, if any.
	Run func(s *Session, args []string, input string) error
}

// Groups `help` lists commands under, in this order.
const (
	GroupKubectl    = "kubectl"
	GroupPlayground = "playground"
	GroupSession    = "session"
)

var commands = map[string]*Command{}

// register adds c to the command table; each command's file registers its
// own commands in an init function. Duplicate names panic.
func register(c *Command) {
	if c.Name == "" || c.Run == nil || c.Usage == "" {
		panic("repl: command needs Name, Usage and Run: " + c.Name)
	}
	for _, n := range append([]string{c.Name}, c.Aliases...) {
		if _, dup := commands[n]; dup {
			panic("repl: duplicate command " + n)
		}
		commands[n] = c
	}
}

// Register adds a command from another package (lessons add `lesson`).
func Register(c *Command) { register(c) }

// lookup finds a command by name or alias.
func lookup(name string) (*Command, bool) {
	c, ok := commands[name]
	return c, ok
}

// FlagTakesValue reports whether the flag named by word ("-n", "--output")
// takes a value in the next word, for the command named name: lessons
// read a learner's command line past its flags.
func FlagTakesValue(name, word string) bool {
	c, ok := lookup(name)
	if !ok {
		return false
	}
	word = strings.TrimLeft(word, "-")
	for _, f := range c.Flags {
		if f.Value != "" && (word == f.Name || word == f.Short && f.Short != "") {
			return true
		}
	}
	return false
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

// commandWords lists every name and alias, sorted, for completion and
// suggestions.
func commandWords() []string {
	out := make([]string, 0, len(commands))
	for n := range commands {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func (c *Command) group() string {
	if c.Group == "" {
		return GroupKubectl
	}
	return c.Group
}
