package emission_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	"starcolor/internal/emission"
	"starcolor/internal/emission/emissiontest"
	"starcolor/internal/gamedef"
)

// withoutPage hides one page of a store, as if it had been lost.
type withoutPage struct {
	*emission.MemoryPages
	block, page int
}

func (w withoutPage) Page(ctx context.Context, id string, block, page int) ([]byte, error) {
	if block == w.block && page == w.page {
		return nil, fmt.Errorf("%w: block %d page %d", emission.ErrNotFound, block, page)
	}
	return w.MemoryPages.Page(ctx, id, block, page)
}

// smallDefinition is the default definition with blocks of 1,000 units, the tiers scaled down
// but every one present, so that a test can build several blocks in a blink.
func smallDefinition(t testing.TB) *gamedef.Definition {
	t.Helper()
	def, err := gamedef.Lookup(gamedef.Default)
	if err != nil {
		t.Fatal(err)
	}
	small := *def
	small.Version = "test-small/1"
	small.BlockUnits = 1000
	small.Tables = nil
	for _, tb := range def.Tables {
		tb.Tiers = append([]gamedef.Tier(nil), tb.Tiers...)
		losing := small.BlockUnits
		for i := range tb.Tiers {
			tr := &tb.Tiers[i]
			if tr.Amount == 0 {
				continue
			}
			tr.Count = max(1, tr.Count/1000)
			losing -= tr.Count
		}
		for i := range tb.Tiers {
			if tb.Tiers[i].Amount == 0 {
				tb.Tiers[i].Count = losing
			}
		}
		small.Tables = append(small.Tables, tb)
	}
	if err := small.Validate(); err != nil {
		t.Fatal(err)
	}
	return &small
}

// checkExact asserts that stats hold exactly blocks × the table.
func checkExact(t *testing.T, name string, s *emission.Stats, table *gamedef.Table, blockUnits, blocks int) {
	t.Helper()
	if s.Units != blockUnits*blocks {
		t.Errorf("%s: %d units, want %d", name, s.Units, blockUnits*blocks)
	}
	if len(s.Tiers) != len(table.Tiers) {
		t.Fatalf("%s: %d tiers, want %d", name, len(s.Tiers), len(table.Tiers))
	}
	for i, tr := range table.Tiers {
		got := s.Tiers[i]
		if got.Amount != tr.Amount || got.Composite != tr.Composite {
			t.Errorf("%s: tier %d is %d (composite %v), want %d (%v)", name, i, got.Amount, got.Composite, tr.Amount, tr.Composite)
		}
		if got.Count != tr.Count*blocks || got.TableCount != tr.Count*blocks {
			t.Errorf("%s: tier %s: %d units, table %d, want %d", name, gamedef.FormatEUR(tr.Amount), got.Count, got.TableCount, tr.Count*blocks)
		}
		if !got.OK() {
			t.Errorf("%s: tier %s is not OK", name, gamedef.FormatEUR(tr.Amount))
		}
		sum := 0
		for k, v := range got.Gains {
			sum += v
			if v > 0 && tr.Composite && k < 2 {
				t.Errorf("%s: composite tier %s has %d unit(s) showing %d amount(s)", name, gamedef.FormatEUR(tr.Amount), v, k)
			}
			if v > 0 && (tr.Amount == 0) != (k == 0) {
				t.Errorf("%s: tier %s has %d unit(s) showing %d amount(s)", name, gamedef.FormatEUR(tr.Amount), v, k)
			}
		}
		if sum != got.Count {
			t.Errorf("%s: tier %s: gains distribution sums to %d, want %d", name, gamedef.FormatEUR(tr.Amount), sum, got.Count)
		}
		combos := 0
		for _, c := range got.Combinations {
			combos += c.Units
			var total int64
			for _, a := range c.Amounts {
				total += a
			}
			if total != tr.Amount {
				t.Errorf("%s: tier %s shown as %s", name, gamedef.FormatEUR(tr.Amount), c)
			}
		}
		if tr.Amount > 0 && combos != got.Count {
			t.Errorf("%s: tier %s: combinations cover %d units, want %d", name, gamedef.FormatEUR(tr.Amount), combos, got.Count)
		}
	}
	if want := table.Payout() * int64(blocks); s.Prizes != want || s.TablePrizes != want {
		t.Errorf("%s: prizes %d, table %d, want %d", name, s.Prizes, s.TablePrizes, want)
	}
	if want := table.Winners() * blocks; s.Winners != want || s.TableWinners != want {
		t.Errorf("%s: %d winners, table %d, want %d", name, s.Winners, s.TableWinners, want)
	}
	if s.Sales != table.Price*int64(s.Units) {
		t.Errorf("%s: sales %d, want %d", name, s.Sales, table.Price*int64(s.Units))
	}
	if s.Disagreements != 0 {
		t.Errorf("%s: %d unit(s) reveal another prize than recorded", name, s.Disagreements)
	}
	sum := 0
	for _, v := range s.Gains {
		sum += v
	}
	if sum != s.Units {
		t.Errorf("%s: gains distribution sums to %d, want %d", name, sum, s.Units)
	}
	if s.Gains[0] != s.Features.Losing || s.Features.Losing != s.Tiers[len(s.Tiers)-1].Count {
		t.Errorf("%s: %d units show no amount, %d losing units", name, s.Gains[0], s.Features.Losing)
	}
	if !s.OK() {
		t.Errorf("%s: not OK", name)
	}
}

// TestReportFullBlock reports on a real block of the default definition: a million units.
func TestReportFullBlock(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a block of a million units")
	}
	def, err := gamedef.Lookup(gamedef.Default)
	if err != nil {
		t.Fatal(err)
	}
	e, pages := emissiontest.Build(t, def, 100, 1, 7)
	start := time.Now()
	rep := emissiontest.Report(t, e, pages)
	t.Logf("report of %d units in %s", rep.Total.Units, time.Since(start))
	table, _ := def.Table(100)
	checkExact(t, "block 0", &rep.Blocks[0].Stats, table, def.BlockUnits, 1)
	checkExact(t, "total", &rep.Total, table, def.BlockUnits, 1)
	if !rep.OK() {
		t.Error("report not OK")
	}
	// 700,000 € of prizes for 1,000,000 € of sales: exactly 70 %.
	s := &rep.Total
	if s.Prizes*100 != 70*s.Sales {
		t.Errorf("prizes %d for sales %d: not 70 %%", s.Prizes, s.Sales)
	}
	if s.RTP() != 0.7 || s.TableRTP() != 0.7 {
		t.Errorf("RTP %v, table %v, want 0.7", s.RTP(), s.TableRTP())
	}
	if s.HitRate() != 0.243912 {
		t.Errorf("hit rate %v, want 0.243912", s.HitRate())
	}
	// Every element of presentation shows up, on winning and losing units alike (docs/spec/RULES.md §6).
	for _, f := range s.FeatureList() {
		if f.Units == 0 || f.Units == f.Of {
			t.Errorf("feature %q: %d of %d %s", f.Name, f.Units, f.Of, f.OfWhat)
		}
	}
	// A total is shown through several combinations.
	for _, tr := range s.Tiers {
		if tr.Composite && tr.Count > 1 && len(tr.Combinations) < 2 {
			t.Errorf("composite tier %s is shown in only %d way(s)", gamedef.FormatEUR(tr.Amount), len(tr.Combinations))
		}
	}
	// The presentation frequencies are about those of the definition.
	want := float64(def.Presentation.ExtraPer10000) / 10000
	if got := float64(s.Features.Extra) / float64(s.Units); math.Abs(got-want) > 0.005 {
		t.Errorf("Extra stage on %.4f of units, definition %.4f", got, want)
	}
}

// TestReportSmallBlocks reports on several small blocks: per block and overall exact.
func TestReportSmallBlocks(t *testing.T) {
	def := smallDefinition(t)
	for _, price := range []int64{100, 300} {
		e, pages := emissiontest.Build(t, def, price, 3, 1)
		rep := emissiontest.Report(t, e, pages)
		table, _ := def.Table(price)
		if len(rep.Blocks) != 3 {
			t.Fatalf("%d blocks reported, want 3", len(rep.Blocks))
		}
		for _, b := range rep.Blocks {
			checkExact(t, fmt.Sprintf("price %d block %d", price, b.Block), &b.Stats, table, def.BlockUnits, 1)
			if len(b.Gains) != len(rep.Total.Gains) {
				t.Errorf("block %d: %d gain counts, total %d", b.Block, len(b.Gains), len(rep.Total.Gains))
			}
		}
		checkExact(t, fmt.Sprintf("price %d total", price), &rep.Total, table, def.BlockUnits, 3)
		if rep.Price != price || rep.Emission != "T1" || rep.Definition != def.Version {
			t.Errorf("report of %q %q at %d", rep.Emission, rep.Definition, rep.Price)
		}
		// The scaled-down table does not return 70 %, but the units return exactly what it says.
		if rep.Total.RTP() != rep.Total.TableRTP() || rep.Total.HitRate() != rep.Total.TableHitRate() {
			t.Errorf("RTP %v, table %v; hit rate %v, table %v", rep.Total.RTP(), rep.Total.TableRTP(), rep.Total.HitRate(), rep.Total.TableHitRate())
		}
	}
}

// TestReportDeterministic: the report does not depend on the workers' timing (its picture,
// internal/chart, neither: TestReportPictureDeterministic).
func TestReportDeterministic(t *testing.T) {
	e, pages := emissiontest.Build(t, smallDefinition(t), 200, 2, 3)
	first := emissiontest.Report(t, e, pages)
	for range 3 {
		if again := emissiontest.Report(t, e, pages); !reflect.DeepEqual(first, again) {
			t.Fatalf("two reports of the same emission differ:\n%+v\n%+v", first, again)
		}
	}
}

// TestReportMismatch: a unit moved to another tier shows in the counts, the prizes and the
// units whose boards reveal another prize.
func TestReportMismatch(t *testing.T) {
	def := smallDefinition(t)
	e, pages := emissiontest.Build(t, def, 100, 2, 5)
	// The first losing unit of block 1 turned into a 1 € one.
	if err := pages.Retier(e, 1, 0, 100); err != nil {
		t.Fatal(err)
	}
	// Read as stored, the changed page is refused: it does not match the block's commitment.
	r, err := emission.NewReader(e, pages)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Report(context.Background()); !errors.Is(err, emission.ErrCorrupt) {
		t.Fatalf("a report over a changed page: %v, want ErrCorrupt", err)
	}
	// Committed as it is (a generator that wrote a wrong tier), it is read, and reported.
	if err := pages.Recommit(e, 1); err != nil {
		t.Fatal(err)
	}
	rep := emissiontest.Report(t, e, pages)
	if rep.OK() || rep.Total.OK() || rep.Blocks[1].OK() || rep.Total.TiersMatch() {
		t.Error("a unit moved to another tier is reported OK")
	}
	if !rep.Blocks[0].OK() {
		t.Error("block 0 is untouched but reported not OK")
	}
	b := rep.Blocks[1]
	for _, tr := range b.Tiers {
		want := tr.TableCount
		switch tr.Amount {
		case 0:
			want--
		case 100:
			want++
		}
		if tr.Count != want {
			t.Errorf("tier %s: %d units, want %d", gamedef.FormatEUR(tr.Amount), tr.Count, want)
		}
		if tr.OK() != (tr.Count == tr.TableCount) {
			t.Errorf("tier %s: OK() is %v with %d of %d", gamedef.FormatEUR(tr.Amount), tr.OK(), tr.Count, tr.TableCount)
		}
	}
	if b.Prizes != b.TablePrizes+100 || b.Disagreements != 1 || b.Winners != b.TableWinners+1 {
		t.Errorf("prizes %d (table %d), %d disagreement(s), %d winners (table %d)", b.Prizes, b.TablePrizes, b.Disagreements, b.Winners, b.TableWinners)
	}
}

// TestReportErrors: a missing page is an error, and so is a cancelled context.
func TestReportErrors(t *testing.T) {
	e, pages := emissiontest.Build(t, smallDefinition(t), 100, 1, 9)
	r, err := emission.NewReader(e, withoutPage{pages, 0, 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Report(context.Background()); !errors.Is(err, emission.ErrNotFound) {
		t.Errorf("missing page: %v, want ErrNotFound", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Report(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}

func BenchmarkReportBlock(b *testing.B) {
	def, err := gamedef.Lookup(gamedef.Default)
	if err != nil {
		b.Fatal(err)
	}
	e, pages := emissiontest.Build(b, def, 100, 1, 7)
	r, err := emission.NewReader(e, pages)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := r.Report(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
