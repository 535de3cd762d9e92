package lessons

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeloop/kubeloop/engine/trace"
	"github.com/kubeloop/kubeloop/repl"
)

// Error is a problem with a lesson file, located by line and step.
type Error struct {
	File string
	Line int    // 0 when the problem has no one line
	Step int    // 1-based; 0 when it is not in a step
	Msg  string // what is wrong
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Step > 0 {
		fmt.Fprintf(&b, "step %d: ", e.Step)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is every problem found in a lesson, in line order.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// lineIndex remembers where parts of a lesson are in its file.
type lineIndex struct {
	keys      map[string]int // top-level and setup keys: "title", "setup.manifests"
	steps     []int          // the line each step starts on
	stepKeys  []map[string]int
	solution  []int
	manifests []int
	files     []int
}

func (ix *lineIndex) stepLine(i int, key string) int {
	if i < len(ix.stepKeys) {
		if l, ok := ix.stepKeys[i][key]; ok {
			return l
		}
	}
	if i < len(ix.steps) {
		return ix.steps[i]
	}
	return 0
}

// stepAt is the 1-based step a line falls in, 0 if none.
func (ix *lineIndex) stepAt(line int) int {
	step := 0
	for i, l := range ix.steps {
		if line >= l {
			step = i + 1
		}
	}
	if step > 0 && ix.keys["steps.end"] > 0 && line > ix.keys["steps.end"] {
		return 0
	}
	return step
}

// index walks the YAML tree for the lines of the parts errors point at.
func index(root *yaml.Node) lineIndex {
	ix := lineIndex{keys: map[string]int{}}
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return ix
	}
	top := root.Content[0]
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		ix.keys[k.Value] = k.Line
		switch k.Value {
		case "steps":
			for _, st := range v.Content {
				ix.steps = append(ix.steps, st.Line)
				keys := map[string]int{}
				for j := 0; j+1 < len(st.Content); j += 2 {
					keys[st.Content[j].Value] = st.Content[j+1].Line
				}
				ix.stepKeys = append(ix.stepKeys, keys)
			}
			ix.keys["steps.end"] = lastLine(v)
		case "solution":
			for _, c := range v.Content {
				ix.solution = append(ix.solution, c.Line)
			}
		case "setup":
			for j := 0; j+1 < len(v.Content); j += 2 {
				sk, sv := v.Content[j], v.Content[j+1]
				ix.keys["setup."+sk.Value] = sk.Line
				for _, c := range sv.Content {
					switch sk.Value {
					case "manifests":
						ix.manifests = append(ix.manifests, c.Line)
					case "files":
						ix.files = append(ix.files, c.Line)
					}
				}
			}
		}
	}
	return ix
}

func lastLine(n *yaml.Node) int {
	l := n.Line
	for _, c := range n.Content {
		if cl := lastLine(c); cl > l {
			l = cl
		}
	}
	if n.Kind == yaml.ScalarNode {
		l += strings.Count(strings.TrimRight(n.Value, "\n"), "\n")
	}
	return l
}

var yamlLine = regexp.MustCompile(`line (\d+): (.*)`)

// Load reads and validates the lesson at file in fsys: it is decoded
// strictly (an unknown key is an error), its expressions are compiled, and
// the files it names must exist beside it. Every problem is reported, as
// Errors, with the file, line and step.
func Load(fsys fs.FS, file string) (*Lesson, error) {
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		return nil, Errors{{File: file, Msg: err.Error()}}
	}
	return parse(fsys, file, data)
}

func parse(fsys fs.FS, file string, data []byte) (*Lesson, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, yamlErrors(file, nil, err)
	}
	ix := index(&root)
	l := &Lesson{File: file, lines: ix}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(l); err != nil && !errors.Is(err, io.EOF) {
		return nil, yamlErrors(file, &ix, err)
	}
	l.File, l.lines = file, ix
	l.golden = strings.TrimSuffix(file, path.Ext(file)) + ".golden"
	if errs := l.validate(fsys); len(errs) > 0 {
		return nil, errs
	}
	return l, nil
}

// yamlErrors turns yaml.v3's "line N: ..." messages into located Errors.
func yamlErrors(file string, ix *lineIndex, err error) Errors {
	var out Errors
	var te *yaml.TypeError
	msgs := []string{err.Error()}
	if errors.As(err, &te) {
		msgs = te.Errors
	}
	for _, m := range msgs {
		m = strings.TrimPrefix(m, "yaml: ")
		e := &Error{File: file, Msg: m}
		if sub := yamlLine.FindStringSubmatch(m); sub != nil {
			e.Line, _ = strconv.Atoi(sub[1])
			e.Msg = sub[2]
			if ix != nil {
				e.Step = ix.stepAt(e.Line)
			}
		}
		// "field chek not found in type lessons.Step" is yaml.v3 talking
		// about Go types; say it in the file's words.
		if f, ok := strings.CutPrefix(e.Msg, "field "); ok {
			if name, typ, ok := strings.Cut(f, " not found in type "); ok {
				e.Msg = fmt.Sprintf("unknown key %q in %s (known: %s)", name, typeWord(typ), knownKeys(typ))
			}
		}
		out = append(out, e)
	}
	return out
}

func typeWord(typ string) string {
	switch typ {
	case "lessons.Lesson":
		return "the lesson"
	case "lessons.Step":
		return "a step"
	case "lessons.Setup":
		return "setup"
	case "lessons.Image":
		return "an image"
	case "lessons.TraceQuery":
		return "a trace query"
	}
	return typ
}

func knownKeys(typ string) string {
	var v any
	switch typ {
	case "lessons.Lesson":
		v = Lesson{}
	case "lessons.Step":
		v = Step{}
	case "lessons.Setup":
		v = Setup{}
	case "lessons.Image":
		v = Image{}
	case "lessons.TraceQuery":
		v = TraceQuery{}
	default:
		return "?"
	}
	return strings.Join(yamlKeys(v), ", ")
}

var idPattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

func (l *Lesson) validate(fsys fs.FS) Errors {
	var errs Errors
	top := func(key, format string, args ...any) {
		errs = append(errs, &Error{File: l.File, Line: l.lines.keys[key], Msg: fmt.Sprintf(format, args...)})
	}
	step := func(i int, key, format string, args ...any) {
		errs = append(errs, &Error{File: l.File, Line: l.lines.stepLine(i, key), Step: i + 1, Msg: fmt.Sprintf(format, args...)})
	}
	switch {
	case l.ID == "":
		top("id", "missing id (the name learners type in `lesson start ID`)")
	case !idPattern.MatchString(l.ID):
		top("id", "id %q: use lower-case words joined by '-'", l.ID)
	}
	if l.Title == "" {
		top("title", "missing title")
	}
	if len(l.Steps) == 0 {
		top("steps", "a lesson needs at least one step")
	}
	if len(l.Solution) == 0 {
		top("solution", "missing solution (the commands check and record run)")
	}
	if l.Setup.Nodes < 0 {
		top("setup.nodes", "setup.nodes must be 0 (the built-in cluster) or more")
	}
	dir := path.Dir(l.File)
	read := func(names []string, lines []int, what string) []shipped {
		var out []shipped
		for i, n := range names {
			line := 0
			if i < len(lines) {
				line = lines[i]
			}
			data, err := fs.ReadFile(fsys, path.Join(dir, n))
			if err != nil {
				errs = append(errs, &Error{File: l.File, Line: line, Msg: fmt.Sprintf("%s %s: no such file beside the lesson (%s)", what, n, path.Join(dir, n))})
				continue
			}
			out = append(out, shipped{name: n, data: data})
		}
		return out
	}
	l.manifests = read(l.Setup.Manifests, l.lines.manifests, "manifest")
	l.files = read(l.Setup.Files, l.lines.files, "file")
	for _, img := range l.Setup.Images {
		if err := img.validate(); err != nil {
			top("setup.images", "image %q: %v", img.Name, err)
		}
	}
	for i, st := range l.Steps {
		if st.Title == "" {
			step(i, "", "missing title")
		}
		if strings.TrimSpace(st.Text) == "" {
			step(i, "", "missing text (the narrative shown when the step begins)")
		}
		n := 0
		if st.Check != "" {
			n++
			if err := repl.CompileCheck(st.Check); err != nil {
				step(i, "check", "check %s: %v", st.Check, err)
			}
		}
		if st.Trace != nil {
			n++
			q := st.Trace
			if *q == (TraceQuery{}) {
				step(i, "trace", "an empty trace query matches anything: give a component, column, object or message")
			}
			if q.Column != "" {
				if _, ok := trace.ParseColumn(q.Column); !ok {
					step(i, "trace", "trace column %q: want Declare, Schedule, Run or Maintain", q.Column)
				}
			}
		}
		if len(st.Ran) > 0 {
			n++
			for _, r := range st.Ran {
				switch {
				case strings.TrimSpace(r) == "":
					step(i, "ran", "an empty ran entry matches every command")
				case len(commandWords(r)) == 0:
					step(i, "ran", "ran entry %q names no command, so nothing matches it", r)
				}
			}
		}
		if n != 1 {
			step(i, "", "a step needs exactly one of check, trace and ran (it has %d)", n)
		}
		if strings.TrimSpace(st.Explain) == "" {
			step(i, "", "missing explain (what just happened, shown when the check passes)")
		}
	}
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Line < errs[j].Line })
	return errs
}

func (img Image) validate() error {
	if img.Name == "" || !strings.Contains(path.Base(img.Name), ":") {
		return fmt.Errorf("name wants repository:tag")
	}
	if img.Size != "" {
		if _, err := resource.ParseQuantity(img.Size); err != nil {
			return fmt.Errorf("size %q: %v", img.Size, err)
		}
	}
	for _, d := range []struct{ k, v string }{{"startup", img.Startup}, {"exitAfter", img.ExitAfter}} {
		if d.v != "" {
			if _, err := repl.ParseDuration(d.v); err != nil {
				return fmt.Errorf("%s %q: %v", d.k, d.v, err)
			}
		}
	}
	return nil
}
