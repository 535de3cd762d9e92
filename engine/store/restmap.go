package store

import "github.com/kubeloop/kubeloop/engine/kinds"

// restMap holds the current versions of a kind kept at rest (Events) by
// key, in a table (see table): each version keeps its key in its bytes
// (see event_encoding.go), so the table keeps only the versions.
//
// A version that keeps no key lives in more, keyed by its string. more is
// empty unless something other than the recorder makes an Event in a
// namespace the key layout cannot hold, so lookups pay for it only with a
// length check.
type restMap struct {
	t       table[*blob]
	more    map[string]*blob
	scratch []byte // a body rebuilt to read its key
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
	return m.t.find(keyHash(key), func(b *blob) bool { return keeps(m, b, key) })
}

// get is the version at key (a scratch buffer or a string).
func getRest[S ~string | ~[]byte](m *restMap, key S) (*blob, bool) {
	if i, ok := find(m, key); ok {
		return m.t.slots[i], true
	}
	if len(m.more) == 0 {
		return nil, false
	}
	b, ok := m.more[string(key)]
	return b, ok
}

func (m *restMap) put(key []byte, b *blob) {
	switch i, ok := find(m, key); {
	case ok && b.keepsKey():
		m.t.slots[i] = b
		return
	case ok:
		m.t.remove(i)
	case len(m.more) > 0:
		delete(m.more, string(key))
	}
	m.add(key, b)
}

// add is put of a key the map does not hold: a new Event.
func (m *restMap) add(key []byte, b *blob) {
	if VerifyEncoding && b.keepsKey() && !keeps(m, b, key) {
		panic("store: an Event filed under " + string(key) + " keeps another key")
	}
	if !b.keepsKey() {
		if m.more == nil {
			m.more = map[string]*blob{}
		}
		m.more[string(key)] = b
		return
	}
	m.t.insert(keyHash(key), b)
}

func (m *restMap) del(key []byte) {
	if i, ok := find(m, key); ok {
		m.t.remove(i)
		return
	}
	if len(m.more) > 0 {
		delete(m.more, string(key))
	}
}

func (m *restMap) len() int { return m.t.n + len(m.more) }

// each calls f for every version and its key, in no order.
func (m *restMap) each(f func(key string, b *blob)) {
	m.t.each(func(b *blob) {
		key, _ := b.eventKey()
		f(key, b)
	})
	for key, b := range m.more {
		f(key, b)
	}
}
