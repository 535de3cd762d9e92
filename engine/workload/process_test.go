package workload

import (
	"reflect"
	"testing"

	"github.com/kubeloop/kubeloop/engine/sim"
)

func TestProcessProbes(t *testing.T) {
	r := DefaultRegistry()
	agn, _ := r.Lookup("registry.k8s.io/e2e-test-images/agnhost:2.40")
	p, err := Start(ProcessSpec{Image: agn, Args: []string{"liveness"}, IP: "10.244.0.5"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	http := Check{Kind: "httpGet", Host: "10.244.0.5", Port: 8080, Path: "/healthz", Timeout: sim.Second}
	tests := []struct {
		at   sim.Tick
		c    Check
		ok   bool
		want string
	}{
		{0, http, false, `Get "http://10.244.0.5:8080/healthz": dial tcp 10.244.0.5:8080: connect: connection refused`},
		{5 * sim.Second, http, true, ""},
		{10 * sim.Second, http, false, "HTTP probe failed with statuscode: 500"},
		{5 * sim.Second, Check{Kind: "tcpSocket", Host: "10.244.0.5", Port: 8080}, true, ""},
		{5 * sim.Second, Check{Kind: "tcpSocket", Host: "10.244.0.5", Port: 9090}, false, "dial tcp 10.244.0.5:9090: connect: connection refused"},
	}
	for _, tt := range tests {
		got := p.Probe(tt.at, tt.c, false)
		if got.OK != tt.ok || got.Message != tt.want {
			t.Errorf("Probe(%s, %s %d%s) = %+v; want ok=%t %q", tt.at, tt.c.Kind, tt.c.Port, tt.c.Path, got, tt.ok, tt.want)
		}
	}
	if got := p.Probe(5*sim.Second, http, true); got.OK || got.Message != "HTTP probe failed with statuscode: 500" {
		t.Errorf("broken probe = %+v; want a 500", got)
	}

	nginx, _ := r.Lookup("nginx:1.27")
	n, _ := Start(ProcessSpec{Image: nginx, IP: "10.244.0.6"}, 0)
	if got := n.Probe(sim.Second, Check{Kind: "httpGet", Host: "10.244.0.6", Port: 80, Path: "/healthz"}, false); got.Message != "HTTP probe failed with statuscode: 404" {
		t.Errorf("nginx /healthz = %+v; want a 404", got)
	}
}

func TestProcessExits(t *testing.T) {
	r := DefaultRegistry()
	busybox, _ := r.Lookup("busybox:1.37")
	tests := []struct {
		name     string
		spec     ProcessSpec
		exitAt   sim.Tick
		code     int32
		reason   string
		startErr string
		never    bool
	}{
		{name: "default sh exits at once", spec: ProcessSpec{Image: busybox}, code: 0, reason: "Completed"},
		{name: "script", spec: ProcessSpec{Image: busybox, Command: []string{"sh", "-c", "sleep 5; exit 3"}}, exitAt: 5 * sim.Second, code: 3, reason: "Error"},
		{name: "unknown in script", spec: ProcessSpec{Image: busybox, Command: []string{"sh", "-c", "foo"}}, code: 127, reason: "Error"},
		{name: "sleep", spec: ProcessSpec{Image: busybox, Command: []string{"sleep", "3600"}}, exitAt: sim.Hour, code: 0, reason: "Completed"},
		{name: "not in image", spec: ProcessSpec{Image: busybox, Command: []string{"node", "app.js"}},
			startErr: `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: exec: "node": executable file not found in $PATH: unknown`},
		{name: "oom", spec: ProcessSpec{Image: &Image{Repository: "x", Behavior: Behavior{MemoryBytes: 100, MemoryGrowthBytesPerSecond: 10}}, MemoryLimitBytes: 200},
			exitAt: 10*sim.Second + 1, code: 137, reason: "OOMKilled"},
		{name: "server", spec: ProcessSpec{Image: &Image{Repository: "x"}}, never: true},
	}
	for _, tt := range tests {
		p, err := Start(tt.spec, 0)
		if tt.startErr != "" {
			if err == nil || err.Error() != tt.startErr {
				t.Errorf("%s: Start error = %v; want %s", tt.name, err, tt.startErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		for i := 0; i < 10; i++ {
			at, ok := p.Next()
			if !ok {
				break
			}
			p.Step(at)
		}
		e, ok := p.Exited()
		if tt.never {
			if ok {
				t.Errorf("%s: exited %+v; want it running", tt.name, e)
			}
			continue
		}
		if !ok || e.At != tt.exitAt || e.Code != tt.code || e.Reason != tt.reason {
			t.Errorf("%s: exit %+v, %t; want at %s code %d %s", tt.name, e, ok, tt.exitAt, tt.code, tt.reason)
		}
	}
}

// A cluster runs a Process for every container; it is 64 bytes, an
// allocator size class (the next is 80), with 2 bytes of padding left: a
// field more costs 16 bytes a container unless another one goes, or moves
// to processMore if only some processes need it.
func TestProcessIs64Bytes(t *testing.T) {
	if got := reflect.TypeFor[Process]().Size(); got != 64 {
		t.Errorf("a Process is %d bytes; want 64", got)
	}
}

// What only some processes need is 48 bytes, an allocator size class (the
// next is 64).
func TestProcessMoreIs48Bytes(t *testing.T) {
	if got := reflect.TypeFor[processMore]().Size(); got != 48 {
		t.Errorf("a processMore is %d bytes; want 48", got)
	}
}

// A process keeps an IPv4 pod IP as its four bytes, and any other as it
// was given; its logs show it as given.
func TestProcessIP(t *testing.T) {
	img, _ := DefaultRegistry().Lookup("registry.k8s.io/e2e-test-images/agnhost:2.40")
	for _, ip := range []string{"10.244.3.7", "0.0.0.0", "255.255.255.255", "", "fd00::1", "::ffff:10.0.0.1", "010.1.1.1"} {
		p, err := Start(ProcessSpec{Image: img, IP: ip}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.ip(); got != ip {
			t.Errorf("ip() = %q; want %q", got, ip)
		}
	}
}

// A process knows when it started: the kubelet keeps no copy of it.
func TestProcessStartedAt(t *testing.T) {
	img, _ := DefaultRegistry().Lookup("registry.k8s.io/e2e-test-images/agnhost:2.40")
	for _, at := range []sim.Tick{0, 7 * sim.Second} {
		p, err := Start(ProcessSpec{Image: img, Args: []string{"liveness"}}, at)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.StartedAt(); got != at {
			t.Errorf("StartedAt = %v; want %v", got, at)
		}
	}
}

// A Process started again in place is the new process alone: nothing of
// the one it was (its stop, its end, its shell) stays.
func TestProcessStartsAgainInPlace(t *testing.T) {
	r := DefaultRegistry()
	agn, _ := r.Lookup("registry.k8s.io/e2e-test-images/agnhost:2.40")
	busybox, _ := r.Lookup("busybox:1.37")
	var p Process
	if err := p.Start(ProcessSpec{Image: busybox, Command: []string{"sh", "-c", "exit 3"}}, 0); err != nil {
		t.Fatal(err)
	}
	p.Stop(sim.Second)
	if e, ok := p.Exited(); !ok || e.Code != 3 {
		t.Fatalf("script: exit %+v, %t; want code 3", e, ok)
	}
	if err := p.Start(ProcessSpec{Image: agn, Args: []string{"liveness"}, IP: "10.244.0.5"}, 5*sim.Second); err != nil {
		t.Fatal(err)
	}
	if _, ok := p.Exited(); ok || p.Shell() || p.stopped || p.StartedAt() != 5*sim.Second || p.ip() != "10.244.0.5" {
		t.Errorf("restarted in place: exited %t, shell %t, stopped %t, started %v, ip %q; want a fresh agnhost at 5s",
			ok, p.Shell(), p.stopped, p.StartedAt(), p.ip())
	}
	if err := p.Start(ProcessSpec{Image: busybox, Command: []string{"nope"}}, 6*sim.Second); err == nil {
		t.Errorf("started a command the image lacks")
	}
}
