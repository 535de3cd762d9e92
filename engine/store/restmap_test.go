package store

import (
	"encoding/binary"
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
// random creates (add), writes and deletes, with hashes narrowed to a few
// bits so that most keys collide, and to none, so that all do. The table
// first grows, then loses most of its versions, then takes keys anew, and
// last keeps a window of the newest keys, as Events' expiry does.
func TestRestMapMatchesAMap(t *testing.T) {
	phases := []struct {
		keys   int // drawn from this many
		writes int // in 10, the rest deletes
	}{{600, 8}, {600, 1}, {600, 5}, {20, 5}}
	for _, mask := range []uint64{^uint64(0), 0xf, 0x1, 0} {
		t.Run(fmt.Sprintf("mask %#x", mask), func(t *testing.T) {
			defer func(m uint64) { hashMask = m }(hashMask)
			hashMask = mask
			rnd := rand.New(rand.NewPCG(1, mask))
			st := New()
			var m restMap
			want := map[string]*blob{}
			for _, ph := range phases {
				key := func() string { return eventPrefix + fmt.Sprintf("/ns%d/ev.%d", rnd.IntN(3), rnd.IntN(ph.keys)) }
				for step := range 3000 {
					k := key()
					_, there := want[k]
					switch op := rnd.IntN(10); {
					case op < ph.writes:
						b := restBlob(st, k, rnd.IntN(8) != 0)
						if !there && rnd.IntN(2) == 0 {
							m.add([]byte(k), b)
						} else {
							m.put([]byte(k), b)
						}
						want[k] = b
					default:
						m.del([]byte(k))
						delete(want, k)
					}
					k = key()
					got, ok := getRest(&m, []byte(k))
					if w, wok := want[k]; got != w || ok != wok {
						t.Fatalf("step %d: get(%s) = %p, %v; want %p, %v", step, k, got, ok, w, wok)
					}
					checkRestMap(t, &m, len(want))
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
		})
	}
}

// TestRestMapExpiry keeps a window of the newest keys, as Events' expiry
// does: the oldest goes as each new one comes, so tombstones pile up
// until a rebuild of the same size clears them.
func TestRestMapExpiry(t *testing.T) {
	for _, mask := range []uint64{^uint64(0), 0xf} {
		t.Run(fmt.Sprintf("mask %#x", mask), func(t *testing.T) {
			defer func(m uint64) { hashMask = m }(hashMask)
			hashMask = mask
			st := New()
			var m restMap
			var window []string
			want := map[string]*blob{}
			sizes, cleared := map[int]bool{}, 0
			for i := range 20000 {
				k := eventPrefix + fmt.Sprintf("/ns%d/ev.%d", i%3, i)
				b := restBlob(st, k, i%8 != 0)
				size, used := len(m.t.slots), m.t.used
				m.add([]byte(k), b)
				if len(m.t.slots) == size && m.t.used < used {
					cleared++ // rebuilt at the same size
				}
				want[k], window = b, append(window, k)
				if len(window) > 440 {
					m.del([]byte(window[0]))
					delete(want, window[0])
					window = window[1:]
				}
				for _, k := range []string{window[0], k} {
					if got, ok := getRest(&m, k); got != want[k] || !ok {
						t.Fatalf("step %d: get(%s) = %p, %v; want %p", i, k, got, ok, want[k])
					}
				}
				checkRestMap(t, &m, len(want))
				if len(m.t.slots) > 0 {
					sizes[len(m.t.slots)] = true
				}
			}
			if len(sizes) > 7 { // 16 to 1024
				t.Errorf("the table took %d sizes (%v); it should have stopped growing", len(sizes), sizes)
			}
			if mask == ^uint64(0) && cleared == 0 {
				t.Error("tombstones never filled the table; the test does not cover rebuilding at the same size")
			}
		})
	}
}

// checkRestMap checks m's counts against its slots, and that a free slot
// is left, which ends every probe sequence.
func checkRestMap(t *testing.T, m *restMap, want int) {
	t.Helper()
	if m.len() != want {
		t.Fatalf("len = %d; want %d", m.len(), want)
	}
	checkTable(t, &m.t)
}

// checkTable checks t's counts against its slots, that every empty slot
// is free or a tombstone, and that a free slot is left, which ends every
// probe sequence.
func checkTable[V comparable](t *testing.T, tb *table[V]) {
	t.Helper()
	var none V
	n, used := 0, 0
	for i, v := range tb.slots {
		switch {
		case v != none:
			n++
			used++
		case tb.hashes[i] == tombstone:
			used++
		case tb.hashes[i] != 0:
			t.Fatalf("empty slot %d has hash bits %#x", i, tb.hashes[i])
		}
	}
	switch {
	case n != tb.n || used != tb.used:
		t.Fatalf("%d values and %d slots not free; counted as %d and %d", n, used, tb.n, tb.used)
	case len(tb.slots) > 0 && used*8 > len(tb.slots)*7:
		t.Fatalf("%d of %d slots not free", used, len(tb.slots))
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

// keyedBlobs are n versions of Events as a 1,000 x 150 rollout writes
// them, each keeping its key (as stripEvent lays it out) and padded to an
// Event version's size, allocated one by one as the store does.
func keyedBlobs(n int) ([]string, []*blob) {
	keys, blobs := make([]string, n), make([]*blob, n)
	pad := strings.Repeat("x", 100)
	for i := range n {
		nsName := fmt.Sprintf("default/app-%04d-5d8f9c7b6-%05d.18%014x", i%1000, i/1000, i*977)
		data := []byte{1, 0}
		data = binary.AppendUvarint(data, uint64(len(nsName)+1)<<1)
		data = append(append(append(data, eventPrefix+"/"...), nsName...), pad...)
		blobs[i] = &blob{data: string(data)}
		keys[i], _ = blobs[i].eventKey()
	}
	return keys, blobs
}

// BenchmarkRestMapCreate is the cost of filing 765,000 new Events, as
// many as the 1,000 x 150 benchmark writes, into an empty map: per Event.
func BenchmarkRestMapCreate(b *testing.B) {
	keys, blobs := keyedBlobs(765_000)
	b.ReportAllocs()
	for b.Loop() {
		var m restMap
		for i, key := range keys {
			m.add([]byte(key), blobs[i])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(keys)), "ns/Event")
}

// BenchmarkRestMapGet is the cost of looking up an Event in a map of
// 765,000, by a key in a scratch buffer, as the store does: per lookup.
func BenchmarkRestMapGet(b *testing.B) {
	keys, blobs := keyedBlobs(765_000)
	var m restMap
	for i, key := range keys {
		m.put([]byte(key), blobs[i])
	}
	order := rand.New(rand.NewPCG(1, 2)).Perm(len(keys))
	var buf []byte
	for b.Loop() {
		for _, i := range order {
			buf = append(buf[:0], keys[i]...)
			if got, _ := getRest(&m, buf); got != blobs[i] {
				b.Fatal("wrong version")
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(keys)), "ns/get")
}
