package store

import (
	"math"
	"strconv"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// historyChunk is how many entries one block of sealed history holds.
const historyChunk = 4096

// history is etcd's write log since the last compaction: one entry a
// revision, so revisions in it are consecutive and an entry is found by
// arithmetic, not search. It is kept in two parts.
//
// What some watcher has not seen yet (recent) is kept as the watch events
// themselves, typed, so that a watch hands them out without copying.
//
// What every watcher has seen (sealed, see Store.Seal) is only read by
// readers of history, and is kept as etcd's log keeps it: the kind, what
// the write did and its versions, encoded (see encoding.go). A sealed
// entry is 24 bytes where a watch event is 96, and holds two pointers for
// the collector to follow instead of eight. It keeps no key: the key is
// in the versions it points at (see appendKey), and only readers of
// history, a few entries at a time, ask a sealed entry for it. The
// versions a sealed entry still has typed (the current version of an
// object, which no later write has superseded yet, and kinds not
// encoded) are kept aside, in typed (or, past its bound, in spilled).
// Sealed entries live in fixed-size blocks, so that appending never
// copies them and compaction drops whole blocks.
type history struct {
	blocks [][]hentry // the sealed entries; the last block may be partly filled
	head   int        // index in blocks[0] of the oldest kept sealed entry
	n      int        // number of kept sealed entries
	first  int64      // the revision of the oldest kept entry, sealed or recent

	// recent is buf[lo:]: the entries after the sealed ones.
	buf []Event
	lo  int

	typed   []Object              // the sealed entries' versions still typed, in one slot or two (see keepTyped); hentry.typed indexes this
	free1   []uint32              // the unused slots of typed
	free2   []uint32              // the unused pairs of slots of typed: the first of each
	spilled map[int64]*typedPair  // by revision: the typed versions of entries that found typed full
	kinds   []*kinds.Kind         // hentry.kind indexes this
	kind    map[*kinds.Kind]uint8 // its index by kind
	byID    []uint8               // 1 + its index, by Kind.ID: found at every seal
}

// hentry is a sealed history entry. There is one for every write since the
// last compaction (millions in a big cluster), so it is packed: 24 bytes,
// where the plain struct with its key would be 48.
type hentry struct {
	obj, old *blob  // as in Event; nil while the version is typed (see typed) or absent
	cause    uint32 // Event.Cause, or 0 (none) if it does not fit; see sealedCause
	bits     uint32 // the type (2 bits), statusOnly (1), the kind (7) and typed (22); see pack
}

// The fields packed in hentry.bits, from the lowest bit up. The kind gave
// up a bit for statusOnly: kubeloop serves a dozen kinds, and kindID
// panics rather than let a 129th alias another.
const (
	typBits    = 2
	statusBits = 1
	kindBits   = 7
	typedBits  = 32 - typBits - statusBits - kindBits

	// spilledRef is hentry.typed for an entry whose typed versions are in
	// history.spilled, under its revision.
	spilledRef = 1<<typedBits - 1
)

// typedSlots is how many slots history.typed may hold: hentry.typed is 1 +
// an index, 22 bits wide, and its largest value says "spilled". Versions
// beyond it are kept in a map instead, so that correctness never depends
// on the bound. There is about one slot for every current object (more
// for the few kinds not encoded, whose kept versions all stay typed), so
// 4 million is far beyond the largest cluster kubeloop runs and the map is
// normally never made. A variable so that tests can lower it and take the
// other path.
var typedSlots = spilledRef - 1

func pack(typ EventType, statusOnly bool, kind uint8, typed uint32) uint32 {
	if typ >= 1<<typBits || kind >= 1<<kindBits || typed > spilledRef {
		panic("store: a history entry's fields do not fit")
	}
	var st uint32
	if statusOnly {
		st = 1
	}
	return uint32(typ) | st<<typBits | uint32(kind)<<(typBits+statusBits) | typed<<(typBits+statusBits+kindBits)
}

func (e *hentry) typ() EventType { return EventType(e.bits & (1<<typBits - 1)) }
func (e *hentry) kind() uint8 {
	return uint8(e.bits >> (typBits + statusBits) & (1<<kindBits - 1))
}

// statusOnly says the write's caller promised that it changed nothing but
// the object's status (see Store.UpdateStatusOnly).
func (e *hentry) statusOnly() bool { return e.bits>>typBits&1 != 0 }

// typed is 1 + the index in history.typed of the entry's typed versions;
// spilledRef if they are in history.spilled; 0 if it has none.
func (e *hentry) typed() uint32 { return e.bits >> (typBits + statusBits + kindBits) }

func (e *hentry) setTyped(t uint32) { e.bits = pack(e.typ(), e.statusOnly(), e.kind(), t) }

// sealedCause is a write's cause as a sealed entry keeps it: a trace
// sequence number, which in any run a learner can read stays far below 2^32.
// One that does not fit is kept as 0, "no cause", rather than wrapped into
// another event's number: history then says less, never something false.
func sealedCause(c uint64) uint32 {
	if c > math.MaxUint32 {
		return 0
	}
	return uint32(c)
}

// typedPair is what a sealed entry keeps typed: the version it wrote and
// the one it superseded.
type typedPair struct{ obj, old Object }

// twoSlots says whether a sealed entry of kind k and type typ keeps its
// typed versions in two slots of history.typed, the version it wrote and
// the one it superseded, or in one, the version it wrote. A kind that is
// not encoded keeps both typed for as long as history holds them (a
// create supersedes none); an encoded kind keeps typed only its current
// version, the one its latest write made: once superseded, a version is
// encoded, and a superseded one is encoded as it is sealed. So most of
// what history keeps typed, one current object each, takes 16 bytes, not
// a pair's 32. (An encoded version that cannot be encoded exactly stays
// typed in the spill map.)
func twoSlots(k *kinds.Kind, typ EventType) bool { return !encoded(k) && typ != Added }

// len is the number of kept entries.
func (h *history) len() int { return h.n + len(h.buf) - h.lo }

func (h *history) recent() []Event { return h.buf[h.lo:] }

func (h *history) append(ev Event) {
	if h.len() == 0 {
		h.first = ev.Rev
	}
	h.buf = append(h.buf, ev)
}

// sealed is the i-th kept entry, which must be sealed (i < h.n).
func (h *history) sealed(i int) *hentry {
	i += h.head
	return &h.blocks[i/historyChunk][i%historyChunk]
}

// meta is the i-th kept entry's revision, kind, type and cause.
func (h *history) meta(i int) (rev int64, k *kinds.Kind, typ EventType, cause uint64) {
	if i < h.n {
		e := h.sealed(i)
		return h.first + int64(i), h.kinds[e.kind()], e.typ(), uint64(e.cause)
	}
	ev := &h.buf[h.lo+i-h.n]
	return ev.Rev, ev.Kind, ev.Type, ev.Cause
}

// appendKey appends the key the i-th kept entry wrote to dst: what its
// typed object or its version says (see appendEventKey, which uses scratch
// and returns it). No entry keeps its key.
func (h *history) appendKey(i int, dst, scratch []byte) (key, scratchOut []byte) {
	if i >= h.n {
		return appendEventKey(&h.buf[h.lo+i-h.n], dst, scratch)
	}
	ev := Event{Kind: h.kinds[h.sealed(i).kind()]}
	h.fill(i, &ev)
	return appendEventKey(&ev, dst, scratch)
}

// key is the key the i-th kept entry wrote, as a new string.
func (h *history) key(i int) string {
	key, _ := h.appendKey(i, nil, nil)
	return string(key)
}

// fill sets the versions of ev, the i-th kept entry, sealed, as the entry
// keeps them: encoded, and typed if it keeps them typed.
func (h *history) fill(i int, ev *Event) {
	e := h.sealed(i)
	ev.obj, ev.old = e.obj, e.old
	if p, ok := h.pair(i); ok {
		ev.Object, ev.Old = p.obj, p.old
	}
}

// event is the i-th kept entry as a watch event: sealed versions stay
// encoded (decoded reads them).
func (h *history) event(i int) Event {
	if i >= h.n {
		return h.buf[h.lo+i-h.n]
	}
	e := h.sealed(i)
	ev := Event{Type: e.typ(), Kind: h.kinds[e.kind()], Rev: h.first + int64(i), Cause: uint64(e.cause)}
	h.fill(i, &ev)
	return ev
}

// blob is the version the i-th kept entry wrote, encoded; nil if it kept
// none (a delete, or a version still typed).
func (h *history) blob(i int) *blob {
	if i < h.n {
		return h.sealed(i).obj
	}
	return h.buf[h.lo+i-h.n].obj
}

// since returns the kept entries from the i-th on. Recent ones are a view
// of the log (capped, valid until the next seal); from a sealed one on, a
// copy.
func (h *history) since(i int) []Event {
	if i >= h.len() {
		return nil
	}
	if i >= h.n {
		return h.buf[h.lo+i-h.n : len(h.buf) : len(h.buf)]
	}
	out := make([]Event, 0, h.len()-i)
	for ; i < h.len(); i++ {
		out = append(out, h.event(i))
	}
	return out
}

// sealFront moves the oldest recent entry to the sealed ones.
func (h *history) sealFront() {
	ev := &h.buf[h.lo]
	if ev.Rev != h.first+int64(h.n) {
		panic("store: history out of order: sealing revision " + strconv.FormatInt(ev.Rev, 10) +
			" after " + strconv.FormatInt(h.first+int64(h.n)-1, 10))
	}
	var p typedPair
	if ev.obj == nil {
		p.obj = ev.Object
	}
	if ev.old == nil {
		p.old = ev.Old
	}
	var typed uint32
	if p != (typedPair{}) {
		typed = h.keepTyped(ev.Rev, twoSlots(ev.Kind, ev.Type), p)
	}
	e := hentry{obj: ev.obj, old: ev.old, cause: sealedCause(ev.Cause),
		bits: pack(ev.Type, ev.statusOnly, h.kindID(ev.Kind), typed)}
	if len(h.blocks) == 0 || len(h.blocks[len(h.blocks)-1]) == historyChunk {
		h.blocks = append(h.blocks, make([]hentry, 0, historyChunk))
	}
	last := &h.blocks[len(h.blocks)-1]
	*last = append(*last, e)
	h.n++
	h.popFront()
}

// popFront forgets the oldest recent entry, reusing the log's space once
// none is left.
func (h *history) popFront() {
	h.buf[h.lo] = Event{} // let the collector have its objects
	h.lo++
	switch {
	case h.lo == len(h.buf):
		h.buf, h.lo = h.buf[:0], 0
	case h.lo >= 1024 && h.lo >= len(h.buf)/2:
		h.buf, h.lo = h.buf[:copy(h.buf, h.buf[h.lo:])], 0
		clear(h.buf[len(h.buf):cap(h.buf)])
	}
}

// encodedObj records that the i-th kept entry, sealed, now keeps the
// version it wrote encoded, as b.
func (h *history) encodedObj(i int, b *blob) {
	h.sealed(i).obj = b
	switch p, ok := h.pair(i); {
	case !ok:
	case p.old == nil:
		h.forgetTyped(i)
	default: // it keeps the version it superseded typed still
		h.setTypedObj(i, nil)
	}
}

// keepTyped keeps p, the typed versions of the entry that wrote revision
// rev, in two slots of typed or (two false) in one, that of p.obj, and
// returns its hentry.typed. It reuses freed slots first, and allocates only
// to grow typed (amortized) or to spill: past typedSlots, or a version p
// keeps that one slot cannot hold.
func (h *history) keepTyped(rev int64, two bool, p typedPair) uint32 {
	switch {
	case two && len(h.free2) > 0:
		i := h.free2[len(h.free2)-1]
		h.free2 = h.free2[:len(h.free2)-1]
		h.typed[i], h.typed[i+1] = p.obj, p.old
		return i + 1
	case two && len(h.typed)+2 <= typedSlots:
		h.typed = append(h.typed, p.obj, p.old)
		return uint32(len(h.typed) - 1)
	case two || p.old != nil:
	case len(h.free1) > 0:
		i := h.free1[len(h.free1)-1]
		h.free1 = h.free1[:len(h.free1)-1]
		h.typed[i] = p.obj
		return i + 1
	case len(h.typed) < typedSlots:
		h.typed = append(h.typed, p.obj)
		return uint32(len(h.typed))
	}
	// Keyed by revision, which compaction leaves alone, unlike an entry's
	// index (relative to the oldest kept entry).
	if h.spilled == nil {
		h.spilled = map[int64]*typedPair{}
	}
	q := new(typedPair) // not &p, which would put every p on the heap
	*q = p
	h.spilled[rev] = q
	return spilledRef
}

// pair is what the i-th kept entry, sealed, keeps typed; false if nothing.
func (h *history) pair(i int) (typedPair, bool) {
	e := h.sealed(i)
	switch t := e.typed(); t {
	case 0:
		return typedPair{}, false
	case spilledRef:
		q, ok := h.spilled[h.first+int64(i)]
		if !ok {
			return typedPair{}, false
		}
		return *q, true
	default:
		p := typedPair{obj: h.typed[t-1]}
		if twoSlots(h.kinds[e.kind()], e.typ()) {
			p.old = h.typed[t]
		}
		return p, true
	}
}

// setTypedObj sets the version the i-th kept entry, sealed, keeps typed
// as the one it wrote.
func (h *history) setTypedObj(i int, o Object) {
	switch t := h.sealed(i).typed(); t {
	case 0:
	case spilledRef:
		h.spilled[h.first+int64(i)].obj = o
	default:
		h.typed[t-1] = o
	}
}

// forgetTyped drops what the i-th kept entry, sealed, keeps typed.
func (h *history) forgetTyped(i int) {
	e := h.sealed(i)
	switch t := e.typed(); t {
	case 0:
		return
	case spilledRef:
		delete(h.spilled, h.first+int64(i))
	default:
		if twoSlots(h.kinds[e.kind()], e.typ()) {
			h.typed[t-1], h.typed[t] = nil, nil
			h.free2 = append(h.free2, t-1)
		} else {
			h.typed[t-1] = nil
			h.free1 = append(h.free1, t-1)
		}
	}
	e.setTyped(0)
}

// typedObj is the version the i-th kept entry, sealed, keeps typed, if any.
func (h *history) typedObj(i int) Object {
	p, _ := h.pair(i)
	return p.obj
}

func (h *history) kindID(k *kinds.Kind) uint8 {
	if k.ID > 0 && k.ID < len(h.byID) && h.byID[k.ID] > 0 {
		return h.byID[k.ID] - 1
	}
	id, ok := h.kind[k]
	if !ok {
		if len(h.kinds) >= 1<<kindBits {
			panic("store: more than " + strconv.Itoa(1<<kindBits) + " kinds in history")
		}
		if h.kind == nil {
			h.kind = map[*kinds.Kind]uint8{}
		}
		id = uint8(len(h.kinds))
		h.kinds = append(h.kinds, k)
		h.kind[k] = id
	}
	if k.ID > 0 {
		if k.ID >= len(h.byID) {
			h.byID = append(h.byID, make([]uint8, k.ID+1-len(h.byID))...)
		}
		h.byID[k.ID] = id + 1
	}
	return id
}

// drop discards the oldest k kept entries.
func (h *history) drop(k int) {
	if k <= 0 {
		return
	}
	sealed := min(k, h.n)
	for i := range sealed {
		h.forgetTyped(i) // before h.first moves: it finds spilled pairs by revision
	}
	h.n -= sealed
	h.head += sealed
	full := h.head / historyChunk
	if full > 0 {
		for i := range h.blocks[:full] {
			h.blocks[i] = nil
		}
		h.blocks = append([][]hentry(nil), h.blocks[full:]...)
		h.head -= full * historyChunk
	}
	// Entries before head in the first block are no longer reachable
	// through the API; clear them so that they do not keep old versions.
	if len(h.blocks) > 0 {
		clear(h.blocks[0][:h.head])
	}
	for range k - sealed {
		h.popFront()
	}
	h.first += int64(k)
}
