package emission

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"

	"starcolor/internal/audit"
	"starcolor/internal/gamedef"
	"starcolor/internal/gamedef/gamedeftest"
)

// One byte changed in a stored unit (its tier: the prize it pays) makes its whole page unreadable,
// not a unit that pays another prize:
//
//   - every read of that page fails with ErrCorrupt;
//   - the watcher hears of it once;
//   - the other pages read as before;
//   - Verify finds exactly that page.
func TestCorruptPageIsNeverRead(t *testing.T) {
	e, pages := build(t, gamedeftest.Mini(t), 100, 2, 0, seedOf("corrupt"))
	ctx := context.Background()
	clean, err := NewReader(e, pages)
	if err != nil {
		t.Fatal(err)
	}
	want, err := clean.Unit(ctx, 1, 300)
	if err != nil {
		t.Fatal(err)
	}
	// Unit 300 is the 45th of page 1: its record starts at its offset, with the tier index.
	data := pages.Raw(1, 1)
	off := int(data[2*44]) | int(data[2*44+1])<<8
	data[off] = (data[off] + 1) % byte(len(e.Table.Tiers))

	var mu sync.Mutex
	var told []*Corrupt
	r, err := NewReaderWith(e, pages, ReaderConfig{OnCorrupt: func(c *Corrupt) {
		mu.Lock()
		told = append(told, c)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		rec, err := r.Unit(ctx, 1, 300)
		var c *Corrupt
		if !errors.Is(err, ErrCorrupt) || !errors.As(err, &c) || c.Block != 1 || c.Page != 1 {
			t.Fatalf("the changed unit read as %+v, %v; want ErrCorrupt for block 1 page 1", rec.Prize, err)
		}
		if _, err := r.Unit(ctx, 1, 256); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("another unit of the changed page: %v", err)
		}
	}
	if got, err := r.Unit(ctx, 1, 600); err != nil || got.Index != 600 {
		t.Fatalf("a unit of another page: %v", err)
	}
	recs := make([]audit.Record, PageUnits)
	if _, err := r.Page(ctx, 1, 1, recs); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("the page: %v", err)
	}
	if _, err := r.Prove(ctx, 1, 300); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("the proof: %v", err)
	}
	found, err := r.Verify(ctx, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0].Block != 1 || found[0].Page != 1 {
		t.Fatalf("Verify found %v, want block 1 page 1", found)
	}
	if len(told) != 1 {
		t.Fatalf("told %d times of the corrupt page, want once: %v", len(told), told)
	}
	// A reader that checked the page before the change keeps the checked bytes: it still gives
	// the committed unit.
	if got, err := clean.Unit(ctx, 1, 300); err != nil || got.Prize != want.Prize || got.Salt != want.Salt {
		t.Fatalf("the reader that checked the page first: %+v, %v", got.Prize, err)
	}
}

// Whatever single byte of a page changes, a read gives the committed unit or ErrCorrupt: never
// another unit.
func TestNoChangedByteGoesThrough(t *testing.T) {
	e, pages := build(t, gamedeftest.Mini(t), 100, 1, 0, seedOf("bytes"))
	ctx := context.Background()
	r0, _ := NewReader(e, pages)
	var want [PageUnits]audit.Record
	n, err := r0.Page(ctx, 0, 2, want[:])
	if err != nil {
		t.Fatal(err)
	}
	orig := bytes.Clone(pages.Raw(0, 2))
	data := pages.Raw(0, 2)
	step := 1
	if testing.Short() {
		step = 7
	}
	for i := 0; i < len(data); i += step {
		for _, x := range []byte{1, 0x80, 0xff} {
			copy(data, orig)
			data[i] ^= x
			r, _ := NewReader(e, pages)
			for j := range n {
				got, err := r.Unit(ctx, 0, 2*PageUnits+j)
				if err != nil {
					if !errors.Is(err, ErrCorrupt) {
						t.Fatalf("byte %d ^ %#x, unit %d: %v", i, x, j, err)
					}
					break
				}
				if !bytes.Equal(audit.AppendLine(nil, &got), audit.AppendLine(nil, &want[j])) {
					t.Fatalf("byte %d ^ %#x: unit %d read as another unit", i, x, j)
				}
			}
		}
	}
	copy(data, orig)
}

// A block whose page roots do not lead to its root (one of them changed) is read from nowhere.
func TestCorruptBlockCommitment(t *testing.T) {
	e, pages := build(t, gamedeftest.Mini(t), 100, 2, 0, seedOf("commitment"))
	e.Blocks[0].PageHashes[1][5] ^= 1
	var told []*Corrupt
	r, err := NewReaderWith(e, pages, ReaderConfig{OnCorrupt: func(c *Corrupt) { told = append(told, c) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Problems()) != 1 || len(told) != 1 || told[0].Page != -1 || told[0].Block != 0 {
		t.Fatalf("problems %v, told %v", r.Problems(), told)
	}
	if _, err := r.Unit(context.Background(), 0, 10); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a unit of the block: %v", err)
	}
	if _, err := r.Unit(context.Background(), 1, 10); err != nil {
		t.Fatalf("a unit of the other block: %v", err)
	}
	found, err := r.Verify(context.Background(), 0, 0)
	if err != nil || len(found) != 1 || found[0].Page != -1 {
		t.Fatalf("Verify: %v, %v", found, err)
	}
}

// BenchmarkCheckPage is the check of one page of 256 units of the real game against its root.
// A sale pays it once per page, and so do a report, an export or a ledger check.
func BenchmarkCheckPage(b *testing.B) {
	def, _ := gamedef.Lookup(gamedef.Default)
	table, _ := def.Table(100)
	order, _ := saleOrder(table, def.BlockUnits, [32]byte{}, false)
	w := newTestWorker(b, def, table)
	page, root, err := w.build(seedOf("bench"), 0, 17, order)
	if err != nil {
		b.Fatal(err)
	}
	e := &Emission{ID: "B", Price: 100, Table: *table, Blocks: []Block{{Units: def.BlockUnits, PageHashes: make([]audit.Hash, pagesOf(def.BlockUnits))}}}
	e.Blocks[0].PageHashes[17] = root
	r := &Reader{e: e, cdc: w.cdc, blockBad: make([]error, 1)}
	recs, leaves := make([]audit.Record, PageUnits), make([]audit.Hash, PageUnits)
	for b.Loop() {
		if _, err := r.check(0, 17, page.Data, recs, leaves); err != nil {
			b.Fatal(err)
		}
	}
}
