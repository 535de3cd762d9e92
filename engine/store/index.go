package store

import (
	"sort"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// IndexFunc returns the index values an object is filed under (client-go's
// cache.IndexFunc): for example a pod's node name, or its owner's UID.
type IndexFunc func(Object) []string

type index struct {
	name  string
	fn    IndexFunc
	byVal map[string]map[string]struct{} // value -> set of keys
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
	ix := &index{name: name, fn: fn, byVal: map[string]map[string]struct{}{}}
	s.indexes[k] = append(s.indexes[k], ix)
	for key, obj := range s.bucket(k).objects {
		ix.add(key, obj)
	}
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
	for _, ix := range s.indexes[k] {
		if ix.name != name {
			continue
		}
		set := ix.byVal[value]
		keys := make([]string, 0, len(set))
		for key := range set {
			keys = append(keys, key)
		}
		sort.Strings(keys)
		b := s.bucket(k)
		out := make([]Object, len(keys))
		for i, key := range keys {
			out[i] = b.objects[key]
		}
		return out
	}
	panic("store: no index " + name + " for " + k.Resource)
}

// CountByIndex is len(ByIndex(...)) without building the slice.
func (s *Store) CountByIndex(k *kinds.Kind, name, value string) int {
	for _, ix := range s.indexes[k] {
		if ix.name == name {
			return len(ix.byVal[value])
		}
	}
	panic("store: no index " + name + " for " + k.Resource)
}

func (ix *index) add(key string, obj Object) {
	for _, v := range ix.fn(obj) {
		set := ix.byVal[v]
		if set == nil {
			set = map[string]struct{}{}
			ix.byVal[v] = set
		}
		set[key] = struct{}{}
	}
}

func (ix *index) remove(key string, obj Object) {
	for _, v := range ix.fn(obj) {
		if set := ix.byVal[v]; set != nil {
			delete(set, key)
			if len(set) == 0 {
				delete(ix.byVal, v)
			}
		}
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
