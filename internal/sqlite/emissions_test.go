package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"starcolor/internal/emission"
	"starcolor/internal/gamedef"
	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/journal"
)

// testKey is the journal's account key of the tests' stores.
var testKey = &journal.AccountKey{'s', 'q', 'l', 'i', 't', 'e'}

// mustOpen opens a database in a fresh temporary folder, closed at the end of the test.
func mustOpen(t testing.TB) *DB {
	t.Helper()
	d, err := Open(context.Background(), filepath.Join(t.TempDir(), "test.db"), testKey)
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
	err = d.CreateEmission(ctx, e, seed, "test", func(put func(emission.Page) error) ([]emission.Block, error) {
		return emission.Build(ctx, emission.Plan{Definition: def, Price: price, Blocks: blocks, Seed: seed}, put, nil)
	})
	return e, err
}

func TestReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "re.db")
	ctx := context.Background()
	d, err := Open(ctx, path, testKey)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := create(ctx, d, gamedeftest.Mini(t), "E1", 100, 1); err != nil {
		t.Fatal(err)
	}
	d.Close()
	d, err = Open(ctx, path, testKey)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := d.Emission(ctx, "E1"); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, filepath.Join(t.TempDir(), "no", "such", "dir.db"), testKey); err == nil {
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
	d, err := Open(ctx, path, testKey)
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
		d, err := Open(ctx, filepath.Join(b.TempDir(), fmt.Sprintf("b%d.db", i)), testKey)
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
		d, err := Open(ctx, filepath.Join(b.TempDir(), fmt.Sprintf("raw%d.db", i)), testKey)
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
