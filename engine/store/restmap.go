package store

// restMap holds the current versions of a kind kept at rest (Events) by
// key. A busy cluster keeps about a million Events, six for every pod,
// each for an hour, so this map is the largest the store has.
//
// A map keyed by the key string costs a 16-byte string header in every
// slot, hashes the whole key (60 to 70 bytes for a pod's Event) at every
// insert and every growth, and compares it whole at every hit. Yet each
// version already keeps its key in its bytes (see event_encoding.go). So
// the map is keyed by a 64-bit hash of the key, and a hit is confirmed
// against the key the version keeps.
//
// Two keys may share a hash. The first one written holds the hash's slot;
// any other lives in more, keyed by its string, as does a version that
// keeps no key. A key is in byHash exactly when the version in its hash's
// slot keeps that key; otherwise it is in more, or absent. more is empty
// unless a collision happens (about one in 10^7 for a million Events), so
// lookups pay for it only with a length check.
type restMap struct {
	byHash map[uint64]*blob
	more   map[string]*blob
}

func newRestMap() restMap { return restMap{byHash: map[uint64]*blob{}} }

// hashMask is ANDed with every key's hash; tests narrow it to make keys
// collide.
var hashMask = ^uint64(0)

// keyHash hashes an etcd key: a 64-bit multiply-xorshift hash over its
// 8-byte words. It is fixed, not seeded per process as Go's maps are, so
// that where each key lands (byHash or more) is the same on every run;
// which one never changes what the map answers.
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

// keeps says whether b keeps key in its bytes.
func keeps[S ~string | ~[]byte](b *blob, key S) bool {
	k, ok := b.eventKey()
	return ok && k == string(key)
}

// get is the version at key (a scratch buffer or a string).
func getRest[S ~string | ~[]byte](m *restMap, key S) (*blob, bool) {
	if b, ok := m.byHash[keyHash(key)]; ok && keeps(b, key) {
		return b, true
	}
	if len(m.more) == 0 {
		return nil, false
	}
	b, ok := m.more[string(key)]
	return b, ok
}

func (m *restMap) put(key string, b *blob) {
	h := keyHash(key)
	cur, taken := m.byHash[h]
	switch {
	case taken && keeps(cur, key): // key holds the slot
		if keeps(b, key) {
			m.byHash[h] = b
			return
		}
		delete(m.byHash, h)
	case !taken && keeps(b, key): // the slot is free: key takes it
		delete(m.more, key)
		m.byHash[h] = b
		return
	}
	if m.more == nil {
		m.more = map[string]*blob{}
	}
	m.more[key] = b
}

func (m *restMap) del(key string) {
	h := keyHash(key)
	if cur, ok := m.byHash[h]; ok && keeps(cur, key) {
		delete(m.byHash, h)
		return
	}
	delete(m.more, key)
}

func (m *restMap) len() int { return len(m.byHash) + len(m.more) }

// each calls f for every version and its key, in no order.
func (m *restMap) each(f func(key string, b *blob)) {
	for _, b := range m.byHash {
		key, _ := b.eventKey()
		f(key, b)
	}
	for key, b := range m.more {
		f(key, b)
	}
}
