package workload

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine/sim"
)

func TestNormalize(t *testing.T) {
	digest := "sha256:" + strings.Repeat("ab", 32)
	tests := []struct {
		in, want, familiar string
	}{
		{"nginx", "docker.io/library/nginx:latest", "nginx:latest"},
		{"nginx:1.27", "docker.io/library/nginx:1.27", "nginx:1.27"},
		{"library/nginx:1.27", "docker.io/library/nginx:1.27", "nginx:1.27"},
		{"docker.io/library/nginx:1.27", "docker.io/library/nginx:1.27", "nginx:1.27"},
		{"index.docker.io/library/nginx:1.27", "docker.io/library/nginx:1.27", "nginx:1.27"},
		{"docker.io/nginx", "docker.io/library/nginx:latest", "nginx:latest"},
		{"traefik/whoami:v1.10", "docker.io/traefik/whoami:v1.10", "traefik/whoami:v1.10"},
		{"registry.k8s.io/pause:3.10", "registry.k8s.io/pause:3.10", "registry.k8s.io/pause:3.10"},
		{"localhost/app", "localhost/app:latest", "localhost/app:latest"},
		{"localhost:5000/app:v1", "localhost:5000/app:v1", "localhost:5000/app:v1"},
		{"nginx@" + digest, "docker.io/library/nginx@" + digest, "nginx@" + digest},
		{"nginx:1.27@" + digest, "docker.io/library/nginx:1.27@" + digest, "nginx:1.27@" + digest},
	}
	for _, tt := range tests {
		got, err := Normalize(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("Normalize(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			continue
		}
		ref, _ := ParseReference(tt.in)
		if f := ref.Tagged().Familiar(); f != tt.familiar {
			t.Errorf("Familiar(%q) = %q; want %q", tt.in, f, tt.familiar)
		}
	}
}

func TestParseReferenceErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Nginx", "invalid reference format: repository name (library/Nginx) must be lowercase"},
		{"nginx:", "invalid reference format"},
		{"nginx::1", "invalid reference format"},
		{"-nginx", "invalid reference format"},
		{"nginx:1.27 ", "invalid reference format"},
		{"nginx@sha256:abc", "invalid reference format"},
		{"nginx@sha256:" + strings.Repeat("a", 40), "invalid checksum digest length"},
		{strings.Repeat("a", 64), "invalid repository name (" + strings.Repeat("a", 64) + "), cannot specify 64-byte hexadecimal strings"},
		{"", "repository name must have at least one component"},
	}
	for _, tt := range tests {
		_, err := ParseReference(tt.in)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseReference(%q) error = %v; want %q", tt.in, err, tt.want)
		}
	}
}

func TestDefaultPullPolicy(t *testing.T) {
	digest := "sha256:" + strings.Repeat("0", 64)
	tests := []struct {
		image string
		want  corev1.PullPolicy
	}{
		{"nginx", corev1.PullAlways},
		{"nginx:latest", corev1.PullAlways},
		{"nginx:1.27", corev1.PullIfNotPresent},
		{"nginx@" + digest, corev1.PullIfNotPresent},
		{"nginx:latest@" + digest, corev1.PullAlways},
		{"registry.k8s.io/pause:3.10", corev1.PullIfNotPresent},
	}
	for _, tt := range tests {
		if got := DefaultPullPolicy(tt.image); got != tt.want {
			t.Errorf("DefaultPullPolicy(%q) = %s; want %s", tt.image, got, tt.want)
		}
	}
}

func TestResolve(t *testing.T) {
	r := DefaultRegistry()
	for _, image := range []string{"nginx", "nginx:1.27", "docker.io/library/nginx:1.27.5", "busybox", "registry.k8s.io/pause:3.10",
		"registry.k8s.io/e2e-test-images/agnhost:2.39", "registry.k8s.io/hpa-example", "traefik/whoami", "hashicorp/http-echo"} {
		if _, ok := r.Lookup(image); !ok {
			t.Errorf("Lookup(%q) failed; the catalogue should have it", image)
		}
	}
	a, _ := r.Lookup("nginx:1.29")
	b, _ := r.Lookup("nginx:latest")
	if a != b {
		t.Errorf("nginx:1.29 and nginx:latest are different images; want one manifest with both tags")
	}
	byDigest, ok := r.Lookup("nginx@" + a.Digest)
	if !ok || byDigest != a {
		t.Errorf("Lookup by digest %s = %v, %v; want the nginx:1.29 image", a.Digest, byDigest, ok)
	}

	errs := []struct{ image, want string }{
		{"nginx:1.99", `rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/nginx:1.99": ` +
			`failed to resolve reference "docker.io/library/nginx:1.99": docker.io/library/nginx:1.99: not found`},
		{"shop/api:v2.1", `failed to pull and unpack image "docker.io/shop/api:v2.1": failed to resolve reference ` +
			`"docker.io/shop/api:v2.1": pull access denied, repository does not exist or may require authorization: ` +
			`server message: insufficient_scope: authorization failed`},
		{"registry.k8s.io/nope:1", `rpc error: code = NotFound desc = failed to pull and unpack image "registry.k8s.io/nope:1": ` +
			`failed to resolve reference "registry.k8s.io/nope:1": registry.k8s.io/nope:1: not found`},
		{"registry.example.com/app:v1", `failed to pull and unpack image "registry.example.com/app:v1": failed to resolve reference ` +
			`"registry.example.com/app:v1": failed to do request: Head "https://registry.example.com/v2/app/manifests/v1": ` +
			`dial tcp: lookup registry.example.com: no such host`},
	}
	for _, tt := range errs {
		ref, err := ParseReference(tt.image)
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.Resolve(ref)
		pe, ok := err.(*PullError)
		if !ok {
			t.Errorf("Resolve(%q) error = %v; want a *PullError", tt.image, err)
			continue
		}
		if got := pe.KubeletMessage(); got != tt.want {
			t.Errorf("Resolve(%q):\n got %s\nwant %s", tt.image, got, tt.want)
		}
	}
}

func TestAddMovesTags(t *testing.T) {
	r := NewRegistry()
	v1 := r.MustAdd(Image{Repository: "shop/api:v2.1", Tags: []string{"latest"}, SizeBytes: 80 << 20})
	if v1.Repository != "docker.io/shop/api" || strings.Join(v1.Tags, ",") != "v2.1,latest" {
		t.Fatalf("Add = %s %v; want docker.io/shop/api [v2.1 latest]", v1.Repository, v1.Tags)
	}
	v2 := r.MustAdd(Image{Repository: "shop/api", Tags: []string{"v2.2", "latest"}, SizeBytes: 81 << 20})
	if v1.Digest == v2.Digest {
		t.Fatalf("two pushes share digest %s", v1.Digest)
	}
	if got, _ := r.Lookup("shop/api:latest"); got != v2 {
		t.Errorf("latest = %v; want the second push", got.Tags)
	}
	if got, _ := r.Lookup("shop/api@" + v1.Digest); got != v1 {
		t.Errorf("the first push is no longer reachable by digest")
	}
	if strings.Join(v1.Tags, ",") != "v2.1" {
		t.Errorf("first push tags = %v; want [v2.1]", v1.Tags)
	}
	if n := len(r.Images()); n != 2 {
		t.Errorf("Images() has %d entries; want 2", n)
	}
	for _, bad := range []Image{
		{Repository: "Shop/API", Tags: []string{"v1"}, SizeBytes: 1},
		{Repository: "shop/api", SizeBytes: 1},
		{Repository: "shop/api:v1"},
		{Repository: "shop/api", Tags: []string{"bad tag"}, SizeBytes: 1},
	} {
		if _, err := r.Add(bad); err == nil {
			t.Errorf("Add(%+v) succeeded; want an error", bad)
		}
	}
}

func TestDefaultRegistryIsStable(t *testing.T) {
	a, b := DefaultRegistry(), DefaultRegistry()
	ia, ib := a.Images(), b.Images()
	if len(ia) != len(ib) || len(ia) < 40 {
		t.Fatalf("catalogue sizes %d, %d; want equal and at least 40", len(ia), len(ib))
	}
	for i := range ia {
		if ia[i].Digest != ib[i].Digest || ia[i].Ref() != ib[i].Ref() {
			t.Errorf("image %d differs between two catalogues: %s %s / %s %s", i, ia[i].Ref(), ia[i].Digest, ib[i].Ref(), ib[i].Digest)
		}
		if ia[i].SizeBytes <= 0 {
			t.Errorf("%s has no size", ia[i].Ref())
		}
	}
}

func TestRender(t *testing.T) {
	at := 3*sim.Second + 250*sim.Millisecond
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"{time:2006/01/02 15:04:05} [notice] 1#1: start", "2025/01/01 00:00:03 [notice] 1#1: start"},
		{"using {ip}.", "using 10.244.0.5."},
		{"host {hostname} {unknown}", "host web-1 {unknown}"},
		{"({unix})", "(1735689603)"},
		{"{time:15:04:05.000}", "00:00:03.250"},
		{"unterminated {time", "unterminated {time"},
	}
	for _, tt := range tests {
		if got := Render(tt.in, at, "10.244.0.5", "web-1"); got != tt.want {
			t.Errorf("Render(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}
