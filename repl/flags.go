package repl

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Flag describes one flag of a command, as kubectl (spf13/pflag) spells
// flags: a long name used as --name, an optional one-letter shorthand used
// as -n, and a value unless it is a boolean.
//
// Every form kubectl accepts is accepted: `-o wide`, `-owide`, `-o=wide`,
// `--output wide`, `--output=wide`, booleans as `-A`, `--all-namespaces`,
// `--all-namespaces=false`, grouped shorthands (`-Aq`), flags before, between
// or after positional arguments, `--` to end flags, and repeated flags
// (`--label a=b --label c=d`; Flags.Strings returns all of them, the other
// getters the last).
type Flag struct {
	// Name is the long name without dashes: "output".
	Name string
	// Short is the one-letter shorthand without the dash: "o"; "" for none.
	Short string
	// Value is the placeholder `help` shows for the value ("FORMAT"); empty
	// means the flag is a boolean and takes no value.
	Value string
	// Default is the value when the flag is absent ("" if none).
	Default string
	// Usage is a short description for `help NAME`.
	Usage string
	// Values are the values completion offers ("wide", "yaml", ...).
	Values []string
}

// IsBool reports whether the flag takes no value.
func (f *Flag) IsBool() bool { return f.Value == "" }

// Flags shared by many kubectl-shaped commands; declare them in a
// Command's Flags so that every command spells them the same way.
var (
	FlagNamespace     = Flag{Name: "namespace", Short: "n", Value: "NAMESPACE", Usage: "the namespace to act in (default: the session's, normally \"default\")"}
	FlagAllNamespaces = Flag{Name: "all-namespaces", Short: "A", Usage: "act across all namespaces"}
	FlagSelector      = Flag{Name: "selector", Short: "l", Value: "SELECTOR", Usage: "label selector, e.g. app=api or 'tier in (web,api)'"}
	FlagOutput        = Flag{Name: "output", Short: "o", Value: "FORMAT", Usage: "output format", Values: []string{"wide", "yaml", "json", "name"}}
	FlagFilename      = Flag{Name: "filename", Short: "f", Value: "FILE", Usage: "manifest file, directory, or - for the here-document"}
	FlagQuiet         = Flag{Name: "quiet", Short: "q", Usage: "print nothing on success"}
)

// Flags holds the result of parsing a command's arguments: its positional
// arguments and the flags given.
type Flags struct {
	// Args are the positional arguments, in order.
	Args []string
	defs []Flag
	set  map[string][]string // long name -> every value given, in order
}

// ParseFlags parses args against defs, kubectl-style (see Flag). Errors use
// pflag's wording and are usage errors: the dispatcher prints the command's
// usage line after them.
func ParseFlags(defs []Flag, args []string) (*Flags, error) {
	f := &Flags{defs: defs, set: map[string][]string{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			f.Args = append(f.Args, args[i+1:]...)
			return f, nil
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			d := f.def(name, "")
			if d == nil {
				return nil, usageErr(fmt.Errorf("unknown flag: --%s", name))
			}
			switch {
			case d.IsBool() && !hasVal:
				val = "true"
			case d.IsBool():
				if _, err := strconv.ParseBool(val); err != nil {
					return nil, usageErr(fmt.Errorf("invalid argument %q for %q flag: %v", val, "--"+name, errBool))
				}
			case !hasVal:
				if i+1 >= len(args) {
					return nil, usageErr(fmt.Errorf("flag needs an argument: --%s", name))
				}
				i++
				val = args[i]
			}
			f.set[d.Name] = append(f.set[d.Name], val)
		case strings.HasPrefix(a, "-") && len(a) > 1:
			// A group of shorthands: booleans, then at most one that takes
			// the rest of the word (or the next word) as its value.
			shorts := a[1:]
			for j := 0; j < len(shorts); j++ {
				c := shorts[j : j+1]
				d := f.def("", c)
				if d == nil {
					return nil, usageErr(fmt.Errorf("unknown shorthand flag: %q in %s", c, a))
				}
				if d.IsBool() {
					val := "true"
					if strings.HasPrefix(shorts[j+1:], "=") {
						val = shorts[j+2:]
						if _, err := strconv.ParseBool(val); err != nil {
							return nil, usageErr(fmt.Errorf("invalid argument %q for %q flag: %v", val, "-"+c+", --"+d.Name, errBool))
						}
						j = len(shorts)
					}
					f.set[d.Name] = append(f.set[d.Name], val)
					continue
				}
				val := strings.TrimPrefix(shorts[j+1:], "=")
				if j+1 == len(shorts) {
					if i+1 >= len(args) {
						return nil, usageErr(fmt.Errorf("flag needs an argument: %q in -%s", c, shorts))
					}
					i++
					val = args[i]
				}
				f.set[d.Name] = append(f.set[d.Name], val)
				break
			}
		default:
			f.Args = append(f.Args, a)
		}
	}
	return f, nil
}

var errBool = errors.New("strconv.ParseBool: parsing: invalid syntax")

// FirstArg is the first of args that is neither a flag nor a flag's value,
// by defs, or "" if there is none. A command with subcommands looks its
// subcommand up first, as kubectl (cobra) does, so that `set resources ...
// --limits=...` names the subcommand kubeloop lacks, not a flag: a flag
// defs do not know is taken to have no value.
func FirstArg(defs []Flag, args []string) string {
	f := &Flags{defs: defs}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 < len(args) {
				return args[i+1]
			}
			return ""
		case strings.HasPrefix(a, "--"):
			name, _, hasVal := strings.Cut(a[2:], "=")
			if d := f.def(name, ""); d != nil && !d.IsBool() && !hasVal {
				i++ // its value
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			// Shorthands: the first that takes a value takes the rest of
			// the word, or the next word.
			for j := 1; j < len(a); j++ {
				if d := f.def("", a[j:j+1]); d != nil && !d.IsBool() {
					if j+1 == len(a) {
						i++
					}
					break
				}
			}
		default:
			return a
		}
	}
	return ""
}

func (f *Flags) def(long, short string) *Flag {
	for i := range f.defs {
		d := &f.defs[i]
		if (long != "" && d.Name == long) || (short != "" && d.Short == short) {
			return d
		}
	}
	return nil
}

func (f *Flags) mustDef(name string) *Flag {
	d := f.def(name, "")
	if d == nil {
		panic("repl: flag --" + name + " is not declared by the command")
	}
	return d
}

// Changed reports whether the flag was given.
func (f *Flags) Changed(name string) bool {
	f.mustDef(name)
	return len(f.set[name]) > 0
}

// String is the flag's last value, or its default.
func (f *Flags) String(name string) string {
	d := f.mustDef(name)
	if v := f.set[name]; len(v) > 0 {
		return v[len(v)-1]
	}
	return d.Default
}

// Strings is every value the flag was given, in order (for repeated flags
// such as --label); nil when absent.
func (f *Flags) Strings(name string) []string {
	f.mustDef(name)
	return f.set[name]
}

// Bool is a boolean flag's value.
func (f *Flags) Bool(name string) bool {
	v := f.String(name)
	b, _ := strconv.ParseBool(v) // validated while parsing; "" is false
	return b
}

// Int is the flag's value as an integer.
func (f *Flags) Int(name string) (int, error) {
	v := f.String(name)
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, usageErr(fmt.Errorf("invalid argument %q for %q flag: %v", v, "--"+name, numError(err)))
	}
	return n, nil
}

// Duration is the flag's value as a duration (Go syntax, as kubectl's
// --timeout: 30s, 5m, 1h30m).
func (f *Flags) Duration(name string) (time.Duration, error) {
	v := f.String(name)
	d, err := ParseDuration(v)
	if err != nil {
		return 0, usageErr(fmt.Errorf("invalid argument %q for %q flag: %v", v, "--"+name, err))
	}
	return d, nil
}

func numError(err error) error {
	var ne *strconv.NumError
	if errors.As(err, &ne) {
		return fmt.Errorf("strconv.ParseInt: parsing %q: %v", ne.Num, ne.Err)
	}
	return err
}

// ParseDuration reads a duration as kubectl does (Go's syntax: 30s, 5m,
// 1h30m, 500ms); a bare number is rejected with a hint, as a learner
// typing `advance 30` most likely meant seconds.
func ParseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		if _, nerr := strconv.ParseFloat(s, 64); nerr == nil {
			return 0, fmt.Errorf("time: missing unit in duration %q (did you mean %ss?)", s, s)
		}
		return 0, err
	}
	if d < 0 {
		return 0, fmt.Errorf("duration %q is negative", s)
	}
	return d, nil
}

// usageError marks a syntax error: after its message the dispatcher prints
// the command's usage line.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usageErr(err error) error {
	var u *usageError
	if errors.As(err, &u) {
		return err
	}
	return &usageError{err}
}

// usagef returns a usage error: the message, then "usage: ..." for the
// running command. Use it for wrong numbers of arguments and the like.
func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}
