package workload

import (
	"github.com/kubeloop/kubeloop/engine/sim"
)

// SandboxImage is the pause image every pod sandbox runs (containerd 1.7's
// default sandbox_image for Kubernetes 1.30+); nodes start with it.
const SandboxImage = "registry.k8s.io/pause:3.10"

// DefaultRegistry returns a fresh registry holding the built-in catalogue of
// common public images. Sizes are the linux/amd64 compressed sizes the
// registries report (what `Image size: N bytes` shows), rounded where the
// exact figure varies between patch releases. Each engine gets its own copy,
// so that images a lesson adds do not leak into the next session.
func DefaultRegistry() *Registry {
	r := NewRegistry()
	for _, img := range catalogue() {
		r.MustAdd(img)
	}
	return r
}

const ms = sim.Millisecond

// Go servers without a SIGTERM handler: the runtime re-raises the signal,
// which PID 1 ignores, and exits with status 2.
var goNoHandler = Behavior{StopTime: 10 * ms, StopExitCode: 2}

// baseImage is a language runtime or base image: its default command (a
// shell or a REPL) reads end of file at once without a terminal and exits
// 0, so a pod running it with restartPolicy Always crash-loops.
func baseImage(shellIsProgram bool) Behavior {
	return Behavior{IgnoresSIGTERM: true, Exits: true, ShellImage: shellIsProgram}
}

// scratch is a static binary in an image without a shell.
var scratch = Behavior{StopTime: 10 * ms, StopExitCode: 2, NoShell: true}

func catalogue() []Image {
	var out []Image

	// nginx: the official image's STOPSIGNAL is SIGQUIT (graceful shutdown).
	for _, v := range []struct {
		tags    []string
		version string
		size    int64
	}{
		{[]string{"1.25", "1.25.5"}, "1.25.5", 70_994_816},
		{[]string{"1.26", "1.26.3"}, "1.26.3", 72_099_501},
		{[]string{"1.27", "1.27.5"}, "1.27.5", 68_857_691},
		{[]string{"1.28", "1.28.0", "stable"}, "1.28.0", 72_404_038},
		{[]string{"1.29", "1.29.1", "mainline", "latest"}, "1.29.1", 72_319_518},
	} {
		out = append(out, Image{Repository: "nginx", Tags: v.tags, SizeBytes: v.size, StartupTime: 80 * ms,
			Ports: []int32{80}, Logs: nginxLogs(v.version), Behavior: nginxStop(), Description: "nginx web server"})
	}
	for _, v := range []struct {
		tags    []string
		version string
		size    int64
	}{
		{[]string{"1.27-alpine", "1.27.5-alpine"}, "1.27.5", 20_528_404},
		{[]string{"alpine", "1.29-alpine", "mainline-alpine"}, "1.29.1", 22_046_212},
	} {
		out = append(out, Image{Repository: "nginx", Tags: v.tags, SizeBytes: v.size, StartupTime: 60 * ms,
			Ports: []int32{80}, Logs: nginxLogs(v.version), Behavior: nginxStop(), Description: "nginx web server (Alpine)"})
	}

	// httpd: STOPSIGNAL SIGWINCH (graceful stop).
	out = append(out, Image{Repository: "httpd", Tags: []string{"2.4", "2.4.65", "2", "latest"}, SizeBytes: 44_630_118,
		StartupTime: 150 * ms, Ports: []int32{80}, Logs: apacheLogs("Apache/2.4.65 (Unix)", "'httpd -D FOREGROUND'"),
		Behavior: Behavior{StopSignal: "SIGWINCH", StopTime: 120 * ms, HTTPPaths: []string{"/", "/index.html"}, StopLogs: []LogLine{
			{0, "[{time:Mon Jan 02 15:04:05.000000 2006}] [mpm_event:notice] [pid 1:tid 1] AH00492: caught SIGWINCH, shutting down gracefully"}}},
		Description: "Apache HTTP server"})

	// redis.
	for _, v := range []struct {
		tags    []string
		version string
		size    int64
	}{
		{[]string{"7.4", "7.4.5", "7"}, "7.4.5", 45_072_316},
		{[]string{"7-alpine", "7.4-alpine", "7.4.5-alpine"}, "7.4.5", 17_352_790},
		{[]string{"8.2", "8.2.1", "8", "latest"}, "8.2.1", 52_031_557},
	} {
		out = append(out, Image{Repository: "redis", Tags: v.tags, SizeBytes: v.size, StartupTime: 40 * ms,
			Ports: []int32{6379}, Logs: redisLogs(v.version), Behavior: redisStop(), Description: "Redis key-value store"})
	}

	// memcached prints nothing unless asked to be verbose.
	out = append(out, Image{Repository: "memcached", Tags: []string{"1.6", "1.6.39", "latest"}, SizeBytes: 32_712_448,
		StartupTime: 30 * ms, Ports: []int32{11211}, Behavior: Behavior{StopTime: 20 * ms},
		Description: "memcached cache"})

	// postgres: STOPSIGNAL SIGINT (fast shutdown). Without POSTGRES_PASSWORD
	// the real entrypoint exits with an error; the Maintain issue models
	// such exits.
	for _, v := range []struct {
		tags    []string
		version string
		size    int64
	}{
		{[]string{"16", "16.10"}, "16.10", 157_330_961},
		{[]string{"16-alpine", "16.10-alpine"}, "16.10", 105_187_430},
		{[]string{"17", "17.6", "latest"}, "17.6", 161_430_709},
	} {
		out = append(out, Image{Repository: "postgres", Tags: v.tags, SizeBytes: v.size, StartupTime: 2500 * ms,
			Ports: []int32{5432}, Logs: postgresLogs(v.version), Behavior: postgresStop(), Description: "PostgreSQL database"})
	}

	// mysql initialises its data directory on first start, which is slow.
	for _, v := range []struct {
		tags    []string
		version string
		size    int64
	}{
		{[]string{"8.0", "8.0.43"}, "8.0.43", 170_152_784},
		{[]string{"8.4", "8.4.6", "lts"}, "8.4.6", 233_612_104},
		{[]string{"9.4", "9.4.0", "9", "latest"}, "9.4.0", 253_878_521},
	} {
		out = append(out, Image{Repository: "mysql", Tags: v.tags, SizeBytes: v.size, StartupTime: 12 * sim.Second,
			Ports: []int32{3306}, Logs: mysqlLogs(v.version), Behavior: Behavior{StopTime: 1500 * ms, StopLogs: []LogLine{
				{0, "{time:2006-01-02T15:04:05.000000Z} 0 [System] [MY-013172] [Server] Received SHUTDOWN from user <via user signal>. Shutting down mysqld (Version: " + v.version + ")."},
				{1400 * ms, "{time:2006-01-02T15:04:05.000000Z} 0 [System] [MY-010910] [Server] /usr/sbin/mysqld: Shutdown complete (mysqld " + v.version + ")  MySQL Community Server - GPL."}}},
			Description: "MySQL database"})
	}

	// Language runtimes and base images: their default command is an
	// interactive shell or REPL, which exits at once without a terminal (the
	// Maintain issue models that); pods usually give them a command. As PID
	// 1 without a SIGTERM handler they are killed at the end of the grace
	// period.
	for _, v := range []struct {
		repo  string
		tags  []string
		size  int64
		desc  string
		shell bool // the image's program is the shell itself
	}{
		{"python", []string{"3.12", "3.12.11"}, 385_104_377, "Python", false},
		{"python", []string{"3.12-slim", "3.12.11-slim"}, 41_822_656, "Python (slim)", false},
		{"python", []string{"3.13", "3.13.7", "3", "latest"}, 392_440_210, "Python", false},
		{"python", []string{"3.13-slim", "3.13.7-slim", "slim"}, 43_104_093, "Python (slim)", false},
		{"node", []string{"20", "20.19", "20.19.5"}, 392_551_731, "Node.js", false},
		{"node", []string{"22", "22.19", "22.19.0", "lts", "latest"}, 397_390_114, "Node.js", false},
		{"node", []string{"22-alpine", "22.19-alpine", "lts-alpine"}, 56_107_336, "Node.js (Alpine)", false},
		{"busybox", []string{"1.36", "1.36.1"}, 2_155_202, "BusyBox shell and tools", true},
		{"busybox", []string{"1.37", "1.37.0", "latest"}, 2_222_260, "BusyBox shell and tools", true},
		{"alpine", []string{"3.20", "3.20.6"}, 3_625_408, "Alpine Linux", true},
		{"alpine", []string{"3.21", "3.21.3"}, 3_642_112, "Alpine Linux", true},
		{"alpine", []string{"3.22", "3.22.1", "3", "latest"}, 3_799_691, "Alpine Linux", true},
		{"ubuntu", []string{"22.04", "jammy"}, 29_537_982, "Ubuntu", true},
		{"ubuntu", []string{"24.04", "noble", "latest"}, 29_723_147, "Ubuntu", true},
	} {
		out = append(out, Image{Repository: v.repo, Tags: v.tags, SizeBytes: v.size, Behavior: baseImage(v.shell), Description: v.desc})
	}
	// curl's entrypoint is curl: with no arguments it prints a hint and
	// exits 2.
	out = append(out, Image{Repository: "curlimages/curl", Tags: []string{"8.15.0", "latest"}, SizeBytes: 10_129_347,
		Behavior: Behavior{IgnoresSIGTERM: true, Exits: true, ExitCode: 2,
			ExitLogs: []LogLine{{0, "curl: try 'curl --help' or 'curl --manual' for more information"}}},
		Description: "curl"})

	// Small demo servers used throughout tutorials.
	out = append(out,
		Image{Repository: "traefik/whoami", Tags: []string{"v1.10", "v1.10.4"}, SizeBytes: 3_290_541, StartupTime: 10 * ms,
			Ports: []int32{80}, Logs: []LogLine{{5 * ms, "{time:2006/01/02 15:04:05} Starting up on port 80"}},
			Behavior: scratch, Description: "prints the request and the serving pod"},
		Image{Repository: "traefik/whoami", Tags: []string{"v1.11", "v1.11.0", "latest"}, SizeBytes: 3_342_870, StartupTime: 10 * ms,
			Ports: []int32{80}, Logs: []LogLine{{5 * ms, "{time:2006/01/02 15:04:05} Starting up on port 80"}},
			Behavior: scratch, Description: "prints the request and the serving pod"},
		Image{Repository: "hashicorp/http-echo", Tags: []string{"1.0", "1.0.0", "latest"}, SizeBytes: 3_489_129, StartupTime: 10 * ms,
			Ports: []int32{5678}, Logs: []LogLine{{5 * ms, "{time:2006/01/02 15:04:05} [INFO] server is listening on :5678"}},
			Behavior: Behavior{StopTime: 10 * ms, NoShell: true,
				StopLogs: []LogLine{{0, "{time:2006/01/02 15:04:05} [INFO] server is shutting down"}}},
			Description: "answers every request with a fixed text"},
		Image{Repository: "gcr.io/google-samples/hello-app", Tags: []string{"1.0"}, SizeBytes: 10_126_614, StartupTime: 20 * ms,
			Ports: []int32{8080}, Logs: []LogLine{{10 * ms, "{time:2006/01/02 15:04:05} Server listening on port 8080"}},
			Behavior: goNoHandler, Description: "Google's hello-world web app"},
		Image{Repository: "gcr.io/google-samples/hello-app", Tags: []string{"2.0"}, SizeBytes: 10_151_190, StartupTime: 20 * ms,
			Ports: []int32{8080}, Logs: []LogLine{{10 * ms, "{time:2006/01/02 15:04:05} Server listening on port 8080"}},
			Behavior: goNoHandler, Description: "Google's hello-world web app"},
		Image{Repository: "kicbase/echo-server", Tags: []string{"1.0", "latest"}, SizeBytes: 2_402_119, StartupTime: 10 * ms,
			Ports: []int32{8080}, Logs: []LogLine{{5 * ms, "Echo server listening on port 8080."}},
			Behavior: scratch, Description: "echoes the request (minikube's hello-minikube)"},
	)

	// Kubernetes' own images.
	out = append(out,
		// The HorizontalPodAutoscaler walkthrough's php-apache server: each
		// request burns CPU. The Maintain issue adds its load behaviour.
		Image{Repository: "registry.k8s.io/hpa-example", Tags: []string{"latest"}, SizeBytes: 136_567_341, StartupTime: 900 * ms,
			Ports: []int32{80}, Logs: apacheLogs("Apache/2.4.10 (Debian) PHP/5.6.14", "'apache2 -D FOREGROUND'"),
			Behavior: Behavior{StopTime: 150 * ms, StopLogs: []LogLine{
				{0, "[{time:Mon Jan 02 15:04:05.000000 2006}] [mpm_prefork:notice] [pid 1] AH00169: caught SIGTERM, shutting down"}}},
			Description: "php-apache server for the HPA walkthrough"},
		Image{Repository: "registry.k8s.io/pause", Tags: []string{"3.9"}, SizeBytes: 321_520, Description: "pod sandbox"},
		Image{Repository: "registry.k8s.io/pause", Tags: []string{"3.10"}, SizeBytes: 320_368, Description: "pod sandbox"},
		Image{Repository: "registry.k8s.io/pause", Tags: []string{"3.10.1"}, SizeBytes: 320_448, Description: "pod sandbox"},
	)
	// agnhost is the e2e tests' multi-tool (netexec, serve-hostname,
	// liveness, ...); what it prints depends on its arguments.
	for _, v := range []struct {
		tag  string
		size int64
	}{{"2.39", 51_160_345}, {"2.47", 57_017_492}, {"2.52", 58_544_117}, {"2.53", 59_103_887}} {
		out = append(out, Image{Repository: "registry.k8s.io/e2e-test-images/agnhost", Tags: []string{v.tag},
			SizeBytes: v.size, StartupTime: 30 * ms, Ports: []int32{8080}, Behavior: goNoHandler, Modes: agnhostModes(),
			Description: "Kubernetes e2e test server (netexec, serve-hostname, liveness, ...)"})
	}
	// Added for the Maintain examples. New images go last: a digest is
	// derived from the push order, and existing goldens show digests.
	out = append(out,
		// The Kubernetes documentation's probe examples (exec-liveness.yaml,
		// http-liveness.yaml); the busybox size is approximate.
		Image{Repository: "registry.k8s.io/busybox", Tags: []string{"1.27.2", "latest"}, SizeBytes: 1_144_547,
			Behavior: baseImage(true), Description: "BusyBox (the Kubernetes docs' copy)"},
		Image{Repository: "registry.k8s.io/e2e-test-images/agnhost", Tags: []string{"2.40"},
			SizeBytes: 51_495_224, StartupTime: 30 * ms, Ports: []int32{8080}, Behavior: goNoHandler, Modes: agnhostModes(),
			Description: "Kubernetes e2e test server (netexec, serve-hostname, liveness, ...)"},
	)
	return out
}

func nginxLogs(version string) []LogLine {
	const t = "{time:2006/01/02 15:04:05}"
	return []LogLine{
		{0, "/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration"},
		{0, "/docker-entrypoint.sh: Looking for shell scripts in /docker-entrypoint.d/"},
		{5 * ms, "/docker-entrypoint.sh: Launching /docker-entrypoint.d/10-listen-on-ipv6-by-default.sh"},
		{10 * ms, "10-listen-on-ipv6-by-default.sh: info: Getting the checksum of /etc/nginx/conf.d/default.conf"},
		{15 * ms, "10-listen-on-ipv6-by-default.sh: info: Enabled listen on IPv6 in /etc/nginx/conf.d/default.conf"},
		{20 * ms, "/docker-entrypoint.sh: Sourcing /docker-entrypoint.d/15-local-resolvers.envsh"},
		{25 * ms, "/docker-entrypoint.sh: Launching /docker-entrypoint.d/20-envsubst-on-templates.sh"},
		{30 * ms, "/docker-entrypoint.sh: Launching /docker-entrypoint.d/30-tune-worker-processes.sh"},
		{35 * ms, "/docker-entrypoint.sh: Configuration complete; ready for start up"},
		{70 * ms, t + ` [notice] 1#1: using the "epoll" event method`},
		{70 * ms, t + " [notice] 1#1: nginx/" + version},
		{70 * ms, t + " [notice] 1#1: built by gcc 12.2.0 (Debian 12.2.0-14)"},
		{70 * ms, t + " [notice] 1#1: OS: Linux 6.8.0-59-generic"},
		{70 * ms, t + " [notice] 1#1: getrlimit(RLIMIT_NOFILE): 1048576:1048576"},
		{75 * ms, t + " [notice] 1#1: start worker processes"},
		{80 * ms, t + " [notice] 1#1: start worker process 29"},
	}
}

func nginxStop() Behavior {
	const t = "{time:2006/01/02 15:04:05}"
	return Behavior{StopSignal: "SIGQUIT", StopTime: 60 * ms, HTTPPaths: []string{"/", "/index.html", "/50x.html"},
		MemoryBytes: 8 << 20, StopLogs: []LogLine{
			{0, t + " [notice] 1#1: signal 3 (SIGQUIT) received, shutting down"},
			{5 * ms, t + " [notice] 29#29: gracefully shutting down"},
			{10 * ms, t + " [notice] 29#29: exiting"},
			{15 * ms, t + " [notice] 29#29: exit"},
			{50 * ms, t + " [notice] 1#1: signal 17 (SIGCHLD) received from 29"},
			{55 * ms, t + " [notice] 1#1: worker process 29 exited with code 0"},
			{60 * ms, t + " [notice] 1#1: exit"},
		}}
}

func apacheLogs(server, cmd string) []LogLine {
	const t = "[{time:Mon Jan 02 15:04:05.000000 2006}]"
	const fqdn = "AH00558: httpd: Could not reliably determine the server's fully qualified domain name, using {ip}. " +
		"Set the 'ServerName' directive globally to suppress this message"
	return []LogLine{
		{20 * ms, fqdn},
		{40 * ms, fqdn},
		{100 * ms, t + " [mpm_event:notice] [pid 1:tid 1] AH00489: " + server + " configured -- resuming normal operations"},
		{100 * ms, t + " [core:notice] [pid 1:tid 1] AH00094: Command line: " + cmd},
	}
}

func redisLogs(version string) []LogLine {
	const c = "1:C {time:02 Jan 2006 15:04:05.000}"
	const m = "1:M {time:02 Jan 2006 15:04:05.000}"
	return []LogLine{
		{0, c + " * oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo"},
		{0, c + " * Redis version=" + version + ", bits=64, commit=00000000, modified=0, pid=1, just started"},
		{0, c + " # Warning: no config file specified, using the default config. In order to specify a config file use redis-server /path/to/redis.conf"},
		{2 * ms, m + " * monotonic clock: POSIX clock_gettime"},
		{3 * ms, m + " * Running mode=standalone, port=6379."},
		{4 * ms, m + " * Server initialized"},
		{40 * ms, m + " * Ready to accept connections tcp"},
	}
}

func redisStop() Behavior {
	const m = "1:M {time:02 Jan 2006 15:04:05.000}"
	return Behavior{StopTime: 30 * ms, StopLogs: []LogLine{
		{0, "1:signal-handler ({unix}) Received SIGTERM scheduling shutdown..."},
		{10 * ms, m + " * User requested shutdown..."},
		{12 * ms, m + " * Saving the final RDB snapshot before exiting."},
		{25 * ms, m + " * DB saved on disk"},
		{30 * ms, m + " # Redis is now ready to exit, bye bye..."},
	}}
}

func postgresLogs(version string) []LogLine {
	const t = "{time:2006-01-02 15:04:05.000} UTC"
	return []LogLine{
		{0, `The files belonging to this database system will be owned by user "postgres".`},
		{0, "This user must also own the server process."},
		{1800 * ms, "Success. You can now start the database server using:"},
		{2300 * ms, "PostgreSQL init process complete; ready for start up."},
		{2400 * ms, t + " [1] LOG:  starting PostgreSQL " + version + " on x86_64-pc-linux-gnu, compiled by gcc (Debian 12.2.0-14) 12.2.0, 64-bit"},
		{2410 * ms, t + ` [1] LOG:  listening on IPv4 address "0.0.0.0", port 5432`},
		{2410 * ms, t + ` [1] LOG:  listening on IPv6 address "::", port 5432`},
		{2500 * ms, t + " [1] LOG:  database system is ready to accept connections"},
	}
}

func postgresStop() Behavior {
	const t = "{time:2006-01-02 15:04:05.000} UTC"
	return Behavior{StopSignal: "SIGINT", StopTime: 250 * ms, StopLogs: []LogLine{
		{0, t + " [1] LOG:  received fast shutdown request"},
		{10 * ms, t + " [1] LOG:  aborting any active transactions"},
		{200 * ms, t + " [1] LOG:  database system is shut down"},
	}}
}

func mysqlLogs(version string) []LogLine {
	const t = "{time:2006-01-02 15:04:05+00:00}"
	const z = "{time:2006-01-02T15:04:05.000000Z}"
	return []LogLine{
		{0, t + " [Note] [Entrypoint]: Entrypoint script for MySQL Server " + version + "-1.el9 started."},
		{300 * ms, t + " [Note] [Entrypoint]: Initializing database files"},
		{8 * sim.Second, t + " [Note] [Entrypoint]: Database files initialized"},
		{11 * sim.Second, t + " [Note] [Entrypoint]: MySQL init process done. Ready for start up."},
		{12 * sim.Second, z + " 0 [System] [MY-010931] [Server] /usr/sbin/mysqld: ready for connections. Version: '" + version +
			"'  socket: '/var/run/mysqld/mysqld.sock'  port: 3306  MySQL Community Server - GPL."},
	}
}

// agnhostModes are the agnhost sub-commands the Kubernetes documentation
// and e2e tests use (test/images/agnhost in kubernetes/kubernetes).
func agnhostModes() map[string]Mode {
	return map[string]Mode{
		// liveness: /healthz answers 200 for the first 10 s, then 500
		// (test/images/agnhost/liveness/server.go).
		"liveness": {StartupTime: 10 * ms, Ports: []int32{8080},
			Behavior: Behavior{StopTime: 10 * ms, StopExitCode: 2, HealthyFor: 10 * sim.Second, UnhealthyStatus: 500}},
		"netexec": {StartupTime: 30 * ms, Ports: []int32{8080, 8081},
			Logs:     []LogLine{{20 * ms, "{time:2006/01/02 15:04:05} Started HTTP server on port 8080"}, {20 * ms, "{time:2006/01/02 15:04:05} Started UDP server on port  8081"}},
			Behavior: goNoHandler},
		"serve-hostname": {StartupTime: 10 * ms, Ports: []int32{9376},
			Logs:     []LogLine{{5 * ms, "{time:2006/01/02 15:04:05} Serving on port 9376."}},
			Behavior: goNoHandler},
		"pause": {Logs: []LogLine{{0, "Paused"}}, Behavior: goNoHandler},
	}
}
