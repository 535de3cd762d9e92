package sim

import "math/rand/v2"

// Rand is a seeded source of randomness owned by one component. It is not
// safe for concurrent use; the engine has no concurrency.
type Rand struct {
	r *rand.Rand
}

// NewRand returns a source seeded with seed. The algorithm (PCG) is fixed:
// changing it changes every golden trace, so it lives in this one place.
func NewRand(seed uint64) *Rand {
	return &Rand{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// Derive returns a new independent source seeded from this one, for handing
// to a component (TigerBeetle's `.seed = prng.int(u64)`).
func (r *Rand) Derive() *Rand { return NewRand(r.r.Uint64()) }

// Intn returns a uniform int in [0, n). It panics if n <= 0.
func (r *Rand) Intn(n int) int { return r.r.IntN(n) }

// Uint64 returns a uniform 64-bit value.
func (r *Rand) Uint64() uint64 { return r.r.Uint64() }

// Float64 returns a uniform float in [0, 1).
func (r *Rand) Float64() float64 { return r.r.Float64() }

// String returns n characters drawn uniformly from alphabet.
func (r *Rand) String(alphabet string, n int) string {
	return string(r.AppendString(make([]byte, 0, n), alphabet, n))
}

// AppendString appends to dst the n characters String would return.
func (r *Rand) AppendString(dst []byte, alphabet string, n int) []byte {
	for range n {
		dst = append(dst, alphabet[r.r.IntN(len(alphabet))])
	}
	return dst
}
