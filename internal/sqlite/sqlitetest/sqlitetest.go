// Package sqlitetest gives the tests of the server's parts (the API, the player's page, the back
// office) what they all start from: a real SQLite file in a temporary folder, holding an emission
// built from a fixed seed.
package sqlitetest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"starcolor/internal/emission"
	"starcolor/internal/gamedef"
	"starcolor/internal/sqlite"
)

// Open opens a new database in a temporary folder; it is closed when the test ends.
func Open(t testing.TB) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// CreateEmission stores an emission of the definition at a price, of the given blocks, built
// from a seed whose first byte is seed (so the same units every run).
func CreateEmission(t testing.TB, db *sqlite.DB, def *gamedef.Definition, id string, price int64, blocks int, seed byte) *emission.Emission {
	t.Helper()
	ctx := context.Background()
	table, err := def.Table(price)
	if err != nil {
		t.Fatal(err)
	}
	e := &emission.Emission{ID: id, Price: price, Definition: def.Version, Table: *table, CreatedAt: time.Now().UTC()}
	s := [emission.SeedSize]byte{seed}
	if err := db.CreateEmission(ctx, e, s, func(put func(emission.Page) error) ([]emission.Block, error) {
		return emission.Build(ctx, emission.Plan{Definition: def, Price: price, Blocks: blocks, Seed: s}, put, nil)
	}); err != nil {
		t.Fatal(err)
	}
	return e
}

// HoldWriter keeps the database's writer busy until the returned release is called, so that a
// test can queue writes behind it and have them all join one batch.
func HoldWriter(t testing.TB, db *sqlite.DB) (release func()) {
	t.Helper()
	running, done := make(chan struct{}), make(chan struct{})
	go db.Update(context.Background(), func(*sqlite.Tx) error {
		close(running)
		<-done
		return nil
	})
	<-running
	return func() { close(done) }
}
