package store

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// etcd does not keep objects: it keeps bytes. kube-apiserver encodes every
// object it writes as protobuf (k8s.io/api's generated Marshal), and the
// typed objects that controllers work on live in the API server's watch
// cache and in each component's informer, decoded from those bytes.
//
// kubeloop keeps the same split. The newest version of an object stays
// typed, shared by every component as an informer's cache would be. Once a
// version is superseded and every component has seen the write that
// superseded it (the engine seals history up to its watch cursor), only
// readers of history can still ask for it (the REPL's summary of an
// advance, `rollout status`), and the store keeps it as etcd does:
// protobuf bytes, decoded when read. Kinds
// that no component watches (Events) are kept as bytes from the moment
// they are written: the store keeps nothing of the object it was given,
// and components' watches carry no object for them (see Watch).
//
// Bytes hold no pointers, so the garbage collector never scans them: a
// cluster's history costs memory, not collection time.

// blob is one object version in etcd's encoding.
//
// Most versions a store supersedes differ from the one before only in their
// status (a kubelet's report, a controller's count), and most of the others
// only in their spec and status (a pod bound to its node). Such a version
// keeps only what changed, from its first changed top-level field on
// (metadata, spec, status: fields 1, 2 and 3 of every kind with a status),
// and points at a version that has the fields before it, its base. So a
// version is whole, keeps its spec and status (its base is whole), or keeps
// its status alone (its base has its metadata and spec): chains are at most
// two long. A whole pod version may also share its spec with other pods
// (see sharedSpecBlob): it keeps its metadata and status, its base being
// the spec, and counts as whole. The resourceVersion, which every version
// changes, is kept apart so that metadata compares equal.
//
// What a version keeps is then most often kept as a delta against another
// object's version of the same shape, or against an earlier status of the
// same object (see delta.go and ownReference): a base says which fields a
// version keeps, a reference how few bytes they take.
type blob struct {
	// data is a header byte (bit 0 set if the object carried its
	// TypeMeta, which protobuf leaves to the envelope; for an Event, the
	// other bits say what was taken out of it, see event_encoding.go; for
	// a version with a base, bits 1 and 2 say which fields it keeps), the
	// resourceVersion plus one as a uvarint (0 if it is left in the
	// encoding), for an Event its key's field (see keyField), then the
	// body, or its delta against ref's body (see delta.go). The body is,
	// for an Event, what it keeps of the fields taken out (its etcd key
	// first), then the length of the object's times as a uvarint, the
	// times (see appendTimes), then the protobuf encoding of the fields
	// the version keeps (in field order; protobuf reads fields in any
	// order and each once). A string rather than a slice, and the offsets
	// found by reading it rather than kept, so that a blob is 32 bytes:
	// there are two for every pod's Event and version written.
	data string
	base *blob // the version that has the fields this one does not keep (an Event: its object's uid, see involvedCache); nil for a whole one
	ref  *blob // the version kept whole that data's delta rebuilds the body from; nil if data has the body
}

// Versions kept as deltas, most of a busy cluster's, are short (10 to 80
// bytes) and many, so their bytes are cut from blocks of slabSize, not
// allocated one by one: the allocator would round each up to its size
// class, 5 to 9 bytes more. A block is a strings.Builder that only ever
// appends within the capacity it was given, so each version's bytes are
// a substring of what it holds, never copied or changed. A block stays
// alive while any version in it does, so it holds only versions that die
// about when those written near them do, once compaction or an Event's
// hour passes: the Events and the statuses kept as deltas (see inSlab). A
// version kept whole may be a reference, and one that keeps metadata or a
// spec the base of every later status of its object: each of those is
// allocated on its own.
const slabSize = 32 << 10

// inSlab says whether b, a version of kind k with header header, has its
// bytes cut from a block (see slabSize): it is a delta that no version
// will take as its base.
func inSlab(k *kinds.Kind, b *blob, header byte) bool {
	return b.ref != nil && (k == kinds.Event || b.base != nil && header&(keepsSpec|sharedSpec) == 0)
}

// dataWriter returns where to write a version's n bytes: the store's
// block (if slab and they are short) or a builder of their own; they
// then are w.String()[start:].
func (s *Store) dataWriter(n int, slab bool) (w *strings.Builder, start int) {
	if !slab || n > slabSize/8 {
		w = new(strings.Builder)
		w.Grow(n) // one allocation, at the exact size, not zeroed
		return w, 0
	}
	if s.slab.Cap()-s.slab.Len() < n {
		s.slab = strings.Builder{}
		s.slab.Grow(slabSize)
	}
	return &s.slab, s.slab.Len()
}

// rv is the resourceVersion, left out of the encoding; -1 if it is in it.
// start is where what follows it (an Event's key field, else the body or
// its delta) starts in data.
func (b *blob) rv() (rv int64, start int) {
	v, n := uvarint(b.data[1:])
	return int64(v) - 1, 1 + n
}

// The header bits of a version with a base (kinds other than Event).
const (
	keepsSpec  = 1 << 1 // it keeps its spec and status; its base has its metadata
	sharedSpec = 1 << 2 // it keeps its metadata and status; its base is a pod spec that other pods share
)

// from is the first top-level field b keeps: 1 (metadata: all of them,
// the spec perhaps shared), 2 (spec) or 3 (status).
func (b *blob) from() int {
	switch {
	case b.base == nil, b.data[0]&sharedSpec != 0:
		return 1
	case b.data[0]&keepsSpec != 0:
		return 2
	}
	return 3
}

// bodyAt is where b's body, or its delta, starts in data: after its
// resourceVersion, and for an Event after its key's field (see keyField).
// An Event's body starts with what stripEvent kept of it, its key first,
// so that a delta against another Event keeps those bytes as few as the
// rest (see event_encoding.go).
func (b *blob) bodyAt(k *kinds.Kind) int {
	_, at := b.rv()
	if k == kinds.Event {
		_, n := uvarint(b.data[at:])
		at += n
	}
	return at
}

// keyField is an Event blob's key field (see stripEvent: 0 if it keeps
// no key) and where its body starts.
func (b *blob) keyField() (field uint64, bodyAt int) {
	_, at := b.rv()
	field, n := uvarint(b.data[at:])
	return field, at + n
}

// keepsKey says whether an Event blob keeps its key.
func (b *blob) keepsKey() bool {
	field, _ := b.keyField()
	return field != 0
}

// body appends b's body to dst: data's, or what its delta rebuilds from
// its reference's (a reference keeps its body: chains of deltas are one
// long).
func (b *blob) body(k *kinds.Kind, dst []byte) []byte {
	at := b.bodyAt(k)
	if b.ref == nil {
		return append(dst, b.data[at:]...)
	}
	out, ok := patch(dst, b.ref.data[b.ref.bodyAt(k):], b.data[at:])
	if !ok {
		panic("store: a " + k.Kind + " version's delta does not rebuild it from its reference")
	}
	return out
}

// eventKey is the etcd key an Event's blob keeps (see event_encoding.go):
// a substring of its data if it is kept whole, else a new string; false
// if it keeps none.
func (b *blob) eventKey() (string, bool) {
	field, at := b.keyField()
	if field == 0 {
		return "", false
	}
	n := eventKeyLen(field)
	if b.ref == nil {
		return b.data[at : at+n], true
	}
	return string(b.body(kinds.Event, nil)[:n]), true
}

// appendKey appends the etcd key of the object b is a version of to dst:
// an Event's, which its bytes keep whole, or one made of the name and
// namespace its metadata's encoding holds, read without decoding the
// rest. It rebuilds the body into scratch and returns scratch.
func (b *blob) appendKey(k *kinds.Kind, dst, scratch []byte) (key, scratchOut []byte) {
	if k == kinds.Event {
		if field, _ := b.keyField(); field != 0 {
			scratch = b.body(k, scratch[:0])
			return append(dst, scratch[:eventKeyLen(field)]...), scratch
		}
	}
	scratch = b.holding(1).body(k, scratch[:0])
	body := scratch
	if k == kinds.Event { // one that keeps no key, nor shares its object's uid: its body starts with its uids
		body = body[eventExtraLen(b.data[0], 0, false, body):]
	}
	_, proto := splitBody(body)
	namespace, name, ok := metaName(proto)
	if !ok { // every kind's encoding starts with its metadata, even an empty one
		panic("store: a " + k.Kind + " version's encoding does not start with its metadata")
	}
	return k.AppendKey(dst, string(namespace), string(name)), scratch
}

// metaName reads an object's namespace and name from its protobuf
// encoding: fields 3 and 1 of its metadata, field 1. False if the
// encoding does not start with its metadata.
func metaName(proto []byte) (namespace, name []byte, ok bool) {
	num, typ, n := protowire.ConsumeTag(proto)
	if n < 0 || num != 1 || typ != protowire.BytesType {
		return nil, nil, false
	}
	meta, m := protowire.ConsumeBytes(proto[n:])
	if m < 0 {
		return nil, nil, false
	}
	for len(meta) > 0 {
		num, typ, n := protowire.ConsumeTag(meta)
		if n < 0 {
			return nil, nil, false
		}
		if typ == protowire.BytesType && (num == 1 || num == 3) {
			v, m := protowire.ConsumeBytes(meta[n:])
			if m < 0 {
				return nil, nil, false
			}
			if num == 1 {
				name = v
			} else {
				namespace = v
			}
			meta = meta[n+m:]
			continue
		}
		m := protowire.ConsumeFieldValue(num, typ, meta[n:])
		if m < 0 {
			return nil, nil, false
		}
		meta = meta[n+m:]
	}
	return namespace, name, true
}

// splitBody is a body's times and protobuf encoding.
func splitBody(body []byte) (times, proto []byte) {
	n, k := binary.Uvarint(body)
	if k <= 0 || n > uint64(len(body)-k) {
		panic("store: a version's body is cut short")
	}
	return body[k : k+int(n)], body[k+int(n):]
}

// fields are the encodings of b's metadata and spec fields, each empty if
// b does not keep it (a spec b shares with other pods is its base's):
// slices of out, which is buf reused, so that one rebuilt body serves
// both.
func (b *blob) fields(k *kinds.Kind, buf []byte) (meta, spec, out []byte) {
	out = b.body(k, buf[:0])
	n := len(out)
	if b.base != nil && b.data[0]&sharedSpec != 0 {
		out = append(out, b.base.data[sharedSpecAt:]...)
	}
	_, proto := splitBody(out[:n])
	specAt, statusAt, _ := topFields(k, proto)
	meta, spec = proto[:specAt], proto[specAt:statusAt]
	if n < len(out) {
		spec = out[n:]
	}
	return meta, spec, out
}

// Pods made from one template have the same spec until they are bound, so
// the version a pod is created with shares its spec's bytes with the pods
// made before it (most of a new pod's bytes): the store keeps the last
// specs it saw, and a whole pod version whose spec is one of them keeps
// its metadata and status only, its base being that spec.

// maxSharedSpecs bounds the specs the store remembers for sharing; when
// it is reached, it forgets them all (blobs keep what they share).
const maxSharedSpecs = 4096

// sharedSpecAt is where a shared spec starts in its blob's data: after a
// header byte, no resourceVersion and no times.
const sharedSpecAt = 3

// sharedSpecBlob is the blob that holds spec for sharing.
func (s *Store) sharedSpecBlob(spec []byte) *blob {
	if b, ok := s.specs[string(spec)]; ok {
		return b
	}
	if len(s.specs) >= maxSharedSpecs || s.specs == nil {
		s.specs = make(map[string]*blob)
	}
	var data strings.Builder
	data.Grow(sharedSpecAt + len(spec))
	data.WriteString("\x00\x00\x00") // no TypeMeta, resourceVersion or times
	data.Write(spec)
	b := &blob{data: data.String()}
	s.specs[b.data[sharedSpecAt:]] = b
	return b
}

// holding is the version in b's chain (b itself or a base) that keeps
// field f.
func (b *blob) holding(f int) *blob {
	for b.from() > f {
		b = b.base
	}
	return b
}

type protoMarshaler interface {
	Size() int
	MarshalToSizedBuffer([]byte) (int, error)
}
type protoUnmarshaler interface{ Unmarshal([]byte) error }

// VerifyEncoding makes every encoding check itself: the decoded object must
// read, as JSON, exactly as the original did, or encode panics. Tests turn
// it on (the engine's, the REPL's, the lessons'), so that every object any
// test writes proves the round trip that learners rely on.
var VerifyEncoding = false

// encoded are the kinds the store encodes: those written most (pods and
// their Events, the status writes of nodes, leases and workloads), each
// checked to decode to the same JSON. Protobuf does not tell an empty list
// from none, and for a list without omitempty JSON does ("endpoints": []
// against null in an EndpointSlice), so a kind joins this list only once
// VerifyEncoding has passed every test with it.
func encoded(k *kinds.Kind) bool {
	switch k {
	case kinds.Pod, kinds.Event, kinds.Deployment, kinds.ReplicaSet, kinds.Node, kinds.Lease:
		return true
	}
	return false
}

// keptAtRest says whether kind k is kept encoded even while current:
// Events, which every component writes and none watches (the REPL and the
// API server's event correlation read a few at a time).
func keptAtRest(k *kinds.Kind) bool { return k == kinds.Event }

// encode returns obj's protobuf bytes, or nil if the encoding would not
// give back exactly the same object (the store then keeps it typed). If
// base is an earlier version of the same object and obj differs from it
// only in status, the result keeps only the status. The bytes are
// allocated once, at their exact size.
//
// Finding that only the status changed costs a marshal of the whole
// object and a rebuild of base's metadata and spec to compare with. Most
// sealed versions are status writes whose writer knows as much
// (statusOnly: see UpdateStatusOnly), and for those encode marshals the
// status alone, which gives the same bytes: the whole object's encoding
// ends with its status as field 3, and a status-only version keeps
// exactly that field.
func (s *Store) encode(k *kinds.Kind, obj Object, base *blob, statusOnly bool) *blob {
	if !encoded(k) {
		return nil
	}
	m, ok := obj.(protoMarshaler)
	if !ok {
		return nil
	}
	header, ok := typeMetaBit(k, obj)
	if !ok {
		return nil
	}
	b, rv := &blob{}, int64(-1)
	if v := obj.GetResourceVersion(); v != "" {
		if n, ok := canonicalRV(v); ok {
			// Left out while encoding, so that versions compare equal in
			// all but what they changed. (The store owns obj; nobody
			// reads it meanwhile.)
			rv = n
			obj.SetResourceVersion("")
			defer obj.SetResourceVersion(v)
		}
	}
	s.extraBuf = s.extraBuf[:0]
	ev, isEvent := obj.(*corev1.Event)
	var flags byte
	var was elided
	var involved [16]byte // an Event's object's uid (see involvedCache)
	shares := false
	if isEvent {
		var isUUID bool
		if involved, isUUID, shares = involvedUID(ev); shares {
			b.base = s.involved.get(involved)
		}
		flags, s.extraBuf, was = stripEvent(ev, k.EtcdPrefix, s.extraBuf, involved, isUUID, b.base != nil)
		header |= flags
		defer was.restore(ev, flags)
	}
	s.timesBuf = appendTimes(s.timesBuf[:0], obj)
	if len(s.encBuf) == 0 {
		s.encBuf = make([]byte, encScratch)
	}
	var enc, meta []byte // a version that shares its spec keeps its metadata, then its status
	// The whole path's preconditions for keeping the status alone, but
	// for the comparison: without them it would keep more, and so must
	// this one.
	fast := false
	if statusOnly && base != nil && rv >= 0 && hasRV(base) {
		enc, fast = s.marshalStatus(k, obj)
	}
	if fast {
		if VerifyEncoding {
			s.checkStatusOnly(k, obj, m, base, enc)
		}
		b.base = base.holding(2) // only the status changed, as promised
	} else {
		// The generated code writes backwards from the end of the buffer
		// it is given, so one pass into the tail of a scratch buffer both
		// measures and encodes; the bytes are then copied out at their
		// exact size.
		n, ok := marshalTail(m, s.encBuf)
		if !ok { // larger than the scratch buffer: measure first
			n = m.Size()
			big := make([]byte, n)
			if _, err := m.MarshalToSizedBuffer(big); err != nil {
				return nil
			}
			s.encBuf, n = big, len(big)
		}
		enc = s.encBuf[len(s.encBuf)-n:]
		specAt, at, split := topFields(k, enc)
		if !split {
			at = len(enc)
		}
		sameMeta, sameSpec := false, false
		if split && base != nil && rv >= 0 && hasRV(base) {
			sameMeta, sameSpec = s.sameAsBase(k, enc, specAt, at, base)
		}
		switch {
		case sameMeta:
			if sameSpec {
				b.base, enc = base.holding(2), enc[at:] // only the status changed
			} else {
				b.base, enc = base.holding(1), enc[specAt:] // the spec and status changed
				header |= keepsSpec
			}
		case split && k == kinds.Pod && at > specAt:
			b.base = s.sharedSpecBlob(enc[specAt:at])
			meta, enc = enc[:specAt], enc[at:]
			header |= sharedSpec
		}
	}
	// An Event's key field stays before its body, which starts with the
	// rest of what stripEvent kept (see bodyAt).
	fieldLen := 0
	if isEvent {
		_, fieldLen = binary.Uvarint(s.extraBuf)
	}
	body := append(s.bodyBuf[:0], s.extraBuf[fieldLen:]...)
	body = binary.AppendUvarint(body, uint64(len(s.timesBuf)))
	body = append(body, s.timesBuf...)
	body = append(body, meta...)
	body = append(body, enc...)
	s.bodyBuf = body
	key := refKey{k: k, header: header}
	switch o := obj.(type) {
	case *corev1.Event:
		// stripEvent took the object's name out if the key repeats it.
		key.family, key.workload = o.Reason, workload(cmp.Or(was.involvedName, o.InvolvedObject.Name))
	case *corev1.Pod:
		if header&sharedSpec != 0 {
			key.family = o.GenerateName
		}
	}
	kept := body
	own, ref, d := s.againstOwn(k, b, header, base, body)
	if ref == nil {
		ref, d = s.compress(key, body)
		if own && ref != nil && len(d) > len(body)/ownShare {
			ref = nil // kept whole: the reference for the object's next statuses
		}
	}
	if ref != nil {
		b.ref, kept = ref, d
	}
	if shares && b.base == nil {
		s.involved.put(involved, b)
	}
	var rvBuf [binary.MaxVarintLen64]byte
	rvEnc := binary.AppendUvarint(rvBuf[:0], uint64(rv+1))
	data, start := s.dataWriter(1+len(rvEnc)+fieldLen+len(kept), inSlab(k, b, header))
	data.WriteByte(header)
	data.Write(rvEnc)
	data.Write(s.extraBuf[:fieldLen])
	data.Write(kept)
	b.data = data.String()[start:]
	if b.ref == nil {
		s.remember(key, b, b.data[len(b.data)-len(kept):])
	}
	if len(s.encBuf) > encScratch {
		s.encBuf = nil // do not keep a one-off giant
	}
	if VerifyEncoding {
		if isEvent {
			was.restore(ev, flags)
		}
		obj.SetResourceVersion(rvString(rv, obj.GetResourceVersion()))
		verifyRoundTrip(k, obj, b)
	}
	return b
}

// A status that one controller writes again and again (a Deployment's, as
// its pods become ready) differs from the same object's earlier one in a
// few counts and times, while from another object's status of the same
// shape it differs also in the names its conditions' messages hold: a
// Deployment's status left ninety bytes against a shared reference and
// leaves fifteen to thirty against its own. So an object's status-only
// version whose previous version kept its status alone too is kept as a
// delta only if some reference, its own first (see ownReference), leaves
// at most an ownShare of it; else it is kept whole, and its object's next
// statuses are deltas against it. Not if the previous version is whole,
// though: a status that differs that much from the one just before it
// would not serve the next one either, and a status that changes much at
// every write would otherwise be kept whole at every write. Chains of
// deltas stay one long: an own reference is kept whole.
//
// A status shorter than minDeltaOf (a ReplicaSet's counts: 16 bytes, in a
// blob of 20 that takes 24) has no reference but its own, and a delta of
// it, of a count or two, pays as soon as it is at most half of it (5
// bytes, and the blob fits 16).
const ownShare = 8

// ownReference is the version, kept whole, that b, a version with header
// header whose previous version is prev, may be a delta against: prev, or
// what prev is a delta against, if it is a whole status-only version of
// the same object (the same base, the same header). own says whether b
// may become its object's new own reference if it finds none that
// serves: b and prev are status-only versions of one object, and prev is
// not whole.
func ownReference(b *blob, header byte, prev *blob) (ref *blob, own bool) {
	same := func(v *blob) bool { return v != nil && v.base == b.base && v.data[0] == header }
	if b.base == nil || header&(keepsSpec|sharedSpec) != 0 || !same(prev) {
		return nil, false
	}
	switch {
	case prev.ref == nil:
		return prev, false
	case same(prev.ref):
		return prev.ref, true
	}
	return nil, true
}

// againstOwn returns a delta of body, what b keeps, against b's own
// reference (see ownReference) if it leaves at most an ownShare of body
// (half of a body shorter than minDeltaOf), and whether b may become its
// object's new own reference.
func (s *Store) againstOwn(k *kinds.Kind, b *blob, header byte, prev *blob, body []byte) (own bool, ref *blob, d []byte) {
	ref, own = ownReference(b, header, prev)
	if ref == nil {
		return own, nil, nil
	}
	share := ownShare
	if len(body) < minDeltaOf {
		share = 2
	}
	refBody := ref.data[ref.bodyAt(k):]
	if len(refBody) > maxRefBody {
		return own, nil, nil
	}
	s.ownIdx.index(refBody)
	s.deltaBuf = s.ownIdx.diff(s.deltaBuf[:0], body)
	if len(s.deltaBuf) > len(body)/share {
		return own, nil, nil
	}
	return own, ref, s.deltaBuf
}

// typeMetaBit is bit 0 of a version's header: 1 if obj carries k's
// TypeMeta, 0 if it carries none; false if it carries any other, which
// the encoding, leaving TypeMeta to the envelope, would not give back.
// It compares the strings as they are, rather than parsing apiVersion
// into a GroupVersionKind at every encode.
func typeMetaBit(k *kinds.Kind, obj Object) (byte, bool) {
	tm, ok := obj.GetObjectKind().(*metav1.TypeMeta)
	switch {
	case !ok:
		return 0, false
	case tm.APIVersion == "" && tm.Kind == "":
		return 0, true
	case tm.Kind != k.Kind:
		return 0, false
	case k.Group == "":
		return 1, tm.APIVersion == k.Version
	}
	g, v, ok := strings.Cut(tm.APIVersion, "/")
	return 1, ok && g == k.Group && v == k.Version
}

// sameAsBase says whether enc, the encoding of a version whose spec and
// status start at specAt and at, has the same metadata as base's chain,
// and then whether it has the same spec too. It rebuilds each version of
// the chain that keeps one of them once.
func (s *Store) sameAsBase(k *kinds.Kind, enc []byte, specAt, at int, base *blob) (sameMeta, sameSpec bool) {
	mb, sb := base.holding(1), base.holding(2)
	meta, spec, buf := mb.fields(k, s.cmpBuf)
	if sameMeta = bytes.Equal(enc[:specAt], meta); sameMeta {
		if sb != mb {
			_, spec, buf = sb.fields(k, buf)
		}
		sameSpec = bytes.Equal(enc[specAt:at], spec)
	}
	s.cmpBuf = buf
	return sameMeta, sameSpec
}

// statusOf is obj's status, for the kinds whose versions may keep their
// status alone (those topFields splits); false for any other.
func statusOf(k *kinds.Kind, obj Object) (protoMarshaler, bool) {
	switch o := obj.(type) {
	case *corev1.Pod:
		return &o.Status, k == kinds.Pod
	case *corev1.Node:
		return &o.Status, k == kinds.Node
	case *appsv1.Deployment:
		return &o.Status, k == kinds.Deployment
	case *appsv1.ReplicaSet:
		return &o.Status, k == kinds.ReplicaSet
	}
	return nil, false
}

// statusTag is the key of a top-level status field: field 3, length-
// delimited, as the generated code writes it (one byte, 0x1a).
const statusTag = 3<<3 | 2

// marshalStatus encodes obj's status into the end of the scratch buffer
// as the generated code ends the whole object's encoding with it: its
// key, its length as a uvarint, then its fields. False if obj's kind keeps
// no status apart, or the status does not fit the scratch buffer (encode
// then takes the whole path, which handles any size).
func (s *Store) marshalStatus(k *kinds.Kind, obj Object) ([]byte, bool) {
	st, ok := statusOf(k, obj)
	if !ok {
		return nil, false
	}
	n, ok := marshalTail(st, s.encBuf)
	if !ok {
		return nil, false
	}
	var key [1 + binary.MaxVarintLen64]byte
	head := binary.AppendUvarint(append(key[:0], statusTag), uint64(n))
	start := len(s.encBuf) - n - len(head)
	if start < 0 {
		return nil, false
	}
	copy(s.encBuf[start:], head)
	return s.encBuf[start:], true
}

// checkStatusOnly panics unless status, what marshalStatus made of obj,
// is what the whole path would keep of it against base: a writer's false
// promise (see UpdateStatusOnly) would otherwise pass for its status alone
// a version whose metadata or spec changed, and history would silently
// read back the base's. VerifyEncoding runs it, so every test checks
// every promise.
func (s *Store) checkStatusOnly(k *kinds.Kind, obj Object, m protoMarshaler, base *blob, status []byte) {
	whole := make([]byte, m.Size()) // not the scratch buffer, which holds status
	n, err := m.MarshalToSizedBuffer(whole)
	if err != nil || n != len(whole) {
		panic(fmt.Sprintf("store: cannot encode %s %s/%s whole to check its status write: %v", k.Kind, obj.GetNamespace(), obj.GetName(), err))
	}
	specAt, at, split := topFields(k, whole)
	sameMeta, sameSpec := false, false
	if split {
		sameMeta, sameSpec = s.sameAsBase(k, whole, specAt, at, base)
	}
	if !sameMeta || !sameSpec || !bytes.Equal(whole[at:], status) {
		panic(fmt.Sprintf("store: %s %s/%s was written as a status-only change, but it is not one against the version before it"+
			" (split %v, same metadata %v, same spec %v, same status bytes %v)",
			k.Kind, obj.GetNamespace(), obj.GetName(), split, sameMeta, sameSpec, split && bytes.Equal(whole[at:], status)))
	}
}

// topFields is where the spec and status fields (fields 2 and 3 of every
// kind with a status: metadata is 1) start in an object's encoding, or
// where they would be (the end, or the next field) if absent. It reports
// false if the kind has no status or the encoding is not those three
// fields in order, each at most once: a version is then kept whole.
func topFields(k *kinds.Kind, enc []byte) (specAt, statusAt int, ok bool) {
	switch k {
	case kinds.Pod, kinds.Node, kinds.Deployment, kinds.ReplicaSet:
	default:
		return 0, 0, false
	}
	specAt, statusAt = len(enc), len(enc)
	last := uint64(0)
	for i := 0; i < len(enc); {
		tag, n := binary.Uvarint(enc[i:])
		field := tag >> 3
		if n <= 0 || tag&7 != 2 || field <= last || field > 3 { // every top-level field is length-delimited
			return 0, 0, false
		}
		if field >= 2 && specAt == len(enc) {
			specAt = i
		}
		if field == 3 {
			statusAt = i
		}
		last = field
		size, m := binary.Uvarint(enc[i+n:])
		if m <= 0 || size > uint64(len(enc)-i-n-m) {
			return 0, 0, false
		}
		i += n + m + int(size)
	}
	return specAt, statusAt, true
}

// uvarint is binary.Uvarint for a string or a slice: the value and the
// bytes read, 0 if s ends first.
func uvarint[T string | []byte](s T) (uint64, int) {
	var x uint64
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		c := s[i]
		if c < 0x80 {
			return x | uint64(c)<<(7*i), i + 1
		}
		x |= uint64(c&0x7f) << (7 * i)
	}
	return 0, 0
}

// hasRV says whether b keeps its resourceVersion apart.
func hasRV(b *blob) bool {
	rv, _ := b.rv()
	return rv >= 0
}

// canonicalRV is v as a revision if v is exactly how strconv.FormatInt
// writes a non-negative one, so that leaving it out and writing it back
// gives the same string: digits only, and no leading zero but in "0".
// Checked by reading v, not by formatting n again to compare, which cost
// an allocation on every encode (one for every Event and every sealed
// version).
func canonicalRV(v string) (int64, bool) {
	if v == "" || v[0] < '1' && v != "0" { // a sign, a leading zero
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64) // rejects any other non-digit, and overflow
	return n, err == nil
}

// rvString is a blob's resourceVersion as the object carried it.
func rvString(rv int64, inProto string) string {
	if rv < 0 {
		return inProto
	}
	return strconv.FormatInt(rv, 10)
}

// encScratch is the size of the store's encoding buffer: far more than any
// object kubeloop's kinds make (etcd's own limit on a value is 1.5 MiB).
const encScratch = 256 << 10

// marshalTail encodes m into the end of buf and returns its length, or
// false if buf is too small (the generated code then runs off the front of
// it, which it reports by panicking).
func marshalTail(m protoMarshaler, buf []byte) (n int, ok bool) {
	defer func() {
		if recover() != nil {
			n, ok = 0, false
		}
	}()
	n, err := m.MarshalToSizedBuffer(buf)
	return n, err == nil
}

// decode returns a new typed object from b. The caller owns it.
func (b *blob) decode(k *kinds.Kind) Object {
	obj := k.New()
	u := obj.(protoUnmarshaler)
	var buf []byte
	switch f := b.from(); { // the fields b does not keep, from its chain
	case k == kinds.Event: // an Event's base keeps only its object's uid (see involvedCache)
	case f > 1:
		mb, sb := b.holding(1), b.holding(2)
		var meta, spec []byte
		meta, spec, buf = mb.fields(k, buf)
		unmarshal(k, u, meta)
		if f == 3 {
			if sb != mb {
				_, spec, buf = sb.fields(k, buf)
			}
			unmarshal(k, u, spec)
		}
	case b.base != nil: // a shared spec
		unmarshal(k, u, []byte(b.base.data[sharedSpecAt:]))
	}
	rv, _ := b.rv()
	body := b.body(k, buf[:0])
	var extra, involvedUID string // what stripEvent kept of an Event, and what its base keeps
	field, at := uint64(0), 0
	if k == kinds.Event {
		field, at = b.keyField()
		if b.ref == nil {
			extra = b.data[at:] // the decoded Event's strings share the blob's
		} else {
			extra = string(body)
		}
		extra = extra[:eventExtraLen(b.data[0], field, b.base != nil, extra)]
		body = body[len(extra):]
		if b.base != nil {
			involvedUID = b.base.keptInvolvedUID()
		}
	}
	times, proto := splitBody(body)
	unmarshal(k, u, proto) // protobuf merges: each field lands once
	if rv >= 0 {
		obj.SetResourceVersion(strconv.FormatInt(rv, 10))
	}
	restoreTimes(obj, string(times))
	if ev, ok := obj.(*corev1.Event); ok {
		unstripEvent(ev, b.data[0], field, extra, involvedUID)
	}
	if b.data[0]&1 == 0 {
		obj.GetObjectKind().SetGroupVersionKind(emptyGVK)
	}
	return obj
}

func unmarshal(k *kinds.Kind, u protoUnmarshaler, data []byte) {
	if err := u.Unmarshal(data); err != nil {
		panic("store: cannot decode a " + k.Kind + " the store encoded: " + err.Error())
	}
}

var emptyGVK = (&kinds.Kind{}).GroupVersionKind()

func verifyRoundTrip(k *kinds.Kind, obj Object, b *blob) {
	back := b.decode(k)
	want, err1 := json.Marshal(obj)
	got, err2 := json.Marshal(back)
	if err1 != nil || err2 != nil || !bytes.Equal(want, got) || !equality.Semantic.DeepEqual(obj, back) || !sameZones(obj, back) {
		panic(fmt.Sprintf("store: %s %s/%s does not survive encoding (%v, %v):\n was %s\n got %s",
			k.Kind, obj.GetNamespace(), obj.GetName(), err1, err2, want, got))
	}
}

// sameZones reports whether a's and b's times are in the same zones.
func sameZones(a, b Object) bool {
	var zones []*time.Location
	eachTime(a, func(t *time.Time) { zones = append(zones, t.Location()) })
	i, same := 0, true
	eachTime(b, func(t *time.Time) {
		same = same && i < len(zones) && zones[i] == t.Location()
		i++
	})
	return same && i == len(zones)
}

// rvOf is an object's resourceVersion as a revision (0 if it has none).
func rvOf(obj Object) int64 {
	rv, _ := strconv.ParseInt(obj.GetResourceVersion(), 10, 64)
	return rv
}

// Protobuf keeps a metav1.Time to the second (kube dropped the nanoseconds
// on purpose: JSON clients could not see them) and decodes it in the local
// zone. kubeloop's clock counts milliseconds, and what a learner reads (the
// order of `get events`, a step's time) depends on them, so the store keeps
// each time's sub-second part and zone after the protobuf bytes and puts
// them back on decode. eachTime visits an object's times in a fixed order,
// the same before encoding and after decoding.
func eachTime(obj Object, f func(*time.Time)) {
	meta := func(m *metav1.ObjectMeta) {
		f(&m.CreationTimestamp.Time)
		if m.DeletionTimestamp != nil {
			f(&m.DeletionTimestamp.Time)
		}
		for i := range m.ManagedFields {
			if t := m.ManagedFields[i].Time; t != nil {
				f(&t.Time)
			}
		}
	}
	ptr := func(t *metav1.Time) {
		if t != nil {
			f(&t.Time)
		}
	}
	micro := func(t *metav1.MicroTime) {
		if t != nil {
			f(&t.Time)
		}
	}
	switch o := obj.(type) {
	case *corev1.Pod:
		meta(&o.ObjectMeta)
		ptr(o.Status.StartTime)
		for i := range o.Status.Conditions {
			c := &o.Status.Conditions[i]
			f(&c.LastProbeTime.Time)
			f(&c.LastTransitionTime.Time)
		}
		for _, list := range [][]corev1.ContainerStatus{o.Status.InitContainerStatuses, o.Status.ContainerStatuses, o.Status.EphemeralContainerStatuses} {
			for i := range list {
				for _, st := range []*corev1.ContainerState{&list[i].State, &list[i].LastTerminationState} {
					if st.Running != nil {
						f(&st.Running.StartedAt.Time)
					}
					if st.Terminated != nil {
						f(&st.Terminated.StartedAt.Time)
						f(&st.Terminated.FinishedAt.Time)
					}
				}
			}
		}
	case *corev1.Event:
		meta(&o.ObjectMeta)
		f(&o.FirstTimestamp.Time)
		f(&o.LastTimestamp.Time)
		f(&o.EventTime.Time)
		if o.Series != nil {
			f(&o.Series.LastObservedTime.Time)
		}
	case *appsv1.Deployment:
		meta(&o.ObjectMeta)
		for i := range o.Status.Conditions {
			f(&o.Status.Conditions[i].LastUpdateTime.Time)
			f(&o.Status.Conditions[i].LastTransitionTime.Time)
		}
	case *appsv1.ReplicaSet:
		meta(&o.ObjectMeta)
		for i := range o.Status.Conditions {
			f(&o.Status.Conditions[i].LastTransitionTime.Time)
		}
	case *corev1.Node:
		meta(&o.ObjectMeta)
		for i := range o.Spec.Taints {
			ptr(o.Spec.Taints[i].TimeAdded)
		}
		for i := range o.Status.Conditions {
			f(&o.Status.Conditions[i].LastHeartbeatTime.Time)
			f(&o.Status.Conditions[i].LastTransitionTime.Time)
		}
	case *coordinationv1.Lease:
		meta(&o.ObjectMeta)
		micro(o.Spec.AcquireTime)
		micro(o.Spec.RenewTime)
	default:
		panic("store: no time walker for " + kinds.Of(obj).Kind + "; add one before encoding the kind")
	}
}

// A time's uvarint: 0 for a zero time; else bit 0 set, bit 1 if it is in
// UTC, and from bit 3 its sub-second part, in milliseconds if bit 2 is
// set (kubeloop's clock ticks in milliseconds: 2 bytes where nanoseconds
// took 5, and 1 for a whole second), else in nanoseconds.
const (
	timeSet = 1 << iota
	timeUTC
	timeMillis
	timeShift = iota
)

// appendTimes appends, for each of obj's times, its sub-second part and
// whether it is in UTC, as one uvarint (see timeSet).
func appendTimes(dst []byte, obj Object) []byte {
	eachTime(obj, func(t *time.Time) {
		var v uint64
		if !t.IsZero() {
			v = timeSet
			if t.Location() == time.UTC {
				v |= timeUTC
			}
			if ns := t.Nanosecond(); ns%1e6 == 0 {
				v |= timeMillis | uint64(ns/1e6)<<timeShift
			} else {
				v |= uint64(ns) << timeShift
			}
		}
		dst = binary.AppendUvarint(dst, v)
	})
	return dst
}

// restoreTimes puts back what appendTimes kept.
func restoreTimes(obj Object, trailer string) {
	eachTime(obj, func(t *time.Time) {
		v, n := uvarint(trailer)
		if n <= 0 {
			panic("store: an encoded object's times do not match its fields")
		}
		trailer = trailer[n:]
		if v == 0 {
			return
		}
		loc := time.Local
		if v&timeUTC != 0 {
			loc = time.UTC
		}
		ns := int64(v >> timeShift)
		if v&timeMillis != 0 {
			ns *= 1e6
		}
		*t = time.Unix(t.Unix(), ns).In(loc)
	})
	if len(trailer) != 0 {
		panic("store: an encoded object's times do not match its fields")
	}
}
