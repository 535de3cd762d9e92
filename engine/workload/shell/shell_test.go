package shell

import (
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/engine/sim"
)

// runAll runs a script until it exits or spins (or 100 wake-ups), and
// returns its output lines as "T text", its exit code and its wake times.
func runAll(src string, fs *FS) (out []string, code int, wakes []sim.Tick, spun bool) {
	m := NewScript(src, fs, Env{Hostname: "web-1"})
	t := sim.Tick(0)
	for i := 0; i < 100; i++ {
		st := m.Run(t)
		if st.Exited {
			code = st.Code
			break
		}
		if st.Spinning {
			spun = true
			break
		}
		wakes = append(wakes, st.WakeAt)
		t = st.WakeAt
	}
	for _, l := range m.Output() {
		out = append(out, l.T.String()+" "+l.Text)
	}
	return out, code, wakes, spun
}

func TestScripts(t *testing.T) {
	tests := []struct {
		src   string
		out   string // lines joined by |
		code  int
		wakes string // wake times joined by ,
		spun  bool
	}{
		{src: "echo hello", out: "0.000s hello"},
		{src: "echo -n a; echo b", out: "0.000s ab"},
		{src: "echo 'a  b' \"c $HOSTNAME\"", out: "0.000s a  b c web-1"},
		{src: "exit 3", code: 3},
		{src: "false", code: 1},
		{src: "true && echo yes || echo no", out: "0.000s yes"},
		{src: "false && echo yes || echo no", out: "0.000s no"},
		{src: "false && echo yes", code: 1},
		{src: "! false", code: 0},
		{src: "foo bar", out: "0.000s sh: foo: not found", code: 127},
		{src: "sleep 5; echo done", out: "5.000s done", wakes: "5.000s"},
		{src: "sleep 0.5; sleep 1m", wakes: "0.500s,1m00.500s"},
		{src: "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600", wakes: "30.000s,10m30.000s"},
		{src: "echo hi > /tmp/x; cat /tmp/x; echo more >> /tmp/x; cat /tmp/x", out: "0.000s hi|0.000s hi|0.000s more"},
		{src: "cat /tmp/nope", out: "0.000s cat: can't open '/tmp/nope': No such file or directory", code: 1},
		{src: "cat /tmp/nope 2>/dev/null", code: 1},
		{src: "rm /tmp/nope", out: "0.000s rm: can't remove '/tmp/nope': No such file or directory", code: 1},
		{src: "echo x > /nope/f", out: "0.000s sh: can't create /nope/f: nonexistent directory", code: 1},
		{src: "[ -f /tmp/a ] || echo missing; touch /tmp/a; test -f /tmp/a && echo present", out: "0.000s missing|0.000s present"},
		{src: "if [ -f /tmp/a ]; then echo a; elif true; then echo b; else echo c; fi", out: "0.000s b"},
		{src: "if false; then echo a; else echo c; fi; exit 4", out: "0.000s c", code: 4},
		{src: "i=0; while [ $i != 3 ]; do echo $i; i=$i$i; [ $i = 00 ] && i=3; done", out: "0.000s 0"},
		{src: "for i in 1 2 3; do echo $i; sleep 1; done", out: "0.000s 1|1.000s 2|2.000s 3", wakes: "1.000s,2.000s,3.000s"},
		{src: "while true; do echo tick; sleep 10; done", wakes: "10.000s,20.000s", out: "0.000s tick|10.000s tick|20.000s tick"},
		{src: "until [ -f /tmp/x ]; do touch /tmp/x; done; echo ok", out: "0.000s ok"},
		{src: "while true; do :; done", spun: true},
		{src: "echo $?; false; echo $?", out: "0.000s 0|0.000s 1"},
		{src: "echo a &&\n echo b", out: "0.000s a|0.000s b"},
		{src: "sleep", out: "0.000s sleep: missing operand", code: 1},
		{src: "sleep abc", out: "0.000s sleep: invalid number 'abc'", code: 1},
		{src: "mkdir -p /data/x && touch /data/x/f && ls", out: "0.000s /data/x/f|0.000s /etc/hostname"},
		// Syntax errors exit 2 with the shell's message.
		{src: "while true; do echo x", out: "0.000s sh: syntax error: unexpected end of file", code: 2},
		{src: "echo 'open", out: "0.000s sh: syntax error: unterminated quoted string", code: 2},
		{src: "done", out: `0.000s sh: syntax error: unexpected "done"`, code: 2},
		{src: "echo a | grep a", out: "0.000s sh: pipes (|) are not simulated by kubeloop's shell", code: 2},
		{src: "", code: 0},
	}
	for _, tt := range tests {
		fs := NewFS()
		out, code, wakes, spun := runAll(tt.src, fs)
		var ws []string
		for _, w := range wakes {
			ws = append(ws, w.String())
		}
		gotWakes := strings.Join(ws, ",")
		if tt.src == "while true; do echo tick; sleep 10; done" {
			// Endless: compare the first three beats.
			out, gotWakes = out[:3], strings.Join(ws[:2], ",")
		}
		if got := strings.Join(out, "|"); got != tt.out {
			t.Errorf("script %q output = %q; want %q", tt.src, got, tt.out)
		}
		if code != tt.code {
			t.Errorf("script %q exit code = %d; want %d", tt.src, code, tt.code)
		}
		if gotWakes != tt.wakes {
			t.Errorf("script %q wakes = %q; want %q", tt.src, gotWakes, tt.wakes)
		}
		if spun != tt.spun {
			t.Errorf("script %q spinning = %t; want %t", tt.src, spun, tt.spun)
		}
	}
}

func TestExecProbeOnSharedFS(t *testing.T) {
	fs := NewFS()
	m := NewScript("touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600", fs, Env{})
	probe := func(now sim.Tick) Result {
		return Exec([]string{"cat", "/tmp/healthy"}, fs, Env{}, now, sim.Second)
	}
	m.Run(0)
	if r := probe(10 * sim.Second); r.Code != 0 {
		t.Fatalf("probe at 10s = %+v; want success", r)
	}
	m.Run(30 * sim.Second)
	r := probe(35 * sim.Second)
	if r.Code != 1 || r.Output != "cat: can't open '/tmp/healthy': No such file or directory\n" {
		t.Fatalf("probe at 35s = %+v; want cat's failure", r)
	}
	if r := Exec([]string{"sleep", "5"}, fs, Env{}, 0, sim.Second); !r.TimedOut {
		t.Errorf("sleep 5 with a 1s timeout = %+v; want a timeout", r)
	}
	if r := Exec([]string{"curl", "localhost"}, fs, Env{}, 0, sim.Second); !r.NotFound {
		t.Errorf("curl = %+v; want not found", r)
	}
	if r := Exec([]string{"sh", "-c", "test -f /tmp/healthy || exit 7"}, fs, Env{}, 0, sim.Second); r.Code != 7 {
		t.Errorf("sh -c probe = %+v; want exit 7", r)
	}
}

func TestParseSleep(t *testing.T) {
	tests := []struct {
		in   string
		want sim.Tick
		ok   bool
	}{
		{"30", 30 * sim.Second, true}, {"0.5", 500, true}, {"2m", 2 * sim.Minute, true}, {"1h", sim.Hour, true},
		{"1d", 24 * sim.Hour, true}, {"3s", 3 * sim.Second, true}, {"-1", 0, false}, {"x", 0, false}, {"1e3", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseSleep(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseSleep(%q) = %d, %t; want %d, %t", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
