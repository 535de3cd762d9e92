package workload

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/workload/shell"
)

// Exit reasons, as containerd reports them (k8s-facts §1.2).
const (
	ReasonCompleted  = "Completed"
	ReasonError      = "Error"
	ReasonOOMKilled  = "OOMKilled"
	ReasonStartError = "StartError"
)

// ProcessSpec is what the runtime starts: an image, the pod's command and
// args for it, and the container's environment and memory limit.
type ProcessSpec struct {
	Image            *Image
	Command, Args    []string
	Env              map[string]string
	MemoryLimitBytes int64 // 0: no limit
	Hostname, IP     string
}

// StartError is a process the runtime could not start (exit code 128,
// reason StartError), in containerd's and runc's words.
type StartError struct{ Executable string }

func (e *StartError) Error() string {
	return fmt.Sprintf("failed to create containerd task: failed to create shim task: OCI runtime create failed: "+
		"runc create failed: unable to start container process: error during container init: exec: %q: "+
		"executable file not found in $PATH: unknown", e.Executable)
}

// Exit is how a process ended.
type Exit struct {
	Code   int32
	Reason string // Completed, Error or OOMKilled
	At     sim.Tick
}

// Process is one run of a container's main process. It is a step machine
// on virtual time: Next says when something happens next (a shell script
// wakes, the process exits, the kernel kills it for memory), Step moves it
// there.
//
// A cluster runs one per container, so it keeps only what it needs after
// the start: the hostname and IP (for logs), not the whole ProcessSpec,
// and the IP as its four bytes. Its end is a time, a code and a flag, not
// an Exit (the code and the flag say the reason) beside a time for the
// OOM killer. What only some need (an environment, a shell script, a
// filesystem, a stop) is in its processMore: 64 bytes, an allocator size
// class, rather than 80.
type Process struct {
	hostname string
	start    sim.Tick
	// mode is what the image's own program does (or the selected
	// sub-command). It is shared with the image and read-only: a process
	// that needs another one gets its own copy.
	mode *Mode
	more *processMore // nil until needed (Process.life)

	// How the process ends (Exited). An image's own program knows from
	// the start whether and when it will end, by itself or by the OOM
	// killer, whichever comes first (planned); a script ends when it
	// exits, and any process when it is killed.
	exitAt   sim.Tick
	exitCode int32

	ip4 [4]byte // the pod IP, if it is an IPv4 address (hasIP4); else processMore.ip

	oom     bool // the end is the OOM killer's: reason OOMKilled
	exited  bool
	own     bool // running the image's own program (not a shell script)
	silent  bool // the command was overridden by one we cannot know: prints nothing
	hasIP4  bool
	stopped bool // the stop signal was sent (processMore.stopAt)
}

// processMore is what only some processes need. A server started without
// an environment that nobody execs into never makes one.
type processMore struct {
	env map[string]string // for exec probes and shell scripts
	// sh runs a shell command; it knows when the script next wakes
	// (WakeAt), so a process that runs the image's own program keeps no
	// field for that.
	sh *shell.Machine
	// fs is the container's filesystem, made when something first needs it
	// (a shell command, an exec probe): a server nobody execs into never
	// pays for one, and a filesystem made later is the same fresh one.
	fs *shell.FS
	// ip is a pod IP that is not an IPv4 address (Process.ip4): kept as
	// given.
	ip     string
	stopAt sim.Tick // when the stop signal was sent (Process.stopped), for the logs
}

// life is the process's processMore, made if it has none yet: for writes.
func (p *Process) life() *processMore {
	if p.more == nil {
		p.more = &processMore{}
	}
	return p.more
}

// noMore is what a process without a processMore reads. Never written.
var noMore processMore

// peek is the process's processMore, or the zero one: for reads only.
func (p *Process) peek() *processMore {
	if p.more == nil {
		return &noMore
	}
	return p.more
}

// Start starts a process at now; it fails with a *StartError if the
// command is not in the image.
func Start(spec ProcessSpec, now sim.Tick) (*Process, error) {
	p := &Process{}
	if err := p.Start(spec, now); err != nil {
		return nil, err
	}
	return p, nil
}

// Start starts a process at now in p's place, as the function Start
// does, and forgets the one p was: a caller that keeps a Process with each
// container (the kubelet) makes none per start. After an error, p is no
// process.
func (p *Process) Start(spec ProcessSpec, now sim.Tick) error {
	img := spec.Image
	*p = Process{hostname: spec.Hostname, start: now, mode: img.ownMode()}
	if a, err := netip.ParseAddr(spec.IP); err == nil && a.Is4() {
		p.ip4, p.hasIP4 = a.As4(), true // String gives spec.IP back: ParseAddr takes only the canonical form
	} else if spec.IP != "" {
		p.life().ip = spec.IP
	}
	if spec.Env != nil {
		p.life().env = spec.Env
	}
	switch {
	case len(spec.Command) == 0 && len(spec.Args) == 0:
		p.own = true
	case len(spec.Command) == 0 && img.Modes != nil && hasMode(img, spec.Args[0]):
		m := img.Modes[spec.Args[0]]
		p.mode = &m
		p.own = true
	default:
		argv := append(append([]string(nil), spec.Command...), spec.Args...)
		name := argv[0]
		if i := strings.LastIndexByte(name, '/'); i >= 0 {
			name = name[i+1:]
		}
		isShell := name == "sh" || name == "ash" || name == "bash" || shell.Known(name)
		switch {
		case isShell && img.Behavior.NoShell:
			return &StartError{Executable: argv[0]}
		case isShell:
			env := shell.Env{Hostname: spec.Hostname, Vars: spec.Env}
			m, _ := shell.NewCommand(argv, p.FS(), env)
			p.life().sh = m
		case img.Behavior.ShellImage:
			return &StartError{Executable: argv[0]}
		default:
			// Another program of the image (nginx -g 'daemon off;', python
			// app.py): it behaves as the image's server, and kubeloop
			// cannot know what it prints.
			p.own, p.silent = true, true
			m := *p.mode
			m.Behavior.Exits = false
			p.mode = &m
		}
	}
	b := &p.mode.Behavior
	if p.own && b.Exits {
		p.exitAt, p.exitCode = now+b.ExitAfter, b.ExitCode
	}
	if lim := spec.MemoryLimitBytes; lim > 0 && p.own {
		oomAt := sim.Tick(-1)
		switch {
		case b.MemoryBytes > lim:
			oomAt = now + p.mode.StartupTime
		case b.MemoryGrowthBytesPerSecond > 0:
			oomAt = now + sim.Tick((lim-b.MemoryBytes)*int64(sim.Second)/b.MemoryGrowthBytesPerSecond) + 1
		}
		if oomAt >= 0 && (!b.Exits || oomAt <= p.exitAt) {
			p.exitAt, p.exitCode, p.oom = oomAt, 137, true // the OOM killer comes first
		}
	}
	p.run(now)
	return nil
}

func hasMode(img *Image, arg string) bool {
	_, ok := img.Modes[arg]
	return ok
}

func reasonFor(code int32) string {
	if code == 0 {
		return ReasonCompleted
	}
	return ReasonError
}

// planned reports whether the process is an image's own program that
// ends by itself or by the OOM killer, at exitAt.
func (p *Process) planned() bool { return p.own && (p.mode.Behavior.Exits || p.oom) }

// run steps the script (if any) at now and notes when it ends.
func (p *Process) run(now sim.Tick) {
	if sh := p.peek().sh; sh != nil && !p.exited {
		if st := sh.Run(now); st.Exited {
			p.exited, p.exitAt, p.exitCode = true, now, int32(st.Code)
		}
	}
	if !p.exited && p.planned() && p.exitAt <= now {
		p.exited = true
	}
}

// Next is when the process next does something by itself (a script wakes,
// it exits, it runs out of memory, its health endpoint changes its answer).
func (p *Process) Next() (sim.Tick, bool) {
	if p.exited {
		return 0, false
	}
	at := sim.Tick(-1)
	consider := func(t sim.Tick) {
		if t >= 0 && (at < 0 || t < at) {
			at = t
		}
	}
	if sh := p.peek().sh; sh != nil {
		if t, sleeping := sh.WakeAt(); sleeping {
			consider(t)
		}
	}
	if p.planned() {
		consider(p.exitAt)
	}
	return at, at >= 0
}

// NextHealthChange is the first instant after now at which the answers of
// its HTTP and TCP endpoints change by themselves: when it starts serving,
// or when it turns unhealthy. It reports false if none is to come.
func (p *Process) NextHealthChange(now sim.Tick) (sim.Tick, bool) {
	if !p.own {
		return 0, false
	}
	at, ok := sim.Tick(0), false
	consider := func(t sim.Tick) {
		if t > now && (!ok || t < at) {
			at, ok = t, true
		}
	}
	consider(p.start + p.mode.StartupTime)
	if h := p.mode.Behavior.HealthyFor; h > 0 {
		consider(p.start + h)
	}
	return at, ok
}

// Step moves the process to now and reports whether it has exited.
func (p *Process) Step(now sim.Tick) bool {
	p.run(now)
	return p.exited
}

// StartedAt is when the process started.
func (p *Process) StartedAt() sim.Tick { return p.start }

// Exited reports how the process ended, once it has.
func (p *Process) Exited() (Exit, bool) {
	if !p.exited {
		return Exit{}, false
	}
	reason := reasonFor(p.exitCode)
	if p.oom {
		reason = ReasonOOMKilled
	}
	return Exit{Code: p.exitCode, Reason: reason, At: p.exitAt}, true
}

// Kill ends the process now with code: SIGKILL gives 137, reason Error.
func (p *Process) Kill(now sim.Tick, code int32) {
	if p.exited {
		return
	}
	p.exited, p.exitAt, p.exitCode, p.oom = true, now, code, false
}

// StopBehavior is how the process reacts to its stop signal: the signal's
// name, whether it ignores it, how long a clean shutdown takes and its
// exit code.
func (p *Process) StopBehavior() Behavior {
	b := p.mode.Behavior
	if p.Shell() {
		// sh as PID 1 has no handler for SIGTERM, and the kernel does not
		// apply the default action to a namespace's init.
		b.IgnoresSIGTERM = true
	}
	return b
}

// Stop records that the stop signal was sent at now (for the logs).
func (p *Process) Stop(now sim.Tick) {
	if !p.stopped {
		p.life().stopAt, p.stopped = now, true
	}
}

// ip is the pod IP the process was started with.
func (p *Process) ip() string {
	if p.hasIP4 {
		return netip.AddrFrom4(p.ip4).String()
	}
	return p.peek().ip
}

// Shell reports whether the process is a simulated shell script.
func (p *Process) Shell() bool { return p.peek().sh != nil }

// FS is the container's filesystem: a fresh one, with /etc/hostname, the
// first time it is asked for.
func (p *Process) FS() *shell.FS {
	m := p.life()
	if m.fs == nil {
		m.fs = shell.NewFS()
		m.fs.Write("/etc/hostname", p.hostname+"\n", false)
	}
	return m.fs
}

// Ports are the ports the process listens on.
func (p *Process) Ports() []int32 {
	if p.Shell() {
		return nil
	}
	return p.mode.Ports
}

// LogLine is one line a process printed, at its time, rendered.
type PrintedLine struct {
	T    sim.Tick
	Text string
}

// Logs is what the process printed up to now.
func (p *Process) Logs(now sim.Tick) []PrintedLine {
	var out []PrintedLine
	end := now
	if p.exited {
		end = min(end, p.exitAt)
	}
	if sh := p.peek().sh; sh != nil {
		for _, l := range sh.Output() {
			if l.T <= end {
				out = append(out, PrintedLine{T: l.T, Text: l.Text})
			}
		}
		return out
	}
	if p.silent {
		return nil
	}
	ip := p.ip()
	emit := func(from, until sim.Tick, lines []LogLine) {
		for _, l := range lines {
			t := from + l.After
			if t > until {
				break
			}
			out = append(out, PrintedLine{T: t, Text: Render(l.Text, t, ip, p.hostname)})
		}
	}
	m := p.peek()
	runEnd := end
	if p.stopped {
		runEnd = min(runEnd, m.stopAt)
	}
	emit(p.start, runEnd, p.mode.Logs)
	if b := p.mode.Behavior; b.Exits {
		emit(p.start, runEnd, b.ExitLogs)
	}
	if p.stopped {
		emit(m.stopAt, end, p.mode.Behavior.StopLogs)
	}
	return out
}

// Check is one probe's handler, resolved by the kubelet: the port is a
// number by now.
type Check struct {
	// Kind is "httpGet", "tcpSocket", "exec" or "grpc".
	Kind    string
	Scheme  string // HTTP or HTTPS
	Host    string // the pod IP unless the probe names a host
	Port    int32
	Path    string
	Command []string
	Timeout sim.Tick
}

// ProbeResult is a probe's outcome and, on failure, the kubelet's message.
type ProbeResult struct {
	OK      bool
	Message string
}

// Probe runs a check against the process at now, with the kubelet
// prober's messages (k/k pkg/probe/http, tcp, exec). broken makes the
// endpoint fail as a learner's `break` asked.
func (p *Process) Probe(now sim.Tick, c Check, broken bool) ProbeResult {
	// The address appears only in failure messages: a probe that succeeds
	// builds none.
	addr := func() string { return c.Host + ":" + strconv.Itoa(int(c.Port)) }
	refused := func() ProbeResult {
		dial := "dial tcp " + addr() + ": connect: connection refused"
		if c.Kind == "httpGet" {
			return ProbeResult{Message: fmt.Sprintf("Get %q: %s", url(c), dial)}
		}
		return ProbeResult{Message: dial}
	}
	listening := false
	if !p.exited && p.own && now >= p.start+p.mode.StartupTime {
		for _, port := range p.mode.Ports {
			listening = listening || port == c.Port
		}
	}
	switch c.Kind {
	case "tcpSocket":
		if !listening || broken {
			return refused()
		}
		return ProbeResult{OK: true}
	case "grpc":
		if !listening {
			return ProbeResult{Message: fmt.Sprintf("timeout: failed to connect service %q within %s", addr(), c.Timeout.Duration())}
		}
		if broken {
			return ProbeResult{Message: "service unhealthy (responded with \"NOT_SERVING\")"}
		}
		return ProbeResult{OK: true}
	case "httpGet":
		if !listening {
			return refused()
		}
		status := 200
		b := &p.mode.Behavior
		switch {
		case broken:
			status = 500
		case b.HealthyFor > 0 && now >= p.start+b.HealthyFor:
			status = b.UnhealthyStatus
		case len(b.HTTPPaths) > 0 && !contains(b.HTTPPaths, pathOnly(c.Path)):
			status = 404
		}
		if status >= 200 && status < 400 {
			return ProbeResult{OK: true}
		}
		return ProbeResult{Message: fmt.Sprintf("HTTP probe failed with statuscode: %d", status)}
	case "exec":
		if p.exited {
			return ProbeResult{Message: "container not running"}
		}
		if broken {
			return ProbeResult{}
		}
		if p.mode.Behavior.NoShell {
			return ProbeResult{Message: (&StartError{Executable: c.Command[0]}).execMessage()}
		}
		r := shell.Exec(c.Command, p.FS(), shell.Env{Hostname: p.hostname, Vars: p.peek().env}, now, c.Timeout)
		switch {
		case r.NotFound:
			return ProbeResult{Message: (&StartError{Executable: c.Command[0]}).execMessage()}
		case r.TimedOut:
			return ProbeResult{Message: fmt.Sprintf("command %q timed out", strings.Join(c.Command, " "))}
		case r.Code == 0:
			return ProbeResult{OK: true}
		}
		return ProbeResult{Message: strings.TrimRight(r.Output, "\n")}
	}
	return ProbeResult{Message: "unknown probe handler " + c.Kind}
}

func (e *StartError) execMessage() string {
	return fmt.Sprintf("OCI runtime exec failed: exec failed: unable to start container process: exec: %q: "+
		"executable file not found in $PATH: unknown", e.Executable)
}

func url(c Check) string {
	scheme := strings.ToLower(c.Scheme)
	if scheme == "" {
		scheme = "http"
	}
	path := c.Path
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	return scheme + "://" + c.Host + ":" + strconv.Itoa(int(c.Port)) + path
}

func pathOnly(p string) string {
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	if p == "" {
		return "/"
	}
	return p
}
