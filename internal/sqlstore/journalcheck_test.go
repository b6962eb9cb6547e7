package sqlstore

import (
	"slices"
	"testing"
)

// The ranges of ids a chunk of entries reads its rows in: sorted, each id once, a new range past
// a gap wider than rangeGap.
func TestRanges(t *testing.T) {
	got := ranges([]int64{7, 3, 3, 5, 7 + rangeGap + 1, 2000, 7 + rangeGap + 2})
	want := [][2]int64{{3, 7}, {7 + rangeGap + 1, 7 + rangeGap + 2}, {2000, 2000}}
	if !slices.Equal(got, want) {
		t.Fatalf("ranges: %v, want %v", got, want)
	}
	if got := ranges(nil); len(got) != 0 {
		t.Fatalf("no ids: %v", got)
	}
}

// An idSet holds ids from its base on a bit each, and those below it or far beyond in a map;
// add says whether the id was there.
func TestIDSet(t *testing.T) {
	s := idSet{base: 100}
	for _, id := range []int64{100, 163, 164, 10_000, 99, 1, 100 + maxBits + 5} {
		if s.has(id) || s.add(id) {
			t.Fatalf("%d: in the set before it was added", id)
		}
		if !s.has(id) || !s.add(id) {
			t.Fatalf("%d: not in the set once added", id)
		}
	}
	for _, id := range []int64{101, 162, 165, 9_999, 98, 0, 100 + maxBits + 4} {
		if s.has(id) {
			t.Fatalf("%d: in the set, never added", id)
		}
	}
	if len(s.bits) > 2*(10_000-100)/64+2 || len(s.other) != 3 {
		t.Fatalf("%d words of bits, %d ids in the map", len(s.bits), len(s.other))
	}
}
