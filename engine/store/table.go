package store

import "github.com/kubeloop/kubeloop/engine/kinds"

// table holds values by key without keeping the keys: a value's key is
// read from the value itself, and only to confirm a match. The store has
// two: the Events kept at rest, whose versions keep their keys in their
// bytes (restMap), and the typed objects, whose namespace and name make
// theirs (typedMap). A busy cluster keeps about a million Events and
// 150,000 pods in them, so they are the largest maps the store has.
//
// A Go map keyed by the key string costs a 16-byte string header in every
// slot, the key's own bytes (64 for a pod's, as many again for an
// Event's), and hashes the whole key at every growth. So a table is open
// addressing instead: a key's value lies at the slot its hash picks or
// after it (linear probing), and the low 32 bits of that hash are kept
// for each slot, a value and 4 bytes a slot in all. A lookup reads a
// value only when the hash bits match, to confirm the key; growing reads
// none, as the bits give each value its new slot (without them, reading
// every version's key cost a cache miss or two each, a second of CPU for
// a million Events); and a new value, which the caller knows is not
// there (insert), takes the first free slot from its hash's on, reading
// only adjacent slots.
type table[V comparable] struct {
	slots []V // a power of two of them, or none
	// hashes holds, for a slot with a value, the low 32 bits of its key's
	// hash; for an empty one, tombstone if a value was removed from it,
	// else 0 (free).
	hashes []uint32
	n      int // values
	used   int // slots not free: values and tombstones
}

// tombstone marks the slot of a removed value until the table is rebuilt:
// freeing it would cut short the probe sequence of a key that passed it.
const tombstone = 1

// hashMask is ANDed with every key's hash; tests narrow it to make keys
// collide.
var hashMask = ^uint64(0)

// keyHash hashes an etcd key: a 64-bit multiply-xorshift hash over its
// 8-byte words. It is fixed, not seeded per process as Go's maps are, so
// that where each key lands is the same on every run; that never changes
// what a table answers.
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

// find is the slot of the value whose key hashes to h and that isKey
// says is the key's; false if no slot holds it.
func (t *table[V]) find(h uint64, isKey func(V) bool) (int, bool) {
	if len(t.slots) == 0 {
		return 0, false
	}
	var none V
	mask := len(t.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		switch v := t.slots[i]; {
		case v != none:
			if t.hashes[i] == uint32(h) && isKey(v) {
				return i, true
			}
		case t.hashes[i] != tombstone:
			return 0, false // free: the key's probe sequence ends here
		}
	}
}

// insert adds v, whose key hashes to h and is not in the table. At most
// 7/8 of the slots are taken, as in a Go map: linear probing's runs then
// stay a few cache lines long.
func (t *table[V]) insert(h uint64, v V) {
	if (t.used+1)*8 > len(t.slots)*7 {
		t.rebuild()
	}
	i := t.empty(uint32(h))
	if t.hashes[i] != tombstone {
		t.used++
	}
	t.slots[i], t.hashes[i] = v, uint32(h)
	t.n++
}

// empty is the first slot without a value (free or a tombstone) from the
// one hash picks.
func (t *table[V]) empty(hash uint32) int {
	var none V
	mask := len(t.slots) - 1
	i := int(hash) & mask
	for t.slots[i] != none {
		i = (i + 1) & mask
	}
	return i
}

// rebuild files the values anew in a table twice the size, or the same
// size if tombstones took half of the slots taken. The low bits of a
// value's hash (up to 2^32 slots) are its slot's, so no key is read.
func (t *table[V]) rebuild() {
	var none V
	size := max(len(t.slots), 16)
	if t.n*16 > len(t.slots)*7 {
		size *= 2
	}
	old, hashes := t.slots, t.hashes
	t.slots, t.hashes, t.used = make([]V, size), make([]uint32, size), t.n
	for j, v := range old {
		if v != none {
			i := t.empty(hashes[j])
			t.slots[i], t.hashes[i] = v, hashes[j]
		}
	}
}

// remove empties slot i. A tombstone that a free slot follows ends no
// key's probe sequence: it is freed, with the tombstones before it.
func (t *table[V]) remove(i int) {
	var none V
	mask := len(t.slots) - 1
	t.slots[i], t.hashes[i] = none, tombstone
	t.n--
	for t.hashes[i] == tombstone && t.slots[i] == none && t.isFree((i+1)&mask) {
		t.hashes[i] = 0
		t.used--
		i = (i - 1) & mask
	}
}

func (t *table[V]) isFree(i int) bool {
	var none V
	return t.slots[i] == none && t.hashes[i] != tombstone
}

// each calls f for every value, in slot order: the same on every run, as
// the hash is fixed.
func (t *table[V]) each(f func(V)) {
	var none V
	for _, v := range t.slots {
		if v != none {
			f(v)
		}
	}
}

// typedMap holds the current objects of a kind kept typed by key, in a
// table: an object's namespace and name make its key, so the table keeps
// only the objects, and a write of a typed object allocates no key.
type typedMap struct {
	t table[Object]
	k *kinds.Kind
	// order is the slots in the order of their objects' keys, for List;
	// nil when stale. A write in place leaves it right: only an insert or
	// a remove moves objects between slots.
	order []uint32
}

// findTyped is the slot of key's object (a scratch buffer or a string);
// false if no slot holds it.
func findTyped[S ~string | ~[]byte](m *typedMap, key S) (int, bool) {
	return m.t.find(keyHash(key), func(o Object) bool { return keyIs(m.k, key, o) })
}

// keyIs says whether key is the key of o, of kind k (see
// kinds.Kind.AppendKey), compared a part at a time without building it.
func keyIs[S ~string | ~[]byte](k *kinds.Kind, key S, o Object) bool {
	prefix, ns, name := k.EtcdPrefix, o.GetNamespace(), o.GetName()
	n := len(prefix) + 1 + len(name)
	if k.Namespaced {
		n += len(ns) + 1
	}
	if len(key) != n || string(key[:len(prefix)]) != prefix || key[len(prefix)] != '/' {
		return false
	}
	rest := key[len(prefix)+1:]
	if k.Namespaced {
		if string(rest[:len(ns)]) != ns || rest[len(ns)] != '/' {
			return false
		}
		rest = rest[len(ns)+1:]
	}
	return string(rest) == name
}

// get is the object at key (a scratch buffer or a string).
func getTyped[S ~string | ~[]byte](m *typedMap, key S) (Object, bool) {
	if i, ok := findTyped(m, key); ok {
		return m.t.slots[i], true
	}
	return nil, false
}

func (m *typedMap) put(key []byte, o Object) {
	if i, ok := findTyped(m, key); ok {
		m.t.slots[i] = o
		return
	}
	m.add(key, o)
}

// add is put of a key the map does not hold: a create.
func (m *typedMap) add(key []byte, o Object) {
	if VerifyEncoding && !keyIs(m.k, key, o) {
		panic("store: an object filed under " + string(key) + " has another key")
	}
	m.t.insert(keyHash(key), o)
	m.order = nil
}

func (m *typedMap) del(key []byte) {
	if i, ok := findTyped(m, key); ok {
		m.t.remove(i)
		m.order = nil
	}
}

// inOrder is the slots of m's objects in the order of their keys (see
// cmpObjectNames), 4 bytes an object: what List keeps between the creates
// and deletes that change it.
func (m *typedMap) inOrder() []uint32 {
	if m.order != nil {
		return m.order
	}
	var none Object
	named := make([]keyed[objectName, uint32], 0, m.t.n)
	for i, o := range m.t.slots {
		if o != none {
			named = append(named, keyed[objectName, uint32]{nameOf(o), uint32(i)})
		}
	}
	m.order = sortInto(make([]uint32, len(named)), named, cmpObjectNames)
	return m.order
}

func (m *typedMap) len() int { return m.t.n }
