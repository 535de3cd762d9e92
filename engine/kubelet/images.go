package kubelet

import (
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/workload"
)

// imageStore is a node's containerd image store: the images pulled so far,
// by name and by digest.
type imageStore struct {
	byName   map[string]*workload.Image // "docker.io/library/nginx:1.27" -> image
	byDigest map[string]*workload.Image // "docker.io/library/nginx@sha256:..." -> image

	// status is nodeStatusImages's last answer (for statusMax), kept until
	// an image is added: every node status post asks for it, and the API
	// treats the list as read-only, so successive posts share it.
	status    []corev1.ContainerImage
	statusMax int
}

func newImageStore() *imageStore {
	return &imageStore{byName: map[string]*workload.Image{}, byDigest: map[string]*workload.Image{}}
}

// lookup is the runtime's ImageStatus: is the image this reference names on
// the node? A tag matches only if it was pulled under that name, as in
// containerd.
func (s *imageStore) lookup(ref workload.Reference) *workload.Image {
	key, isDigest := storeKey(ref)
	return s.lookupKey(key, isDigest)
}

// lookupKey is lookup by the name storeKey gives.
func (s *imageStore) lookupKey(key string, isDigest bool) *workload.Image {
	if isDigest {
		return s.byDigest[key]
	}
	return s.byName[key]
}

// storeKey is the name an image store files a reference under: its digest
// name if it has a digest, else its tagged name.
func storeKey(ref workload.Reference) (key string, isDigest bool) {
	ref = ref.Tagged()
	if ref.Digest != "" {
		return ref.Repository() + "@" + ref.Digest, true
	}
	return ref.String(), false
}

// hasLayers reports whether img's content is on the node already, under
// whatever name: a pull of it then only fetches the manifest.
func (s *imageStore) hasLayers(img *workload.Image) bool {
	return s.byDigest[img.DigestRef()] != nil
}

// add records a pull of ref that resolved to img. It reports whether the
// node's image list changed.
func (s *imageStore) add(ref workload.Reference, img *workload.Image) bool {
	key, isDigest := storeKey(ref)
	return s.addKey(key, isDigest, img)
}

// addKey is add by the name storeKey gives (an imageRef has it made
// already): a reference with a digest is filed by digest only.
func (s *imageStore) addKey(key string, isDigest bool, img *workload.Image) bool {
	changed := false
	if s.byDigest[img.DigestRef()] == nil {
		s.byDigest[img.DigestRef()] = img
		changed = true
	}
	if !isDigest && s.byName[key] != img {
		s.byName[key] = img
		changed = true
	}
	if changed {
		s.status = nil
	}
	return changed
}

// maxNamesPerImageInNodeStatus is the kubelet's cap on names per image.
const maxNamesPerImageInNodeStatus = 5

// nodeStatusImages is status.images: largest first (the kubelet sorts by
// size), each with its digest name and the tags it was pulled as.
func (s *imageStore) nodeStatusImages(max int) []corev1.ContainerImage {
	if s.status == nil || s.statusMax != max {
		s.status, s.statusMax = s.makeStatusImages(max), max
	}
	return s.status
}

func (s *imageStore) makeStatusImages(max int) []corev1.ContainerImage {
	tags := map[*workload.Image][]string{}
	for name, img := range s.byName {
		tags[img] = append(tags[img], name)
	}
	out := make([]corev1.ContainerImage, 0, len(s.byDigest))
	for digestRef, img := range s.byDigest {
		names := append([]string{digestRef}, sorted(tags[img])...)
		if len(names) > maxNamesPerImageInNodeStatus {
			names = names[:maxNamesPerImageInNodeStatus]
		}
		out = append(out, corev1.ContainerImage{Names: names, SizeBytes: img.SizeBytes})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].SizeBytes != out[j].SizeBytes {
			return out[i].SizeBytes > out[j].SizeBytes
		}
		return out[i].Names[0] < out[j].Names[0]
	})
	if len(out) > max {
		out = out[:max]
	}
	return out
}

func sorted(s []string) []string {
	sort.Strings(s)
	return s
}

// pullRequest is one pod's request to pull one image.
type pullRequest struct {
	p         *podState
	c         *ctr // the image is c.shared.image
	requested sim.Tick
	started   sim.Tick
	done      sim.Tick
	img       *workload.Image     // set when the pull succeeded
	err       *workload.PullError // set when it failed
	abandoned bool                // the pod stopped waiting (it is being deleted)
	changed   bool                // the pull changed the node's image list
	// timer ends the pull: a request is pulled once, and its timer,
	// kept here, costs no allocation of its own.
	timer sim.Timer
}

// puller is the kubelet's image puller. Serialized (the default), it pulls
// one image at a time in request order, so a pod may wait for other pods'
// pulls: that wait is the "including waiting" of the Pulled event.
type puller struct {
	k       *Kubelet
	queue   fifo[*pullRequest]
	running int
}

func (pl *puller) add(r *pullRequest) (waitingBehind int) {
	waitingBehind = pl.queue.len() + pl.running
	if !pl.k.m.cfg.SerializeImagePulls {
		waitingBehind = 0
	}
	pl.queue.push(r)
	pl.startNext()
	return waitingBehind
}

func (pl *puller) startNext() {
	for pl.queue.len() > 0 && (pl.running == 0 || !pl.k.m.cfg.SerializeImagePulls) {
		r := pl.queue.pop()
		pl.running++
		k := pl.k
		r.started = k.now()
		// The registry is asked when the pull starts, not when it was
		// requested: an image pushed in the meantime is found.
		img, err := k.m.images.Resolve(r.c.shared.image.ref)
		var d sim.Tick
		if err != nil {
			r.err = err.(*workload.PullError)
			d = k.m.cfg.pullTime(nil, false)
		} else {
			r.img = img
			d = k.m.cfg.pullTime(img, k.images.hasLayers(img))
		}
		// Not a wake-up (sim.Loop.ArmWake): finishing a pull starts the
		// next one from the queue that other pods' steps fill, so it must
		// see what ran before it in its tick.
		k.m.env.Loop.Arm(&r.timer, k.now()+d, k.pullLabel, func() { pl.finish(r) })
	}
}

func (pl *puller) finish(r *pullRequest) {
	k := pl.k
	pl.running--
	r.done = k.now()
	k.stats.ImagePulls++
	if r.img != nil && k.images.addKey(r.c.shared.image.key, r.c.shared.image.isDigest, r.img) {
		k.nodeStatusChanged, r.changed = true, true
	}
	if !k.stopped && !r.abandoned {
		p := r.p
		if p.op == opPull && p.pull() == r {
			p.opDone = true
			k.enqueue(p)
		}
	}
	if !k.stopped {
		pl.startNext()
	}
}

// backOff is client-go's flowcontrol.Backoff for one key, without jitter
// (the kubelet's image back-off has none): the delay starts at initial,
// doubles at each failure up to max, and starts over when the last failure
// is more than 2 × max old.
type backOff struct {
	delay      sim.Tick
	lastUpdate sim.Tick
	set        bool
}

// next records a failure at now.
func (b *backOff) next(now, initial, max sim.Tick) {
	if !b.set || now-b.lastUpdate > 2*max {
		b.delay = initial
	} else {
		b.delay = min(2*b.delay, max)
	}
	b.set = true
	b.lastUpdate = now
}

// inBackOff is IsInBackOffSinceUpdate: true while now is within the delay
// after the last failure.
func (b *backOff) inBackOff(now, max sim.Tick) bool {
	if !b.set || now-b.lastUpdate > 2*max {
		return false
	}
	return now-b.lastUpdate < b.delay
}

// expiry is when the current back-off window ends.
func (b *backOff) expiry() sim.Tick { return b.lastUpdate + b.delay }
