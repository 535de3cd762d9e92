package store

import (
	"slices"
	"sort"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// IndexFunc returns the index values an object is filed under (client-go's
// cache.IndexFunc): for example a pod's node name, or its owner's UID.
type IndexFunc func(Object) []string

type index struct {
	name  string
	fn    IndexFunc
	byVal map[string]*indexSet // value -> the keys filed under it
}

// indexSet is the keys filed under one index value, with their sorted order
// kept until the set changes: a ReplicaSet's pods are listed on every sync,
// and change membership far less often than they change status.
type indexSet struct {
	keys   map[string]struct{}
	sorted []string // nil when stale
	objs   []Object // the objects of sorted, kept current by updates; nil for kinds kept at rest
}

// AddIndex files every object of kind k, present and future, under fn's
// values, so that ByIndex can answer "pods on node n2" without a scan. It
// panics if the index name is already taken for k.
func (s *Store) AddIndex(k *kinds.Kind, name string, fn IndexFunc) {
	for _, ix := range s.indexes[k] {
		if ix.name == name {
			panic("store: duplicate index " + name + " for " + k.Resource)
		}
	}
	ix := &index{name: name, fn: fn, byVal: map[string]*indexSet{}}
	s.indexes[k] = append(s.indexes[k], ix)
	s.bucket(k).each(func(key string, e entry) { ix.add(key, e.object(k)) })
}

// HasIndex reports whether kind k has an index of that name.
func (s *Store) HasIndex(k *kinds.Kind, name string) bool {
	for _, ix := range s.indexes[k] {
		if ix.name == name {
			return true
		}
	}
	return false
}

// ByIndex returns the objects of kind k filed under value in the named index,
// ordered by key. It panics if there is no such index.
func (s *Store) ByIndex(k *kinds.Kind, name, value string) []Object {
	return append([]Object{}, s.ByIndexShared(k, name, value)...)
}

// ByIndexShared is ByIndex without the copy: the slice is the index's own,
// read-only, and valid until the next write to the store. It is for hot
// loops that only read (a ReplicaSet's sync walks its pods many times a
// second in a large cluster).
func (s *Store) ByIndexShared(k *kinds.Kind, name, value string) []Object {
	for _, ix := range s.indexes[k] {
		if ix.name != name {
			continue
		}
		set := ix.byVal[value]
		if set == nil {
			return nil
		}
		if set.sorted == nil {
			s.sortSet(k, set)
		}
		if b := s.bucket(k); b.atRest {
			out := make([]Object, len(set.sorted))
			for i, key := range set.sorted {
				out[i] = b.at(key).object(k)
			}
			return out
		}
		return set.objs
	}
	panic("store: no index " + name + " for " + k.Resource)
}

func (s *Store) sortSet(k *kinds.Kind, set *indexSet) {
	set.sorted = make([]string, 0, len(set.keys))
	for key := range set.keys {
		set.sorted = append(set.sorted, key)
	}
	sort.Strings(set.sorted)
	b := s.bucket(k)
	if b.atRest {
		return // decoded on each read, not kept
	}
	set.objs = make([]Object, len(set.sorted))
	for i, key := range set.sorted {
		set.objs[i] = b.typedObjs[key]
	}
}

// CountByIndex is len(ByIndex(...)) without building the slice.
func (s *Store) CountByIndex(k *kinds.Kind, name, value string) int {
	for _, ix := range s.indexes[k] {
		if ix.name == name {
			if set := ix.byVal[value]; set != nil {
				return len(set.keys)
			}
			return 0
		}
	}
	panic("store: no index " + name + " for " + k.Resource)
}

func (ix *index) add(key string, obj Object) { ix.addValues(key, ix.fn(obj)) }

func (ix *index) addValues(key string, values []string) {
	for _, v := range values {
		set := ix.byVal[v]
		if set == nil {
			set = &indexSet{keys: map[string]struct{}{}}
			ix.byVal[v] = set
		}
		if _, ok := set.keys[key]; !ok {
			set.keys[key] = struct{}{}
			set.sorted, set.objs = nil, nil
		}
	}
}

func (ix *index) remove(key string, obj Object) { ix.removeValues(key, ix.fn(obj)) }

func (ix *index) removeValues(key string, values []string) {
	for _, v := range values {
		if set := ix.byVal[v]; set != nil {
			if _, ok := set.keys[key]; ok {
				delete(set.keys, key)
				set.sorted, set.objs = nil, nil
			}
			if len(set.keys) == 0 {
				delete(ix.byVal, v)
			}
		}
	}
}

// update refiles key from old to obj; most writes (a status update) leave
// an object's index values as they were, and then nothing changes.
func (ix *index) update(key string, old, obj Object) {
	was, is := ix.fn(old), ix.fn(obj)
	if slices.Equal(was, is) {
		for _, v := range is {
			if set := ix.byVal[v]; set != nil && set.objs != nil {
				if i := sort.SearchStrings(set.sorted, key); i < len(set.sorted) && set.sorted[i] == key {
					set.objs[i] = obj
				}
			}
		}
		return
	}
	ix.removeValues(key, was)
	ix.addValues(key, is)
}

func (s *Store) indexUpdate(k *kinds.Kind, key string, old, obj Object) {
	for _, ix := range s.indexes[k] {
		ix.update(key, old, obj)
	}
}

func (s *Store) indexAdd(k *kinds.Kind, key string, obj Object) {
	for _, ix := range s.indexes[k] {
		ix.add(key, obj)
	}
}

func (s *Store) indexRemove(k *kinds.Kind, key string, obj Object) {
	for _, ix := range s.indexes[k] {
		ix.remove(key, obj)
	}
}
