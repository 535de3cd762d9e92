package workload

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// The defaults docker/distribution's reference package (and so the kubelet
// and containerd) apply to short names.
const (
	DefaultDomain       = "docker.io"
	legacyDefaultDomain = "index.docker.io"
	officialRepoPrefix  = "library/"
	DefaultTag          = "latest"
	maxNameLength       = 255
)

// The reference grammar of github.com/distribution/reference (regexp.go),
// which the kubelet (pkg/util/parsers) and containerd both use.
var (
	domainComponent = `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
	domainRE        = `(?:` + domainComponent + `(?:\.` + domainComponent + `)*|\[[a-fA-F0-9:]+\])(?::[0-9]+)?`
	pathComponent   = `[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*`
	nameRE          = `(?:` + domainRE + `/)?` + pathComponent + `(?:/` + pathComponent + `)*`
	tagRE           = `[\w][\w.-]{0,127}`
	digestRE        = `[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}`

	referenceRegexp  = regexp.MustCompile(`^(` + nameRE + `)(?::(` + tagRE + `))?(?:@(` + digestRE + `))?$`)
	identifierRegexp = regexp.MustCompile(`^[a-f0-9]{64}$`)
	sha256Regexp     = regexp.MustCompile(`^sha256:[a-f0-9]{64}$`)
)

// ErrReferenceInvalidFormat is distribution's error for a reference that
// does not match the grammar.
var ErrReferenceInvalidFormat = errors.New("invalid reference format")

// Reference is a parsed, normalised image reference.
type Reference struct {
	// Domain is the registry host: "docker.io", "registry.k8s.io".
	Domain string
	// Path is the repository path within the registry: "library/nginx".
	Path string
	// Tag is the tag, "" if the reference names no tag.
	Tag string
	// Digest is the manifest digest ("sha256:..."), "" if none.
	Digest string
}

// ParseReference parses an image reference as the kubelet does
// (distribution's ParseNormalizedNamed): a short name gains the docker.io
// domain and, for official images, the "library/" prefix. It does not add
// the default tag; see Reference.Tagged.
func ParseReference(s string) (Reference, error) {
	if identifierRegexp.MatchString(s) {
		return Reference{}, fmt.Errorf("invalid repository name (%s), cannot specify 64-byte hexadecimal strings", s)
	}
	domain, remainder := splitDockerDomain(s)
	remoteName := remainder
	if i := strings.IndexRune(remainder, ':'); i > -1 {
		remoteName = remainder[:i]
	}
	if i := strings.IndexRune(remoteName, '@'); i > -1 {
		remoteName = remoteName[:i]
	}
	if strings.ToLower(remoteName) != remoteName {
		return Reference{}, fmt.Errorf("%w: repository name (%s) must be lowercase", ErrReferenceInvalidFormat, remoteName)
	}
	m := referenceRegexp.FindStringSubmatch(domain + "/" + remainder)
	if m == nil {
		if s == "" {
			return Reference{}, errors.New("repository name must have at least one component")
		}
		return Reference{}, ErrReferenceInvalidFormat
	}
	if len(m[1]) > maxNameLength {
		return Reference{}, fmt.Errorf("repository name must not be more than %d characters", maxNameLength)
	}
	r := Reference{Domain: domain, Path: m[1][len(domain)+1:], Tag: m[2], Digest: m[3]}
	if r.Digest != "" && strings.HasPrefix(r.Digest, "sha256:") && !sha256Regexp.MatchString(r.Digest) {
		return Reference{}, errors.New("invalid checksum digest length")
	}
	return r, nil
}

// splitDockerDomain is distribution's rule for telling a registry host from
// the first path component: it must contain a '.' or ':', be "localhost",
// or contain an upper-case letter.
func splitDockerDomain(name string) (domain, remainder string) {
	i := strings.IndexRune(name, '/')
	if i == -1 || (!strings.ContainsAny(name[:i], ".:") && name[:i] != "localhost" && strings.ToLower(name[:i]) == name[:i]) {
		domain, remainder = DefaultDomain, name
	} else {
		domain, remainder = name[:i], name[i+1:]
	}
	if domain == legacyDefaultDomain {
		domain = DefaultDomain
	}
	if domain == DefaultDomain && !strings.ContainsRune(remainder, '/') {
		remainder = officialRepoPrefix + remainder
	}
	return domain, remainder
}

// Repository is the normalised repository name: "docker.io/library/nginx".
func (r Reference) Repository() string { return r.Domain + "/" + r.Path }

// Tagged returns r with the default tag "latest" if it names neither a tag
// nor a digest, as the kubelet's applyDefaultImageTag does.
func (r Reference) Tagged() Reference {
	if r.Tag == "" && r.Digest == "" {
		r.Tag = DefaultTag
	}
	return r
}

// String is the fully normalised reference, as containerd names images:
// "docker.io/library/nginx:1.27", "docker.io/library/nginx@sha256:...".
// A reference with both keeps both.
func (r Reference) String() string {
	s := r.Repository()
	if r.Tag != "" {
		s += ":" + r.Tag
	}
	if r.Digest != "" {
		s += "@" + r.Digest
	}
	return s
}

// Familiar is the short form people type: "nginx:1.27",
// "registry.k8s.io/pause:3.10" (distribution's FamiliarString).
func (r Reference) Familiar() string {
	s := r.Path
	if r.Domain != DefaultDomain {
		s = r.Domain + "/" + s
	} else {
		s = strings.TrimPrefix(s, officialRepoPrefix)
	}
	if r.Tag != "" {
		s += ":" + r.Tag
	}
	if r.Digest != "" {
		s += "@" + r.Digest
	}
	return s
}

// Normalize returns the fully normalised, tagged form of an image reference,
// as containerd stores it ("nginx" -> "docker.io/library/nginx:latest").
func Normalize(image string) (string, error) {
	r, err := ParseReference(image)
	if err != nil {
		return "", err
	}
	return r.Tagged().String(), nil
}

// DefaultPullPolicy is the imagePullPolicy the API server defaults a
// container to (k/k pkg/apis/core/v1/defaults.go SetDefaults_Container):
// Always when the tag is "latest" (or there is neither tag nor digest),
// IfNotPresent otherwise: a digest alone counts as IfNotPresent.
func DefaultPullPolicy(image string) corev1.PullPolicy {
	r, err := ParseReference(image)
	if err != nil {
		return corev1.PullIfNotPresent
	}
	tag := r.Tag
	if tag == "" && r.Digest == "" {
		tag = DefaultTag
	}
	if tag == DefaultTag {
		return corev1.PullAlways
	}
	return corev1.PullIfNotPresent
}
