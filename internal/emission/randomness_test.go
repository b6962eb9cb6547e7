package emission

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"starcolor/internal/audit"
	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/randomness"
)

// orderKey is the key of block k's sale order as build.go keys it, written again here from its
// definition: SHA-256 of "starcolor/order", a zero byte, the seed, and the block and page (0)
// as big-endian uint32s.
func orderKey(seed [SeedSize]byte, k int) [32]byte {
	var msg []byte
	msg = append(msg, "starcolor/order\x00"...)
	msg = append(msg, seed[:]...)
	msg = binary.BigEndian.AppendUint32(msg, uint32(k))
	msg = binary.BigEndian.AppendUint32(msg, 0)
	return sha256.Sum256(msg)
}

// words reads little-endian uint64s from the generator's output, failing the test past its end.
type words struct {
	t    *testing.T
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

// intN is math/rand/v2's Rand.IntN on 64-bit machines, written again from its definition: a mask
// for a power of two, else Lemire's multiply-and-reject.
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

// checkWords checks the generator's output of an emission: block after block, the first words of
// a ChaCha8 stream keyed as build.go keys the block's order, exactly as many as a Fisher–Yates
// shuffle of the block's tiers consumes, and that shuffle is the order stored in the block.
func checkWords(t *testing.T, e *Emission, r *Reader, seed [SeedSize]byte, out []byte) {
	t.Helper()
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

// The generator's output (Plan.Words, emission create --rng-out) is the ChaCha8 stream of each
// block's order, every word the shuffle consumed and no other, and keeping it changes nothing: the
// same seed gives the same roots, the golden ones, with and without it.
func TestWordsDrawTheOrder(t *testing.T) {
	def := gamedeftest.Mini(t)
	table, _ := def.Table(100)
	seed := seedOf("golden")
	plain, _ := build(t, def, 100, 3, 0, seed)
	var out bytes.Buffer
	pages := &MemoryPages{}
	bs, err := Build(context.Background(), Plan{Definition: def, Price: 100, Blocks: 3, Seed: seed, Words: &out}, pages.Put, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k := range bs {
		if bs[k].Root != plain.Blocks[k].Root {
			t.Errorf("block %d: root %x with the generator's output kept, %x without", k, bs[k].Root, plain.Blocks[k].Root)
		}
	}
	// The golden roots of testdata/golden-roots.txt: a1019988… for block 0.
	if got := fmt.Sprintf("%x", bs[0].Root); got != "a1019988ead35c376bb75706aca2831dfea7afd50cd31e8785e35d990f98b779" {
		t.Errorf("block 0 root %s, not the golden one", got)
	}
	e := &Emission{ID: "T", Price: 100, Definition: def.Version, Table: *table, Blocks: bs}
	r, err := NewReader(e, pages)
	if err != nil {
		t.Fatal(err)
	}
	checkWords(t, e, r, seed, out.Bytes())
}

// A failing writer of the generator's output fails the build.
func TestWordsWriteFails(t *testing.T) {
	def := gamedeftest.Mini(t)
	pages := &MemoryPages{}
	_, err := Build(context.Background(), Plan{Definition: def, Price: 100, Blocks: 1, Seed: seedOf("x"), Words: failingWriter{}}, pages.Put, nil)
	if err == nil {
		t.Fatal("a build whose generator output cannot be written succeeds")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// A fair emission of 60 blocks of the test definition passes, with every test judged across its
// blocks (the uniformity of p-values from 55), and the report holds the same verdict.
func TestRandomnessFairEmission(t *testing.T) {
	e, pages := build(t, gamedeftest.Mini(t), 100, 60, 0, seedOf("sixty"))
	r, err := NewReader(e, pages)
	if err != nil {
		t.Fatal(err)
	}
	v, err := r.Randomness(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !v.Pass || len(v.Blocks) != 60 || len(v.Tests) != 11 {
		t.Fatalf("pass %v, %d blocks, %d tests: %+v", v.Pass, len(v.Blocks), len(v.Tests), v.Tests)
	}
	for _, s := range v.Tests {
		if s.Blocks != 60 || !s.UniformityJudged() {
			t.Errorf("%s judged over %d blocks (uniformity judged: %v)", s.Test, s.Blocks, s.UniformityJudged())
		}
	}
	rep, err := r.Report(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rep.Randomness, v) {
		t.Error("the report's randomness differs from Randomness")
	}
}

// One block of the regulation's table, 1,000,000 units, passes.
func TestRandomnessFairRealBlock(t *testing.T) {
	r := full(t)[100]
	v, err := r.Randomness(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !v.Pass || len(v.Tests) != 12 {
		t.Fatalf("pass %v, %d tests: %+v", v.Pass, len(v.Tests), v.Tests)
	}
}

// A generator whose shuffle was broken, its units committed as any: a sorted run of 200 units in
// one block of five. The commitment holds, the prize table holds, and the randomness fails, in
// Randomness and in the report.
func TestRandomnessBrokenShuffleFails(t *testing.T) {
	def := gamedeftest.Mini(t)
	table, _ := def.Table(100)
	seed := seedOf("broken")
	pages := &MemoryPages{}
	w := newTestWorker(t, def, table)
	var blocks []Block
	for k := range 5 {
		order, _ := saleOrder(table, def.BlockUnits, deriveSeed(seed, "order", k, 0), false)
		if k == 3 {
			slices.Sort(order[300:500])
		}
		b := Block{Index: k, Units: def.BlockUnits, PageHashes: make([]audit.Hash, pagesOf(def.BlockUnits))}
		for p := range b.PageHashes {
			page, hash, err := w.build(seed, k, p, order)
			if err != nil {
				t.Fatal(err)
			}
			if err := pages.Put(page); err != nil {
				t.Fatal(err)
			}
			b.PageHashes[p] = hash
		}
		b.Root = audit.Root(b.PageHashes)
		blocks = append(blocks, b)
	}
	e := &Emission{ID: "B", Price: 100, Definition: def.Version, Table: *table, Blocks: blocks}
	r, err := NewReader(e, pages)
	if err != nil {
		t.Fatal(err)
	}
	v, err := r.Randomness(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if v.Pass {
		t.Fatal("a block with a sorted run of 200 units passes")
	}
	failed := map[string]bool{}
	for _, s := range v.Tests {
		failed[s.Test.String()] = !s.Pass
	}
	for _, test := range []randomness.Test{{Kind: randomness.Runs}, {Kind: randomness.Serial, Lag: 1}} {
		if !failed[test.String()] {
			t.Errorf("%s passes", test)
		}
	}
	rep, err := r.Report(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Randomness.Pass {
		t.Errorf("the report: prize table OK %v, randomness pass %v; want true and false", rep.OK(), rep.Randomness.Pass)
	}
}

// SaleOrder refuses a block that does not exist.
func TestSaleOrderUnknownBlock(t *testing.T) {
	e, pages := build(t, gamedeftest.Mini(t), 100, 1, 0, seedOf("one"))
	r, err := NewReader(e, pages)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.SaleOrder(context.Background(), 1); err == nil {
		t.Error("block 1 of an emission of one block is read")
	}
}
