// Package emissiontest builds emissions in memory for tests, and reports on them: the same units
// for the same seed every run, in milliseconds with the test definitions of gamedeftest. It is
// never linked into a binary.
package emissiontest

import (
	"context"
	"testing"
	"time"

	"starcolor/internal/emission"
	"starcolor/internal/gamedef"
)

// Build makes the emission T1 of a definition at a price, of the given blocks, in memory, from a
// seed whose first byte is seed.
func Build(t testing.TB, def *gamedef.Definition, price int64, blocks int, seed byte) (*emission.Emission, *emission.MemoryPages) {
	t.Helper()
	table, err := def.Table(price)
	if err != nil {
		t.Fatal(err)
	}
	pages := &emission.MemoryPages{}
	bs, err := emission.Build(context.Background(), emission.Plan{Definition: def, Price: price, Blocks: blocks, Seed: [emission.SeedSize]byte{seed}}, pages.Put, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := &emission.Emission{ID: "T1", Price: price, Definition: def.Version, Table: *table, Blocks: bs,
		CreatedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	return e, pages
}

// Report reads back every unit of an emission and reports on them.
func Report(t testing.TB, e *emission.Emission, pages emission.Pages) *emission.Report {
	t.Helper()
	r, err := emission.NewReader(e, pages)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := r.Report(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
