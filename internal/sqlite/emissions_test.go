package sqlite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"starcolor/internal/emission"
	"starcolor/internal/gamedef"
	"starcolor/internal/gamedef/gamedeftest"
)

// mustOpen opens a database in a fresh temporary folder, closed at the end of the test.
func mustOpen(t testing.TB) *DB {
	t.Helper()
	d, err := Open(context.Background(), filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// create stores an emission of the given definition built from a fixed seed.
func create(ctx context.Context, d *DB, def *gamedef.Definition, id string, price int64, blocks int) (*emission.Emission, error) {
	table, err := def.Table(price)
	if err != nil {
		return nil, err
	}
	e := &emission.Emission{ID: id, Price: price, Definition: def.Version, Table: *table, CreatedAt: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
	var seed [emission.SeedSize]byte
	copy(seed[:], id)
	err = d.CreateEmission(ctx, e, seed, func(put func(emission.Page) error) ([]emission.Block, error) {
		return emission.Build(ctx, emission.Plan{Definition: def, Price: price, Blocks: blocks, Seed: seed}, put, nil)
	})
	return e, err
}

func TestCreateAndRead(t *testing.T) {
	ctx := context.Background()
	d := mustOpen(t)
	def := gamedeftest.Mini(t)
	made, err := create(ctx, d, def, "E1", 100, 3)
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.Emission(ctx, "E1")
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != "E1" || got.Price != 100 || got.Definition != def.Version || len(got.Blocks) != 3 || !got.CreatedAt.Equal(made.CreatedAt) {
		t.Fatalf("read back %+v", got)
	}
	for k, b := range got.Blocks {
		if b.Root != made.Blocks[k].Root || b.Units != 1000 || b.Sold != 0 || len(b.PageHashes) != 4 {
			t.Fatalf("block %d read back as %+v", k, b)
		}
	}
	// Units read from the file prove against the stored roots.
	r, err := emission.NewReader(got, d)
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
	if _, err := create(ctx, d, def, "E2", 100, 1); err != nil {
		t.Fatal(err)
	}
	all, err := d.Emissions(ctx)
	if err != nil || len(all) != 2 || all[0].ID != "E1" || all[1].ID != "E2" || len(all[1].Blocks) != 1 {
		t.Fatalf("Emissions: %v, %v", all, err)
	}
	if _, err := d.Emission(ctx, "nope"); !errors.Is(err, emission.ErrNotFound) {
		t.Fatalf("unknown emission: %v", err)
	}
	if _, err := d.Page(ctx, "E1", 0, 4); !errors.Is(err, emission.ErrNotFound) {
		t.Fatalf("unknown page: %v", err)
	}
}

// counts is the number of rows of each table, to show that a failure changed nothing.
func counts(t *testing.T, d *DB) string {
	t.Helper()
	var e, b, p int
	for q, dst := range map[string]*int{"emissions": &e, "blocks": &b, "unit_pages": &p} {
		if err := d.db.QueryRow("SELECT count(*) FROM " + q).Scan(dst); err != nil {
			t.Fatal(err)
		}
	}
	return fmt.Sprintf("%d emissions, %d blocks, %d pages", e, b, p)
}

func TestDuplicateID(t *testing.T) {
	ctx := context.Background()
	d := mustOpen(t)
	if _, err := create(ctx, d, gamedeftest.Mini(t), "E1", 100, 1); err != nil {
		t.Fatal(err)
	}
	before := counts(t, d)
	built := false
	e := &emission.Emission{ID: "E1", Price: 100, Definition: "x", CreatedAt: time.Now()}
	err := d.CreateEmission(ctx, e, [32]byte{}, func(func(emission.Page) error) ([]emission.Block, error) {
		built = true
		return nil, nil
	})
	if !errors.Is(err, ErrExists) {
		t.Fatalf("duplicate id: %v", err)
	}
	if built {
		t.Error("the units of a duplicate emission were built before the id was refused")
	}
	if after := counts(t, d); after != before {
		t.Fatalf("a refused duplicate changed the database: %s, was %s", after, before)
	}
}

// Creation is atomic: a build that fails half way, or is cancelled, leaves nothing behind.
func TestInterruptedCreateLeavesNothing(t *testing.T) {
	d := mustOpen(t)
	def := gamedeftest.Mini(t)
	before := counts(t, d)
	boom := errors.New("boom")
	table, _ := def.Table(100)
	e := &emission.Emission{ID: "E1", Price: 100, Definition: def.Version, Table: *table, CreatedAt: time.Now()}
	err := d.CreateEmission(context.Background(), e, [32]byte{}, func(put func(emission.Page) error) ([]emission.Block, error) {
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
	if after := counts(t, d); after != before {
		t.Fatalf("a failed creation left %s", after)
	}
	ctx, cancel := context.WithCancel(context.Background())
	_, err = create(ctx, d, def, "E2", 100, 1)
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	e.ID = "E3"
	err = d.CreateEmission(ctx, e, [32]byte{}, func(put func(emission.Page) error) ([]emission.Block, error) {
		return emission.Build(ctx, emission.Plan{Definition: def, Price: 100, Blocks: 3}, func(p emission.Page) error {
			if p.Block == 1 {
				cancel()
			}
			return put(p)
		}, nil)
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled creation: %v", err)
	}
	if _, err := d.Emission(context.Background(), "E3"); !errors.Is(err, emission.ErrNotFound) {
		t.Fatalf("a cancelled emission is there: %v", err)
	}
	if got := counts(t, d); got != "1 emissions, 1 blocks, 4 pages" {
		t.Fatalf("after one good and two failed creations: %s", got)
	}
}

// An emission is immutable: units, roots and tables cannot be changed or deleted, even by SQL.
func TestEmissionIsImmutable(t *testing.T) {
	d := mustOpen(t)
	if _, err := create(context.Background(), d, gamedeftest.Mini(t), "E1", 100, 1); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`UPDATE unit_pages SET data = x'00'`,
		`DELETE FROM unit_pages`,
		`UPDATE emissions SET price = 200`,
		`UPDATE blocks SET root = x'00'`,
		`UPDATE block_trees SET page_hashes = x'00'`,
		`UPDATE blocks SET units = 5`,
	} {
		if _, err := d.db.Exec(q); err == nil {
			t.Errorf("%s: allowed", q)
		}
	}
	if _, err := d.db.Exec(`UPDATE blocks SET sold = 1`); err != nil {
		t.Errorf("sales must be recordable: %v", err)
	}
}

func TestReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "re.db")
	ctx := context.Background()
	d, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := create(ctx, d, gamedeftest.Mini(t), "E1", 100, 1); err != nil {
		t.Fatal(err)
	}
	d.Close()
	d, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := d.Emission(ctx, "E1"); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, filepath.Join(t.TempDir(), "no", "such", "dir.db")); err == nil {
		t.Error("opened a database in a folder that does not exist")
	}
}

// A block of 1,000,000 units takes at most 128 MB on disk.
func TestBlockSizeOnDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("creates a block of 1,000,000 units; skipped with -short")
	}
	path := filepath.Join(t.TempDir(), "size.db")
	ctx := context.Background()
	d, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	def, _ := gamedef.Lookup(gamedef.Default)
	start := time.Now()
	if _, err := create(ctx, d, def, "BIG", 300, 1); err != nil {
		t.Fatal(err)
	}
	t.Logf("one block of 1,000,000 units created in SQLite in %s", time.Since(start))
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	var size int64
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if fi, err := os.Stat(path + suffix); err == nil {
			size += fi.Size()
		}
	}
	t.Logf("database of one block: %.1f MB", float64(size)/1e6)
	if size > 128<<20 {
		t.Fatalf("one block takes %d bytes on disk, more than 128 MB", size)
	}
}

// BenchmarkCreateBlock creates one 1,000,000-unit block per iteration in a new SQLite file,
// durably: generation, hashing and the insert path together.
func BenchmarkCreateBlock(b *testing.B) {
	def, _ := gamedef.Lookup(gamedef.Default)
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		d, err := Open(ctx, filepath.Join(b.TempDir(), fmt.Sprintf("b%d.db", i)))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := create(ctx, d, def, "B", 100, 1); err != nil {
			b.Fatal(err)
		}
		d.Close()
	}
}

// BenchmarkRawInsertPages is the insert path alone: the same volume as one block (3,907 pages
// of about 10.7 KB of random bytes) inserted into unit_pages in one durable transaction, with no
// generation. Set against BenchmarkCreateBlock, it tells the database's share of a creation.
func BenchmarkRawInsertPages(b *testing.B) {
	ctx := context.Background()
	const pages, size = 3907, 10_673
	data := make([]byte, size)
	for i := 0; b.Loop(); i++ {
		d, err := Open(ctx, filepath.Join(b.TempDir(), fmt.Sprintf("raw%d.db", i)))
		if err != nil {
			b.Fatal(err)
		}
		tx, err := d.db.BeginTx(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tx.Exec(`INSERT INTO emissions (id, price, definition, game_table, seed_sha256, created_at) VALUES ('R', 100, 'x', '{}', '', '')`); err != nil {
			b.Fatal(err)
		}
		if _, err := tx.Exec(`INSERT INTO blocks (emission_id, block, units, root) VALUES ('R', 0, 1, x'00')`); err != nil {
			b.Fatal(err)
		}
		stmt, err := tx.Prepare(`INSERT INTO unit_pages (emission_id, block, page, data) VALUES ('R', 0, ?, ?)`)
		if err != nil {
			b.Fatal(err)
		}
		for p := range pages {
			data[0], data[1] = byte(p), byte(p>>8)
			if _, err := stmt.Exec(p, data); err != nil {
				b.Fatal(err)
			}
		}
		stmt.Close()
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		d.Close()
	}
	b.SetBytes(pages * size)
}
