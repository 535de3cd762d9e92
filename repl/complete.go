package repl

import (
	"os"
	"sort"
	"strings"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// Complete returns the completions of the last word of line (the text
// before the cursor) and that word: command names first, then, following
// the command's Usage placeholders and Flags, kinds, object names from the
// store, flag names, flag values, durations and lesson names.
func (s *Session) Complete(line string) (cands []string, word string) {
	trimmed := strings.TrimLeft(line, " \t")
	if strings.HasPrefix(trimmed, "! ") {
		trimmed = strings.TrimLeft(trimmed[2:], " \t")
	}
	words := strings.Fields(trimmed)
	if len(words) > 0 && !strings.HasSuffix(trimmed, " ") && !strings.HasSuffix(trimmed, "\t") {
		word = words[len(words)-1]
		words = words[:len(words)-1]
	}
	if len(words) > 0 && words[0] == "kubectl" {
		words = words[1:]
	}
	if len(words) == 0 {
		return filterPrefix(commandWords(), word), word
	}
	c, ok := lookup(words[0])
	if !ok {
		return nil, word
	}
	args := words[1:]
	if c.Complete != nil {
		return filterPrefix(c.Complete(s, args, word), word), word
	}
	return filterPrefix(s.completeArgs(c, args, word), word), word
}

func filterPrefix(cands []string, prefix string) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range cands {
		if strings.HasPrefix(c, prefix) && !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}

// completeArgs completes by the command's flags and Usage placeholders.
func (s *Session) completeArgs(c *Command, args []string, word string) []string {
	// Flag names.
	if strings.HasPrefix(word, "-") {
		var out []string
		for _, f := range c.Flags {
			out = append(out, "--"+f.Name)
			if f.Short != "" && !strings.HasPrefix(word, "--") {
				out = append(out, "-"+f.Short)
			}
		}
		return out
	}
	// Walk the words so far: which are flag values, which positionals.
	var pos []string
	ns := s.Namespace
	var pending *Flag
	for _, a := range args {
		if pending != nil {
			if pending.Name == FlagNamespace.Name {
				ns = a
			}
			pending = nil
			continue
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			f := flagNamed(c, a)
			if f != nil && !f.IsBool() && !strings.Contains(a, "=") && !(len(a) > 2 && a[1] != '-') {
				pending = f
			}
			if f != nil && f.Name == FlagNamespace.Name && strings.Contains(a, "=") {
				ns = a[strings.IndexByte(a, '=')+1:]
			}
			continue
		}
		pos = append(pos, a)
	}
	if pending != nil {
		switch {
		case len(pending.Values) > 0:
			return pending.Values
		case pending.Name == FlagNamespace.Name:
			return s.objectNames(kinds.Namespace, "")
		case pending.Value == "NODE":
			return s.objectNames(kinds.Node, "")
		case pending.Value == "FILE":
			return completeFiles(word)
		case pending.Value == "DURATION":
			return durations
		}
		return nil
	}
	slots := usageSlots(c)
	if len(slots) == 0 {
		return nil
	}
	i := len(pos)
	slot := ""
	if i < len(slots) {
		slot = slots[i]
	} else if strings.HasSuffix(slots[len(slots)-1], "...") {
		slot = slots[len(slots)-1]
	} else {
		return nil
	}
	slot = strings.TrimSuffix(slot, "...")
	if slot == "NAME_PREFIX" {
		slot = "NAME"
	}
	if (slot == "KIND" || slot == "TYPE") && strings.Contains(word, "/") {
		slot = "KIND/NAME" // "pod/" is the other way to name an object
	}
	prevKind := func() *kinds.Kind {
		if i == 0 {
			return nil
		}
		k, _ := kinds.Lookup(pos[i-1])
		if k == nil && i >= 2 && strings.TrimSuffix(slots[min(i, len(slots)-1)], "...") == "NAME" {
			// NAME... after several names: the kind is further back.
			for j := i - 1; j >= 0 && k == nil; j-- {
				k, _ = kinds.Lookup(pos[j])
			}
		}
		return k
	}
	switch slot {
	case "KIND", "TYPE", "RESOURCE":
		return kindNames(word)
	case "NAME":
		if k := prevKind(); k != nil {
			return s.objectNames(k, ns)
		}
		return nil
	case "KIND/NAME", "TYPE/NAME", "RESOURCE/NAME":
		if kind, _, ok := strings.Cut(word, "/"); ok {
			k, found := kinds.Lookup(kind)
			if !found {
				return nil
			}
			var out []string
			for _, n := range s.objectNames(k, ns) {
				out = append(out, kind+"/"+n)
			}
			return out
		}
		var out []string
		for _, n := range kindNames(word) {
			out = append(out, n+"/")
		}
		return out
	case "NODE":
		return s.objectNames(kinds.Node, "")
	case "COMMAND":
		return commandWords()
	case "DURATION":
		return durations
	case "FILE":
		return completeFiles(word)
	case "LESSON":
		return s.cfg.LessonNames
	}
	if slot == strings.ToLower(slot) {
		return strings.Split(slot, "|") // a literal word: "node add NAME"
	}
	return nil
}

// kindNames are the kind names completion offers for word: before a
// letter is typed, the plural and short names ("pods", "po"); once typing,
// every name kubectl accepts ("deployments.apps" too), except the "pods."
// forms of core kinds with an empty group.
func kindNames(word string) []string {
	var out []string
	if strings.TrimSuffix(word, "/") == "" {
		for _, k := range kinds.All {
			out = append(out, k.Resource)
			out = append(out, k.ShortNames...)
		}
		return out
	}
	for _, n := range kinds.Names() {
		if !strings.HasSuffix(n, ".") {
			out = append(out, n)
		}
	}
	return out
}

var durations = []string{"10s", "30s", "1m", "2m", "5m", "10m", "1h"}

func flagNamed(c *Command, word string) *Flag {
	name := strings.TrimLeft(word, "-")
	name, _, _ = strings.Cut(name, "=")
	long := strings.HasPrefix(word, "--")
	for i := range c.Flags {
		f := &c.Flags[i]
		if (long && f.Name == name) || (!long && f.Short != "" && strings.HasPrefix(name, f.Short)) {
			return f
		}
	}
	return nil
}

// usageSlots lists the positional placeholders of a command's Usage, after
// its name: "get KIND [NAME] [-o FORMAT]" gives KIND, NAME.
func usageSlots(c *Command) []string {
	fields := strings.Fields(c.Usage)
	if len(fields) > 0 {
		fields = fields[1:]
	}
	var out []string
	skipValue := false
	for _, f := range fields {
		if skipValue {
			skipValue = false // the flag's value
			continue
		}
		t := f
		if i := strings.Index(t, "[,"); i > 0 {
			t = t[:i] // KIND[,KIND...]: one KIND, commas allowed
		}
		t = strings.Trim(t, "[]()")
		if t == "" || t == "|" {
			continue
		}
		if strings.HasPrefix(t, "-") {
			// A flag; its value placeholder, if any, follows as its own word.
			if !strings.Contains(t, "=") && !strings.HasSuffix(f, "]") {
				skipValue = true
			}
			continue
		}
		out = append(out, t)
		if strings.HasSuffix(t, "...") {
			// A repeated slot ends the first form; what follows a "|" are
			// other forms, which the "/" rule in completeArgs covers.
			break
		}
	}
	return out
}

// objectNames lists the names of kind's objects in ns (all namespaces for
// cluster-scoped kinds).
func (s *Session) objectNames(k *kinds.Kind, ns string) []string {
	if !k.Namespaced {
		ns = ""
	}
	objs := s.Eng.Store.List(k, ns)
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.GetName())
	}
	return out
}

// completeFiles lists the files and directories matching a partial path.
func completeFiles(word string) []string {
	dir, base := ".", word
	if i := strings.LastIndexByte(word, '/'); i >= 0 {
		dir, base = word[:i+1], word[i+1:]
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), base) || strings.HasPrefix(e.Name(), ".") && !strings.HasPrefix(base, ".") {
			continue
		}
		name := e.Name()
		if e.IsDir() {
			name += "/"
		}
		if dir != "." {
			name = dir + name
		}
		out = append(out, name)
	}
	return out
}
