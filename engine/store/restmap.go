package store

import "github.com/kubeloop/kubeloop/engine/kinds"

// restMap holds the current versions of a kind kept at rest (Events) by
// key. A busy cluster keeps about a million Events, six for every pod,
// each for an hour, so this map is the largest the store has.
//
// A Go map keyed by the key string costs a 16-byte string header in every
// slot and hashes the whole key (60 to 70 bytes for a pod's Event) at
// every growth; keyed by a 64-bit hash of the key, it still costs 17
// bytes a slot, with slots at most 7/8 full and often half, and a new
// Event's insert is a lookup and then an assignment. Yet each version
// already keeps its key in its bytes (see event_encoding.go). So the map
// is a table of versions with open addressing: a key's version lies at
// the slot its hash picks or after it (linear probing), and the low 32
// bits of that hash are kept for each slot, 12 bytes a slot in all. A
// lookup reads a version only when the hash bits match, to confirm the
// key it keeps; growing reads none, as the bits give each version its new
// slot (without them, reading every version's key cost a cache miss or
// two each, a second of CPU for a million Events); and a new Event, which
// the store knows is not there (add), takes the first free slot from its
// hash's on, reading only adjacent slots.
//
// A version that keeps no key lives in more, keyed by its string. more is
// empty unless something other than the recorder makes an Event in a
// namespace the key layout cannot hold, so lookups pay for it only with a
// length check.
type restMap struct {
	slots   []*blob  // a power of two of them, or none; nil is free, deleted marks a deleted version's slot
	hashes  []uint32 // the low 32 bits of the hash of each slot's key
	n       int      // versions in slots
	used    int      // slots not free: versions and deleted marks
	more    map[string]*blob
	scratch []byte // a body rebuilt to read its key
}

// deleted fills the slot of a deleted version until the table is rebuilt:
// freeing it would cut short the probe sequence of a key that passed it.
var deleted = new(blob)

// hashMask is ANDed with every key's hash; tests narrow it to make keys
// collide.
var hashMask = ^uint64(0)

// keyHash hashes an etcd key: a 64-bit multiply-xorshift hash over its
// 8-byte words. It is fixed, not seeded per process as Go's maps are, so
// that where each key lands is the same on every run; that never changes
// what the map answers.
func keyHash[S ~string | ~[]byte](s S) uint64 {
	const m = 0x9e3779b97f4a7c15 // 2^64 / the golden ratio
	h := uint64(len(s)) * m
	for len(s) >= 8 {
		w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		h = (h ^ w) * m
		h ^= h >> 29
		s = s[8:]
	}
	var w uint64
	for i := 0; i < len(s); i++ {
		w |= uint64(s[i]) << (8 * i)
	}
	h = (h ^ w) * m
	h ^= h >> 32
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 31
	return h & hashMask
}

// keeps says whether b keeps key: in its bytes if b is kept whole, else
// in the body its delta rebuilds, into the map's scratch buffer.
func keeps[S ~string | ~[]byte](m *restMap, b *blob, key S) bool {
	field, at := b.keyField()
	if field == 0 || eventKeyLen(field) != len(key) {
		return false
	}
	if b.ref == nil {
		return b.data[at:at+len(key)] == string(key)
	}
	m.scratch = b.body(kinds.Event, m.scratch[:0])
	return string(m.scratch[:len(key)]) == string(key)
}

// find is the slot of key's version (a scratch buffer or a string); false
// if no slot holds it.
func find[S ~string | ~[]byte](m *restMap, key S) (int, bool) {
	if len(m.slots) == 0 {
		return 0, false
	}
	mask, h := len(m.slots)-1, keyHash(key)
	for i := int(h) & mask; ; i = (i + 1) & mask {
		switch b := m.slots[i]; {
		case b == nil:
			return 0, false
		case m.hashes[i] == uint32(h) && b != deleted && keeps(m, b, key):
			return i, true
		}
	}
}

// get is the version at key (a scratch buffer or a string).
func getRest[S ~string | ~[]byte](m *restMap, key S) (*blob, bool) {
	if i, ok := find(m, key); ok {
		return m.slots[i], true
	}
	if len(m.more) == 0 {
		return nil, false
	}
	b, ok := m.more[string(key)]
	return b, ok
}

func (m *restMap) put(key string, b *blob) {
	switch i, ok := find(m, key); {
	case ok && b.keepsKey():
		m.slots[i] = b
		return
	case ok:
		m.remove(i)
	default:
		delete(m.more, key)
	}
	m.add(key, b)
}

// add is put of a key the map does not hold: a new Event.
func (m *restMap) add(key string, b *blob) {
	if VerifyEncoding && b.keepsKey() && !keeps(m, b, key) {
		panic("store: an Event filed under " + key + " keeps another key")
	}
	if !b.keepsKey() {
		if m.more == nil {
			m.more = map[string]*blob{}
		}
		m.more[key] = b
		return
	}
	// At most 7/8 of the slots are taken, as in a Go map: linear
	// probing's runs then stay a few cache lines long.
	if (m.used+1)*8 > len(m.slots)*7 {
		m.rebuild()
	}
	h := keyHash(key)
	i := m.free(h)
	if m.slots[i] == nil {
		m.used++
	}
	m.slots[i], m.hashes[i] = b, uint32(h)
	m.n++
}

// free is the first slot free or deleted from the one hash picks.
func (m *restMap) free(hash uint64) int {
	mask := len(m.slots) - 1
	i := int(hash) & mask
	for m.slots[i] != nil && m.slots[i] != deleted {
		i = (i + 1) & mask
	}
	return i
}

// rebuild files the versions anew in a table twice the size, or the same
// size if deleted marks took half of the slots taken. The low bits of a
// version's hash (up to 2^32 slots) are its slot's, so none is read.
func (m *restMap) rebuild() {
	size := max(len(m.slots), 16)
	if m.n*16 > len(m.slots)*7 {
		size *= 2
	}
	old, hashes := m.slots, m.hashes
	m.slots, m.hashes, m.used = make([]*blob, size), make([]uint32, size), m.n
	for j, b := range old {
		if b != nil && b != deleted {
			i := m.free(uint64(hashes[j]))
			m.slots[i], m.hashes[i] = b, hashes[j]
		}
	}
}

// remove empties slot i. A deleted mark that a free slot follows ends no
// key's probe sequence: it is freed, with the marks before it.
func (m *restMap) remove(i int) {
	mask := len(m.slots) - 1
	m.slots[i] = deleted
	m.n--
	for m.slots[i] == deleted && m.slots[(i+1)&mask] == nil {
		m.slots[i] = nil
		m.used--
		i = (i - 1) & mask
	}
}

func (m *restMap) del(key string) {
	if i, ok := find(m, key); ok {
		m.remove(i)
		return
	}
	delete(m.more, key)
}

func (m *restMap) len() int { return m.n + len(m.more) }

// each calls f for every version and its key, in no order.
func (m *restMap) each(f func(key string, b *blob)) {
	for _, b := range m.slots {
		if b != nil && b != deleted {
			key, _ := b.eventKey()
			f(key, b)
		}
	}
	for key, b := range m.more {
		f(key, b)
	}
}
