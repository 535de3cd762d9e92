package shell

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kubeloop/kubeloop/engine/sim"
)

// MaxStepsPerInstant bounds the instructions a machine runs without time
// passing: a loop that never sleeps is suspended after that many.
const MaxStepsPerInstant = 10_000

// Line is one line a process printed, with when it printed it.
type Line struct {
	T    sim.Tick
	Text string
}

// Env is what a machine knows about its container.
type Env struct {
	Hostname string            // the pod's name
	Vars     map[string]string // the container's environment
	Clock    func() sim.Tick   // for date; nil prints the epoch
}

// Machine runs one shell script (or one command) on virtual time.
type Machine struct {
	prog    []instr
	pc      int
	status  int
	vars    map[string]string
	fs      *FS
	env     Env
	out     []Line
	partial string
	now     sim.Tick
	wake    sim.Tick
	exited  bool
	code    int
	spin    bool
	iters   map[int]*forIter
	saved   map[int]int
	maxOut  int
}

type forIter struct {
	items []string
	next  int
}

// Status says what a machine is doing after Run.
type Status struct {
	// Exited is set once the script ended, with its exit code.
	Exited bool
	Code   int
	// WakeAt is when a sleeping script continues (Exited false, Spinning false).
	WakeAt sim.Tick
	// Spinning means the script loops without ever sleeping: it runs
	// forever and is not stepped again.
	Spinning bool
}

// maxLines bounds a machine's kept output, as the kubelet rotates logs.
const maxLines = 10_000

// NewScript compiles a script (the argument of sh -c). A syntax error gives
// a machine that prints the shell's message and exits 2, as sh does.
func NewScript(src string, fs *FS, env Env) *Machine {
	m := &Machine{fs: fs, env: env, vars: map[string]string{}, iters: map[int]*forIter{}, saved: map[int]int{}, maxOut: maxLines}
	for k, v := range env.Vars {
		m.vars[k] = v
	}
	prog, err := compile(src)
	if err != nil {
		m.prog = []instr{{op: opCmd, argv: []word{lit("exit"), lit("2")}}}
		m.out = append(m.out, Line{Text: err.Error()})
		return m
	}
	m.prog = prog
	return m
}

func lit(s string) word { return word{parts: []part{{lit: s}}, quoted: true} }

// NewCommand runs argv as one command, as a container's command or an exec
// probe without a shell does: ["sleep", "3600"], ["cat", "/tmp/healthy"].
// argv of the form [sh -c SCRIPT ...] runs SCRIPT. It reports false if
// argv[0] is neither a shell nor a known applet: the runtime cannot start
// it ("executable file not found in $PATH").
func NewCommand(argv []string, fs *FS, env Env) (*Machine, bool) {
	if len(argv) == 0 {
		argv = []string{"sh"}
	}
	name := argv[0]
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	if name == "sh" || name == "ash" || name == "bash" {
		for i := 1; i < len(argv); i++ {
			if argv[i] == "-c" && i+1 < len(argv) {
				return NewScript(argv[i+1], fs, env), true
			}
			if !strings.HasPrefix(argv[i], "-") {
				// sh FILE: scripts from files are not in the image.
				m := NewScript("exit 2", fs, env)
				m.out = append(m.out, Line{Text: "sh: can't open '" + argv[i] + "': No such file or directory"})
				return m, true
			}
		}
		// An interactive shell with no terminal reads end of file at once.
		return NewScript("", fs, env), true
	}
	if !Known(name) {
		return nil, false
	}
	words := make([]word, len(argv))
	words[0] = lit(name)
	for i, a := range argv[1:] {
		words[i+1] = lit(a)
	}
	m := &Machine{fs: fs, env: env, vars: map[string]string{}, iters: map[int]*forIter{}, saved: map[int]int{}, maxOut: maxLines,
		prog: []instr{{op: opCmd, argv: words}}}
	for k, v := range env.Vars {
		m.vars[k] = v
	}
	return m, true
}

// Known reports whether name is an applet the simulated busybox has.
func Known(name string) bool {
	switch name {
	case "sleep", "touch", "rm", "mkdir", "echo", "printf", "cat", "test", "[", "exit", "true", "false", ":",
		"hostname", "date", "env", "ls":
		return true
	}
	return false
}

// Output returns everything printed so far (a line still being written is
// included once the script exits).
func (m *Machine) Output() []Line { return m.out }

// FS is the machine's filesystem.
func (m *Machine) FS() *FS { return m.fs }

// WakeAt is when a sleeping script continues, as Run last reported it
// (Status.WakeAt); false if the script has exited or spins.
func (m *Machine) WakeAt() (sim.Tick, bool) {
	if m.exited || m.spin {
		return 0, false
	}
	return m.wake, true
}

// Run executes the script at virtual time now until it sleeps past now,
// exits or spins.
func (m *Machine) Run(now sim.Tick) Status {
	if m.exited {
		return Status{Exited: true, Code: m.code}
	}
	if m.spin {
		return Status{Spinning: true}
	}
	if now < m.wake {
		return Status{WakeAt: m.wake}
	}
	m.now = now
	for steps := 0; ; steps++ {
		if steps >= MaxStepsPerInstant {
			m.spin = true
			return Status{Spinning: true}
		}
		if m.pc >= len(m.prog) {
			m.exit(m.status)
			return Status{Exited: true, Code: m.code}
		}
		in := &m.prog[m.pc]
		switch in.op {
		case opJmp:
			m.pc = in.arg
		case opJz:
			if m.status == 0 {
				m.pc = in.arg
			} else {
				m.pc++
			}
		case opJnz:
			if m.status != 0 {
				m.pc = in.arg
			} else {
				m.pc++
			}
		case opNot:
			if m.status == 0 {
				m.status = 1
			} else {
				m.status = 0
			}
			m.pc++
		case opForInit:
			var items []string
			for _, w := range in.argv {
				items = append(items, m.expand(w))
			}
			m.iters[in.arg] = &forIter{items: items}
			m.pc++
		case opForNext:
			it := m.iters[m.pc]
			if it == nil || it.next >= len(it.items) {
				m.pc = in.arg
				break
			}
			m.vars[in.name] = it.items[it.next]
			it.next++
			m.pc++
		case opClear:
			m.saved[in.arg] = 0
			m.pc++
		case opSave:
			m.saved[in.arg] = m.status
			m.pc++
		case opRestore:
			m.status = m.saved[in.arg]
			m.pc++
		case opCmd:
			m.pc++
			sleep := m.exec(in)
			if m.exited {
				return Status{Exited: true, Code: m.code}
			}
			if sleep > 0 {
				m.wake = now + sleep
				return Status{WakeAt: m.wake}
			}
		}
	}
}

func (m *Machine) exit(code int) {
	m.exited, m.code = true, code
	if m.partial != "" {
		m.emit(m.partial)
		m.partial = ""
	}
}

func (m *Machine) emit(line string) {
	if len(m.out) >= m.maxOut {
		copy(m.out, m.out[1:])
		m.out = m.out[:len(m.out)-1]
	}
	m.out = append(m.out, Line{T: m.now, Text: line})
}

// write sends text to the container's stdout (the log).
func (m *Machine) write(text string) {
	text = m.partial + text
	m.partial = ""
	for {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			m.partial = text
			return
		}
		m.emit(text[:i])
		text = text[i+1:]
	}
}

func (m *Machine) expand(w word) string {
	if len(w.parts) == 1 && !w.parts[0].isVar {
		return w.parts[0].lit
	}
	var b strings.Builder
	for _, p := range w.parts {
		if !p.isVar {
			b.WriteString(p.lit)
			continue
		}
		switch p.name {
		case "?":
			b.WriteString(strconv.Itoa(m.status))
		case "$":
			b.WriteString("1")
		case "#":
			b.WriteString("0")
		case "HOSTNAME":
			if v, ok := m.vars["HOSTNAME"]; ok {
				b.WriteString(v)
			} else {
				b.WriteString(m.env.Hostname)
			}
		default:
			b.WriteString(m.vars[p.name])
		}
	}
	return b.String()
}

// exec runs one simple command and returns how long it sleeps.
func (m *Machine) exec(in *instr) sim.Tick {
	argv := make([]string, 0, len(in.argv))
	for _, w := range in.argv {
		s := m.expand(w)
		if len(w.parts) == 1 && w.parts[0].isVar && !w.quoted && s == "" {
			continue // an unquoted empty expansion is no word at all
		}
		argv = append(argv, s)
	}
	if len(argv) == 0 {
		for _, a := range in.assigns {
			m.vars[a[0].parts[0].lit] = m.expand(a[1])
		}
		m.status = 0
		return 0
	}
	// Where stdout and stderr go: the log, a file, or nowhere.
	var stdout, stderr *sink
	log := &sink{}
	stdout, stderr = log, log
	for _, r := range in.redirs {
		if r.dup {
			stderr = stdout
			continue
		}
		target := m.expand(r.target)
		s := &sink{file: target, appendTo: r.appendTo}
		if target == "/dev/null" {
			s = &sink{null: true}
		} else if !m.fs.Write(target, "", true) {
			m.write(fmt.Sprintf("sh: can't create %s: nonexistent directory\n", target))
			m.status = 1
			return 0
		} else if !r.appendTo {
			m.fs.Write(target, "", false) // > truncates
		}
		if r.fd == 1 {
			stdout = s
		} else {
			stderr = s
		}
	}
	code, sleep := m.applet(argv, stdout, stderr)
	for _, s := range []*sink{stdout, stderr} {
		if s.file != "" && s.buf.Len() > 0 {
			m.fs.Write(s.file, s.buf.String(), true)
			s.buf.Reset()
		} else if s == log && s.buf.Len() > 0 {
			m.write(s.buf.String())
			s.buf.Reset()
		}
	}
	if !m.exited {
		m.status = code
	}
	return sleep
}

type sink struct {
	buf      strings.Builder
	file     string
	appendTo bool
	null     bool
}

func (s *sink) printf(format string, args ...any) {
	if !s.null {
		fmt.Fprintf(&s.buf, format, args...)
	}
}

// ParseSleep reads sleep's argument as busybox does: seconds with an
// optional fraction and suffix s, m, h or d, or "infinity".
func ParseSleep(arg string) (sim.Tick, bool) {
	if arg == "infinity" || arg == "inf" {
		return sim.Tick(1) << 60, true
	}
	mult := float64(sim.Second)
	switch {
	case strings.HasSuffix(arg, "s"):
		arg = arg[:len(arg)-1]
	case strings.HasSuffix(arg, "m"):
		arg, mult = arg[:len(arg)-1], float64(sim.Minute)
	case strings.HasSuffix(arg, "h"):
		arg, mult = arg[:len(arg)-1], float64(sim.Hour)
	case strings.HasSuffix(arg, "d"):
		arg, mult = arg[:len(arg)-1], float64(24*sim.Hour)
	}
	f, err := strconv.ParseFloat(arg, 64)
	if err != nil || f < 0 || strings.ContainsAny(arg, "eExXpP") {
		return 0, false
	}
	return sim.Tick(f * mult), true
}

func (m *Machine) applet(argv []string, stdout, stderr *sink) (code int, sleep sim.Tick) {
	name, args := argv[0], argv[1:]
	switch name {
	case ":", "true":
		return 0, 0
	case "false":
		return 1, 0
	case "exit":
		code := m.status
		if len(args) > 0 {
			n, err := strconv.Atoi(args[0])
			if err != nil {
				stderr.printf("sh: exit: Illegal number: %s\n", args[0])
				n = 2
			}
			code = n & 0xff
		}
		m.flushSinks(stdout, stderr)
		m.exit(code)
		return code, 0
	case "sleep":
		if len(args) == 0 {
			stderr.printf("sleep: missing operand\n")
			return 1, 0
		}
		var total sim.Tick
		for _, a := range args {
			d, ok := ParseSleep(a)
			if !ok {
				stderr.printf("sleep: invalid number '%s'\n", a)
				return 1, 0
			}
			total += d
		}
		if total == 0 {
			return 0, 0
		}
		return 0, total
	case "echo":
		nl := true
		if len(args) > 0 && args[0] == "-n" {
			nl, args = false, args[1:]
		}
		stdout.printf("%s", strings.Join(args, " "))
		if nl {
			stdout.printf("\n")
		}
		return 0, 0
	case "printf":
		if len(args) == 0 {
			stderr.printf("printf: usage: printf FORMAT [ARGUMENT]...\n")
			return 1, 0
		}
		f := strings.ReplaceAll(args[0], `\n`, "\n")
		f = strings.ReplaceAll(f, `\t`, "\t")
		for _, a := range args[1:] {
			f = strings.Replace(f, "%s", a, 1)
		}
		stdout.printf("%s", f)
		return 0, 0
	case "touch":
		code := 0
		for _, f := range args {
			if strings.HasPrefix(f, "-") {
				continue
			}
			if m.fs.IsDir(f) {
				continue
			}
			if !m.fs.Write(f, "", true) {
				stderr.printf("touch: %s: No such file or directory\n", f)
				code = 1
			}
		}
		return code, 0
	case "rm":
		force, recursive := false, false
		code := 0
		for _, f := range args {
			if strings.HasPrefix(f, "-") && len(f) > 1 {
				force = force || strings.Contains(f, "f")
				recursive = recursive || strings.ContainsAny(f, "rR")
				continue
			}
			switch {
			case m.fs.IsDir(f) && !recursive:
				stderr.printf("rm: '%s' is a directory\n", f)
				code = 1
			case m.fs.Remove(f):
			case !force:
				stderr.printf("rm: can't remove '%s': No such file or directory\n", f)
				code = 1
			}
		}
		return code, 0
	case "mkdir":
		parents := false
		code := 0
		for _, d := range args {
			if d == "-p" {
				parents = true
				continue
			}
			if !m.fs.Mkdir(d, parents) {
				if m.fs.Exists(d) {
					stderr.printf("mkdir: can't create directory '%s': File exists\n", d)
				} else {
					stderr.printf("mkdir: can't create directory '%s': No such file or directory\n", d)
				}
				code = 1
			}
		}
		return code, 0
	case "cat":
		code := 0
		for _, f := range args {
			s, ok := m.fs.Read(f)
			switch {
			case ok:
				stdout.printf("%s", s)
			case m.fs.IsDir(f):
				stderr.printf("cat: read error: Is a directory\n")
				code = 1
			default:
				stderr.printf("cat: can't open '%s': No such file or directory\n", f)
				code = 1
			}
		}
		return code, 0
	case "ls":
		for _, f := range m.fs.Files() {
			stdout.printf("%s\n", f)
		}
		return 0, 0
	case "hostname":
		stdout.printf("%s\n", m.env.Hostname)
		return 0, 0
	case "date":
		t := sim.Tick(0)
		if m.env.Clock != nil {
			t = m.env.Clock()
		} else {
			t = m.now
		}
		stdout.printf("%s\n", t.Time().Format("Mon Jan  2 15:04:05 UTC 2006"))
		return 0, 0
	case "env":
		keys := make([]string, 0, len(m.vars))
		for k := range m.vars {
			keys = append(keys, k)
		}
		sortStrings(keys)
		for _, k := range keys {
			stdout.printf("%s=%s\n", k, m.vars[k])
		}
		return 0, 0
	case "test", "[":
		if name == "[" {
			if len(args) == 0 || args[len(args)-1] != "]" {
				stderr.printf("sh: missing ]\n")
				return 2, 0
			}
			args = args[:len(args)-1]
		}
		ok, err := m.test(args)
		if err != "" {
			stderr.printf("sh: %s\n", err)
			return 2, 0
		}
		if ok {
			return 0, 0
		}
		return 1, 0
	}
	stderr.printf("sh: %s: not found\n", name)
	return 127, 0
}

func (m *Machine) flushSinks(stdout, stderr *sink) {
	for _, s := range []*sink{stdout, stderr} {
		if s.file != "" && s.buf.Len() > 0 {
			m.fs.Write(s.file, s.buf.String(), true)
		} else if s.file == "" && !s.null && s.buf.Len() > 0 {
			m.write(s.buf.String())
		}
		s.buf.Reset()
	}
}

// test is test(1) for the forms scripts use.
func (m *Machine) test(args []string) (bool, string) {
	if len(args) > 0 && args[0] == "!" {
		ok, err := m.test(args[1:])
		return !ok, err
	}
	switch len(args) {
	case 0:
		return false, ""
	case 1:
		return args[0] != "", ""
	case 2:
		switch args[0] {
		case "-f":
			return m.fs.IsFile(args[1]), ""
		case "-e":
			return m.fs.Exists(args[1]), ""
		case "-d":
			return m.fs.IsDir(args[1]), ""
		case "-s":
			s, ok := m.fs.Read(args[1])
			return ok && s != "", ""
		case "-z":
			return args[1] == "", ""
		case "-n":
			return args[1] != "", ""
		}
		return false, args[0] + ": unknown operand"
	case 3:
		a, op, b := args[0], args[1], args[2]
		switch op {
		case "=", "==":
			return a == b, ""
		case "!=":
			return a != b, ""
		case "-eq", "-ne", "-lt", "-le", "-gt", "-ge":
			x, err1 := strconv.Atoi(a)
			y, err2 := strconv.Atoi(b)
			if err1 != nil {
				return false, "invalid number '" + a + "'"
			}
			if err2 != nil {
				return false, "invalid number '" + b + "'"
			}
			switch op {
			case "-eq":
				return x == y, ""
			case "-ne":
				return x != y, ""
			case "-lt":
				return x < y, ""
			case "-le":
				return x <= y, ""
			case "-gt":
				return x > y, ""
			}
			return x >= y, ""
		}
		return false, op + ": unknown operand"
	}
	return false, "syntax error"
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// Result is how a command run to completion ended.
type Result struct {
	Code     int
	Output   string // stdout and stderr, as an exec probe captures them
	TimedOut bool   // it was still running at the timeout
	NotFound bool   // argv[0] is not in the image
}

// Exec runs argv to completion as an exec probe or `kubectl exec` does,
// sharing the container's filesystem: what it sleeps counts against
// timeout. Its effects happen at now (kubeloop does not let the probe's
// own time pass).
func Exec(argv []string, fs *FS, env Env, now, timeout sim.Tick) Result {
	m, ok := NewCommand(argv, fs, env)
	if !ok {
		return Result{Code: 127, NotFound: true}
	}
	t := now
	for {
		st := m.Run(t)
		if st.Exited {
			break
		}
		if st.Spinning || st.WakeAt-now > timeout {
			return Result{TimedOut: true, Output: joinLines(m.out)}
		}
		t = st.WakeAt
	}
	return Result{Code: m.code, Output: joinLines(m.out)}
}

func joinLines(ls []Line) string {
	var b strings.Builder
	for _, l := range ls {
		b.WriteString(l.Text)
		b.WriteByte('\n')
	}
	return b.String()
}
