//go:build !race

// The race detector empties sync.Pools at random, so allocations are counted without it only.

package strictjson

import "testing"

// A good body is decoded without an allocation of the decoder's own: the wallet's answers are
// read strictly at every sale.
func TestDecodeAllocations(t *testing.T) {
	body := []byte(`{"amount":100,"note":"n","flag":true}`)
	var p payment
	if n := testing.AllocsPerRun(100, func() {
		if err := Decode(body, &p); err != nil {
			t.Fatal(err)
		}
	}); n > 1 {
		t.Errorf("%v allocations to decode a good body, want at most 1 (its string)", n)
	}
}
