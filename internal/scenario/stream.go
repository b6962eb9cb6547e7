package scenario

import (
	"math/bits"
	"math/rand/v2"
)

// Stream is the randomness a unit is drawn from: a ChaCha8 stream (a cryptographically strong
// generator) read directly rather than through rand.Rand's interface, with each 64-bit output
// split into two 32-bit draws. A board takes about sixty bounded draws, so this halves the
// generator's share of the cost of a block.
type Stream struct {
	src  *rand.ChaCha8
	buf  uint64
	left int
}

// NewStream reads from a ChaCha8 generator keyed by seed.
func NewStream(seed [32]byte) *Stream { return &Stream{src: rand.NewChaCha8(seed)} }

// Uint64 returns 64 fresh bits, for salts.
func (s *Stream) Uint64() uint64 { return s.src.Uint64() }

func (s *Stream) uint32() uint32 {
	if s.left == 0 {
		s.buf, s.left = s.src.Uint64(), 2
	}
	s.left--
	v := uint32(s.buf)
	s.buf >>= 32
	return v
}

// IntN returns a uniform integer in [0, n), 0 < n < 2³², without bias: Lemire's multiply-shift
// with rejection of the few low products that would favour some results.
func (s *Stream) IntN(n int) int {
	bound := uint32(n)
	m := uint64(s.uint32()) * uint64(bound)
	if lo := uint32(m); lo < bound {
		threshold := -bound % bound
		for lo < threshold {
			m = uint64(s.uint32()) * uint64(bound)
			lo = uint32(m)
		}
	}
	return int(m >> 32)
}

// maxBatch bounds how many indexes one 64-bit draw gives in Shuffle.
const maxBatch = 16

// Shuffle permutes n elements uniformly (Fisher–Yates). It draws its indexes in batches
// (Brackett-Rozinsky and Lemire, "Batched ranged random integer generation", 2024), so a board's
// 42 stars take four draws instead of forty-one. One batch:
//
//  1. takes the next bounds n₁…n_k whose product P fits in 64 bits;
//  2. draws one 64-bit z;
//  3. for each bound in turn, multiplies z by nᵢ: the high word is the index, the low word the
//     next z;
//  4. draws the batch again when the last low word falls below 2⁶⁴ mod P. That makes every index
//     exactly uniform.
func Shuffle[T any](s *Stream, p []T) {
	var idx [maxBatch]int
	for i := len(p) - 1; i > 0; {
		k, product := 0, uint64(1)
		for k < maxBatch && i-k > 0 {
			hi, lo := bits.Mul64(product, uint64(i-k+1))
			if hi != 0 {
				break
			}
			product = lo
			k++
		}
		for {
			z := s.src.Uint64()
			for t := range k {
				hi, lo := bits.Mul64(z, uint64(i-t+1))
				idx[t], z = int(hi), lo
			}
			if z >= product || z >= -product%product {
				break
			}
		}
		for t := range k {
			p[i-t], p[idx[t]] = p[idx[t]], p[i-t]
		}
		i -= k
	}
}
