package scenario

import "math/rand/v2"

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
