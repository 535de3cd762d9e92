package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

func init() { VerifyEncoding = true }

// at is a virtual instant with milliseconds, in UTC as the engine's clock gives.
func at(ms int) metav1.Time {
	return metav1.NewTime(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(ms) * time.Millisecond))
}

func typedPod(name string) *corev1.Pod {
	p := kinds.Pod.New().(*corev1.Pod)
	p.Namespace, p.Name, p.CreationTimestamp = "default", name, at(1500)
	p.Spec.Containers = []corev1.Container{{Name: "web", Image: "nginx:1.27"}}
	return p
}

func sameJSON(t *testing.T, what string, got, want Object) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) || !equality.Semantic.DeepEqual(got, want) {
		t.Errorf("%s:\n got %s\nwant %s", what, g, w)
	}
}

// A pod's superseded versions, once every watcher has seen the write that
// superseded them, are kept encoded; reading history gives them back
// exactly, milliseconds and zones included, while the current version stays
// the shared typed object.
func TestSealedHistoryReadsBackExactly(t *testing.T) {
	s := New()
	start := s.Rev()
	p := typedPod("a")
	s.Create(p, 1)
	versions := []*corev1.Pod{p}
	for i, phase := range []corev1.PodPhase{corev1.PodPending, corev1.PodRunning} {
		next := versions[len(versions)-1].DeepCopy()
		next.Status.Phase = phase
		next.Status.StartTime = &metav1.Time{Time: at(2345 + i).Time}
		next.Status.Conditions = append(next.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady,
			Status: corev1.ConditionTrue, LastTransitionTime: at(4999 + i)})
		if _, err := s.Update(next, uint64(2+i)); err != nil {
			t.Fatal(err)
		}
		versions = append(versions, next)
	}
	before, _ := s.Since(start)
	if before[1].Object != Object(versions[1]) {
		t.Fatal("unsealed history must be the written objects themselves (what the engine delivers)")
	}
	s.Seal(s.Rev())
	evs, err := s.Since(start)
	if err != nil || len(evs) != 3 {
		t.Fatalf("Since = %d events, %v; want 3", len(evs), err)
	}
	for i, ev := range evs {
		sameJSON(t, "version "+ev.Type.String(), ev.Object, versions[i])
		if !equality.Semantic.DeepEqual(ev.Object, versions[i]) {
			t.Errorf("version %d differs after decoding", i)
		}
		if i > 0 {
			sameJSON(t, "old of version", ev.Old, versions[i-1])
		}
		if ev.Cause != uint64(i+1) || ev.Key() != "/registry/pods/default/a" {
			t.Errorf("event %d: cause %d key %q", i, ev.Cause, ev.Key())
		}
	}
	got := evs[1].Object.(*corev1.Pod).Status.StartTime.Time
	if got.Location() != time.UTC || got.Nanosecond() != 345e6 {
		t.Errorf("start time decoded as %v; want ...:02.345 UTC", got)
	}
	if evs[2].Object != Object(versions[2]) {
		t.Error("the current version must stay the shared typed object")
	}
	if cur, _ := s.Lookup(kinds.Pod, "default", "a"); cur != Object(versions[2]) {
		t.Error("Lookup must return the shared current object")
	}
	// A delete's last state is both its object and its old object.
	s.Delete(kinds.Pod, "default", "a", "", 9)
	s.Seal(s.Rev())
	evs, _ = s.Since(s.Rev() - 1)
	if evs[0].Object != evs[0].Old {
		t.Error("a decoded delete must hand out one object as both its object and its old object")
	}
	sameJSON(t, "deleted", evs[0].Object, versions[2])
}

// Events are kept encoded even while current: every read decodes a new
// copy, indexes still work, and updates and deletes see the right version.
func TestEventsAreKeptAtRest(t *testing.T) {
	s := New()
	s.AddIndex(kinds.Event, "reason", func(o Object) []string { return []string{o.(*corev1.Event).Reason} })
	ev := kinds.Event.New().(*corev1.Event)
	ev.Namespace, ev.Name, ev.Reason, ev.Count = "default", "a.1", "Pulled", 1
	ev.FirstTimestamp, ev.LastTimestamp = at(1234), at(1234)
	s.Create(ev, 0)
	if w, _ := s.Watch(s.Rev() - 1); w[0].Object != nil {
		t.Error("a watch must carry no object for an Event: the store keeps only its bytes")
	}
	if h, _ := s.Since(s.Rev() - 1); h[0].Object == Object(ev) || h[0].Object.(*corev1.Event).Reason != "Pulled" {
		t.Error("Since must decode an Event, sealed or not, and never hand back the caller's object")
	}
	*ev = corev1.Event{} // the caller may reuse its object: the store kept none of it
	one, _ := s.Lookup(kinds.Event, "default", "a.1")
	two, _ := s.Lookup(kinds.Event, "default", "a.1")
	if one == two {
		t.Error("an Event at rest must decode to a new object on each read")
	}
	if e := one.(*corev1.Event); e.Name != "a.1" || e.Reason != "Pulled" || e.FirstTimestamp != at(1234) {
		t.Errorf("decoded Event = %+v", e)
	}
	if got := s.ByIndexShared(kinds.Event, "reason", "Pulled"); len(got) != 1 || got[0].GetName() != "a.1" {
		t.Fatalf("ByIndexShared = %v", got)
	}
	bump := one.(*corev1.Event).DeepCopy()
	bump.Count, bump.LastTimestamp = 2, at(2500)
	if _, err := s.Update(bump, 0); err != nil {
		t.Fatal(err)
	}
	s.Seal(s.Rev())
	evs, _ := s.Since(s.Rev() - 1)
	if evs[0].Old.(*corev1.Event).Count != 1 || evs[0].Object.(*corev1.Event).Count != 2 {
		t.Errorf("update of an Event at rest: old count %d, new %d; want 1, 2",
			evs[0].Old.(*corev1.Event).Count, evs[0].Object.(*corev1.Event).Count)
	}
	if l := s.List(kinds.Event, "default"); len(l) != 1 || l[0].(*corev1.Event).LastTimestamp.Time.Nanosecond() != 500e6 {
		t.Errorf("List = %v", l)
	}
	if old, _, err := s.Delete(kinds.Event, "default", "a.1", "", 0); err != nil || old.(*corev1.Event).Count != 2 {
		t.Errorf("Delete = %v, %v", old, err)
	}
	if s.Count(kinds.Event) != 0 || s.CountByIndex(kinds.Event, "reason", "Pulled") != 0 {
		t.Error("the Event is still there after Delete")
	}
}

// Kinds the store does not encode (their JSON cannot survive protobuf
// exactly, like an EndpointSlice's "endpoints": []) stay typed in history.
func TestUnencodedKindsStayTyped(t *testing.T) {
	s := New()
	svc := kinds.Service.New().(*corev1.Service)
	svc.Namespace, svc.Name = "default", "web"
	s.Create(svc, 0)
	next := svc.DeepCopy()
	next.Labels = map[string]string{"a": "b"}
	s.Update(next, 0)
	s.Seal(s.Rev())
	evs, _ := s.Since(s.Rev() - 2)
	if evs[0].Object != Object(svc) || evs[1].Old != Object(svc) {
		t.Error("a Service's history must keep the typed objects")
	}
}

// SinceOf reads only the kinds asked for, decoded; LastWrite finds an
// object's latest write without decoding anything.
func TestSinceOfAndLastWrite(t *testing.T) {
	s := New()
	start := s.Rev()
	p := typedPod("a")
	s.Create(p, 7)
	ev := kinds.Event.New().(*corev1.Event)
	ev.Namespace, ev.Name, ev.Reason = "default", "a.1", "Pulled"
	s.Create(ev, 8)
	next := p.DeepCopy()
	next.Status.Phase = corev1.PodRunning
	s.Update(next, 9)
	s.Seal(s.Rev())
	pods, err := s.SinceOf(start, kinds.Pod)
	if err != nil || len(pods) != 2 || pods[0].Kind != kinds.Pod || pods[1].Old == nil {
		t.Fatalf("SinceOf(pods) = %v, %v", pods, err)
	}
	sameJSON(t, "created pod", pods[0].Object, p)
	if rev, typ, cause, ok := s.LastWrite(kinds.Pod, "default", "a"); !ok || rev != s.Rev() || typ != Modified || cause != 9 {
		t.Errorf("LastWrite = %d %v %d %v; want %d MODIFIED 9 true", rev, typ, cause, ok, s.Rev())
	}
	if _, _, _, ok := s.LastWrite(kinds.Pod, "default", "nope"); ok {
		t.Error("LastWrite found a write to an object never written")
	}
	s.Compact(s.Rev())
	if _, err := s.SinceOf(start, kinds.Pod); err == nil {
		t.Error("SinceOf before the compaction must fail as Since does")
	}
}

// An object larger than the encoding scratch buffer is measured first and
// still reads back exactly.
func TestEncodeLargerThanScratch(t *testing.T) {
	s := New()
	p := typedPod("big")
	p.Annotations = map[string]string{"note": string(make([]byte, encScratch+1000))}
	b := s.encode(kinds.Pod, p, nil, false)
	if b == nil {
		t.Fatal("a large pod was not encoded")
	}
	sameJSON(t, "large pod", b.decode(kinds.Pod), p)
	if set := s.refs[refKey{k: kinds.Pod, header: b.data[0]}]; set != nil && set.refs[0] != nil && set.refs[0].b == b {
		t.Error("a one-off large version became a reference, with an index four times its size")
	}
	if len(s.encBuf) > encScratch {
		t.Error("the store kept a one-off large encoding buffer")
	}
	small := runningPod()
	sameJSON(t, "pod after a large one", s.encode(kinds.Pod, small, nil, false).decode(kinds.Pod), small)
}

// A version that changed only its status keeps only its status; one that
// changed its spec keeps its spec and status, against the last whole
// version; one that changed its metadata is whole. Every version still
// reads back exactly.
func TestStatusOnlyVersionsShareTheirBase(t *testing.T) {
	s := New()
	start := s.Rev()
	p := typedPod("a")
	s.Create(p, 0)
	versions := []*corev1.Pod{p}
	write := func(change func(*corev1.Pod)) {
		next := versions[len(versions)-1].DeepCopy()
		change(next)
		if _, err := s.Update(next, 0); err != nil {
			t.Fatal(err)
		}
		versions = append(versions, next)
	}
	write(func(p *corev1.Pod) { p.Status.Phase = corev1.PodPending })                                                // status only
	write(func(p *corev1.Pod) { p.Spec.NodeName = "n1" })                                                            // spec and status
	write(func(p *corev1.Pod) { p.Status.PodIP = "10.244.0.5" })                                                     // status only
	write(func(p *corev1.Pod) { p.Status.Phase, p.Status.StartTime = "Running", &metav1.Time{Time: at(7777).Time} }) // status only
	write(func(p *corev1.Pod) { p.Labels = map[string]string{"a": "b"} })                                            // metadata: whole
	write(func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded })                                              // status only
	s.Seal(s.Rev())
	blobs := make([]*blob, 0, len(versions)-1)
	for i := 0; i < len(versions)-1; i++ {
		at, _ := s.entryAt(start + 1 + int64(i))
		ev := s.history.event(at)
		if ev.obj == nil {
			t.Fatalf("version %d was not sealed", i)
		}
		blobs = append(blobs, ev.obj)
	}
	// Each version's base (-1 for a whole one, whose spec the store shares
	// with other pods: its base is that spec) and the first field it keeps.
	wantBase, wantFrom := []int{-1, 0, 0, 2, 2, -1}, []int{1, 3, 2, 3, 3, 1}
	for i, b := range blobs {
		switch {
		case b.from() != wantFrom[i]:
			t.Errorf("version %d keeps its fields from %d on; want %d", i, b.from(), wantFrom[i])
		case wantBase[i] < 0 && (b.base == nil || b.data[0]&sharedSpec == 0 || b.base.data[sharedSpecAt:] != string(specBytes(t, versions[i]))):
			t.Errorf("version %d does not share its spec; want it whole, with its spec shared", i)
		case wantBase[i] >= 0 && b.base != blobs[wantBase[i]]:
			t.Errorf("version %d's base is not version %d", i, wantBase[i])
		case len(b.data) >= versions[i].Size():
			t.Errorf("version %d keeps %d bytes, all of its %d", i, len(b.data), versions[i].Size())
		}
	}
	evs, _ := s.Since(start)
	for i, ev := range evs {
		sameJSON(t, "version", ev.Object, versions[i])
		if got := ev.Object.GetResourceVersion(); got != versions[i].ResourceVersion {
			t.Errorf("version %d resourceVersion %s; want %s", i, got, versions[i].ResourceVersion)
		}
	}
}

// ModRev reads an object's latest revision without decoding it, kept at
// rest or not; KeyAt names the key a revision wrote, as the store's string.
func TestModRevAndKeyAt(t *testing.T) {
	s := New()
	ev := kinds.Event.New().(*corev1.Event)
	ev.Namespace, ev.Name, ev.Reason = "default", "a.1", "Pulled"
	rev, _ := s.Create(ev, 0)
	prev, _ := s.Create(typedPod("a"), 0)
	if got, ok := s.ModRev(kinds.Event, "default", "a.1"); !ok || got != rev {
		t.Errorf("ModRev(event) = %d, %v; want %d", got, ok, rev)
	}
	if got, ok := s.ModRev(kinds.Pod, "default", "a"); !ok || got != prev {
		t.Errorf("ModRev(pod) = %d, %v; want %d", got, ok, prev)
	}
	if _, ok := s.ModRev(kinds.Pod, "default", "nope"); ok {
		t.Error("ModRev found an object never written")
	}
	if key, ok := s.KeyAt(rev); !ok || key != "/registry/events/default/a.1" {
		t.Errorf("KeyAt(%d) = %q, %v", rev, key, ok)
	}
	s.Compact(s.Rev())
	if _, ok := s.KeyAt(rev); ok {
		t.Error("KeyAt answered for a compacted revision")
	}
}

// LastWrite of a deleted object searches the log; of one written before the
// last compaction, finds nothing.
func TestLastWriteOfDeletedAndCompacted(t *testing.T) {
	s := New()
	s.Create(typedPod("gone"), 3)
	s.Create(typedPod("old"), 4)
	s.Compact(s.Rev())
	s.Create(typedPod("x"), 5)
	s.Delete(kinds.Pod, "default", "gone", "", 6)
	if rev, typ, cause, ok := s.LastWrite(kinds.Pod, "default", "gone"); !ok || rev != s.Rev() || typ != Deleted || cause != 6 {
		t.Errorf("LastWrite(deleted) = %d %v %d %v; want %d DELETED 6 true", rev, typ, cause, ok, s.Rev())
	}
	if _, _, _, ok := s.LastWrite(kinds.Pod, "default", "old"); ok {
		t.Error("LastWrite found a write that compaction removed")
	}
}

// A blob is 32 bytes (the allocator's class below 48): there are two for
// every pod's Event and superseded version, so a field more costs 16
// bytes each; keep what a new field would hold in data instead.
func TestBlobIs32Bytes(t *testing.T) {
	if got := reflect.TypeFor[blob]().Size(); got != 32 {
		t.Errorf("a blob is %d bytes; want 32", got)
	}
}

// Versions' bytes read back whatever their length, cut from blocks or
// allocated alone, and a block filled to its end leaves every version cut
// from it whole. Short versions cut from a block cost no allocation each.
func TestVersionBytesReadBack(t *testing.T) {
	s := New()
	type kept struct{ got, want string }
	var all []kept
	sizes := []int{0, 1, 127, 128, slabSize / 8, slabSize/8 + 1, slabSize, slabSize + 1}
	for i := range 3000 { // more than a block's worth of short ones
		sizes = append(sizes, 5+i%90)
	}
	write := func(n int, slab bool, c byte) kept {
		want := strings.Repeat(string(c), n)
		w, start := s.dataWriter(n, slab)
		w.WriteString(want)
		return kept{w.String()[start:], want}
	}
	for i, n := range sizes {
		for _, slab := range []bool{true, false} {
			all = append(all, write(n, slab, byte('a'+i%26)))
		}
	}
	for i, k := range all {
		if k.got != k.want {
			t.Fatalf("version %d (%d bytes) reads back %d bytes: %.20q", i, len(k.want), len(k.got), k.got)
		}
	}
	a, b := write(40, true, 'x'), write(40, true, 'y')
	if unsafe.Add(unsafe.Pointer(unsafe.StringData(a.got)), len(a.got)) != unsafe.Pointer(unsafe.StringData(b.got)) {
		t.Error("two short versions written one after the other are not cut from one block")
	}
	short := strings.Repeat("z", 50)
	if n := testing.AllocsPerRun(1000, func() {
		w, _ := s.dataWriter(len(short), true)
		w.WriteString(short)
	}); n > 0.1 {
		t.Errorf("a short version cut from a block costs %.2f allocations", n)
	}
}

// specBytes is the encoding of p's spec field.
func specBytes(t *testing.T, p *corev1.Pod) []byte {
	t.Helper()
	c := p.DeepCopy()
	c.ResourceVersion = ""
	enc, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	specAt, statusAt, ok := topFields(kinds.Pod, enc)
	if !ok {
		t.Fatal("a pod's encoding is not metadata, spec, status")
	}
	return enc[specAt:statusAt]
}

// Pods made from one template share their first version's spec: each keeps
// its metadata and status, and reads back exactly. A pod with another spec
// has its own, and past maxSharedSpecs specs the store starts afresh
// without losing what versions share.
func TestNewPodsShareTheirSpec(t *testing.T) {
	s := New()
	start := s.Rev()
	var pods []*corev1.Pod
	for i := range 2*maxSharedSpecs + 5 { // every odd pod has a spec of its own: the store starts afresh

		p := typedPod(fmt.Sprintf("web-%d", i))
		if i%2 == 1 {
			p.Spec.Containers[0].Image = fmt.Sprintf("nginx:1.%d", i) // a spec of its own
		}
		s.Create(p, 0)
		next := p.DeepCopy()
		next.Spec.NodeName = "n1" // bound: the created version is superseded
		if _, err := s.Update(next, 0); err != nil {
			t.Fatal(err)
		}
		pods = append(pods, p)
	}
	s.Seal(s.Rev())
	created := func(i int) *blob {
		at, _ := s.entryAt(start + 1 + 2*int64(i))
		return s.history.event(at).obj
	}
	if a, b := created(0), created(2); a.base == nil || a.base != b.base {
		t.Error("two pods made from one spec do not share it")
	}
	if a, b := created(0), created(1); a.base == b.base {
		t.Error("pods with different specs share one")
	}
	if a, b := created(2*maxSharedSpecs+2), created(2*maxSharedSpecs+4); a.base == nil || a.base != b.base {
		t.Error("after the store started afresh, two pods made from one spec do not share it")
	}
	evs, _ := s.Since(start)
	for i, p := range pods {
		sameJSON(t, "a created version", evs[2*i].Object, p)
	}
}

// The versions of many pods at one step of their lives are kept as deltas
// of one of them, a few bytes each, and read back exactly; so are the
// Events of one reason. A version unlike its kind's references is kept
// whole and becomes one.
func TestVersionsAreDeltasOfOtherObjects(t *testing.T) {
	s := New()
	start := s.Rev()
	var want []Object
	for i := range 50 {
		p := runningPod()
		p.Name, p.UID = fmt.Sprintf("api-7d9f8c6b5-%05d", i), types.UID(fmt.Sprintf("9fe6992d-c808-4e10-a1a4-%012d", i))
		p.Status.PodIP = fmt.Sprintf("10.244.%d.%d", i/250, i%250)
		s.Create(p, 0)
		next := p.DeepCopy()
		next.Status.Phase = corev1.PodSucceeded
		if _, err := s.Update(next, 0); err != nil {
			t.Fatal(err)
		}
		last := next.DeepCopy()
		last.Status.Message = "done"
		if _, err := s.Update(last, 0); err != nil {
			t.Fatal(err)
		}
		ev := kinds.Event.New().(*corev1.Event)
		ev.Namespace, ev.Name, ev.Reason = "default", p.Name+".1816687ec0570295", "Pulled"
		ev.InvolvedObject = corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: p.Name, UID: p.UID}
		ev.Message = `Successfully pulled image "nginx:1.27" in 400ms (400ms including waiting). Image size: 68857691 bytes.`
		s.Create(ev, 0)
		want = append(want, p, next, last, ev)
	}
	whole, deltas, kept := 0, 0, 0
	for i, b := range sealedVersions(t, s, start, want) {
		if b == nil { // the current version of a pod is typed
			continue
		}
		if b.ref == nil {
			whole++
			continue
		}
		deltas++
		kept += len(b.data)
		if b.ref.ref != nil {
			t.Errorf("version %d is a delta of a delta", i)
		}
	}
	if whole > 6 || deltas < 140 {
		t.Errorf("%d versions kept whole and %d as deltas; want the first of each shape whole and the rest deltas", whole, deltas)
	}
	if avg := kept / max(deltas, 1); avg > 64 {
		t.Errorf("a delta keeps %d bytes on average; want at most 64", avg)
	}
}

// sealedVersions seals s's history, checks that the writes after start
// read back as want, and returns the versions they wrote, encoded (nil for
// one still typed).
func sealedVersions(t *testing.T, s *Store, start int64, want []Object) []*blob {
	t.Helper()
	s.Seal(s.Rev())
	evs, _ := s.Since(start)
	blobs := make([]*blob, len(evs))
	for i, e := range evs {
		sameJSON(t, "a version", e.Object, want[i])
		blobs[i] = e.obj
	}
	return blobs
}

// A shape of version keeps refWays references, the most useful first, and
// past maxRefSets shapes the store forgets them all; versions keep theirs
// and read back.
func TestReferencesAreBounded(t *testing.T) {
	s := New()
	start := s.Rev()
	var want []Object
	for i := range maxRefSets + 10 {
		ev := kinds.Event.New().(*corev1.Event)
		ev.Namespace, ev.Name, ev.Reason = "default", fmt.Sprintf("web-%d.1816687ec0570295", i), fmt.Sprintf("Reason%d", i/2)
		ev.Message = fmt.Sprintf("a message long enough to be worth a delta, number %d", i)
		s.Create(ev, 0)
		want = append(want, ev)
		if len(s.refs) > maxRefSets {
			t.Fatalf("the store keeps references for %d shapes; want at most %d", len(s.refs), maxRefSets)
		}
	}
	if len(s.refs) >= maxRefSets {
		t.Errorf("the store never started afresh: %d shapes", len(s.refs))
	}
	evs, _ := s.Since(start)
	for i, e := range evs {
		sameJSON(t, "an Event", e.Object, want[i])
	}
	key := refKey{k: kinds.Pod, header: 1}
	bodies := []string{strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("c", 40), strings.Repeat("d", 40), strings.Repeat("e", 40)}
	for _, body := range bodies {
		s.remember(key, &blob{data: body}, body)
	}
	set := s.refs[key]
	for i, r := range set.refs {
		if want := bodies[len(bodies)-1-i]; r.b.data != want {
			t.Errorf("reference %d is %q; want %q (the newest first, the oldest forgotten)", i, r.b.data, want)
		}
	}
	if ref, _ := s.compress(key, []byte(bodies[2])); ref == nil || ref.data != bodies[2] {
		t.Fatal("a version was not a delta of the reference it is")
	}
	for i, want := range []string{bodies[2], bodies[4], bodies[3], bodies[1]} {
		if set.refs[i].b.data != want {
			t.Errorf("after a delta of %q, reference %d is %q; want %q (the one used moves first)", bodies[2], i, set.refs[i].b.data, want)
		}
	}
}

// A shape whose versions do not repeat across objects (every body unlike
// the last) stops being indexed at every version: after missesToSample
// misses in a row, one version in sampleEvery becomes a reference, and a
// version is tried against one reference, not refWays. A hit starts over.
func TestShapesThatDoNotRepeatAreSampled(t *testing.T) {
	s := New()
	key := refKey{k: kinds.Lease, header: 1}
	body := func(i int) string { // 64 hex digits, unlike any other's
		sum := sha256.Sum256([]byte(strconv.Itoa(i)))
		return hex.EncodeToString(sum[:])
	}
	made := 0
	encode := func(b string) {
		if ref, _ := s.compress(key, []byte(b)); ref == nil {
			before := s.refs[key]
			var first *reference
			if before != nil {
				first = before.refs[0]
			}
			s.remember(key, &blob{data: b}, b)
			if set := s.refs[key]; set.refs[0] != first {
				made++
			}
		}
	}
	for i := range 100 {
		encode(body(i))
	}
	if want := missesToSample + 100/sampleEvery; made > want+1 {
		t.Errorf("100 versions of a shape that does not repeat made %d references; want about %d", made, want)
	}
	same := strings.Repeat("z", 64)
	encode(same)
	encode(same) // hits, if the first was sampled; else the next one will
	for range sampleEvery {
		encode(same)
	}
	if m := s.refs[key].misses; m != 0 {
		t.Errorf("after versions that repeat, %d misses in a row; want 0", m)
	}
}

// TestCanonicalRV checks canonicalRV against what it replaces: ParseInt,
// then FormatInt of the result compared with the input.
func TestCanonicalRV(t *testing.T) {
	for _, v := range []string{"", "0", "1", "7", "10", "123456789", "9223372036854775807", "9223372036854775808",
		"00", "01", "+1", "-1", "-0", "+0", "1a", "a1", " 1", "1 ", "0x1", "1_000", "١"} {
		n, err := strconv.ParseInt(v, 10, 64)
		wantOK := err == nil && n >= 0 && strconv.FormatInt(n, 10) == v
		got, ok := canonicalRV(v)
		if ok != wantOK || ok && got != n {
			t.Errorf("canonicalRV(%q) = %d, %v; want %d, %v", v, got, ok, n, wantOK)
		}
	}
}

// TestTimesReadBack checks the times trailer (see timeSet) for every form
// a time can take: zero, whole seconds, milliseconds (the engine's clock),
// nanoseconds, in UTC and in the local zone.
func TestTimesReadBack(t *testing.T) {
	base := time.Date(2025, 1, 1, 0, 0, 1, 0, time.UTC)
	for _, tm := range []time.Time{{}, base, base.Add(345 * time.Millisecond), base.Add(999 * time.Millisecond),
		base.Add(1), base.Add(999_999_999), base.Add(123_456_789), base.Add(7 * time.Millisecond).Local(), base.Add(42).Local()} {
		p := typedPod("a")
		p.Status.StartTime = &metav1.Time{Time: tm}
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, LastTransitionTime: metav1.Time{Time: tm}}}
		b := New().encode(kinds.Pod, p, nil, false) // VerifyEncoding checks the round trip
		got := b.decode(kinds.Pod).(*corev1.Pod)
		if !got.Status.StartTime.Time.Equal(tm) || got.Status.StartTime.Location() != tm.Location() ||
			got.Status.Conditions[0].LastTransitionTime.Time != p.Status.Conditions[0].LastTransitionTime.Time {
			t.Errorf("time %v decoded as %v, %v", tm, got.Status.StartTime, got.Status.Conditions[0].LastTransitionTime)
		}
	}
}

// A Deployment's status, written again and again as its pods become
// ready, is kept as a delta against an earlier status of its own (which
// is kept whole), not against another Deployment's, whose messages name
// another ReplicaSet; a status unlike both starts a new own reference.
// Every version reads back.
func TestStatusWritesAreDeltasOfTheirOwn(t *testing.T) {
	s := New()
	start := s.Rev()
	status := func(d *appsv1.Deployment, ready int32, msg string) {
		d.Status = appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 150, UpdatedReplicas: 150,
			ReadyReplicas: ready, AvailableReplicas: ready, UnavailableReplicas: 150 - ready}
		for _, c := range []struct {
			typ       appsv1.DeploymentConditionType
			reason, m string
		}{
			{appsv1.DeploymentAvailable, "MinimumReplicasUnavailable", "Deployment does not have minimum availability."},
			{appsv1.DeploymentProgressing, "ReplicaSetUpdated", fmt.Sprintf(msg, d.Name+"-7d9f8c6b5")},
		} {
			d.Status.Conditions = append(d.Status.Conditions, appsv1.DeploymentCondition{Type: c.typ, Status: corev1.ConditionTrue,
				Reason: c.reason, Message: c.m, LastUpdateTime: at(1000 + int(ready)*7), LastTransitionTime: at(1000)})
		}
	}
	var want []Object
	const writes = 40
	for i := range 3 {
		d := kinds.Deployment.New().(*appsv1.Deployment)
		d.Namespace, d.Name, d.CreationTimestamp = "default", fmt.Sprintf("app-%04d", i), at(1000)
		d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "web", Image: "nginx:1.27"}}
		s.Create(d, 0)
		want = append(want, d)
		for step := range writes {
			next := want[len(want)-1].(*appsv1.Deployment).DeepCopy()
			msg := "ReplicaSet %q is progressing."
			if step >= writes/2 {
				msg = "ReplicaSet %q has successfully progressed." // unlike the own reference: a new one
			}
			status(next, int32(step), msg)
			if _, err := s.UpdateStatusOnly(next, 0); err != nil {
				t.Fatal(err)
			}
			want = append(want, next)
		}
	}
	kept, deltas, owns := 0, 0, 0
	for i, b := range sealedVersions(t, s, start, want) {
		if b == nil || b.base == nil || b.from() != 3 || b.ref == nil {
			continue // the current version, the first, and those kept whole
		}
		if b.ref.ref != nil {
			t.Errorf("version %d is a delta of a delta", i)
		}
		deltas++
		kept += len(b.data)
		if b.ref.base == b.base {
			owns++
		}
	}
	// Per Deployment: the first status against the created version's
	// base, the second whole, the third on against it until the message
	// changes, which is kept whole again.
	if wantOwn := 3 * (writes - 5); owns < wantOwn || deltas > owns+3 {
		t.Errorf("%d status versions are deltas, %d of them against their own object's; want %d of %d", deltas, owns, wantOwn, 3*(writes-3))
	}
	if avg := kept / max(deltas, 1); avg > 24 {
		t.Errorf("a status delta keeps %d bytes on average; want at most 24", avg)
	}
}

// A ReplicaSet's status, a few counts in a body shorter than minDeltaOf,
// is a delta against an earlier status of its own when that takes at
// most half of it, and its blob's data then fits 16 bytes; one that
// changes more is kept whole. Every version reads back.
func TestShortStatusWritesAreDeltasOfTheirOwn(t *testing.T) {
	s := New()
	start := s.Rev()
	rs := kinds.ReplicaSet.New().(*appsv1.ReplicaSet)
	rs.Namespace, rs.Name, rs.CreationTimestamp = "default", "app-0042-7d9f8c6b5", at(1000)
	rs.Spec.Template.Spec.Containers = []corev1.Container{{Name: "web", Image: "nginx:1.27"}}
	s.Create(rs, 0)
	want := []Object{rs}
	const writes = 20
	for step := range writes {
		next := want[len(want)-1].(*appsv1.ReplicaSet).DeepCopy()
		ready := int32(step)
		if step >= writes/2 {
			ready += 100 // a jump in every count, from here on
		}
		next.Status = appsv1.ReplicaSetStatus{Replicas: 150, FullyLabeledReplicas: 150, ReadyReplicas: ready,
			AvailableReplicas: ready, ObservedGeneration: 1}
		if step >= writes/2 {
			next.Status.Replicas, next.Status.FullyLabeledReplicas, next.Status.ObservedGeneration = 151, 151, 2
		}
		if _, err := s.UpdateStatusOnly(next, 0); err != nil {
			t.Fatal(err)
		}
		want = append(want, next)
	}
	deltas, whole := 0, 0
	for i, b := range sealedVersions(t, s, start, want) {
		if b == nil || b.base == nil || b.from() != 3 {
			continue // the current version and the created one
		}
		if b.ref == nil {
			whole++
			continue
		}
		if b.ref.ref != nil || b.ref.base != b.base {
			t.Errorf("version %d is not a delta of its own whole status", i)
		}
		if len(b.data) > 16 {
			t.Errorf("version %d keeps %d bytes; want at most 16", i, len(b.data))
		}
		deltas++
	}
	// The first status and the one that jumped are kept whole.
	if whole != 2 || deltas != writes-3 {
		t.Errorf("%d status versions are deltas and %d whole; want %d and 2", deltas, whole, writes-3)
	}
}

// A new pod's version is a delta against a pod of its own workload, not
// of another one interleaved with it, whose names, labels and owner all
// differ: one whole pod for each workload, and the rest small deltas.
func TestNewPodsAreDeltasOfTheirWorkloads(t *testing.T) {
	s := New()
	start := s.Rev()
	var want []Object
	for i := range 40 {
		app := []string{"api", "web"}[i%2]
		rs := app + "-7d9f8c6b5"
		p := typedPod(fmt.Sprintf("%s-%05d", rs, i))
		p.GenerateName, p.UID = rs+"-", types.UID(fmt.Sprintf("9fe6992d-c808-4e10-a1a4-%012d", i))
		p.Labels = map[string]string{"app": app, "pod-template-hash": "7d9f8c6b5"}
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs,
			UID: types.UID(fmt.Sprintf("0b5f2b9e-8d7c-4f6a-9e1b-%012d", i%2))}}
		s.Create(p, 0)
		next := p.DeepCopy()
		next.Spec.NodeName = "node-1"
		if _, err := s.Update(next, 0); err != nil {
			t.Fatal(err)
		}
		want = append(want, p, next)
	}
	whole, kept := 0, 0
	for i, b := range sealedVersions(t, s, start, want) {
		if i%2 == 1 {
			continue // a bound pod's version
		}
		if b.ref == nil {
			whole++
			continue
		}
		kept += len(b.data)
		if got := b.ref.decode(kinds.Pod).GetGenerateName(); got != want[i].GetGenerateName() {
			t.Errorf("new pod %s is a delta of a pod of %s", want[i].GetName(), got)
		}
	}
	if whole != 2 {
		t.Errorf("%d new pods kept whole; want one for each workload", whole)
	}
	if avg := kept / max(20-whole, 1); avg > 64 {
		t.Errorf("a new pod's delta keeps %d bytes on average; want at most 64", avg)
	}
}

// A version keeps whether it carried its kind's TypeMeta in a header bit;
// one that carried any other TypeMeta, which decoding could not give
// back, is not encoded.
func TestTypeMetaBit(t *testing.T) {
	for _, tc := range []struct {
		k                *kinds.Kind
		apiVersion, kind string
		bit              byte
		ok               bool
	}{
		{kinds.Pod, "", "", 0, true},
		{kinds.Pod, "v1", "Pod", 1, true},
		{kinds.Deployment, "apps/v1", "Deployment", 1, true},
		{kinds.Pod, "/v1", "Pod", 0, false},
		{kinds.Pod, "/", "", 0, false},
		{kinds.Pod, "v1", "", 0, false},
		{kinds.Pod, "", "Pod", 0, false},
		{kinds.Pod, "v1", "Node", 0, false},
		{kinds.Pod, "apps/v1", "Pod", 0, false},
		{kinds.Deployment, "v1", "Deployment", 0, false},
		{kinds.Deployment, "apps/v1beta1", "Deployment", 0, false},
		{kinds.Deployment, "apps/v1/x", "Deployment", 0, false},
		{kinds.Deployment, "extensions/v1", "Deployment", 0, false},
	} {
		obj := tc.k.New()
		obj.GetObjectKind().(*metav1.TypeMeta).APIVersion = tc.apiVersion
		obj.GetObjectKind().(*metav1.TypeMeta).Kind = tc.kind
		bit, ok := typeMetaBit(tc.k, obj)
		if ok != tc.ok || ok && bit != tc.bit {
			t.Errorf("%s with apiVersion %q, kind %q: bit %d, %v; want %d, %v", tc.k.Kind, tc.apiVersion, tc.kind, bit, ok, tc.bit, tc.ok)
		}
		if b := New().encode(tc.k, obj, nil, false); (b != nil) != tc.ok {
			t.Errorf("%s with apiVersion %q, kind %q: encoded %v; want %v", tc.k.Kind, tc.apiVersion, tc.kind, b != nil, tc.ok)
		}
	}
}

// A status that changes much at every write is not kept whole at every
// write, as each would be if each became its object's own reference: a
// version right after a whole one is a delta against a shared reference.
func TestStatusesThatChangeMuchAreNotAllWhole(t *testing.T) {
	s := New()
	start := s.Rev()
	d := kinds.Deployment.New().(*appsv1.Deployment)
	d.Namespace, d.Name, d.CreationTimestamp = "default", "app", at(1000)
	s.Create(d, 0)
	want := []Object{d}
	const writes = 20
	for step := range writes {
		next := want[len(want)-1].(*appsv1.Deployment).DeepCopy()
		sum := sha256.Sum256([]byte{byte(step)})
		next.Status = appsv1.DeploymentStatus{Replicas: 150, Conditions: []appsv1.DeploymentCondition{{
			Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "ReplicaSetUpdated",
			Message: "ReplicaSet is progressing, a message long enough to outweigh " + hex.EncodeToString(sum[:12])}}}
		if _, err := s.UpdateStatusOnly(next, 0); err != nil {
			t.Fatal(err)
		}
		want = append(want, next)
	}
	whole := 0
	for _, b := range sealedVersions(t, s, start, want) {
		if b != nil && b.ref == nil {
			whole++
		}
	}
	if whole > writes/2+1 {
		t.Errorf("%d of %d versions kept whole; want at most every other one", whole, writes+1)
	}
}
