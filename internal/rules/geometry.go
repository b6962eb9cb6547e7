package rules

import "math/bits"

// Precomputed explosion shapes: the cells in direct contact with a cell (4.5.1) and the two
// diagonals through it (4.5.3). Computing them once keeps evaluation to a few mask operations,
// which matters when a block of a million units is generated or verified.
var (
	contactMask [Cells]Mask
	risingMask  [Cells]Mask // row + column constant (↗)
	fallingMask [Cells]Mask // row − column constant (↘)
)

func init() {
	for i := range Cells {
		r, c := Row(i), Col(i)
		for j := range Cells {
			rr, cc := Row(j), Col(j)
			if j != i && abs(rr-r) <= 1 && abs(cc-c) <= 1 {
				contactMask[i] |= 1 << uint(j)
			}
			if j != i && rr+cc == r+c {
				risingMask[i] |= 1 << uint(j)
			}
			if j != i && rr-cc == r-c {
				fallingMask[i] |= 1 << uint(j)
			}
		}
	}
}

// Contact is the set of cells in direct contact with cell i (up to 8).
func Contact(i int) Mask { return contactMask[i] }

// Diagonal is the set of cells on the diagonal through cell i in the given direction, i excluded.
func Diagonal(i int, rising bool) Mask {
	if rising {
		return risingMask[i]
	}
	return fallingMask[i]
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func popcount(x uint64) int      { return bits.OnesCount64(x) }
func trailingZeros(x uint64) int { return bits.TrailingZeros64(x) }
