// Package store is kubeloop's etcd: the one place cluster state lives.
//
// As in etcd, there is a single revision counter that every write moves
// forward, and every object's resourceVersion is the revision that last wrote
// it (its mod revision). Writes check resourceVersion for optimistic
// concurrency, exactly as kube-apiserver's guaranteed updates do. Every write
// is kept in a history log that watchers read from a revision onwards, until
// compaction discards it (reads of compacted revisions fail with Compacted).
//
// Like etcd, which holds bytes while typed objects live in the API server's
// watch cache and the informers, the store keeps the current version of an
// object typed and the versions it superseded encoded, once every component
// has seen the write (Seal); Events, which no component watches, are kept
// encoded from the start. Readers of history get decoded copies (see
// encoding.go).
//
// Objects handed out are shared and read-only (sample-controller: "NEVER
// modify objects from the store"); writers pass in a fresh object and the
// store takes ownership of it (or, for Events, keeps only its bytes).
package store

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// Object is a typed Kubernetes object.
type Object = kinds.Object

// EventType says what a write did, in watch terms.
type EventType uint8

// Watch event types, as a Kubernetes watch names them.
const (
	Added EventType = iota + 1
	Modified
	Deleted
)

func (t EventType) String() string {
	switch t {
	case Added:
		return "ADDED"
	case Modified:
		return "MODIFIED"
	case Deleted:
		return "DELETED"
	}
	return "EventType(" + strconv.Itoa(int(t)) + ")"
}

// Event is one committed write, as a watcher sees it.
type Event struct {
	Type EventType
	// statusOnly says the write's caller promised it changed nothing but
	// the object's status (UpdateStatusOnly). Next to Type, in padding
	// that Event has anyway.
	statusOnly bool
	Kind       *kinds.Kind
	Rev        int64
	// Object is the object after the write; for Deleted, its last state.
	// Old is the object before the write; nil for Added. In what Watch
	// returns, both are nil for the kinds kept at rest (see encoding.go).
	Object Object
	Old    Object
	// Cause is the trace sequence number of the action that made this write,
	// so that whoever reacts to it can say why it acted.
	Cause uint64

	// obj and old are Object and Old in etcd's encoding, once sealed (see
	// encoding.go); Since decodes them for its reader.
	obj, old *blob
}

// Key is the etcd key the write wrote (/registry/pods/default/web-1),
// read from its object's namespace and name, or from the version's bytes
// for a kind kept at rest. It is made when asked for: a write keeps no
// key of its own, as most are read by watchers that never ask (a key
// string for every write was a million and a half allocations in a large
// cluster's start).
func (ev *Event) Key() string {
	key, _ := appendEventKey(ev, nil, nil)
	return string(key)
}

// appendEventKey appends the key ev wrote to dst: its typed object's, or
// its version's (see blob.appendKey, which uses scratch and returns it).
func appendEventKey(ev *Event, dst, scratch []byte) (key, scratchOut []byte) {
	if o := cmp.Or(ev.Object, ev.Old); o != nil {
		return ev.Kind.AppendKey(dst, o.GetNamespace(), o.GetName()), scratch
	}
	if b := cmp.Or(ev.obj, ev.old); b != nil {
		return b.appendKey(ev.Kind, dst, scratch)
	}
	panic("store: a write keeps no version of its object")
}

// ErrCompacted is returned when reading history that compaction removed; it
// carries etcd's wording.
type ErrCompacted struct{ Rev, CompactRev int64 }

func (e *ErrCompacted) Error() string {
	return fmt.Sprintf("etcdserver: mvcc: required revision %d has been compacted (compacted to %d)", e.Rev, e.CompactRev)
}

type bucket struct {
	// The current versions by key: typed, or encoded for a kind kept at
	// rest; one table or the other (see table).
	objs    typedMap
	rest    restMap
	atRest  bool     // the kind is kept encoded even while current
	inOrder []*blob  // at rest: the current versions in key order; nil when stale
	rev     int64    // the revision of the latest write to the kind
	indexes []*index // the kind's indexes (see AddIndex)
}

// get is the entry at key (a scratch buffer).
func (b *bucket) get(key []byte) (entry, bool) {
	if b.atRest {
		enc, ok := getRest(&b.rest, key)
		return entry{enc: enc}, ok
	}
	obj, ok := getTyped(&b.objs, key)
	return entry{obj: obj}, ok
}

func (b *bucket) put(key []byte, e entry) {
	if b.atRest {
		b.rest.put(key, e.enc)
	} else {
		b.objs.put(key, e.obj)
	}
}

// add is put of a key the bucket does not hold: a create.
func (b *bucket) add(key []byte, e entry) {
	if b.atRest {
		b.rest.add(key, e.enc)
	} else {
		b.objs.add(key, e.obj)
	}
}

func (b *bucket) del(key []byte) {
	if b.atRest {
		b.rest.del(key)
	} else {
		b.objs.del(key)
	}
}

// stale forgets the versions in order of a bucket kept at rest, after a
// create, a write or a delete (a typedMap forgets its own order, of
// slots, which a write in place leaves right).
func (b *bucket) stale() { b.inOrder = nil }

func (b *bucket) size() int { return b.rest.len() + b.objs.len() }

// each calls f for every entry, in no order. The key of a typed object is
// made for the call.
func (b *bucket) each(f func(key string, e entry)) {
	b.rest.each(func(key string, enc *blob) { f(key, entry{enc: enc}) })
	k := b.objs.k
	b.objs.t.each(func(o Object) { f(k.Key(o.GetNamespace(), o.GetName()), entry{obj: o}) })
}

// entry is the current version of one object: typed, or encoded for the
// kinds kept at rest (see encoding.go). The bucket keeps one for every
// object, without its key (see table).
type entry struct {
	obj Object
	enc *blob
}

// object is the entry's object; decoding makes a new one each time.
func (e entry) object(k *kinds.Kind) Object {
	if e.obj != nil {
		return e.obj
	}
	return e.enc.decode(k)
}

// newEntry makes the entry for obj, encoding it if its kind is kept at rest.
// The store then keeps nothing of obj itself.
func (s *Store) newEntry(b *bucket, k *kinds.Kind, obj Object) entry {
	if b.atRest {
		enc := s.encode(k, obj, nil, false)
		if enc == nil {
			panic("store: a " + k.Kind + " must be kept at rest, and this one cannot be encoded")
		}
		return entry{enc: enc}
	}
	return entry{obj: obj}
}

// typed is what a history entry holds of an object: nothing for the kinds
// kept at rest (the entry has their bytes), the object for the others.
func (b *bucket) typed(obj Object) Object {
	if b.atRest {
		return nil
	}
	return obj
}

// Store is an etcd-shaped, single-threaded object store.
type Store struct {
	rev        int64
	compactRev int64
	buckets    []*bucket               // by Kind.ID: every read and write finds one
	others     map[*kinds.Kind]*bucket // for kinds without an ID (tests')
	history    history                 // writes with Rev > compactRev, in revision order
	keyBuf     []byte                  // scratch for lookup keys
	writeKey   []byte                  // the key of the write in progress (see takeKey)
	timesBuf   []byte                  // scratch for encoding
	extraBuf   []byte                  // scratch for encoding
	encBuf     []byte                  // scratch for encoding
	specs      map[string]*blob        // pod specs for versions to share (see sharedSpecBlob)
	refs       map[refKey]*refSet      // the versions kept whole that others are deltas against (see delta.go)
	bodyBuf    []byte                  // scratch for encoding
	cmpBuf     []byte                  // scratch for encoding
	deltaBuf   []byte                  // scratch for encoding
	ownIdx     refIndex                // scratch for encoding: the index of a version's own reference
	slab       strings.Builder         // the block short versions' bytes are cut from (see slabSize)
	// involved remembers, by an object's uid, the version of an Event
	// about it that keeps the uid (see involvedCache).
	involved involvedCache
}

// New returns an empty store at revision 1 (etcd starts at 1).
func New() *Store {
	return &Store{rev: 1}
}

// Rev is the current revision: the revision of the latest write.
func (s *Store) Rev() int64 { return s.rev }

// CompactRev is the revision up to which history has been discarded.
func (s *Store) CompactRev() int64 { return s.compactRev }

func (s *Store) bucket(k *kinds.Kind) *bucket {
	if k.ID > 0 && k.ID < len(s.buckets) {
		if b := s.buckets[k.ID]; b != nil {
			return b
		}
	}
	return s.newBucket(k)
}

// newBucket is k's bucket, made on first use.
func (s *Store) newBucket(k *kinds.Kind) *bucket {
	if b, ok := s.others[k]; ok {
		return b
	}
	b := &bucket{atRest: keptAtRest(k), objs: typedMap{k: k}}
	switch {
	case k.ID > 0:
		if k.ID >= len(s.buckets) {
			s.buckets = append(s.buckets, make([]*bucket, k.ID+1-len(s.buckets))...)
		}
		s.buckets[k.ID] = b
	default:
		if s.others == nil {
			s.others = map[*kinds.Kind]*bucket{}
		}
		s.others[k] = b
	}
	return b
}

// lookupKey builds k's key for namespace/name in the scratch buffer; a map
// index with string(s.keyBuf) does not allocate.
func (s *Store) lookupKey(k *kinds.Kind, namespace, name string) {
	s.keyBuf = k.AppendKey(s.keyBuf[:0], namespace, name)
}

// takeKey copies the key in the scratch buffer to writeKey, the key of
// the write in progress, once the write is checked: its table and its
// indexes file the object under it, while the index functions they call
// may look objects up, which reuses keyBuf. No write keeps a key string.
func (s *Store) takeKey() []byte {
	s.writeKey = append(s.writeKey[:0], s.keyBuf...)
	return s.writeKey
}

// Get returns the object of kind k at namespace/name. The result is shared:
// do not modify it.
func (s *Store) Get(k *kinds.Kind, namespace, name string) (Object, error) {
	if o, ok := s.Lookup(k, namespace, name); ok {
		return o, nil
	}
	return nil, apierrors.NewNotFound(k.GroupResource(), name)
}

// Lookup is Get without an error for the common "is it there" question.
func (s *Store) Lookup(k *kinds.Kind, namespace, name string) (Object, bool) {
	b := s.bucket(k)
	s.lookupKey(k, namespace, name)
	e, ok := b.get(s.keyBuf)
	if !ok {
		return nil, false
	}
	return e.object(k), true
}

// ModRev is etcd's mod_revision of an object: the revision of its latest
// write (its resourceVersion), read without decoding it.
func (s *Store) ModRev(k *kinds.Kind, namespace, name string) (int64, bool) {
	b := s.bucket(k)
	s.lookupKey(k, namespace, name)
	e, ok := b.get(s.keyBuf)
	switch {
	case !ok:
		return 0, false
	case e.enc != nil && hasRV(e.enc):
		rv, _ := e.enc.rv()
		return rv, true
	}
	return rvOf(e.object(k)), true
}

// KeyAt is the key that revision rev wrote, while history still holds it.
func (s *Store) KeyAt(rev int64) (string, bool) {
	if i, ok := s.entryAt(rev); ok {
		return s.history.key(i), true
	}
	return "", false
}

// Version is one version of an object as etcd keeps it, the value a write
// put at its revision, for a reader that holds on to writes rather than
// keys: the API server's Event TTL queue, eight bytes a write. Only the
// kinds kept at rest have versions to hold (see encoding.go).
type Version struct{ b *blob }

// VersionAt is the version that revision rev wrote (for a delete, the
// version it deleted), while history holds it; false if it does not, or
// if the version is not encoded (a kind not kept at rest).
func (s *Store) VersionAt(rev int64) (Version, bool) {
	i, ok := s.entryAt(rev)
	if !ok {
		return Version{}, false
	}
	b := s.history.blob(i)
	return Version{b}, b != nil
}

// Key is v's etcd key: the store's own string, a substring of the version
// for an Event, which keeps its key (see event_encoding.go).
func (v Version) Key(k *kinds.Kind) string {
	if key, ok := v.b.eventKey(); ok {
		return key
	}
	o := v.b.decode(k)
	return k.Key(o.GetNamespace(), o.GetName())
}

// Rev is the revision that wrote v.
func (v Version) Rev(k *kinds.Kind) int64 {
	if hasRV(v.b) {
		rv, _ := v.b.rv()
		return rv
	}
	return rvOf(v.b.decode(k))
}

// IsCurrent reports whether v is still its object's current version: the
// object has been neither written again nor deleted since.
func (s *Store) IsCurrent(k *kinds.Kind, v Version) bool {
	b := s.bucket(k)
	if !b.atRest || v.b == nil {
		return false
	}
	cur, _ := getRest(&b.rest, v.Key(k))
	return cur == v.b
}

// List returns the objects of kind k in namespace (all namespaces if ""),
// ordered by key, as etcd's range reads are. The slice is the caller's; the
// objects are shared.
func (s *Store) List(k *kinds.Kind, namespace string) []Object {
	b := s.bucket(k)
	if !b.atRest {
		slots := b.objs.inOrder()
		name := func(i int) objectName {
			return nameOf(b.objs.t.slots[slots[i]])
		}
		lo, hi := 0, len(slots)
		if k.Namespaced && namespace != "" {
			first := objectName{namespace: namespace} // the key "namespace/", before every one in namespace
			lo = sort.Search(len(slots), func(i int) bool { return cmpObjectNames(name(i), first) >= 0 })
			hi = lo
			for hi < len(slots) && name(hi).namespace == namespace {
				hi++
			}
		}
		out := make([]Object, hi-lo)
		for i, slot := range slots[lo:hi] {
			out[i] = b.objs.t.slots[slot]
		}
		return out
	}
	vers := b.versions(k)
	if k.Namespaced && namespace != "" {
		// Every key in namespace, and only those, lies from prefix/ns/ up
		// to prefix/ns0 ("0" is the byte after "/").
		from := []byte(k.EtcdPrefix + "/" + namespace + "/")
		to := append(from[:len(from)-1:len(from)-1], '0')
		var scratch []byte
		lo := sort.Search(len(vers), func(i int) bool { return cmpVersionKey(k, vers[i], from, &scratch) >= 0 })
		hi := lo + sort.Search(len(vers)-lo, func(i int) bool { return cmpVersionKey(k, vers[lo+i], to, &scratch) >= 0 })
		vers = vers[lo:hi]
	}
	out := make([]Object, len(vers))
	for i, v := range vers {
		out[i] = v.decode(k)
	}
	return out
}

// versions is the current versions of a bucket kept at rest, in key
// order. Only the order is kept: the keys are made for the sort (a new
// string for an Event kept as a delta) and dropped.
func (b *bucket) versions(k *kinds.Kind) []*blob {
	if b.inOrder == nil {
		vers := make([]keyed[string, *blob], 0, b.size())
		b.rest.each(func(key string, v *blob) { vers = append(vers, keyed[string, *blob]{key, v}) })
		b.inOrder = sortInto(make([]*blob, len(vers)), vers, strings.Compare)
	}
	return b.inOrder
}

// keyed is an item and the key it is sorted by, made once for the sort:
// reading a key from its item (a cold object, a version's bytes) at
// every comparison would cost a cache miss or a rebuilt body each.
type keyed[K, T any] struct {
	key  K
	item T
}

// sortInto sorts s by key, as cmp orders keys, writes its items in that
// order to dst (as long as s) and returns dst.
func sortInto[K, T any](dst []T, s []keyed[K, T], cmp func(a, b K) int) []T {
	slices.SortFunc(s, func(a, b keyed[K, T]) int { return cmp(a.key, b.key) })
	for i := range s {
		dst[i] = s[i].item
	}
	return dst
}

// objectName is a typed object's namespace and name, which make its key.
type objectName struct{ namespace, name string }

func nameOf(o Object) objectName { return objectName{o.GetNamespace(), o.GetName()} }

// cmpObjectNames compares the keys of two objects of one kind by their
// names: "namespace/name" as a string, not as a pair ("a-x/b" sorts
// before "a/b"), without building it.
func cmpObjectNames(a, b objectName) int {
	if a.namespace == b.namespace {
		return strings.Compare(a.name, b.name)
	}
	x, y := a.namespace, b.namespace
	n := min(len(x), len(y))
	if c := strings.Compare(x[:n], y[:n]); c != 0 {
		return c
	}
	// One namespace starts the other: the "/" after the shorter meets the
	// longer's next byte.
	switch {
	case len(x) < len(y) && y[n] != '/':
		return cmp.Compare('/', y[n])
	case len(y) < len(x) && x[n] != '/':
		return cmp.Compare(x[n], '/')
	}
	return strings.Compare(x+"/"+a.name, y+"/"+b.name) // a namespace that holds a "/"
}

// KindRev is the revision of the latest write to an object of kind k (0 if
// none): a watcher that has seen events up to KindRev has seen every write
// to the kind.
func (s *Store) KindRev(k *kinds.Kind) int64 { return s.bucket(k).rev }

// Count is the number of objects of kind k.
func (s *Store) Count(k *kinds.Kind) int { return s.bucket(k).size() }

// Create stores a new object. It sets resourceVersion to the new revision and
// fails with AlreadyExists if the key is taken.
func (s *Store) Create(obj Object, cause uint64) (int64, error) {
	k := kinds.Of(obj)
	b := s.bucket(k)
	s.lookupKey(k, obj.GetNamespace(), obj.GetName())
	if _, ok := b.get(s.keyBuf); ok {
		return 0, apierrors.NewAlreadyExists(k.GroupResource(), obj.GetName())
	}
	return s.create(b, k, obj, cause), nil
}

// CreateNew is Create for a key its caller knows no object holds: the API
// server's Event recorder, whose names are unique by construction. It
// skips the existence check, a probe into a map of a million Events in a
// big cluster. (VerifyEncoding, on in tests, checks all the same.)
func (s *Store) CreateNew(obj Object, cause uint64) int64 {
	k := kinds.Of(obj)
	b := s.bucket(k)
	s.lookupKey(k, obj.GetNamespace(), obj.GetName())
	if VerifyEncoding {
		if _, ok := b.get(s.keyBuf); ok {
			panic("store: CreateNew of a key that is taken: " + string(s.keyBuf))
		}
	}
	return s.create(b, k, obj, cause)
}

// create writes obj, new at the key in the scratch buffer.
func (s *Store) create(b *bucket, k *kinds.Kind, obj Object, cause uint64) int64 {
	s.rev++
	obj.SetResourceVersion(strconv.FormatInt(s.rev, 10))
	key := s.takeKey()
	e := s.newEntry(b, k, obj)
	b.add(key, e)
	b.stale()
	b.rev = s.rev
	s.indexAdd(k, key, obj, e.enc)
	s.history.append(Event{Type: Added, Kind: k, Rev: s.rev, Object: b.typed(obj), Cause: cause, obj: e.enc})
	return s.rev
}

// Update replaces an existing object. If obj carries a resourceVersion it
// must equal the stored one, or the write fails with Kubernetes' Conflict
// ("the object has been modified; please apply your changes to the latest
// version and try again"); an empty resourceVersion is an unconditional write.
func (s *Store) Update(obj Object, cause uint64) (int64, error) {
	return s.update(obj, cause, false)
}

// UpdateStatusOnly is Update for a write whose caller knows that obj
// differs from the stored version in nothing but its status and
// resourceVersion: the API server's status writes, most of a cluster's
// writes. The store takes the caller's word for it only to encode the
// superseded version cheaply once sealed (marshalling its status alone,
// see encode); with VerifyEncoding on, it checks the word against the
// whole encoding and panics if it was false.
func (s *Store) UpdateStatusOnly(obj Object, cause uint64) (int64, error) {
	return s.update(obj, cause, true)
}

func (s *Store) update(obj Object, cause uint64, statusOnly bool) (int64, error) {
	k := kinds.Of(obj)
	b := s.bucket(k)
	s.lookupKey(k, obj.GetNamespace(), obj.GetName())
	was, ok := b.get(s.keyBuf)
	if !ok {
		return 0, apierrors.NewNotFound(k.GroupResource(), obj.GetName())
	}
	old, oldRV := s.replaced(b, k, was)
	if rv := obj.GetResourceVersion(); rv != "" && rv != oldRV {
		return 0, apierrors.NewConflict(k.GroupResource(), obj.GetName(),
			fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
	}
	if old == obj {
		panic("store: Update with the stored object itself; objects from the store are read-only, copy first")
	}
	key := s.takeKey()
	s.rev++
	obj.SetResourceVersion(strconv.FormatInt(s.rev, 10))
	e := s.newEntry(b, k, obj)
	b.put(key, e)
	if b.atRest {
		b.stale() // the order holds versions, and this one is new
	}
	b.rev = s.rev
	s.indexUpdate(k, key, old, obj, e.enc)
	s.history.append(Event{Type: Modified, statusOnly: statusOnly, Kind: k, Rev: s.rev,
		Object: b.typed(obj), Old: b.typed(old), Cause: cause, obj: e.enc, old: was.enc})
	return s.rev, nil
}

// replaced is what an update needs of the version it replaces, was: its
// resourceVersion, the update's precondition, and the object, for the
// kind's indexes to refile it. A kind kept at rest and indexed by nothing
// (Events, but for the API server's correlation index) needs no object:
// its history entry keeps was's bytes, and the resourceVersion is read
// from them (old is then nil). An aggregated Event's every repeat is an
// update, which would otherwise decode the version its writer just
// decoded to change.
func (s *Store) replaced(b *bucket, k *kinds.Kind, was entry) (old Object, rv string) {
	if b.atRest && len(b.indexes) == 0 && hasRV(was.enc) {
		n, _ := was.enc.rv()
		rv = strconv.FormatInt(n, 10)
		if VerifyEncoding && was.object(k).GetResourceVersion() != rv {
			panic("store: the resourceVersion kept apart from " + k.Kind + " bytes is not the one they decode to")
		}
		return nil, rv
	}
	old = was.object(k)
	return old, old.GetResourceVersion()
}

// Delete removes an object. A non-empty resourceVersion is a precondition, as
// in Update.
func (s *Store) Delete(k *kinds.Kind, namespace, name, resourceVersion string, cause uint64) (Object, int64, error) {
	b := s.bucket(k)
	s.lookupKey(k, namespace, name)
	was, ok := b.get(s.keyBuf)
	if !ok {
		return nil, 0, apierrors.NewNotFound(k.GroupResource(), name)
	}
	old := was.object(k)
	if resourceVersion != "" && resourceVersion != old.GetResourceVersion() {
		return nil, 0, apierrors.NewConflict(k.GroupResource(), name,
			fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
	}
	key := s.takeKey()
	s.rev++
	b.del(key)
	b.stale()
	b.rev = s.rev
	s.indexRemove(k, key, old)
	s.history.append(Event{Type: Deleted, Kind: k, Rev: s.rev, Object: b.typed(old), Old: b.typed(old),
		Cause: cause, obj: was.enc, old: was.enc})
	return old, s.rev, nil
}

// Since returns the events with revision > rev, in order: what a watch from
// rev replays. It fails with ErrCompacted if rev is older than the compaction.
// The slice is the caller's; versions the store keeps encoded are decoded
// into new objects, the caller's to keep, and the others are shared.
func (s *Store) Since(rev int64) ([]Event, error) {
	evs, err := s.Watch(rev)
	if err != nil {
		return nil, err
	}
	out := make([]Event, len(evs))
	for j, ev := range evs {
		out[j] = s.decoded(ev)
	}
	return out, nil
}

// Watch is Since as the control plane's components watch: the events
// exactly as kept, without decoding. What a component has not seen yet
// holds its typed objects, except for the kinds kept at rest (Events),
// which no component watches: their events come with Object and Old nil.
// The slice may be a view of the store's log, valid until the next Seal;
// do not modify it.
func (s *Store) Watch(rev int64) ([]Event, error) {
	if rev < s.compactRev {
		return nil, &ErrCompacted{Rev: rev, CompactRev: s.compactRev}
	}
	return s.history.since(s.historyIndex(rev)), nil
}

// SinceOf is Since for a few kinds: the events of kinds ks only. Readers
// that want some kinds over a long stretch of history use it, so that
// versions of other kinds kept encoded are not decoded for nothing.
func (s *Store) SinceOf(rev int64, ks ...*kinds.Kind) ([]Event, error) {
	if rev < s.compactRev {
		return nil, &ErrCompacted{Rev: rev, CompactRev: s.compactRev}
	}
	var out []Event
	for i := s.historyIndex(rev); i < s.history.len(); i++ {
		_, kind, _, _ := s.history.meta(i)
		for _, k := range ks {
			if kind == k {
				out = append(out, s.decoded(s.history.event(i)))
				break
			}
		}
	}
	return out, nil
}

// LastWrite is the latest kept history entry for an object, without its
// objects: its revision, type and cause. It reports false if history since
// the last compaction holds no write to the object.
func (s *Store) LastWrite(k *kinds.Kind, namespace, name string) (rev int64, typ EventType, cause uint64, ok bool) {
	// An object that exists was last written at its mod revision: found by
	// arithmetic. Only a deleted one needs the log searched, newest first,
	// reading the key of each write to its kind.
	if mod, exists := s.ModRev(k, namespace, name); exists {
		if i, ok := s.entryAt(mod); ok {
			rev, _, typ, cause := s.history.meta(i)
			return rev, typ, cause, true
		}
		return 0, 0, 0, false // written before the last compaction
	}
	key := k.Key(namespace, name)
	var ekey, scratch []byte
	for i := s.history.len() - 1; i >= 0; i-- {
		rev, kind, typ, cause := s.history.meta(i)
		if kind != k {
			continue
		}
		if ekey, scratch = s.history.appendKey(i, ekey[:0], scratch); string(ekey) == key {
			return rev, typ, cause, true
		}
	}
	return 0, 0, 0, false
}

// decoded is ev with the versions the store keeps encoded decoded.
func (s *Store) decoded(ev Event) Event {
	if ev.Object == nil && ev.obj != nil {
		ev.Object = ev.obj.decode(ev.Kind)
	}
	if ev.Old == nil && ev.old != nil {
		if ev.old == ev.obj {
			ev.Old = ev.Object // a delete: the last state is both
		} else {
			ev.Old = ev.old.decode(ev.Kind)
		}
	}
	return ev
}

// Seal tells the store that every watcher has seen the writes up to rev.
// A version superseded by one of those writes is then wanted only by
// readers of history, and the store keeps it as etcd keeps every version:
// encoded (see encoding.go). The writes themselves join the sealed part
// of history (see history).
func (s *Store) Seal(rev int64) {
	for h := &s.history; len(h.recent()) > 0 && h.recent()[0].Rev <= rev; h.sealFront() {
		ev := &h.recent()[0]
		if ev.obj == nil && (ev.Type == Modified || ev.Type == Deleted) { // not a kind kept at rest
			s.sealOld(ev)
		}
	}
}

// sealOld encodes the version ev superseded, sharing the bytes with the
// history entry that wrote that version when it is still kept. The version
// before that one, which that entry superseded, is the base against which
// a status-only change is kept (see blob); if that entry's writer
// promised it changed only the status, encode trusts it (see
// UpdateStatusOnly). Entries are sealed in revision order, so the one
// that wrote the version is sealed already.
func (s *Store) sealOld(ev *Event) {
	old := ev.Old
	var b *blob
	if i, ok := s.entryAt(rvOf(old)); ok && i < s.history.n && s.wroteVersionOf(i, ev) {
		switch p := s.history.sealed(i); {
		case p.obj != nil:
			b = p.obj
		case s.history.typedObj(i) == old:
			if b = s.encode(ev.Kind, old, p.old, p.statusOnly()); b != nil {
				s.history.encodedObj(i, b)
			}
		default:
			b = s.encode(ev.Kind, old, nil, false)
		}
	} else {
		b = s.encode(ev.Kind, old, nil, false)
	}
	if b == nil {
		return // not encodable exactly: kept typed
	}
	ev.Old, ev.old = nil, b
	if ev.Type == Deleted {
		ev.Object, ev.obj = nil, b
	}
}

// wroteVersionOf says whether the i-th kept entry, sealed, wrote the
// version that ev superseded, as its resourceVersion says: a write to the
// same kind (and, checked in tests, the same key; sealed entries keep
// none to compare cheaply).
func (s *Store) wroteVersionOf(i int, ev *Event) bool {
	if _, kind, _, _ := s.history.meta(i); kind != ev.Kind {
		return false
	}
	if VerifyEncoding && s.history.key(i) != ev.Key() {
		panic("store: revision " + strconv.FormatInt(rvOf(ev.Old), 10) + " wrote " + s.history.key(i) + ", not " + ev.Key())
	}
	return true
}

// entryAt is the index of the kept history entry that wrote revision rev.
func (s *Store) entryAt(rev int64) (int, bool) {
	if rev <= s.compactRev || rev > s.rev || s.history.len() == 0 || rev < s.history.first {
		return 0, false
	}
	i := int(rev - s.history.first)
	return i, i < s.history.len()
}

// historyIndex is the index of the first kept entry with a revision above
// rev.
func (s *Store) historyIndex(rev int64) int {
	n := s.history.len()
	switch first := s.history.first; {
	case n == 0 || rev < first:
		return 0
	case rev-first+1 > int64(n):
		return n
	}
	return int(rev - s.history.first + 1)
}

// Compact discards history up to and including rev, as etcd compaction does.
func (s *Store) Compact(rev int64) {
	if rev <= s.compactRev {
		return
	}
	if rev > s.rev {
		rev = s.rev
	}
	s.history.drop(s.historyIndex(rev))
	s.compactRev = rev
}

// HistoryLen is the number of events kept since the last compaction.
func (s *Store) HistoryLen() int { return s.history.len() }
