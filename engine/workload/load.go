package workload

import (
	"sort"
	"strings"
)

// The load model: how much CPU and memory a simulated process uses.
//
// A workload (a Deployment) is given a total demand with the playground's
// `load deployment/NAME --cpu 600m` command: the traffic its clients send,
// measured in the CPU it costs to serve. The demand is shared equally among
// the workload's READY pods, as a Service spreads requests over its ready
// endpoints, and each pod's share is capped at its CPU limit (a pod cannot
// burn more than its cgroup allows; the rest of the demand goes unserved).
// On top of its share every running container uses a small idle baseline
// that depends on its image. Memory works the same way. So adding replicas
// lowers each pod's usage, which is what makes the HorizontalPodAutoscaler's
// arithmetic converge.

// LoadGeneratorCPU is what one load generator costs the pods behind the
// Service it calls: a container running the HPA walkthrough's busybox loop
// (`while sleep 0.01; do wget -q -O- http://php-apache; done`). It is
// calibrated so that the walkthrough settles at 7 replicas of php-apache,
// as its documentation shows; every further generator adds as much.
const LoadGeneratorCPU = 650

// LoadTarget returns the host a container's command calls in a wget or
// curl loop ("php-apache", "php-apache.default.svc.cluster.local"), or ""
// if the command is not such a loop.
func LoadTarget(command []string) string {
	text := strings.Join(command, " ")
	if !strings.Contains(text, "wget") && !strings.Contains(text, "curl") {
		return ""
	}
	if !strings.Contains(text, "while") && !strings.Contains(text, "until") {
		return ""
	}
	i := strings.Index(text, "http://")
	if i < 0 {
		return ""
	}
	host := text[i+len("http://"):]
	if j := strings.IndexAny(host, ":/ ;\"'"); j >= 0 {
		host = host[:j]
	}
	return host
}

// ServiceOf splits a host name into a Service's name and namespace:
// "web" (in the caller's namespace), "web.ns", "web.ns.svc",
// "web.ns.svc.cluster.local".
func ServiceOf(host, namespace string) (name, ns string) {
	parts := strings.Split(host, ".")
	switch {
	case len(parts) == 1:
		return parts[0], namespace
	case len(parts) == 2 || (len(parts) >= 3 && parts[2] == "svc"):
		return parts[0], parts[1]
	}
	return "", ""
}

// Demand is the load a workload is asked to serve, in total.
type Demand struct {
	// CPUMilli is the CPU the workload's traffic costs, in millicores.
	CPUMilli int64
	// MemoryBytes is the memory that traffic needs (working set), in bytes.
	MemoryBytes int64
}

// Loads holds the demand of each workload, keyed by namespace and
// Deployment name. One engine owns one; the metrics pipeline reads it.
type Loads struct {
	m map[string]Demand
}

// NewLoads returns an empty load table: every workload idle.
func NewLoads() *Loads { return &Loads{m: map[string]Demand{}} }

// Set sets a Deployment's total demand; a zero Demand removes it.
func (l *Loads) Set(namespace, deployment string, d Demand) {
	key := namespace + "/" + deployment
	if d == (Demand{}) {
		delete(l.m, key)
		return
	}
	l.m[key] = d
}

// Get returns a Deployment's demand, and whether it has any.
func (l *Loads) Get(namespace, deployment string) (Demand, bool) {
	d, ok := l.m[namespace+"/"+deployment]
	return d, ok
}

// Keys lists the "namespace/deployment" keys that have a demand, sorted.
func (l *Loads) Keys() []string {
	out := make([]string, 0, len(l.m))
	for k := range l.m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Len is the number of workloads with a demand.
func (l *Loads) Len() int { return len(l.m) }

// Idle is what a container of an image uses when it serves nothing.
type Idle struct {
	CPUMilli    int64
	MemoryBytes int64
}

const mi = 1 << 20

// idleByRepository are measured idle figures (`kubectl top pod` on a quiet
// container) for the catalogue's common images; others get DefaultIdle.
var idleByRepository = map[string]Idle{
	"registry.k8s.io/hpa-example": {1, 9 * mi},  // php-apache with a few prefork workers
	"docker.io/library/nginx":     {0, 3 * mi},  // nginx master and one worker per CPU
	"docker.io/library/httpd":     {1, 6 * mi},  // apache httpd, event MPM
	"docker.io/library/redis":     {2, 3 * mi},  // redis-server with an empty dataset
	"docker.io/library/postgres":  {3, 20 * mi}, // postgres with its background workers
	"docker.io/library/busybox":   {0, 0},       // a shell that sleeps: well under 1Mi
	"registry.k8s.io/pause":       {0, 0},
}

// DefaultIdle is the idle usage of an image the table does not list.
var DefaultIdle = Idle{CPUMilli: 1, MemoryBytes: 8 * mi}

// IdleUsage is an image's idle usage; img may be nil (an unknown image).
func IdleUsage(img *Image) Idle {
	if img == nil {
		return DefaultIdle
	}
	if v, ok := idleByRepository[img.Repository]; ok {
		return v
	}
	if strings.HasPrefix(img.Repository, "registry.k8s.io/e2e-test-images/agnhost") {
		return Idle{CPUMilli: 0, MemoryBytes: 5 * mi}
	}
	return DefaultIdle
}

// Share is one ready pod's part of a workload's demand: the demand divided
// equally among the ready pods (rounded down to a millicore or a byte).
// It is zero when no pod is ready: nobody serves the traffic.
func Share(total int64, readyPods int) int64 {
	if readyPods <= 0 || total <= 0 {
		return 0
	}
	return total / int64(readyPods)
}

// Usage is a container's usage: its idle baseline plus its share of the
// demand, capped at its limit (limit 0 means none).
func Usage(idle, share, limit int64) int64 {
	u := idle + share
	if limit > 0 && u > limit {
		u = limit
	}
	return u
}
