package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"starcolor/internal/emission"
	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/lottery"
	"starcolor/internal/store"
)

// An emission is read back as it was created: its blocks, their roots and page roots, its time;
// its units prove against the roots, and it exports. Both ways of creating
// one (straight, and staged beside sales) give the same.
func testEmissions(t *testing.T, h Harness) {
	s, _ := h.Open(t)
	ctx := context.Background()
	def := gamedeftest.Mini(t)
	made := CreateEmission(t, s, def, "E1", 100, 3, 1)
	got, err := s.Emission(ctx, "E1")
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != "E1" || got.Price != 100 || got.Definition != def.Version || len(got.Blocks) != 3 || !got.CreatedAt.Equal(made.CreatedAt) ||
		got.Table.Price != 100 || len(got.Table.Tiers) != len(made.Table.Tiers) {
		t.Fatalf("read back %+v", got)
	}
	for k, b := range got.Blocks {
		if b.Root != made.Blocks[k].Root || b.Units != 1000 || b.Sold != 0 || len(b.PageHashes) != 4 || b.PageHashes[3] != made.Blocks[k].PageHashes[3] {
			t.Fatalf("block %d read back as %+v", k, b)
		}
	}
	r, err := emission.NewReader(got, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 255, 256, 999} {
		if _, err := r.Prove(ctx, 2, i); err != nil {
			t.Fatalf("unit %d: %v", i, err)
		}
	}
	var buf bytes.Buffer
	if err := r.Export(ctx, &buf, 1); err != nil {
		t.Fatal(err)
	}
	// (The export of a block of the regulation's definition verifies on its own: the back
	// office's TestExportVerifies.)
	if lines := bytes.Count(buf.Bytes(), []byte("\n")); lines != 1001 {
		t.Fatalf("the export of block 1 has %d lines, want its header and 1000 units", lines)
	}
	// Staged, the same units.
	table, _ := def.Table(100)
	e2 := &emission.Emission{ID: "E2", Price: 100, Definition: def.Version, Table: *table, CreatedAt: time.Now().UTC()}
	seed := [emission.SeedSize]byte{1}
	if err := s.CreateEmissionStaged(ctx, e2, seed, lottery.ByCommandLine, func(put func(emission.Page) error) ([]emission.Block, error) {
		return emission.Build(ctx, emission.Plan{Definition: def, Price: 100, Blocks: 1, Seed: seed}, put, nil)
	}); err != nil {
		t.Fatal(err)
	}
	all, err := s.Emissions(ctx)
	if err != nil || len(all) != 2 || all[0].ID != "E1" || all[1].ID != "E2" || len(all[1].Blocks) != 1 || all[1].Blocks[0].Root != made.Blocks[0].Root {
		t.Fatalf("Emissions: %v, %v", all, err)
	}
	if _, err := s.Emission(ctx, "nope"); !errors.Is(err, emission.ErrNotFound) {
		t.Fatalf("unknown emission: %v", err)
	}
	// No emission has an empty id: a game of no block names none, and gets none.
	if e, err := s.Emission(ctx, ""); !errors.Is(err, emission.ErrNotFound) {
		t.Fatalf("the emission of no id: %v, %v", e, err)
	}
	if _, err := s.Page(ctx, "E1", 0, 4); !errors.Is(err, emission.ErrNotFound) {
		t.Fatalf("unknown page: %v", err)
	}
	if open, err := s.OpenEmissionPrices(ctx); err != nil || len(open) != 1 || !open[100] {
		t.Fatalf("open prices: %v, %v", open, err)
	}
}

// counts is the number of emissions, blocks and pages, to show that a failure changed nothing.
func counts(t *testing.T, raw *Raw) string {
	t.Helper()
	return fmt.Sprintf("%d emissions, %d blocks, %d pages", raw.Int(t, `SELECT count(*) FROM emissions`),
		raw.Int(t, `SELECT count(*) FROM blocks`), raw.Int(t, `SELECT count(*) FROM unit_pages`))
}

// An emission id is taken once; the units of a second one are not even built.
func testDuplicateEmission(t *testing.T, h Harness) {
	s, raw := h.Open(t)
	ctx := context.Background()
	CreateEmission(t, s, gamedeftest.Mini(t), "E1", 100, 1, 1)
	before := counts(t, raw)
	for i, create := range []emission.Write{store.EmissionWrite(s, lottery.ByCommandLine, false), store.EmissionWrite(s, lottery.ByCommandLine, true)} {
		built := false
		e := &emission.Emission{ID: "E1", Price: 100, Definition: "x", CreatedAt: time.Now()}
		err := create(ctx, e, [32]byte{}, func(put func(emission.Page) error) ([]emission.Block, error) {
			built = true
			return nil, nil
		})
		if !errors.Is(err, lottery.ErrExists) {
			t.Fatalf("duplicate id: %v", err)
		}
		if built && i == 0 { // staged, the units are built apart before the id is tried
			t.Error("the units of a duplicate emission were built before the id was refused")
		}
	}
	if after := counts(t, raw); after != before {
		t.Fatalf("a refused duplicate changed the database: %s, was %s", after, before)
	}
}

// Creation is atomic: a build that fails half way, or is cancelled, leaves nothing behind.
func testInterruptedCreation(t *testing.T, h Harness) {
	s, raw := h.Open(t)
	def := gamedeftest.Mini(t)
	before := counts(t, raw)
	boom := errors.New("boom")
	table, _ := def.Table(100)
	for _, create := range []emission.Write{store.EmissionWrite(s, lottery.ByCommandLine, false), store.EmissionWrite(s, lottery.ByCommandLine, true)} {
		e := &emission.Emission{ID: "E1", Price: 100, Definition: def.Version, Table: *table, CreatedAt: time.Now()}
		err := create(context.Background(), e, [32]byte{}, func(put func(emission.Page) error) ([]emission.Block, error) {
			n := 0
			_, err := emission.Build(context.Background(), emission.Plan{Definition: def, Price: 100, Blocks: 3}, func(p emission.Page) error {
				if n++; n == 6 {
					return boom
				}
				return put(p)
			}, nil)
			return nil, err
		})
		if !errors.Is(err, boom) {
			t.Fatalf("failed build: %v", err)
		}
		if after := counts(t, raw); after != before {
			t.Fatalf("a failed creation left %s", after)
		}
		ctx, cancel := context.WithCancel(context.Background())
		e.ID = "E3"
		err = create(ctx, e, [32]byte{}, func(put func(emission.Page) error) ([]emission.Block, error) {
			return emission.Build(ctx, emission.Plan{Definition: def, Price: 100, Blocks: 3}, func(p emission.Page) error {
				if p.Block == 1 {
					cancel()
				}
				return put(p)
			}, nil)
		})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled creation: %v", err)
		}
		if _, err := s.Emission(context.Background(), "E3"); !errors.Is(err, emission.ErrNotFound) {
			t.Fatalf("a cancelled emission is there: %v", err)
		}
		if after := counts(t, raw); after != before {
			t.Fatalf("a cancelled creation left %s", after)
		}
	}
}

// An emission is immutable: units, roots and tables cannot be changed or deleted, even by SQL;
// only its sales are recorded.
func testEmissionIsImmutable(t *testing.T, h Harness) {
	s, raw := h.Open(t)
	CreateEmission(t, s, gamedeftest.Mini(t), "E1", 100, 1, 1)
	zero := "x'00'"
	if raw.Rebind != nil {
		zero = `'\x00'::bytea`
	}
	for _, q := range []string{
		`UPDATE unit_pages SET data = ` + zero,
		`DELETE FROM unit_pages`,
		`UPDATE emissions SET price = 200`,
		`UPDATE blocks SET root = ` + zero,
		`UPDATE block_trees SET page_hashes = ` + zero,
		`UPDATE blocks SET units = 5`,
		`UPDATE blocks SET number = number + 100`, // the games name their block by it (migration 0042)
	} {
		if err := raw.Exec(q); err == nil {
			t.Errorf("%s: allowed", q)
		}
	}
	if err := raw.Exec(`UPDATE blocks SET sold = 1`); err != nil {
		t.Errorf("sales must be recordable: %v", err)
	}
}
