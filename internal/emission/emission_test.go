package emission

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"

	"starcolor/internal/audit"
	"starcolor/internal/gamedef"
	"starcolor/internal/gamedef/gamedeftest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func seedOf(s string) (seed [SeedSize]byte) {
	copy(seed[:], s)
	return seed
}

// build makes an emission in memory.
func build(t testing.TB, def *gamedef.Definition, price int64, blocks, workers int, seed [SeedSize]byte) (*Emission, *MemoryPages) {
	t.Helper()
	table, err := def.Table(price)
	if err != nil {
		t.Fatal(err)
	}
	pages := &MemoryPages{}
	bs, err := Build(context.Background(), Plan{Definition: def, Price: price, Blocks: blocks, Seed: seed, Workers: workers}, pages.Put, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &Emission{ID: "T", Price: price, Definition: def.Version, Table: *table, CreatedAt: time.Unix(0, 0), Blocks: bs}, pages
}

// fullBlocks builds one real block of 1,000,000 units per price, once per test binary.
var fullBlocks = sync.OnceValues(func() (map[int64]*Reader, error) {
	def, err := gamedef.Lookup(gamedef.Default)
	if err != nil {
		return nil, err
	}
	out := map[int64]*Reader{}
	for _, table := range def.Tables {
		pages := &MemoryPages{}
		bs, err := Build(context.Background(), Plan{Definition: def, Price: table.Price, Blocks: 1, Seed: seedOf("golden")}, pages.Put, nil)
		if err != nil {
			return nil, err
		}
		e := &Emission{ID: "G", Price: table.Price, Definition: def.Version, Table: table, Blocks: bs}
		if out[table.Price], err = NewReader(e, pages); err != nil {
			return nil, err
		}
	}
	return out, nil
})

func full(t *testing.T) map[int64]*Reader {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a block of 1,000,000 units at each price; skipped with -short")
	}
	rs, err := fullBlocks()
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// Golden roots: a fixed seed gives the same block, bit for bit, on any machine and any number
// of cores. Regenerate only on purpose, with go test -update.
func TestGoldenRoots(t *testing.T) {
	var got strings.Builder
	for _, price := range []int64{100, 200, 300} {
		fmt.Fprintf(&got, "starcolor-fdj-2013/1 %s seed %q block 0 root %x\n", gamedef.FormatEUR(price), "golden", full(t)[price].e.Blocks[0].Root)
	}
	mini, _ := build(t, gamedeftest.Mini(t), 100, 3, 0, seedOf("golden"))
	for _, b := range mini.Blocks {
		fmt.Fprintf(&got, "starcolor-test-mini/1 1 € seed %q block %d root %x\n", "golden", b.Index, b.Root)
	}
	path := filepath.Join("testdata", "golden-roots.txt")
	if *update {
		if err := os.WriteFile(path, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got.String() != string(want) {
		t.Errorf("roots changed:\n%s\nwant:\n%s", got.String(), want)
	}
}

// Known answers: every block holds its table exactly — each tier's count, the payout of
// 700 000 × s EUR, 243 912 winners — and every unit passes the table's checks.
func TestBlocksHoldTheTableExactly(t *testing.T) {
	for price, r := range full(t) {
		b := r.e.Blocks[0]
		counts := map[int64]int{}
		var payout int64
		recs := make([]audit.Record, PageUnits)
		for p := range pagesOf(b.Units) {
			n, err := r.Page(context.Background(), 0, p, recs)
			if err != nil {
				t.Fatal(err)
			}
			for _, rec := range recs[:n] {
				if _, err := r.e.Table.CheckUnit(&rec.Unit, rec.Prize); err != nil {
					t.Fatalf("%s unit %d: %v", gamedef.FormatEUR(price), rec.Index, err)
				}
				counts[rec.Prize]++
				payout += rec.Prize
			}
		}
		for _, tier := range r.e.Table.Tiers {
			if counts[tier.Amount] != tier.Count {
				t.Errorf("%s: tier %s has %d units, want %d", gamedef.FormatEUR(price), gamedef.FormatEUR(tier.Amount), counts[tier.Amount], tier.Count)
			}
		}
		if want := 700_000 * price; payout != want {
			t.Errorf("%s: payout %d cents, want %d", gamedef.FormatEUR(price), payout, want)
		}
	}
}

// The sale order is uniform: winners are spread evenly over the block (each tenth within five
// standard deviations of its expectation), not clustered where a buyer could aim.
func TestSaleOrderIsSpread(t *testing.T) {
	def, _ := gamedef.Lookup(gamedef.Default)
	table, _ := def.Table(100)
	order, _ := saleOrder(table, def.BlockUnits, [32]byte{1}, false)
	p := float64(table.Winners()) / float64(def.BlockUnits)
	n := def.BlockUnits / 10
	sd := math.Sqrt(float64(n) * p * (1 - p))
	for part := range 10 {
		w := 0
		for _, tier := range order[part*n : (part+1)*n] {
			if table.Tiers[tier].Amount > 0 {
				w++
			}
		}
		if math.Abs(float64(w)-float64(n)*p) > 5*sd {
			t.Errorf("tenth %d holds %d winners, expected %.0f ± %.0f", part, w, float64(n)*p, sd)
		}
	}
	if other, _ := saleOrder(table, def.BlockUnits, [32]byte{2}, false); bytes.Equal(order, other) {
		t.Error("two seeds gave the same order")
	}
}

// The result depends on the seed only, not on the number of workers.
func TestSameSeedSameEmission(t *testing.T) {
	def := gamedeftest.Mini(t)
	a, pa := build(t, def, 100, 2, 1, seedOf("s"))
	b, pb := build(t, def, 100, 2, 2, seedOf("s"))
	c, _ := build(t, def, 100, 2, 7, seedOf("s"))
	for k := range a.Blocks {
		if a.Blocks[k].Root != b.Blocks[k].Root || a.Blocks[k].Root != c.Blocks[k].Root {
			t.Fatalf("block %d: roots differ with the number of workers", k)
		}
	}
	for key, data := range pa.pages {
		if !bytes.Equal(data, pb.pages[key]) {
			t.Fatalf("page %v differs with the number of workers", key)
		}
	}
	d, _ := build(t, def, 100, 2, 2, seedOf("t"))
	if d.Blocks[0].Root == a.Blocks[0].Root {
		t.Fatal("another seed gave the same root")
	}
	if a.Blocks[0].Root == a.Blocks[1].Root {
		t.Fatal("two blocks of an emission have the same root")
	}
}

// Every unit of a block reads back alone, and its proof verifies with an independent RFC 6962
// implementation (transparency-dev/merkle) against the block root.
func TestUnitsAndProofs(t *testing.T) {
	e, pages := build(t, gamedeftest.Mini(t), 100, 2, 0, seedOf("proofs"))
	r, err := NewReader(e, pages)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for k, b := range e.Blocks {
		recs := make([]audit.Record, PageUnits)
		for i := range b.Units {
			if i%PageUnits == 0 {
				if _, err := r.Page(ctx, k, i/PageUnits, recs); err != nil {
					t.Fatal(err)
				}
			}
			rec, err := r.Unit(ctx, k, i)
			if err != nil {
				t.Fatal(err)
			}
			if rec != recs[i%PageUnits] {
				t.Fatalf("block %d unit %d: read alone it differs from its page", k, i)
			}
			pr, err := r.Prove(ctx, k, i)
			if err != nil {
				t.Fatal(err)
			}
			if want := audit.AppendLine(nil, &rec); !bytes.Equal(pr.Line, want) {
				t.Fatalf("unit %d: proof line %s, want %s", i, pr.Line, want)
			}
			path := make([][]byte, len(pr.Path))
			for j := range pr.Path {
				path[j] = pr.Path[j][:]
			}
			leaf := rfc6962.DefaultHasher.HashLeaf(pr.Line)
			// The leaf hash its page's check made, which sales and ledger check take.
			if again, kept, err := r.UnitLeaf(ctx, k, i); err != nil || again != rec || !bytes.Equal(kept[:], leaf) {
				t.Fatalf("block %d unit %d: UnitLeaf %+v %x, %v; want %+v %x", k, i, again, kept, err, rec, leaf)
			}
			if err := proof.VerifyInclusion(rfc6962.DefaultHasher, uint64(i), uint64(b.Units), leaf, path, b.Root[:]); err != nil {
				t.Fatalf("block %d unit %d: transparency-dev/merkle rejects the proof: %v", k, i, err)
			}
			if i == 0 {
				if err := proof.VerifyInclusion(rfc6962.DefaultHasher, 1, uint64(b.Units), leaf, path, b.Root[:]); err == nil {
					t.Fatal("the proof of unit 0 also proves unit 1")
				}
			}
		}
	}
	for _, bad := range [][2]int{{2, 0}, {-1, 0}, {0, 1000}, {0, -1}} {
		if _, err := r.Unit(ctx, bad[0], bad[1]); err == nil {
			t.Errorf("unit %v read", bad)
		}
		if _, _, err := r.UnitLeaf(ctx, bad[0], bad[1]); err == nil {
			t.Errorf("unit %v's leaf read", bad)
		}
		if _, err := r.Prove(ctx, bad[0], bad[1]); err == nil {
			t.Errorf("unit %v proved", bad)
		}
	}
}

// The proof of a full block's unit also verifies, far from the first page.
func TestProofInFullBlock(t *testing.T) {
	r := full(t)[200]
	for _, i := range []int{0, 255, 256, 524287, 524288, 999423, 999424, 999999} {
		pr, err := r.Prove(context.Background(), 0, i)
		if err != nil {
			t.Fatal(err)
		}
		path := make([][]byte, len(pr.Path))
		for j := range pr.Path {
			path[j] = pr.Path[j][:]
		}
		if err := proof.VerifyInclusion(rfc6962.DefaultHasher, uint64(i), 1_000_000, rfc6962.DefaultHasher.HashLeaf(pr.Line), path, pr.Root[:]); err != nil {
			t.Errorf("unit %d: %v", i, err)
		}
	}
}

// Exports rebuild exactly the committed lines: the root of the exported lines is the root.
func TestExportMatchesRoot(t *testing.T) {
	e, pages := build(t, gamedeftest.Mini(t), 100, 1, 0, seedOf("export"))
	r, _ := NewReader(e, pages)
	var buf bytes.Buffer
	if err := r.Export(context.Background(), &buf, 0); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 1+e.Blocks[0].Units {
		t.Fatalf("%d lines, want a header and %d units", len(lines), e.Blocks[0].Units)
	}
	if !strings.Contains(lines[0], `"root":"`+hex.EncodeToString(e.Blocks[0].Root[:])+`"`) {
		t.Fatalf("header %s does not carry the root", lines[0])
	}
	leaves := make([]audit.Hash, len(lines)-1)
	for i, l := range lines[1:] {
		leaves[i] = audit.LeafHash([]byte(l))
	}
	if audit.Root(leaves) != e.Blocks[0].Root {
		t.Fatal("the exported lines do not hash to the root")
	}
	if err := r.Export(context.Background(), &buf, 1); err == nil {
		t.Fatal("exported a block that does not exist")
	}
}

func TestBuildRejects(t *testing.T) {
	def, _ := gamedef.Lookup(gamedef.Default)
	put := func(Page) error { return nil }
	for _, p := range []Plan{{Definition: def, Price: 500, Blocks: 1}, {Definition: def, Price: 100, Blocks: 0}, {Definition: def, Price: 100, Blocks: -3}} {
		if _, err := Build(context.Background(), p, put, nil); err == nil {
			t.Errorf("plan %+v accepted", p)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Build(ctx, Plan{Definition: def, Price: 100, Blocks: 1}, put, nil); err == nil {
		t.Error("a cancelled build succeeded")
	}
	for _, id := range []string{"", "-x", "a b", "é", strings.Repeat("a", 65), "a/b"} {
		if CheckID(id) == nil {
			t.Errorf("id %q accepted", id)
		}
	}
}

// BenchmarkBuildBlock makes one block of 1,000,000 units per iteration, on every core; pages
// are dropped, so this is the cost of the maths alone (see sqlite for the insert path).
func BenchmarkBuildBlock(b *testing.B) {
	def, _ := gamedef.Lookup(gamedef.Default)
	for b.Loop() {
		if _, err := Build(context.Background(), Plan{Definition: def, Price: 100, Blocks: 1, Seed: seedOf("bench")}, func(Page) error { return nil }, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSaleOrder is the shuffle of one block's tiers.
func BenchmarkSaleOrder(b *testing.B) {
	def, _ := gamedef.Lookup(gamedef.Default)
	table, _ := def.Table(100)
	for b.Loop() {
		saleOrder(table, def.BlockUnits, [32]byte{}, false)
	}
}

// BenchmarkPage makes one page of 256 units on one core: generation, line, hash and encoding.
func BenchmarkPage(b *testing.B) {
	def, _ := gamedef.Lookup(gamedef.Default)
	table, _ := def.Table(100)
	order, _ := saleOrder(table, def.BlockUnits, [32]byte{}, false)
	w := newTestWorker(b, def, table)
	for i := 0; b.Loop(); i++ {
		if _, _, err := w.build(seedOf("bench"), 0, i%pagesOf(def.BlockUnits), order); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzDecodePage: a corrupt page is an error, never a panic.
func FuzzDecodePage(f *testing.F) {
	e, pages := build(f, gamedeftest.Mini(f), 100, 1, 0, seedOf("fuzz"))
	cdc, err := newCodec(&e.Table)
	if err != nil {
		f.Fatal(err)
	}
	for p := range 4 {
		f.Add(pages.pages[[2]int{0, p}][:1024], 5)
	}
	f.Add(pages.pages[[2]int{0, 0}], 0)
	recs := make([]audit.Record, PageUnits)
	f.Fuzz(func(t *testing.T, data []byte, j int) {
		cdc.decodePage(data, 4, 0, recs)
		cdc.decodePage(data, PageUnits, 0, recs)
		var r audit.Record
		cdc.decodeUnit(data, 4, j, 0, &r)
		cdc.decodeUnit(data, PageUnits, j, 0, &r)
	})
}

// A block exports once every unit is sold, never before (docs/spec/RULES.md §6), whatever it holds.
func TestExportable(t *testing.T) {
	e := &Emission{ID: "E", Blocks: []Block{{Index: 0, Units: 1000, Sold: 1000}, {Index: 1, Units: 1000, Sold: 999}, {Index: 2, Units: 1000}}}
	if err := e.Exportable(0); err != nil {
		t.Fatalf("a block sold out: %v", err)
	}
	for _, k := range []int{1, 2} {
		if err := e.Exportable(k); !errors.Is(err, ErrUnsold) {
			t.Fatalf("block %d with units for sale: %v", k, err)
		}
	}
	if err := e.Exportable(3); !errors.Is(err, ErrNotFound) {
		t.Fatalf("no block 3: %v", err)
	}
}
