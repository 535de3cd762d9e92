package store

import (
	"encoding/binary"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// An Event keeps its key whole, and its name, namespace and object's name
// and namespace read back from it, whatever they are: a name without a
// dot, with dots of its own, an object of another name or namespace.
func TestEventKeyReadsBack(t *testing.T) {
	for _, c := range []struct {
		ns, name, objectNS, object string
		keyKept                    bool
	}{
		{"default", "web-1.1816687ec0570295", "default", "web-1", true},
		{"default", "a.b.c.1816687ec0570295", "default", "a.b.c", true}, // dots in the object's name
		{"default", "no-dot", "default", "no-dot", true},
		{"default", "web-1.ff", "kube-system", "web-2", true},
		{"", ".1", "", "", true},
		{"a/b", "x.1", "a/b", "x", false}, // a namespace the key could not give back
	} {
		s := New()
		ev := kinds.Event.New().(*corev1.Event)
		ev.Namespace, ev.Name, ev.Reason = c.ns, c.name, "Pulled"
		ev.InvolvedObject = corev1.ObjectReference{Kind: "Pod", Namespace: c.objectNS, Name: c.object}
		want := ev.DeepCopy()
		b := s.encode(kinds.Event, ev, nil, false)
		sameJSON(t, "the caller's Event", ev, want)
		sameJSON(t, "the Event read back", b.decode(kinds.Event), want)
		key, ok := b.eventKey()
		if ok != c.keyKept || ok && key != string(kinds.Event.AppendKey(nil, c.ns, c.name)) {
			t.Errorf("%s/%s: key %q kept %v; want kept %v", c.ns, c.name, key, ok, c.keyKept)
		}
	}
}

func TestUUIDRoundTrip(t *testing.T) {
	for _, c := range []struct {
		s  string
		ok bool
	}{
		{"a3836313-52fd-4fce-b186-6faa86e1ccf7", true},
		{"00000000-0000-0000-0000-000000000000", true},
		{"A3836313-52fd-4fce-b186-6faa86e1ccf7", false}, // capitals would not come back
		{"a3836313-52fd-4fce-b186-6faa86e1ccf", false},
		{"a3836313-52fd-4fce-b186-6faa86e1ccf77", false},
		{"a383631352fd-4fce-b186-6faa86e1ccf7-", false}, // dashes elsewhere
		{"a3836313-52fd-4fce-b186-6faa86e1ccg7", false},
		{"", false},
		{"uid-1", false},
	} {
		u, ok := parseUUID(c.s)
		if ok != c.ok {
			t.Errorf("parseUUID(%q) ok = %v; want %v", c.s, ok, c.ok)
		}
		if ok && formatUUID(string(u[:])) != c.s {
			t.Errorf("formatUUID(parseUUID(%q)) = %q", c.s, formatUUID(string(u[:])))
		}
	}
}

// TestUUIDEveryByte: a UUID with any one byte replaced by any other
// parses exactly when that byte is still a lowercase hex digit in a digit
// place, or a dash in a dash place, and reads back as written, from a
// string (an Event's uid) as from bytes (a delta's literal) and through
// appendUUID as through formatUUID.
func TestUUIDEveryByte(t *testing.T) {
	const valid = "a3836313-52fd-4fce-b186-6faa86e1ccf7"
	for i := range len(valid) {
		dash := i == 8 || i == 13 || i == 18 || i == 23
		for c := range 256 {
			b := []byte(valid)
			b[i] = byte(c)
			want := dash && c == '-' || !dash && ('0' <= c && c <= '9' || 'a' <= c && c <= 'f')
			u, ok := parseUUID(string(b))
			if ok != want || ok && formatUUID(string(u[:])) != string(b) {
				t.Fatalf("parseUUID(%q) = %x, %v; want ok %v and the same UUID back", b, u, ok, want)
			}
			if fromBytes, okBytes := parseUUID(b); fromBytes != u || okBytes != ok {
				t.Fatalf("parseUUID(%q) = %x, %v from bytes; %x, %v from a string", b, fromBytes, okBytes, u, ok)
			}
			if ok && string(appendUUID([]byte("x"), string(u[:]))) != "x"+string(b) {
				t.Fatalf("appendUUID(%x) = %q; want %q after what it appends to", u, appendUUID([]byte("x"), string(u[:])), b)
			}
		}
	}
}

// recorded is an Event as client-go's recorder (and kubeloop's API server)
// makes one: everything the store takes out is there to take.
func recorded() *corev1.Event {
	ev := kinds.Event.New().(*corev1.Event)
	ev.Namespace, ev.Name, ev.UID = "default", "app-0042-7b576dd48d-2g7mn.1816687ec0570295", "a3836313-52fd-4fce-b186-6faa86e1ccf7"
	ev.CreationTimestamp = at(4242)
	ev.InvolvedObject = corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "app-0042-7b576dd48d-2g7mn",
		UID: "9fe6992d-c808-4e10-a1a4-71364fb9d1c3", APIVersion: "v1", ResourceVersion: "1789"}
	ev.Reason, ev.Message, ev.Type = "Pulled", `Container image "nginx:1.27" already present on machine`, "Normal"
	ev.Source.Component, ev.ReportingController = "kubelet", "kubelet"
	ev.FirstTimestamp, ev.LastTimestamp, ev.Count = at(4242), at(4242), 1
	return ev
}

// A recorded Event keeps what it does not repeat: its blob is far smaller
// than its protobuf encoding, and reads back exactly.
func TestRecordedEventKeepsWhatItDoesNotRepeat(t *testing.T) {
	s := New()
	ev := recorded()
	want := ev.DeepCopy()
	whole := ev.Size()
	s.Create(ev, 0)
	want.ResourceVersion = ev.ResourceVersion
	sameJSON(t, "the caller's Event after Create", ev, want) // as it gave it, but for its resourceVersion
	got, ok := s.Lookup(kinds.Event, "default", "app-0042-7b576dd48d-2g7mn.1816687ec0570295")
	if !ok {
		t.Fatal("the Event is not there")
	}
	sameJSON(t, "the Event read back", got, want)
	s.lookupKey(kinds.Event, "default", "app-0042-7b576dd48d-2g7mn.1816687ec0570295")
	e, _ := s.bucket(kinds.Event).get(s.keyBuf)
	b := e.enc
	key, _ := b.eventKey()
	if kept := len(b.data) - len(key); kept > whole*3/4 {
		t.Errorf("the Event keeps %d bytes besides its key; its protobuf encoding is %d, and over a quarter of it repeats the rest", kept, whole)
	}
}

// An Event's message that names its object keeps it once, in the key:
// without the first mention of the object's name, wherever it stands.
func TestEventMessageKeepsNotItsObjectsName(t *testing.T) {
	const object = "app-0042-7b576dd48d-2g7mn"
	for _, c := range []struct {
		name, object, message string
		kept                  int // times the blob keeps object's name
	}{
		{"inside", object, "Successfully assigned default/" + object + " to node-7", 1},
		{"first", object, object + " is ready", 1},
		{"last", object, "Created pod: " + object, 1},
		{"whole", object, object, 1},
		{"twice", object, "Killing " + object + ", then " + object, 2},
		{"absent", object, `Container image "nginx:1.27" already present on machine`, 1},
		{"empty", object, "", 1},
		{"another object", "web-1", "Successfully assigned default/" + object + " to node-7", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := New()
			ev := recorded()
			ev.InvolvedObject.Name, ev.Message = c.object, c.message
			s.Create(ev, 0) // VerifyEncoding checks it reads back
			b, _ := getRest(&s.bucket(kinds.Event).rest, kinds.Event.Key(ev.Namespace, ev.Name))
			if n := strings.Count(b.data, object); n != c.kept {
				t.Errorf("the blob keeps %q %d times; want %d", object, n, c.kept)
			}
			got, _ := s.Lookup(kinds.Event, ev.Namespace, ev.Name)
			if m := got.(*corev1.Event).Message; m != c.message {
				t.Errorf("message read back %q; want %q", m, c.message)
			}
		})
	}
}

// FuzzEventReadsBack writes Events whose fields the input chooses, so that
// each repetition the store takes out is there or just not there (a name
// of another object, a uid in capitals, a first time a millisecond off, in
// another zone, a uid not in canonical form, a message that names the
// object or not), and checks that each reads back exactly: as JSON,
// semantically and zone by zone. `go test -fuzz FuzzEventReadsBack
// ./engine/store` explores further.
func FuzzEventReadsBack(f *testing.F) {
	f.Add("web-1", "web-1.1816687ec0570295", "default", "default", "a3836313-52fd-4fce-b186-6faa86e1ccf7", "kubelet", "kubelet", uint16(0), uint16(0), byte(16))
	f.Add("web-1", "web-1.0f", "default", "kube-system", "A3836313-52fd-4fce-b186-6faa86e1ccf7", "kubelet", "", uint16(1), uint16(2), byte(23))
	f.Add("", ".1", "", "", "", "", "", uint16(0), uint16(0), byte(3))
	f.Add("web-1", "web-1.1816687ec0570295", "default", "default", "a3836313-52fd-4fce-b186-6faa86e1ccf7", "kubelet", "kubelet", uint16(0), uint16(0), byte(96))
	f.Add("web-1", "web-1.1816687ec0570295", "default", "default", "a3836313-52fd-4fce-b186-6faa86e1ccf7", "kubelet", "kubelet", uint16(0), uint16(0), byte(64))
	f.Add("web-1", "web-1.1816687ec0570295", "default", "default", "a3836313-52fd-4fce-b186-6faa86e1ccf7", "kubelet", "kubelet", uint16(0), uint16(0), byte(128))
	f.Fuzz(func(t *testing.T, object, name, ns, objectNS, uid, component, reporting string, firstOff, lastOff uint16, zones byte) {
		s := New()
		ev := kinds.Event.New().(*corev1.Event)
		ev.Namespace, ev.Name, ev.UID = "default", name, types.UID(uid)
		if ns != "" {
			ev.Namespace = ns
		}
		ev.InvolvedObject = corev1.ObjectReference{Kind: "Pod", Namespace: objectNS, Name: object,
			UID: "9fe6992d-c808-4e10-a1a4-71364fb9d1c3"}
		if zones&16 != 0 {
			ev.InvolvedObject.UID = types.UID(uid)
		}
		when := func(off uint16, bit byte) metav1.Time {
			t := at(int(off))
			if zones&bit != 0 {
				t = metav1.NewTime(t.Local())
			}
			return t
		}
		ev.CreationTimestamp = when(0, 1)
		ev.FirstTimestamp = when(firstOff, 2)
		ev.LastTimestamp = when(firstOff+lastOff, 4)
		if zones&8 != 0 {
			ev.FirstTimestamp = metav1.Time{}
		}
		ev.Source.Component, ev.ReportingController = component, reporting
		if zones&32 != 0 { // a kubelet's host, named again as the reporting instance or not
			ev.Source.Host = component + "-host"
		}
		if zones&64 != 0 {
			ev.ReportingInstance = component + "-host"
		}
		ev.Reason, ev.Count = "Fuzzed", 1
		ev.Message = component
		if zones&128 != 0 { // naming the object, perhaps more than once
			ev.Message = reporting + object + component
		}
		// An Event of the same reason before it, that it may be kept as a
		// delta of.
		sibling := ev.DeepCopy()
		sibling.Name, sibling.InvolvedObject.Name, sibling.UID = "sibling.1816687ec0570295", "sibling", "0e6992d4-c808-4e10-a1a4-71364fb9d1c3"
		if _, err := s.Create(sibling, 0); err != nil {
			return
		}
		want := ev.DeepCopy()
		if _, err := s.Create(ev, 0); err != nil {
			return // not a key the store takes
		}
		want.ResourceVersion = ev.ResourceVersion
		g, _ := json.Marshal(ev)
		w, _ := json.Marshal(want)
		if string(g) != string(w) {
			t.Fatalf("Create changed the caller's Event:\n got %s\nwant %s", g, w)
		}
		obj, err := s.Get(kinds.Event, ev.Namespace, ev.Name)
		if err != nil {
			t.Fatal(err)
		}
		got := obj.(*corev1.Event)
		g, _ = json.Marshal(got)
		w, _ = json.Marshal(want)
		if string(g) != string(w) || !equality.Semantic.DeepEqual(got, want) || !sameZones(got, want) {
			t.Fatalf("the Event read back differs:\n got %s\nwant %s", g, w)
		}
	})
}

// An Event's versions, as the API server's TTL queue holds them, know
// their key and revision, and tell whether they are still current: not
// once the Event is written again or deleted. History's end takes them
// out of reach.
func TestVersionsOfAnEvent(t *testing.T) {
	s := New()
	ev := recorded()
	rev, _ := s.Create(ev, 0)
	first, ok := s.VersionAt(rev)
	if !ok {
		t.Fatal("no version at the create's revision")
	}
	key := kinds.Event.Key(ev.Namespace, ev.Name)
	if first.Key(kinds.Event) != key || first.Rev(kinds.Event) != rev || !s.IsCurrent(kinds.Event, first) {
		t.Fatalf("first version: key %q rev %d current %v; want %q, %d, true",
			first.Key(kinds.Event), first.Rev(kinds.Event), s.IsCurrent(kinds.Event, first), key, rev)
	}
	o, _ := s.Get(kinds.Event, ev.Namespace, ev.Name)
	upd := o.(*corev1.Event)
	upd.Count++
	rev2, err := s.Update(upd, 0)
	if err != nil {
		t.Fatal(err)
	}
	s.Seal(s.Rev()) // sealed entries answer as recent ones do
	second, _ := s.VersionAt(rev2)
	if s.IsCurrent(kinds.Event, first) || !s.IsCurrent(kinds.Event, second) || second.Rev(kinds.Event) != rev2 {
		t.Errorf("after a renewal: first current %v, second current %v (rev %d); want false, true (%d)",
			s.IsCurrent(kinds.Event, first), s.IsCurrent(kinds.Event, second), second.Rev(kinds.Event), rev2)
	}
	if _, _, err := s.Delete(kinds.Event, ev.Namespace, ev.Name, "", 0); err != nil {
		t.Fatal(err)
	}
	if s.IsCurrent(kinds.Event, second) {
		t.Error("a deleted Event's last version is still current")
	}
	if second.Key(kinds.Event) != key {
		t.Errorf("a deleted Event's version names %q; want %q", second.Key(kinds.Event), key)
	}
	s.Compact(s.Rev())
	if _, ok := s.VersionAt(rev2); ok {
		t.Error("a compacted revision still has a version")
	}
	// Kinds kept typed have no versions to hold.
	pod := kinds.Pod.New().(*corev1.Pod)
	pod.Namespace, pod.Name = "default", "web"
	prev, _ := s.Create(pod, 0)
	if _, ok := s.VersionAt(prev); ok {
		t.Error("a typed pod's create has a version")
	}
}

// An Event whose creationTimestamp is the time its name says, to the
// millisecond (as the recorder names Events), is kept without it and reads
// it back from the name; any other keeps it: a name that is not hex, or
// too long to be a time, a time a nanosecond off or in another zone.
func TestEventCreationFromName(t *testing.T) {
	named := at(4242) // 0x1816687fbd2ec880 ns
	for _, c := range []struct {
		name    string
		created metav1.Time
		elided  bool
	}{
		{"web-1.1816687fbd2ec887", named, true},
		{"web-1.1816687fbd2ec880", named, true},
		{"web-1.1816687fbd3e0ac0", named, false}, // a millisecond later
		{"web-1.1816687fbd2ec87f", named, false}, // a nanosecond earlier
		{"web-1.1816687fbd2ec887", metav1.NewTime(named.Add(1)), false},
		{"web-1.1816687fbd2ec887", metav1.NewTime(named.Local()), false}, // the same time in another zone
		{"web-1.1816687FBD2EC887", named, false},                         // capitals
		{"web-1.01816687fbd2ec887", named, false},                        // 17 digits
		{"web-1.8000000000000000", named, false},                         // past int64
		{"web-1.", named, false},
		{"web-1.x", named, false},
		{"1816687fbd2ec887", named, true}, // no dot: the whole name
		{"web-1.0", metav1.Time{}, false}, // no creationTimestamp
		{"web-1.0", metav1.NewTime(time.Unix(0, 0).UTC()), true},
	} {
		s := New()
		ev := recorded()
		ev.Name, ev.CreationTimestamp = c.name, c.created
		ev.FirstTimestamp, ev.LastTimestamp = c.created, c.created // evFirst and evLast read it
		want := ev.DeepCopy()
		b := s.encode(kinds.Event, ev, nil, false) // VerifyEncoding checks it reads back
		sameJSON(t, "the caller's Event", ev, want)
		got := b.decode(kinds.Event)
		sameJSON(t, "the Event read back", got, want)
		if !sameZones(got, want) {
			t.Errorf("%s at %v: read back in another zone", c.name, c.created)
		}
		_, at := b.rv()
		if elided := b.data[at]&1 != 0; elided != c.elided {
			t.Errorf("%s at %v: creationTimestamp taken out %v; want %v", c.name, c.created, elided, c.elided)
		}
	}
}

// workload cuts an object's name at its last "-": a pod's name gives its
// ReplicaSet's, a ReplicaSet's its Deployment's.
func TestWorkload(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"app-0042-7b576dd48d-2g7mn", "app-0042-7b576dd48d"},
		{"app-0042-7b576dd48d", "app-0042"},
		{"web-0", "web"},
		{"web", "web"},
		{"web-", "web"},
		{"-x", ""},
		{"", ""},
	} {
		if got := workload(c.name); got != c.want {
			t.Errorf("workload(%q) = %q; want %q", c.name, got, c.want)
		}
	}
}

// An Event is a delta against an Event of the same reason about a pod of
// its own workload, not another's: its pods' Events name the same
// container.
func TestEventsOfAWorkloadShareReferences(t *testing.T) {
	s := New()
	event := func(rs, pod string) *blob {
		ev := recorded()
		object := rs + "-" + pod
		ev.Name, ev.InvolvedObject.Name = object+".1816687ec0570295", object
		ev.InvolvedObject.FieldPath = "spec.containers{" + rs + "}"
		ev.Message = "Created container: " + rs
		s.Create(ev, 0)
		s.lookupKey(kinds.Event, "default", ev.Name)
		e, _ := s.bucket(kinds.Event).get(s.keyBuf)
		return e.enc
	}
	a := event("app-0042-7b576dd48d", "2g7mn")
	b := event("app-0043-5d8f9c7b6f", "x2k4q")
	if b.ref != nil {
		t.Fatal("the first Event of a second workload is a delta against another workload's")
	}
	if c := event("app-0042-7b576dd48d", "k9l2p"); c.ref != a {
		t.Errorf("an Event is a delta against %p; want its own workload's reference %p", c.ref, a)
	}
	if c := event("app-0043-5d8f9c7b6f", "m3n4b"); c.ref != b {
		t.Errorf("an Event is a delta against %p; want its own workload's reference %p", c.ref, b)
	}
}

// An Event kept as a delta against another of its workload keeps of its
// key only what differs (its pod's suffix, the time's last digits): the
// whole version is shorter than its key. Its key, read back by rebuilding
// it, finds it, names it in history and in what decodes.
func TestAnEventsDeltaKeepsItsKeyShort(t *testing.T) {
	s := New()
	var revs []int64
	var names []string
	for i, pod := range []string{"2g7mn", "x2k4q", "k9l2p"} {
		ev := recorded()
		ev.InvolvedObject.Name = "app-0042-7b576dd48d-" + pod
		ev.Name = ev.InvolvedObject.Name + ".1816687ec05702" + strconv.Itoa(10+i)
		rev, err := s.Create(ev, 0)
		if err != nil {
			t.Fatal(err)
		}
		revs, names = append(revs, rev), append(names, ev.Name)
	}
	for i, name := range names {
		key := kinds.Event.Key("default", name)
		s.lookupKey(kinds.Event, "default", name)
		e, ok := s.bucket(kinds.Event).get(s.keyBuf)
		if !ok {
			t.Fatalf("%s: not found by its key", name)
		}
		if got, _ := e.enc.eventKey(); got != key {
			t.Errorf("%s: eventKey = %q", name, got)
		}
		if i > 0 && (e.enc.ref == nil || len(e.enc.data) >= len(key)) {
			t.Errorf("%s: kept in %d bytes, delta %v; want a delta shorter than its %d-byte key", name, len(e.enc.data), e.enc.ref != nil, len(key))
		}
		if got, _ := s.KeyAt(revs[i]); got != key {
			t.Errorf("%s: KeyAt = %q", name, got)
		}
		if o, _ := s.Get(kinds.Event, "default", name); o.GetName() != name {
			t.Errorf("%s: decodes as %s", name, o.GetName())
		}
		if v, _ := s.VersionAt(revs[i]); v.Key(kinds.Event) != key || !s.IsCurrent(kinds.Event, v) {
			t.Errorf("%s: its version's key is %q, current %v", name, v.Key(kinds.Event), s.IsCurrent(kinds.Event, v))
		}
	}
	var want []string
	for _, name := range names {
		want = append(want, kinds.Event.Key("default", name))
	}
	slices.Sort(want)
	var keys []string
	for _, o := range s.List(kinds.Event, "") {
		keys = append(keys, kinds.Event.Key(o.GetNamespace(), o.GetName()))
	}
	if !slices.Equal(keys, want) {
		t.Errorf("List gives the keys %q; want %q", keys, want)
	}
}

// An object's later Events keep its uid only in their base, the first
// Event about it, and read back with it; an Event that keeps no key, or
// is about another object, keeps its own.
func TestEventsOfAnObjectShareItsUID(t *testing.T) {
	s := New()
	n := 0
	event := func(ns, reason, uid string) *blob {
		n++
		ev := recorded()
		ev.Namespace, ev.InvolvedObject.Namespace = ns, ns
		ev.Name = ev.InvolvedObject.Name + "." + strconv.FormatInt(0x1816687ec0570295+int64(n), 16)
		ev.Reason, ev.InvolvedObject.UID = reason, types.UID(uid)
		want := ev.DeepCopy()
		if _, err := s.Create(ev, 0); err != nil {
			t.Fatal(err)
		}
		o, err := s.Get(kinds.Event, ns, ev.Name)
		if err != nil {
			t.Fatal(err)
		}
		want.ResourceVersion = o.GetResourceVersion()
		sameJSON(t, reason, o, want)
		s.lookupKey(kinds.Event, ns, ev.Name)
		e, _ := s.bucket(kinds.Event).get(s.keyBuf)
		return e.enc
	}
	const pod, other = "9fe6992d-c808-4e10-a1a4-71364fb9d1c3", "0e6992d4-c808-4e10-a1a4-71364fb9d1c3"
	first := event("default", "Scheduled", pod)
	if first.base != nil {
		t.Fatal("the first Event about an object has a base")
	}
	for _, reason := range []string{"Pulling", "Pulled", "Started"} {
		if b := event("default", reason, pod); b.base != first {
			t.Errorf("%s: base %p; want the first Event about the pod, %p", reason, b.base, first)
		}
	}
	if b := event("default", "Killing", other); b.base != nil {
		t.Error("an Event about another object takes the pod's Event as its base")
	}
	if b := event("a/b", "Created", pod); b.base != nil {
		t.Error("an Event that keeps no key takes a base")
	}
}

// The cache of Events by their object's uid answers for what was put
// last in a slot, nothing for a uid it never took or lost to another,
// keeps what it holds as it doubles, and stops doubling at its bound.
func TestInvolvedCache(t *testing.T) {
	var c involvedCache
	uid := func(i int) (u [16]byte) {
		binary.LittleEndian.PutUint64(u[:], uint64(i)*0x9e3779b97f4a7c15+1)
		binary.LittleEndian.PutUint64(u[8:], uint64(i))
		return u
	}
	if c.get(uid(1)) != nil {
		t.Fatal("an empty cache answers")
	}
	blobs := make([]*blob, 300_000)
	for i := range blobs {
		blobs[i] = new(blob)
		c.put(uid(i), blobs[i])
		if got := c.get(uid(i)); got != blobs[i] {
			t.Fatalf("put %d: get answers %p", i, got)
		}
		if i > 0 && c.slot(uid(i)) == c.slot(uid(i-1)) && c.get(uid(i-1)) != nil {
			t.Fatalf("put %d took %d's slot, which still answers", i, i-1)
		}
	}
	if len(c.slots) != maxInvolvedSlots {
		t.Errorf("the cache has %d slots after 300,000 puts; want its bound, %d", len(c.slots), maxInvolvedSlots)
	}
	kept := 0
	for i := len(blobs) - 1000; i < len(blobs); i++ {
		if c.get(uid(i)) == blobs[i] {
			kept++
		}
	}
	if kept < 950 { // 1,000 uids in 65,536 slots: a few collide
		t.Errorf("of the last 1,000 uids put, %d answer", kept)
	}
	if c.get(uid(len(blobs))) != nil {
		t.Error("a uid never put answers")
	}
}
