package store

import (
	"bytes"
	"cmp"
	"slices"
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// IndexFunc returns the index values an object is filed under (client-go's
// cache.IndexFunc): for example a pod's node name, or its owner's UID.
// The values come in an order that depends on the object alone (sorted,
// or a slice's order; never a map's): a write that leaves them as they
// were keeps the object where it is filed only if the two lists are
// equal, and refiles it under every value otherwise.
type IndexFunc func(Object) []string

type index struct {
	name   string
	fn     IndexFunc
	k      *kinds.Kind
	atRest bool                 // k is kept at rest: sets keep versions, not objects
	byVal  map[string]*indexSet // value -> what is filed under it
	// scratch is a version's body rebuilt to read its key (see cmpVersionKey).
	scratch []byte
}

// indexRunMax is the most members one run of an indexSet holds (at least
// 2). Filing or unfiling a member moves at most one run's worth; 512 keeps
// that to a few KB while a ReplicaSet's pods (150 in the benchmark) stay
// one run, which ByIndexShared hands out as it is. A variable so that
// tests can lower it.
var indexRunMax = 512

// indexSet is what is filed under one index value, in key order. For a
// kind kept typed that is the members' current objects, kept current by
// updates, so that ByIndexShared hands them out without building
// anything: a member's key is its object's namespace and name, so no key
// is kept. For a kind kept at rest, which has no typed object to keep, it
// is the members' current versions, kept current by updates too: a
// version keeps its key (see event_encoding.go), so no key is kept either,
// and a read decodes the versions it holds. A large set is split
// into runs of at most indexRunMax, so that filing a pod among a node's
// thousands moves one run, not all of them.
type indexSet struct {
	objs runs[Object] // for a kind kept typed
	vers runs[*blob]  // for a kind kept at rest

	// n is the number of members: 32 bits, beside unordered, so that a
	// set stays 80 bytes (there is one for every node and every owner).
	n int32

	// unordered says objs is one run in the order its members were
	// filed, not in key order: the set has never been read. Filing a
	// member in key order costs a binary search that reads a cold
	// object's name at every step, and the sets of some indexes are
	// seldom read: a node's pods, wanted only when its kubelet starts or
	// the node fails, while every pod bound to it is filed there. So a
	// new set of a kind kept typed takes its members as they come, and is
	// put in key order by its first read (order), or once it fills a run;
	// from then on it is kept in order. Readers see the same either way.
	// Members are unique by key, so the order is the same too.
	unordered bool

	// joined is objs as one slice, for ByIndexShared to hand out when
	// there are several runs: built on its first read and kept current
	// by updates until the set's members change.
	joined []Object
}

// AddIndex files every object of kind k, present and future, under fn's
// values, so that ByIndex can answer "pods on node n2" without a scan. It
// panics if the index name is already taken for k.
func (s *Store) AddIndex(k *kinds.Kind, name string, fn IndexFunc) {
	b := s.bucket(k)
	for _, ix := range b.indexes {
		if ix.name == name {
			panic("store: duplicate index " + name + " for " + k.Resource)
		}
	}
	ix := &index{name: name, fn: fn, k: k, atRest: b.atRest, byVal: map[string]*indexSet{}}
	b.indexes = append(b.indexes, ix)
	b.each(func(key string, e entry) { ix.add([]byte(key), e.object(k), e.enc) }) // in no order: filing or order sorts
}

// HasIndex reports whether kind k has an index of that name.
func (s *Store) HasIndex(k *kinds.Kind, name string) bool {
	for _, ix := range s.bucket(k).indexes {
		if ix.name == name {
			return true
		}
	}
	return false
}

func (s *Store) index(k *kinds.Kind, name string) *index {
	for _, ix := range s.bucket(k).indexes {
		if ix.name == name {
			return ix
		}
	}
	panic("store: no index " + name + " for " + k.Resource)
}

// ByIndex returns the objects of kind k filed under value in the named index,
// ordered by key. It panics if there is no such index.
func (s *Store) ByIndex(k *kinds.Kind, name, value string) []Object {
	ix := s.index(k, name)
	set := ix.byVal[value]
	switch {
	case set == nil:
		return []Object{}
	case ix.atRest:
		return s.decodeSet(k, set)
	}
	ix.order(set)
	switch {
	case set.joined != nil:
		return slices.Clone(set.joined)
	}
	out := make([]Object, 0, int(set.n))
	for _, run := range set.objs {
		out = append(out, run...)
	}
	return out
}

// ByIndexShared is ByIndex without the copy: the slice is the index's own,
// read-only, and valid until the next write to the store, which may change
// it in place. It is for hot loops that only read (a ReplicaSet's sync
// walks its pods many times a second in a large cluster), and allocates
// nothing but for a set of several runs read for the first time since its
// members changed, a set read for the first time (see order), or for a
// kind kept at rest (decoded on every read).
func (s *Store) ByIndexShared(k *kinds.Kind, name, value string) []Object {
	ix := s.index(k, name)
	set := ix.byVal[value]
	switch {
	case set == nil:
		return nil
	case ix.atRest:
		return s.decodeSet(k, set)
	}
	ix.order(set)
	switch {
	case len(set.objs) == 1:
		run := set.objs[0]
		return run[:len(run):len(run)] // an append by the caller must not write into the run
	case set.joined == nil:
		set.joined = make([]Object, 0, int(set.n))
		for _, run := range set.objs {
			set.joined = append(set.joined, run...)
		}
	}
	return set.joined
}

// decodeSet is the objects of a set of a kind kept at rest, decoded.
func (s *Store) decodeSet(k *kinds.Kind, set *indexSet) []Object {
	out := make([]Object, 0, int(set.n))
	for _, run := range set.vers {
		for _, v := range run {
			out = append(out, v.decode(k))
		}
	}
	return out
}

// CountByIndex is len(ByIndex(...)) without building the slice.
func (s *Store) CountByIndex(k *kinds.Kind, name, value string) int {
	if set := s.index(k, name).byVal[value]; set != nil {
		return int(set.n)
	}
	return 0
}

// order puts an unordered set's members in key order (see
// indexSet.unordered).
func (ix *index) order(set *indexSet) {
	if !set.unordered {
		return
	}
	set.unordered = false
	if len(set.objs) == 0 {
		return
	}
	run := set.objs[0]
	named := make([]keyed[objectName, Object], len(run))
	for i, o := range run {
		named[i] = keyed[objectName, Object]{nameOf(o), o}
	}
	sortInto(run, named, cmpObjectNames)
}

// scan finds key in an unordered set by reading every member's key: for
// a member that is not the object the store keeps at key, which never
// happens while the store's invariants hold (see removeValues).
func (ix *index) scan(set *indexSet, key []byte) int {
	rel := key[len(ix.k.EtcdPrefix)+1:]
	compare := cmpNameKey
	if ix.k.Namespaced {
		compare = cmpNamespacedKey
	}
	return slices.IndexFunc(set.objs[0], func(o Object) bool { return compare(o, rel) == 0 })
}

// search finds key in set, which must be in order: the run it is in, or
// would go in, and its position there.
func (ix *index) search(set *indexSet, key []byte) (r, i int, found bool) {
	if ix.atRest {
		return set.vers.search(key, ix.cmpVersionKey)
	}
	rel := key[len(ix.k.EtcdPrefix)+1:] // namespace/name, or name
	if ix.k.Namespaced {
		return set.objs.search(rel, cmpNamespacedKey)
	}
	return set.objs.search(rel, cmpNameKey)
}

// cmpVersionKey compares the key that v, a version of an Event, keeps with
// key (see cmpVersionKey).
func (ix *index) cmpVersionKey(v *blob, key []byte) int {
	return cmpVersionKey(ix.k, v, key, &ix.scratch)
}

// cmpVersionKey compares the key that v, a version of kind k kept at rest
// (an Event), keeps with key: read from its bytes if it is kept whole,
// else from the body its delta rebuilds (into *scratch), else, for an
// Event that keeps no key, from its decoded object.
func cmpVersionKey(k *kinds.Kind, v *blob, key []byte, scratch *[]byte) int {
	field, at := v.keyField()
	switch {
	case field == 0:
		o := v.decode(k)
		return compareKey(k.Key(o.GetNamespace(), o.GetName()), key)
	case v.ref == nil:
		return compareKey(v.data[at:at+eventKeyLen(field)], key)
	}
	*scratch = v.body(k, (*scratch)[:0])
	return bytes.Compare((*scratch)[:eventKeyLen(field)], key)
}

// cmpNamespacedKey compares o's key, less the kind's prefix, with rel: the
// namespace and name joined by "/", compared as that string (not as a pair:
// "a-x/b" sorts before "a/b") without building it.
func cmpNamespacedKey(o Object, rel []byte) int {
	ns := o.GetNamespace()
	if len(rel) < len(ns) {
		if c := compareKey(ns[:len(rel)], rel); c != 0 {
			return c
		}
		return 1 // rel is a prefix of ns, so shorter
	}
	if c := compareKey(ns, rel[:len(ns)]); c != 0 {
		return c
	}
	rel = rel[len(ns):]
	switch {
	case len(rel) == 0:
		return 1
	case rel[0] != '/':
		return cmp.Compare(byte('/'), rel[0])
	}
	return compareKey(o.GetName(), rel[1:])
}

// cmpNameKey compares the key of o, of a kind without namespaces, less the
// kind's prefix, with rel.
func cmpNameKey(o Object, rel []byte) int { return compareKey(o.GetName(), rel) }

// compareKey is strings.Compare(a, string(b)) without making the string:
// the store's keys are built in a scratch buffer, and a comparison of a
// string with a conversion of one allocates nothing.
func compareKey(a string, b []byte) int {
	switch {
	case a == string(b):
		return 0
	case a < string(b):
		return -1
	}
	return 1
}

// add files key, whose current version is obj (and enc, for a kind kept
// at rest), under its values.
func (ix *index) add(key []byte, obj Object, enc *blob) { ix.addValues(key, obj, enc, ix.fn(obj)) }

func (ix *index) addValues(key []byte, obj Object, enc *blob, values []string) {
	if VerifyEncoding && !ix.atRest && ix.k.Key(obj.GetNamespace(), obj.GetName()) != string(key) {
		panic("store: indexing " + string(key) + " with an object whose key is " + ix.k.Key(obj.GetNamespace(), obj.GetName()))
	}
	for j, v := range values {
		set := ix.byVal[v]
		if set == nil {
			set = &indexSet{unordered: !ix.atRest}
			ix.byVal[v] = set
		}
		if set.unordered && int(set.n) < indexRunMax {
			// Appended (see indexSet.unordered). The key is in no set
			// of v yet unless v is repeated: a new object's, or one
			// removeValues took out of the sets of its old values.
			if !slices.Contains(values[:j], v) {
				set.objs.insert(0, int(set.n), obj)
				set.n++
			}
			continue
		}
		ix.order(set)
		r, i, found := ix.search(set, key)
		if found {
			continue // the value is repeated
		}
		if ix.atRest {
			set.vers.insert(r, i, enc)
		} else {
			set.objs.insert(r, i, obj)
		}
		set.n++
		set.joined = nil
	}
}

func (ix *index) remove(key []byte, obj Object) { ix.removeValues(key, obj, ix.fn(obj)) }

// removeValues takes key, whose current version is old, out of the sets
// of values.
func (ix *index) removeValues(key []byte, old Object, values []string) {
	for _, v := range values {
		set := ix.byVal[v]
		if set == nil {
			continue
		}
		r, i, found := 0, 0, false
		if set.unordered {
			// A set keeps its members' current versions (update), so the
			// member is old itself: found without reading any object.
			if i = indexOf(set.objs[0], old); i < 0 {
				i = ix.scan(set, key)
			}
			found = i >= 0
		} else {
			r, i, found = ix.search(set, key)
		}
		if !found {
			continue // the value is repeated
		}
		if set.n--; set.n == 0 {
			delete(ix.byVal, v)
			continue
		}
		if ix.atRest {
			set.vers.remove(r, i)
		} else {
			set.objs.remove(r, i)
		}
		set.joined = nil
	}
}

// update refiles key from old to obj (and enc, for a kind kept at rest);
// most writes (a status update) leave an object's index values as they
// were, and then only the object or version kept changes.
func (ix *index) update(key []byte, old, obj Object, enc *blob) {
	was, is := ix.fn(old), ix.fn(obj)
	if slices.Equal(was, is) {
		if ix.atRest {
			for _, v := range is {
				if set := ix.byVal[v]; set != nil {
					if r, i, found := ix.search(set, key); found {
						set.vers[r][i] = enc
					}
				}
			}
			return
		}
		for _, v := range is {
			set := ix.byVal[v]
			if set == nil {
				continue
			}
			if len(set.objs) == 1 {
				// One run (a ReplicaSet's pods, a node's): the member is
				// old itself, found by identity in a scan of contiguous
				// interface words, where a binary search would read a
				// cold object's name at every step.
				if i := indexOf(set.objs[0], old); i >= 0 {
					set.objs[0][i] = obj
					continue
				}
			}
			if set.unordered {
				if i := ix.scan(set, key); i >= 0 {
					set.objs[0][i] = obj
				}
				continue
			}
			if r, i, found := ix.search(set, key); found {
				set.objs[r][i] = obj
				if set.joined != nil {
					set.joined[set.objs.offset(r)+i] = obj
				}
			}
		}
		return
	}
	ix.removeValues(key, old, was)
	ix.addValues(key, obj, enc, is)
}

// indexOf is slices.Index(run, old): the member that is old itself. For
// pods, whose runs are long (a ReplicaSet's 150 in the benchmark) and
// whose every status write comes here, it asserts the concrete type and
// compares pointers, inline; comparing interfaces calls the runtime for
// every member of old's type, and scanned 2.5 times as slowly.
func indexOf(run []Object, old Object) int {
	if p, ok := old.(*corev1.Pod); ok {
		return indexOfPtr(run, p)
	}
	return slices.Index(run, old)
}

func indexOfPtr[P interface {
	comparable
	Object
}](run []Object, old P) int {
	for i, o := range run {
		if q, ok := o.(P); ok && q == old {
			return i
		}
	}
	return -1
}

// indexUpdate refiles key, whose current version was old and is now obj
// (and enc, for a kind kept at rest), in every index of k.
func (s *Store) indexUpdate(k *kinds.Kind, key []byte, old, obj Object, enc *blob) {
	for _, ix := range s.bucket(k).indexes {
		ix.update(key, old, obj, enc)
	}
}

// indexAdd files key, whose version is obj (and enc, for a kind kept at
// rest), in every index of k.
func (s *Store) indexAdd(k *kinds.Kind, key []byte, obj Object, enc *blob) {
	for _, ix := range s.bucket(k).indexes {
		ix.add(key, obj, enc)
	}
}

func (s *Store) indexRemove(k *kinds.Kind, key []byte, obj Object) {
	for _, ix := range s.bucket(k).indexes {
		ix.remove(key, obj)
	}
}

// runs is a sorted sequence kept in runs of at most indexRunMax, none
// empty.
type runs[T any] [][]T

// search finds target, by cmp (which compares a member with it): the run
// it is in, or would go in, and its position there.
func (rs runs[T]) search(target []byte, cmp func(T, []byte) int) (r, i int, found bool) {
	if len(rs) == 0 {
		return 0, 0, false
	}
	// The first run whose last member is not before target; the last run
	// if target is after every member.
	r = sort.Search(len(rs)-1, func(j int) bool {
		run := rs[j]
		return cmp(run[len(run)-1], target) >= 0
	})
	i, found = slices.BinarySearchFunc(rs[r], target, cmp)
	return r, i, found
}

// offset is the position in the whole sequence of the first member of run r.
func (rs runs[T]) offset(r int) int {
	n := 0
	for _, run := range rs[:r] {
		n += len(run)
	}
	return n
}

// insert puts v at position i of run r (as search found them), splitting
// the run in halves if it is full.
func (rs *runs[T]) insert(r, i int, v T) {
	if len(*rs) == 0 {
		*rs = append(*rs, []T{v})
		return
	}
	run := (*rs)[r]
	if len(run) >= indexRunMax {
		half := len(run) / 2
		right := slices.Clone(run[half:])
		clear(run[half:])
		run = run[:half]
		(*rs)[r] = run
		*rs = slices.Insert(*rs, r+1, right)
		if i > half {
			r, i, run = r+1, i-half, right
		}
	}
	if len(run) == cap(run) {
		// Grow by a quarter where append would double: a set grows one
		// member at a time (a ReplicaSet's pods as they are created) and
		// then mostly keeps its size, so what it has spare is kept for
		// as long as the set lives.
		run = append(slices.Grow([]T(nil), len(run)+max(len(run)/4, 4)), run...)
	}
	(*rs)[r] = slices.Insert(run, i, v)
}

// remove deletes the member at position i of run r. A run left empty goes;
// one left small joins a small neighbour, so that a set that shrank is not
// left as many short runs; one left far below its capacity is copied to
// fit, so that a set that shrank does not keep its largest size.
func (rs *runs[T]) remove(r, i int) {
	run := slices.Delete((*rs)[r], i, i+1) // clears the freed slot
	switch {
	case len(run) == 0:
		*rs = slices.Delete(*rs, r, r+1)
		return
	case r+1 < len(*rs) && len(run)+len((*rs)[r+1]) <= indexRunMax/2:
		run = append(run, (*rs)[r+1]...)
		*rs = slices.Delete(*rs, r+1, r+2)
	case r > 0 && len((*rs)[r-1])+len(run) <= indexRunMax/2:
		(*rs)[r-1] = append((*rs)[r-1], run...)
		*rs = slices.Delete(*rs, r, r+1)
		return
	}
	if cap(run) > 8 && len(run) <= cap(run)/4 {
		run = slices.Clone(run)
	}
	(*rs)[r] = run
}
