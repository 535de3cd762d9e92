package store

import (
	"encoding/binary"
	"math/bits"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// Versions of different objects of one kind are mostly the same bytes. Two
// pods of a cluster, at the same step of their lives, differ in their
// names, uids, node, IP and times; their conditions, container states,
// tolerations and the rest are byte for byte the same. Two Pulled Events
// differ in their pod's name, uid and a duration. So the store keeps most
// versions as a delta against a reference: a version of the same kind and
// shape that it kept whole (see refSet), as a compressor's dictionary.
// etcd keeps every version whole; this is kubeloop's way of holding a
// large cluster's history in memory, and no reader can tell: a delta
// decodes to the same bytes, which VerifyEncoding checks in every test.
//
// A delta is a list of operations that rebuild the version's bytes from
// the reference's, each a uvarint n<<2|op:
//
//	op 0: copy n bytes of the reference at the cursor
//	op 1: copy n bytes of the reference at the cursor plus a zigzag uvarint that follows
//	op 2: append the n bytes that follow
//	op 3: append the UUID whose 16 bytes follow, in its canonical form (n is 36)
//
// The cursor is where the reference would go on if the version were the
// reference: after a copy, the byte after it; after n bytes appended, n
// bytes on. So a changed name of the same length costs one append and the
// copy after it no offset. Every object's uid is a UUID that no other
// object's version holds: a new pod's is most of what its delta against
// another pod appends, and op 3 keeps it in 17 bytes instead of 37.

// Delta operations.
const (
	opCopy     = 0
	opCopyAt   = 1
	opLiteral  = 2
	opUUID     = 3
	deltaGram  = 4  // the shortest copy worth its operation, and the length of what refIndex hashes
	minDeltaOf = 32 // the shortest body worth a delta or a reference
)

// refIndex finds where a run of deltaGram bytes occurs in a reference: a
// table of first occurrences by hash, built once per reference.
type refIndex struct {
	body  string   // the reference's bytes
	table []uint16 // 1 + the first position of a gram, by its hash's top bits; 0 for none
	shift uint8
}

func newRefIndex(body string) *refIndex {
	r := new(refIndex)
	r.index(body)
	return r
}

// index makes r the index of body, at most maxRefBody long, reusing r's
// table if it is large enough (the store indexes a version's own
// reference in one scratch index for each diff, see againstOwn).
func (r *refIndex) index(body string) {
	bits := 6
	for 1<<bits < len(body) {
		bits++
	}
	if cap(r.table) >= 1<<bits {
		r.table = r.table[:1<<bits]
		clear(r.table)
	} else {
		r.table = make([]uint16, 1<<bits)
	}
	r.body, r.shift = body, uint8(32-bits)
	for p := len(body) - deltaGram; p >= 0; p-- {
		r.table[hashGram(gramAt(body[p:]))>>r.shift] = uint16(p + 1)
	}
}

// gramOf is the deltaGram bytes at the start of b as a number, gramAt
// those of a string (each one load).
func gramOf(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }

func gramAt(s string) uint32 {
	s = s[:4]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

func hashGram(g uint32) uint32 { return g * 2654435761 }

// common is the length of the common prefix of a and b, compared eight
// bytes at a time.
func common(a string, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+8 <= n; i += 8 {
		if x := load64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// load64 is binary.LittleEndian.Uint64 of a string (the compiler makes it
// one load).
func load64(s string) uint64 {
	s = s[:8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// diff appends to dst the delta that rebuilds b from the reference: at
// each byte, the longest copy at the cursor if it is at least deltaGram
// long; else, at a literal's first byte, the copy after it that resync
// finds near the cursor; else one at the first place the next deltaGram
// bytes occur; else the byte is appended as it is. Linear in len(b).
func (r *refIndex) diff(dst, b []byte) []byte {
	ref := r.body
	lit, cur := 0, 0
	for i := 0; i < len(b); {
		at, n := -1, 0
		if cur >= 0 && cur < len(ref) && ref[cur] == b[i] {
			if n = common(ref[cur:], b[i:]); n >= deltaGram {
				at = cur
			}
		}
		if at < 0 && i == lit && cur >= 0 && cur < len(ref) {
			// The first byte of a literal: most are a few bytes replaced
			// by as many or one more or less (a name's suffix, a uid, a
			// count's digits), after which the version goes on as the
			// reference does. Looking a few bytes ahead of the cursor
			// finds where in the bytes at hand, where looking up each
			// byte would read the index (one per reference, cold) for
			// every byte of the literal.
			if kb, kr := resync(ref[cur:], b[i:]); kb > 0 {
				at = cur + kr
				i += kb
				cur += kb
				n = common(ref[at:], b[i:])
			}
		}
		if at < 0 && i+deltaGram <= len(b) {
			g := gramOf(b[i:])
			if q := int(r.table[hashGram(g)>>r.shift]) - 1; q >= 0 && gramAt(ref[q:]) == g {
				at, n = q, deltaGram+common(ref[q+deltaGram:], b[i+deltaGram:])
			}
		}
		if at < 0 {
			i++
			cur++
			continue
		}
		// The bytes just before a copy often match what precedes it in the
		// reference though no gram of them was found (a gram's slot may
		// hold another gram's position): the copy takes them back from the
		// literal.
		for i > lit && at > 0 && ref[at-1] == b[i-1] {
			at, i, cur, n = at-1, i-1, cur-1, n+1
		}
		if lit < i {
			dst = appendLiteral(dst, b[lit:i])
		}
		if at == cur {
			dst = binary.AppendUvarint(dst, uint64(n)<<2|opCopy)
		} else {
			dst = binary.AppendUvarint(dst, uint64(n)<<2|opCopyAt)
			dst = binary.AppendUvarint(dst, zigzag(at-cur))
		}
		i += n
		cur, lit = at+n, i
	}
	if lit < len(b) {
		dst = appendLiteral(dst, b[lit:])
	}
	return dst
}

// resyncWindow is how far ahead diff looks for a literal's end: past
// a UUID's 36 characters, or the 32 bytes of an Event's two uids.
const resyncWindow = 40

// resync finds where a literal at the start of b, against a at the
// cursor, ends: the least k in 1..resyncWindow at which b, from k, goes
// on for eight bytes as a does from k, k-1 or k+1 (b has a byte more or
// less). It returns b's and a's offsets there, or 0, 0.
func resync(a string, b []byte) (kb, kr int) {
	for k := 1; k <= resyncWindow; k++ {
		if k+9 > len(a) || k+9 > len(b) {
			return 0, 0
		}
		switch w := binary.LittleEndian.Uint64(b[k:]); {
		case load64(a[k:]) == w:
			return k, k
		case load64(a[k-1:]) == w:
			return k, k - 1
		case load64(a[k+1:]) == w:
			return k, k + 1
		}
	}
	return 0, 0
}

// uuidLen is the length of a UUID's canonical form.
const uuidLen = 36

// appendLiteral appends the operations that append lit: op 3 for each
// UUID in it, op 2 for the bytes between.
func appendLiteral(dst, lit []byte) []byte {
	from := 0
	for j := 0; j+uuidLen <= len(lit); j++ {
		u, ok := parseUUID(lit[j : j+uuidLen])
		if !ok {
			continue
		}
		dst = appendBytes(dst, lit[from:j])
		dst = binary.AppendUvarint(dst, uuidLen<<2|opUUID)
		dst = append(dst, u[:]...)
		from = j + uuidLen
		j = from - 1
	}
	return appendBytes(dst, lit[from:])
}

// appendBytes appends op 2 for b, if b is not empty.
func appendBytes(dst, b []byte) []byte {
	if len(b) == 0 {
		return dst
	}
	dst = binary.AppendUvarint(dst, uint64(len(b))<<2|opLiteral)
	return append(dst, b...)
}

func zigzag(v int) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

func unzigzag(u uint64) int { return int(u>>1) ^ -int(u&1) }

// patch appends to dst the bytes that delta d rebuilds from ref, or
// reports false if d is not a delta of ref.
func patch(dst []byte, ref, d string) ([]byte, bool) {
	cur := 0
	for len(d) > 0 {
		op, k := uvarint(d)
		if k <= 0 || op>>2 > uint64(len(ref))+uint64(len(d))+uuidLen { // more than any operation appends
			return dst, false
		}
		d = d[k:]
		n := int(op >> 2)
		switch op & 3 {
		case opCopyAt:
			z, k := uvarint(d)
			if k <= 0 || z > 1<<50 {
				return dst, false
			}
			d = d[k:]
			cur += unzigzag(z)
			fallthrough
		case opCopy:
			if cur < 0 || n > len(ref)-cur {
				return dst, false
			}
			dst = append(dst, ref[cur:cur+n]...)
		case opLiteral:
			if n > len(d) {
				return dst, false
			}
			dst = append(dst, d[:n]...)
			d = d[n:]
		case opUUID:
			if n != uuidLen || len(d) < 16 {
				return dst, false
			}
			dst = appendUUID(dst, d[:16])
			d = d[16:]
		default:
			return dst, false
		}
		cur += n
	}
	return dst, true
}

// refWays is how many references a shape of version keeps (a pod's status
// while its container is created and once it runs are two shapes of one
// kind of write).
const refWays = 4

// refSet is the references of one shape: the last versions kept whole,
// the most recently useful first, and how many versions in a row none of
// them served.
//
// Some shapes do not repeat across objects: two nodes' Leases differ in
// most of what they hold (names, uids, the holder). After missesToSample
// misses in a row, a version of such a shape is tried against the first
// reference only, and one in sampleEvery becomes a reference (so that the
// shape is noticed if it starts to repeat): trying four and indexing every
// miss cost each Lease renewal four diffs and a kilobyte of index for
// nothing.
type refSet struct {
	refs   [refWays]*reference
	misses int
}

const (
	missesToSample = 4
	sampleEvery    = 16
)

type reference struct {
	b   *blob
	idx *refIndex
}

// maxRefSets bounds the shapes the store keeps references for; past it,
// it forgets them all (blobs keep their references) and starts afresh,
// as it would at the start. New pods make a shape for each workload that
// creates them, and their Events one for each reason (see refKey): about
// eight a Deployment, so 16384 holds the largest cluster kubeloop runs,
// a thousand Deployments, with room.
const maxRefSets = 16384

// maxRefBody is the largest version that becomes a reference: an index
// takes two to four bytes a byte of it, and objects this large are
// one-offs (an annotation holding a file), not a shape that repeats. Its
// positions then fit the index's 16 bits.
const maxRefBody = 64 << 10

// refKey is a shape of version: its kind, its header byte (what it keeps
// and, for an Event, what it repeats), its family and its workload. A new
// pod's family (one that shares its spec) is its generateName, which
// names the workload that made it: a new pod keeps its metadata, and
// against another workload's pod that differs in every name, label and
// owner it holds (145 bytes of delta, where one of its own ReplicaSet's
// left 52). An Event's family is its reason, and its workload its
// object's (see workload): Events about the pods of one ReplicaSet name
// the same container in their message and field path, and their pods'
// resourceVersions, written close together, share their first digits.
// Against an Event of another workload's pod a kubelet's Event left 12
// bytes more of delta at a thousand Deployments, most of them a size
// class of the blob's data.
type refKey struct {
	k        *kinds.Kind
	header   byte
	family   string
	workload string
}

// compress returns a delta of body against one of key's references and
// the reference it is against, if it is at most half of body; nil if body
// is best kept whole (the caller then keeps it whole and calls remember).
// It tries the references in order, the last one used first, and takes
// the first delta short enough: a version with much of its own (a new
// pod's name and uids) leaves as much against any reference, and trying
// them all would diff it four times for a few bytes.
func (s *Store) compress(key refKey, body []byte) (*blob, []byte) {
	set := s.refs[key]
	if set == nil || len(body) < minDeltaOf {
		return nil, nil
	}
	tries := refWays
	if set.misses >= missesToSample {
		tries = 1
	}
	for i, r := range set.refs[:tries] {
		if r == nil {
			break
		}
		s.deltaBuf = r.idx.diff(s.deltaBuf[:0], body)
		if len(s.deltaBuf) <= len(body)/2 {
			copy(set.refs[1:i+1], set.refs[:i])
			set.refs[0], set.misses = r, 0
			return r.b, s.deltaBuf
		}
	}
	set.misses++
	return nil, nil
}

// remember makes b, kept whole with body as its body, key's first
// reference, forgetting the oldest if there are refWays.
func (s *Store) remember(key refKey, b *blob, body string) {
	if len(body) < minDeltaOf || len(body) > maxRefBody {
		return
	}
	if s.refs == nil || len(s.refs) >= maxRefSets {
		s.refs = make(map[refKey]*refSet)
	}
	set := s.refs[key]
	switch {
	case set == nil:
		set = new(refSet)
		s.refs[key] = set
	case set.misses >= missesToSample && set.misses%sampleEvery != 0:
		return // a shape that does not repeat: sample it
	}
	copy(set.refs[1:], set.refs[:refWays-1])
	set.refs[0] = &reference{b: b, idx: newRefIndex(body)}
}
