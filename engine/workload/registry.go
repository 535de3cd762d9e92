package workload

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/kubeloop/kubeloop/engine/sim"
)

// Image is one manifest in the registry: what a pull downloads and what the
// container's process then does.
type Image struct {
	// Repository is the normalised repository ("docker.io/library/nginx").
	// Add accepts any form ("nginx", "shop/api:v2.1") and normalises it.
	Repository string
	// Tags are the tags that point at this manifest ("1.27", "1.27.5").
	Tags []string
	// Digest is the manifest digest ("sha256:<64 hex>"); Add derives a
	// stable one when it is empty.
	Digest string
	// SizeBytes is the compressed size, what containerd reports and what the
	// kubelet's Pulled event and the node's status.images show.
	SizeBytes int64
	// StartupTime is how long the process takes from start to serving.
	// Without a readiness probe Kubernetes does not wait for it: the
	// container is ready as soon as it runs.
	StartupTime sim.Tick
	// Ports are the ports the process listens on by default.
	Ports []int32
	// Logs is what the process prints as it starts, when the container runs
	// the image's own command (no command or args in the pod spec).
	Logs []LogLine
	// Behavior is what the process does besides starting and serving.
	Behavior Behavior
	// Modes are sub-commands selected by the container's first argument
	// (with no command): agnhost's "liveness", "netexec", ...
	Modes map[string]Mode
	// Description is one line for listings ("web server").
	Description string

	// own and digestRef are what every container of the image shares,
	// made by Registry.Add: the image's own Mode and its DigestRef.
	own       *Mode
	digestRef string
}

// ownMode is what the image's own program does, shared by every process
// that runs it. An image made outside a registry gets a fresh copy.
func (img *Image) ownMode() *Mode {
	if img.own != nil {
		return img.own
	}
	return &Mode{StartupTime: img.StartupTime, Ports: img.Ports, Logs: img.Logs, Behavior: img.Behavior}
}

// LogLine is one line a simulated process prints.
type LogLine struct {
	// After is when the line is printed, counted from the process start.
	After sim.Tick
	// Text is the line. It may contain {time:LAYOUT} (the virtual time in a
	// Go time layout, UTC), {unix} (Unix seconds), {ip} (the pod IP) and
	// {hostname} (the pod name).
	Text string
}

// Behavior is what a simulated process does besides starting and serving:
// how it stops, whether it exits or crashes by itself, how its health
// endpoint answers, how much memory it uses. The zero Behavior is a
// well-behaved server that runs for ever, answers 200 on every path once
// started and exits 0 at once on SIGTERM.
type Behavior struct {
	// StopSignal is the image's STOPSIGNAL, which containerd sends instead
	// of SIGTERM when the kubelet stops the container ("SIGQUIT" for nginx);
	// empty means SIGTERM.
	StopSignal string
	// IgnoresSIGTERM means the process does not exit on its stop signal and
	// is killed with SIGKILL when the grace period ends (exit code 137): a
	// PID 1 without a handler, such as `sleep` in busybox or a bare node or
	// python process.
	IgnoresSIGTERM bool
	// StopTime is how long a clean shutdown takes after the stop signal.
	StopTime sim.Tick
	// StopExitCode is the exit code of a clean shutdown (0 for most servers).
	StopExitCode int32
	// StopLogs is what the process prints while it shuts down, counted from
	// the stop signal.
	StopLogs []LogLine

	// Exits means the image's own process ends by itself (when the pod
	// gives no command or args) ExitAfter its start, with ExitCode: a base
	// image whose default command is an interactive shell exits 0 at once
	// without a terminal; a crashing server exits non-zero.
	Exits     bool
	ExitAfter sim.Tick
	ExitCode  int32
	// ExitLogs is what it prints as it exits, counted from its start.
	ExitLogs []LogLine

	// HealthyFor is how long the process answers HTTP requests with 200
	// before it answers UnhealthyStatus (agnhost liveness: 10 s, then 500);
	// 0 means for ever.
	HealthyFor      sim.Tick
	UnhealthyStatus int
	// HTTPPaths are the paths its HTTP server answers 200 on; any other
	// path is a 404 (nginx has no /healthz). Empty means every path.
	HTTPPaths []string

	// MemoryBytes is the process's memory use once started, and
	// MemoryGrowthBytesPerSecond how fast it grows (a leak). Past the
	// container's memory limit the kernel kills it: exit 137, OOMKilled.
	MemoryBytes                int64
	MemoryGrowthBytesPerSecond int64

	// NoShell marks images without /bin/sh (scratch and distroless
	// images): a command that needs a shell fails to start.
	NoShell bool
	// ShellImage marks images whose own program is the shell (busybox,
	// alpine, ubuntu): a command that is neither a shell nor an applet is
	// not in the image and fails to start.
	ShellImage bool
}

// Mode is what an image's process does when the pod's args select one of
// its sub-commands (agnhost liveness, agnhost netexec).
type Mode struct {
	StartupTime sim.Tick
	Ports       []int32
	Logs        []LogLine
	Behavior    Behavior
}

// Signal is the stop signal's name: StopSignal or SIGTERM.
func (b Behavior) Signal() string {
	if b.StopSignal == "" {
		return "SIGTERM"
	}
	return b.StopSignal
}

// Ref is the image's first name, familiar form: "nginx:1.27".
func (img *Image) Ref() string {
	r := Reference{Domain: DefaultDomain, Path: img.Repository}
	if d, p, ok := strings.Cut(img.Repository, "/"); ok {
		r.Domain, r.Path = d, p
	}
	if len(img.Tags) > 0 {
		r.Tag = img.Tags[0]
	} else {
		r.Digest = img.Digest
	}
	return r.Familiar()
}

// DigestRef is the image's digest name, as the kubelet reports imageID:
// "docker.io/library/nginx@sha256:...".
func (img *Image) DigestRef() string {
	if img.digestRef != "" {
		return img.digestRef
	}
	return img.Repository + "@" + img.Digest
}

// PullError is a failed pull, in the container runtime's words.
type PullError struct {
	// Ref is the fully normalised reference that was pulled.
	Ref string
	// Code is the gRPC status code the CRI returns ("NotFound", "Unknown").
	// The kubelet keeps "rpc error: code = NotFound desc = " in front of the
	// message for every code except Unknown, which it strips.
	Code string
	// Reason is containerd's innermost message ("...: not found").
	Reason string
}

// Error is containerd's message for a failed pull.
func (e *PullError) Error() string {
	return fmt.Sprintf("failed to pull and unpack image %q: failed to resolve reference %q: %s", e.Ref, e.Ref, e.Reason)
}

// KubeletMessage is the error as the kubelet reports it in its Failed event
// and the container's waiting message: with the gRPC status prefix unless
// the code is Unknown (k/k pkg/kubelet/cri/remote/remote_image.go).
func (e *PullError) KubeletMessage() string {
	if e.Code == "Unknown" {
		return e.Error()
	}
	return "rpc error: code = " + e.Code + " desc = " + e.Error()
}

// knownRegistries are public registries that exist: a reference to them
// that the catalogue lacks is "not found"; any other host fails its DNS
// lookup, as an invented registry name does in a real cluster.
var knownRegistries = map[string]bool{
	"docker.io": true, "registry.k8s.io": true, "k8s.gcr.io": true, "gcr.io": true, "ghcr.io": true,
	"quay.io": true, "public.ecr.aws": true, "mcr.microsoft.com": true, "registry.gitlab.com": true,
	"us-docker.pkg.dev": true, "europe-docker.pkg.dev": true, "asia-docker.pkg.dev": true,
	"docker.elastic.co": true, "nvcr.io": true, "localhost": true,
}

type repository struct {
	tags    map[string]*Image
	digests map[string]*Image
}

// Registry is the simulated container registry (all public registries in
// one). It is owned by one engine; lessons add their images to it.
type Registry struct {
	repos  map[string]*repository
	hosts  map[string]bool // registry hosts that added images made known
	pushes int             // counts Add calls, so that a re-push gets a new digest
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{repos: map[string]*repository{}, hosts: map[string]bool{}}
}

var tagRegexp = regexp.MustCompile(`^` + tagRE + `$`)

// Add pushes an image: its repository may be given in any form, with a tag
// ("shop/api:v2.1"), which joins Tags. A tag already in the registry moves
// to the new image, as `docker push` moves it; nodes that pulled the old
// one keep it. Add returns the stored image.
func (r *Registry) Add(img Image) (*Image, error) {
	ref, err := ParseReference(img.Repository)
	if err != nil {
		return nil, fmt.Errorf("image %q: %w", img.Repository, err)
	}
	if ref.Digest != "" {
		return nil, fmt.Errorf("image %q: name an image by repository and tag, not by digest", img.Repository)
	}
	tags := append([]string(nil), img.Tags...)
	if ref.Tag != "" && !contains(tags, ref.Tag) {
		tags = append([]string{ref.Tag}, tags...)
	}
	if len(tags) == 0 {
		return nil, fmt.Errorf("image %q: at least one tag is required", img.Repository)
	}
	for _, t := range tags {
		if !tagRegexp.MatchString(t) {
			return nil, fmt.Errorf("image %q: invalid tag %q", img.Repository, t)
		}
	}
	if img.SizeBytes <= 0 {
		return nil, fmt.Errorf("image %q: size must be positive", img.Repository)
	}
	if img.StartupTime < 0 {
		return nil, fmt.Errorf("image %q: start-up time must not be negative", img.Repository)
	}
	out := img
	out.Repository = ref.Repository()
	out.Tags = tags
	r.pushes++
	if out.Digest == "" {
		out.Digest = deriveDigest(out, r.pushes)
	} else if !sha256Regexp.MatchString(out.Digest) {
		return nil, fmt.Errorf("image %q: invalid digest %q", img.Repository, img.Digest)
	}
	out.own = &Mode{StartupTime: out.StartupTime, Ports: out.Ports, Logs: out.Logs, Behavior: out.Behavior}
	out.digestRef = out.Repository + "@" + out.Digest
	rp := r.repos[out.Repository]
	if rp == nil {
		rp = &repository{tags: map[string]*Image{}, digests: map[string]*Image{}}
		r.repos[out.Repository] = rp
	}
	stored := &out
	for _, t := range tags {
		if old := rp.tags[t]; old != nil && old != stored {
			old.Tags = remove(old.Tags, t)
		}
		rp.tags[t] = stored
	}
	rp.digests[out.Digest] = stored
	r.hosts[ref.Domain] = true
	return stored, nil
}

// MustAdd is Add for the built-in catalogue; it panics on error.
func (r *Registry) MustAdd(img Image) *Image {
	out, err := r.Add(img)
	if err != nil {
		panic("workload: " + err.Error())
	}
	return out
}

// deriveDigest gives a stable, content-like digest: the same catalogue
// gives the same digests in every run.
func deriveDigest(img Image, push int) string {
	h := sha256.New()
	h.Write([]byte(img.Repository + "\x00" + strings.Join(img.Tags, ",") + "\x00" +
		strconv.FormatInt(img.SizeBytes, 10) + "\x00" + strconv.Itoa(push)))
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// Resolve finds the manifest a reference names, as a pull does. A reference
// without tag or digest means "latest". It fails with a *PullError in
// containerd's words.
func (r *Registry) Resolve(ref Reference) (*Image, error) {
	ref = ref.Tagged()
	rp := r.repos[ref.Repository()]
	if rp != nil {
		if ref.Digest != "" {
			if img := rp.digests[ref.Digest]; img != nil {
				return img, nil
			}
		} else if img := rp.tags[ref.Tag]; img != nil {
			return img, nil
		}
	}
	// Not found: only now is the name the errors give made (every pod's
	// pull resolves, and a found image needs none).
	name := ref.String()
	if ref.Digest != "" {
		// A digest wins over a tag, as in containerd.
		name = ref.Repository() + "@" + ref.Digest
	}
	if rp != nil {
		return nil, &PullError{Ref: name, Code: "NotFound", Reason: name + ": not found"}
	}
	host := ref.Domain
	if h, _, ok := strings.Cut(host, ":"); ok {
		host = h
	}
	switch {
	case ref.Domain == DefaultDomain:
		// Docker Hub answers 401 for a repository that does not exist.
		return nil, &PullError{Ref: name, Code: "Unknown", Reason: "pull access denied, repository does not exist or " +
			"may require authorization: server message: insufficient_scope: authorization failed"}
	case knownRegistries[host] || r.hosts[ref.Domain]:
		return nil, &PullError{Ref: name, Code: "NotFound", Reason: name + ": not found"}
	default:
		object := ref.Tag
		if ref.Digest != "" {
			object = ref.Digest
		}
		return nil, &PullError{Ref: name, Code: "Unknown", Reason: fmt.Sprintf(
			"failed to do request: Head %q: dial tcp: lookup %s: no such host",
			"https://"+ref.Domain+"/v2/"+ref.Path+"/manifests/"+object, host)}
	}
}

// Lookup resolves an image reference string; it reports false if the
// reference is invalid or names nothing in the registry.
func (r *Registry) Lookup(image string) (*Image, bool) {
	ref, err := ParseReference(image)
	if err != nil {
		return nil, false
	}
	img, err := r.Resolve(ref)
	return img, err == nil
}

// Images lists the registry's images, by repository and then by first tag.
// Images whose tags all moved elsewhere are still stored (by digest) but
// not listed.
func (r *Registry) Images() []*Image {
	repos := make([]string, 0, len(r.repos))
	for name := range r.repos {
		repos = append(repos, name)
	}
	sort.Strings(repos)
	var out []*Image
	for _, name := range repos {
		rp := r.repos[name]
		seen := map[*Image]bool{}
		var imgs []*Image
		for _, img := range rp.tags {
			if !seen[img] {
				seen[img] = true
				imgs = append(imgs, img)
			}
		}
		sort.Slice(imgs, func(i, j int) bool { return imgs[i].Tags[0] < imgs[j].Tags[0] })
		out = append(out, imgs...)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func remove(list []string, s string) []string {
	out := make([]string, 0, len(list))
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}
