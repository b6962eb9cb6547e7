package emission_test

import (
	"context"
	"errors"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"starcolor/internal/emission"
	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/lottery"
	"starcolor/internal/store"
	"starcolor/internal/storetest"
)

// emissionStore is what TestCreate asks of a store.
type emissionStore interface {
	emission.Pages
	Emissions(ctx context.Context) ([]*emission.Emission, error)
	Emission(ctx context.Context, id string) (*emission.Emission, error)
}

// Create refuses an order that cannot make an emission before anything is written. Otherwise it
// writes, through the store's one method, the emission its seed builds. Read back from a real
// SQLite file (written directly and staged) and a real PostgreSQL, it has the roots, the table,
// the creation time and the units of that seed. A second creation of the same id is refused and
// leaves the first as it was.
func TestCreate(t *testing.T) {
	ctx := context.Background()
	def := gamedeftest.Mini(t)
	table, _ := def.Table(100)
	for name, open := range map[string]func(t *testing.T) (emissionStore, emission.Write){
		"sqlite": func(t *testing.T) (emissionStore, emission.Write) {
			db := storetest.OpenSQLite(t)
			return db, store.EmissionWrite(db, lottery.ByCommandLine, false)
		},
		"sqlite staged": func(t *testing.T) (emissionStore, emission.Write) {
			db := storetest.OpenSQLite(t)
			return db, store.EmissionWrite(db, lottery.ByCommandLine, true)
		},
		"postgres": func(t *testing.T) (emissionStore, emission.Write) {
			db := storetest.OpenPostgres(t)
			return db, store.EmissionWrite(db, lottery.ByCommandLine, false)
		},
	} {
		t.Run(name, func(t *testing.T) {
			db, write := open(t)
			for what, bad := range map[string]emission.Order{
				"a bad id":           {ID: "a b", Definition: def, Price: 100, Blocks: 1},
				"a price not sold":   {ID: "X", Definition: def, Price: 250, Blocks: 1},
				"no block":           {ID: "X", Definition: def, Price: 100, Blocks: 0},
				"no game definition": {ID: "X", Price: 100, Blocks: 1},
			} {
				if _, err := emission.Create(ctx, write, bad); !errors.Is(err, emission.ErrInvalid) {
					t.Errorf("%s: %v, want ErrInvalid", what, err)
				}
			}
			if es, err := db.Emissions(ctx); err != nil || len(es) != 0 {
				t.Fatalf("bad orders left %d emission(s) (%v)", len(es), err)
			}

			seed := [emission.SeedSize]byte{9}
			created := time.Date(2026, 3, 28, 12, 30, 0, 0, time.UTC)
			var done, total atomic.Int64
			made, err := emission.Create(ctx, write, emission.Order{ID: "E", Definition: def, Price: 100, Blocks: 2, Seed: seed,
				CreatedAt: created, Progress: func(d, n int) { done.Store(int64(d)); total.Store(int64(n)) }})
			if err != nil {
				t.Fatal(err)
			}
			if done.Load() != 2000 || total.Load() != 2000 {
				t.Errorf("progress ended at %d of %d, want 2000 of 2000", done.Load(), total.Load())
			}
			want, err := emission.Build(ctx, emission.Plan{Definition: def, Price: 100, Blocks: 2, Seed: seed}, (&emission.MemoryPages{}).Put, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := db.Emission(ctx, "E")
			if err != nil {
				t.Fatal(err)
			}
			if got.Price != 100 || got.Definition != def.Version || !got.CreatedAt.Equal(created) || !reflect.DeepEqual(got.Table, *table) {
				t.Errorf("stored as %d cents, definition %q, made %s, table %+v", got.Price, got.Definition, got.CreatedAt, got.Table)
			}
			if len(got.Blocks) != 2 || len(made.Blocks) != 2 {
				t.Fatalf("%d blocks stored, %d returned, want 2", len(got.Blocks), len(made.Blocks))
			}
			for k := range want {
				if got.Blocks[k].Root != want[k].Root || made.Blocks[k].Root != want[k].Root {
					t.Errorf("block %d: stored root %x, returned %x, the seed's %x", k, got.Blocks[k].Root, made.Blocks[k].Root, want[k].Root)
				}
			}
			r, err := emission.NewReader(got, db)
			if err != nil {
				t.Fatal(err)
			}
			if rep, err := r.Report(ctx); err != nil || !rep.OK() || rep.Total.Units != 2000 {
				t.Errorf("the units read back: %v, %+v", err, rep)
			}

			if _, err := emission.Create(ctx, write, emission.Order{ID: "E", Definition: def, Price: 100, Blocks: 1,
				Seed: [emission.SeedSize]byte{10}, CreatedAt: created}); err == nil {
				t.Error("a second emission E was created")
			}
			if again, err := db.Emission(ctx, "E"); err != nil || len(again.Blocks) != 2 || again.Blocks[0].Root != want[0].Root {
				t.Errorf("after a second creation of E: %v, %+v", err, again)
			}
		})
	}
}
