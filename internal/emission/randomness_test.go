package emission

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"

	"starcolor/internal/audit"
	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/randomness"
)

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

// randomnessOf runs the randomness tests of an emission in memory.
func randomnessOf(t *testing.T, e *Emission, pages Pages) (*Reader, randomness.Verdict) {
	t.Helper()
	r, err := NewReader(e, pages)
	if err != nil {
		t.Fatal(err)
	}
	v, err := r.Randomness(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return r, v
}

// A fair emission of 60 blocks of the test definition passes, with every test judged across its
// blocks (the uniformity of p-values from 55), and the report holds the same verdict.
func TestRandomnessFairEmission(t *testing.T) {
	e, pages := build(t, gamedeftest.Mini(t), 100, 60, 0, seedOf("sixty"))
	r, v := randomnessOf(t, e, pages)
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
	r, v := randomnessOf(t, e, pages)
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
