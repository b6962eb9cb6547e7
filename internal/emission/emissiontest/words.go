package emissiontest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"testing"

	"starcolor/internal/emission"
)

// CheckWords checks the generator's output kept for an emission (emission create --rng-out,
// emission.Plan.Words): block after block, the first words of a ChaCha8 stream keyed as
// internal/emission's build.go keys the block's sale order, exactly as many as a Fisher–Yates
// shuffle of the block's tiers consumes; and that shuffle gives the order stored in the block.
// The key, the shuffle and IntN are written again here from their definitions, so that the test
// does not check the code against itself.
func CheckWords(t testing.TB, e *emission.Emission, pages emission.Pages, seed [emission.SeedSize]byte, out []byte) {
	t.Helper()
	r, err := emission.NewReader(e, pages)
	if err != nil {
		t.Fatal(err)
	}
	w := &words{t: t, data: out}
	for k, b := range e.Blocks {
		before := w.data
		order := make([]byte, 0, b.Units)
		for i, tr := range e.Table.Tiers {
			for range tr.Count {
				order = append(order, byte(i))
			}
		}
		for i := len(order) - 1; i > 0; i-- {
			j := w.intN(uint64(i + 1))
			order[i], order[j] = order[j], order[i]
		}
		used := before[:len(before)-len(w.data)]
		if len(used) < 8*(b.Units-1) {
			t.Fatalf("block %d: %d words for %d units", k, len(used)/8, b.Units)
		}
		stream := rand.NewChaCha8(orderKey(seed, k))
		for i := 0; i < len(used); i += 8 {
			if got, want := binary.LittleEndian.Uint64(used[i:]), stream.Uint64(); got != want {
				t.Fatalf("block %d word %d is %#x; the ChaCha8 stream gives %#x", k, i/8, got, want)
			}
		}
		stored, err := r.SaleOrder(context.Background(), k)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(order, stored) {
			t.Fatalf("block %d: the shuffle of the generator's output is not the stored order", k)
		}
	}
	if len(w.data) != 0 {
		t.Fatalf("%d bytes after the last block's words", len(w.data))
	}
}

// orderKey is the key of block k's sale order: SHA-256 of "starcolor/order", a zero byte, the
// seed, and the block and page (0) as big-endian uint32s.
func orderKey(seed [emission.SeedSize]byte, k int) [32]byte {
	var msg []byte
	msg = append(msg, "starcolor/order\x00"...)
	msg = append(msg, seed[:]...)
	msg = binary.BigEndian.AppendUint32(msg, uint32(k))
	msg = binary.BigEndian.AppendUint32(msg, 0)
	return sha256.Sum256(msg)
}

// words reads little-endian uint64s from the generator's output, failing the test past its end.
type words struct {
	t    testing.TB
	data []byte
}

func (w *words) next() uint64 {
	w.t.Helper()
	if len(w.data) < 8 {
		w.t.Fatal("the generator's output ends before the shuffle does")
	}
	v := binary.LittleEndian.Uint64(w.data)
	w.data = w.data[8:]
	return v
}

// intN is math/rand/v2's Rand.IntN on 64-bit machines: a mask for a power of two, else Lemire's
// multiply-and-reject.
func (w *words) intN(n uint64) uint64 {
	if n&(n-1) == 0 {
		return w.next() & (n - 1)
	}
	hi, lo := bits.Mul64(w.next(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(w.next(), n)
		}
	}
	return hi
}
