package store

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// restBlob is a version of an Event at key, encoded as the store encodes
// one (so it keeps its key), or, if keep is false, the same Event in a
// namespace the store's key layout cannot hold, whose version keeps none.
func restBlob(s *Store, key string, keep bool) *blob {
	ev := recorded()
	ev.Namespace, ev.Name, _ = strings.Cut(strings.TrimPrefix(key, eventPrefix+"/"), "/")
	if !keep {
		ev.Namespace += "/x"
	}
	b := s.encode(kinds.Event, ev, nil, false)
	if k, ok := b.eventKey(); ok != keep || keep && k != key {
		panic("restBlob: the encoded Event keeps the key " + k + ", not " + key)
	}
	return b
}

// TestRestMapMatchesAMap drives restMap and a plain map with the same
// random puts and deletes, with hashes narrowed to a few bits so that
// most keys collide, and to none, so that all do.
func TestRestMapMatchesAMap(t *testing.T) {
	for _, mask := range []uint64{^uint64(0), 0xf, 0x1, 0} {
		t.Run(fmt.Sprintf("mask %#x", mask), func(t *testing.T) {
			defer func(m uint64) { hashMask = m }(hashMask)
			hashMask = mask
			rnd := rand.New(rand.NewPCG(1, mask))
			st := New()
			m, want := newRestMap(), map[string]*blob{}
			key := func() string { return eventPrefix + fmt.Sprintf("/ns%d/ev.%d", rnd.IntN(3), rnd.IntN(60)) }
			for step := range 5000 {
				k := key()
				switch op := rnd.IntN(10); {
				case op < 6:
					b := restBlob(st, k, rnd.IntN(8) != 0)
					m.put(k, b)
					want[k] = b
				default:
					m.del(k)
					delete(want, k)
				}
				k = key()
				got, ok := getRest(&m, []byte(k))
				if w, wok := want[k]; got != w || ok != wok {
					t.Fatalf("step %d: get(%s) = %p, %v; want %p, %v", step, k, got, ok, w, wok)
				}
				if m.len() != len(want) {
					t.Fatalf("step %d: len = %d; want %d", step, m.len(), len(want))
				}
			}
			var keys, wantKeys []string
			m.each(func(k string, b *blob) {
				if want[k] != b {
					t.Errorf("each gave %s = %p; want %p", k, b, want[k])
				}
				keys = append(keys, k)
			})
			for k := range want {
				wantKeys = append(wantKeys, k)
			}
			slices.Sort(keys)
			slices.Sort(wantKeys)
			if !slices.Equal(keys, wantKeys) {
				t.Errorf("each gave keys %v; want %v", keys, wantKeys)
			}
			if mask == ^uint64(0) && len(m.more) > len(want)/8 {
				t.Errorf("%d of %d keys outside their hash's slot: more than versions without keys", len(m.more), len(want))
			}
		})
	}
}

// TestKeyHashSpreads checks that a million Event keys of the shape a busy
// cluster makes get a million hashes, and that the hash reads every byte.
func TestKeyHashSpreads(t *testing.T) {
	seen := make(map[uint64]string, 1<<20)
	for i := range 1 << 20 {
		k := fmt.Sprintf("/registry/events/default/app-%04d-5d8f9c7b6-%05d.18%014x", i%1000, i/1000, i*977)
		h := keyHash(k)
		if other, ok := seen[h]; ok {
			t.Fatalf("%s and %s share the hash %#x", k, other, h)
		}
		seen[h] = k
	}
	base := "/registry/events/default/web-1.18b0c4a2f3e4d5c6"
	for i := range len(base) {
		b := []byte(base)
		b[i] ^= 1
		if keyHash(b) == keyHash(base) {
			t.Errorf("flipping byte %d leaves the hash as it was", i)
		}
	}
}
