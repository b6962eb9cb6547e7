package sqlite

import (
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
	"starcolor/internal/lottery"
)

// A staged creation stores exactly what a direct one does (same roots, same pages), and while its
// units are being generated, other writes go on: the database is not locked.
func TestStagedCreationLetsWritesThrough(t *testing.T) {
	ctx := context.Background()
	def := gamedeftest.Mini(t)
	direct := mustOpen(t)
	want, err := create(ctx, direct, def, "S1", 100, 3)
	if err != nil {
		t.Fatal(err)
	}
	d := mustOpen(t)
	table, _ := def.Table(100)
	e := &emission.Emission{ID: "S1", Price: 100, Definition: def.Version, Table: *table, CreatedAt: want.CreatedAt}
	var seed [emission.SeedSize]byte
	copy(seed[:], "S1")
	wrote := false
	err = d.CreateEmissionStaged(ctx, e, seed, "test", func(put func(emission.Page) error) ([]emission.Block, error) {
		return emission.Build(ctx, emission.Plan{Definition: def, Price: 100, Blocks: 3, Seed: seed}, func(p emission.Page) error {
			if p.Block == 1 && !wrote {
				// A write in the middle of the generation commits at once.
				wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
				defer cancel()
				if _, err := d.CreatePlayer(wctx, "during", "x", nil, time.Now()); err != nil {
					return err
				}
				wrote = true
			}
			return put(p)
		}, nil)
	})
	if err != nil || !wrote {
		t.Fatalf("staged creation: %v (write during it: %v)", err, wrote)
	}
	got, err := d.Emission(ctx, "S1")
	if err != nil {
		t.Fatal(err)
	}
	for b := range want.Blocks {
		if got.Blocks[b].Root != want.Blocks[b].Root {
			t.Fatalf("block %d: root %x, direct creation %x", b, got.Blocks[b].Root, want.Blocks[b].Root)
		}
	}
	for _, unit := range []int{0, 499, 999} {
		r1, _ := emission.NewReader(got, d)
		r2, _ := emission.NewReader(want, direct)
		u1, err1 := r1.Unit(ctx, 2, unit)
		u2, err2 := r2.Unit(ctx, 2, unit)
		if err1 != nil || err2 != nil || u1 != u2 {
			t.Fatalf("unit %d of block 2: %v %v, %v %v", unit, u1.Prize, err1, u2.Prize, err2)
		}
	}
	if left, _ := filepath.Glob(d.Path + "-staging-*"); len(left) > 0 {
		t.Fatalf("staging files left: %v", left)
	}
}

// A staged creation that fails or is cancelled leaves nothing, not even its staging file.
func TestStagedCreationLeavesNothingOnFailure(t *testing.T) {
	d := mustOpen(t)
	def := gamedeftest.Mini(t)
	before := counts(t, d)
	table, _ := def.Table(100)
	boom := errors.New("boom")
	for _, tc := range []struct {
		name string
		fail func(cancel context.CancelFunc) error
		want error
	}{
		{"build fails", func(context.CancelFunc) error { return boom }, boom},
		{"cancelled", func(cancel context.CancelFunc) error { cancel(); return nil }, context.Canceled},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		e := &emission.Emission{ID: "F", Price: 100, Definition: def.Version, Table: *table, CreatedAt: time.Now()}
		err := d.CreateEmissionStaged(ctx, e, [32]byte{}, "test", func(put func(emission.Page) error) ([]emission.Block, error) {
			n := 0
			return emission.Build(ctx, emission.Plan{Definition: def, Price: 100, Blocks: 2}, func(p emission.Page) error {
				if n++; n == 5 {
					if err := tc.fail(cancel); err != nil {
						return err
					}
				}
				return put(p)
			}, nil)
		})
		cancel()
		if !errors.Is(err, tc.want) {
			t.Fatalf("%s: %v, want %v", tc.name, err, tc.want)
		}
		if after := counts(t, d); after != before {
			t.Fatalf("%s: left %s", tc.name, after)
		}
		if left, _ := filepath.Glob(d.Path + "-staging-*"); len(left) > 0 {
			t.Fatalf("%s: staging files left: %v", tc.name, left)
		}
	}
	// The id stays free, and a duplicate id is refused after the build, changing nothing.
	if _, err := create(context.Background(), d, def, "F", 100, 1); err != nil {
		t.Fatal(err)
	}
	e := &emission.Emission{ID: "F", Price: 100, Definition: def.Version, Table: *table, CreatedAt: time.Now()}
	err := d.CreateEmissionStaged(context.Background(), e, [32]byte{}, "test", func(put func(emission.Page) error) ([]emission.Block, error) {
		return emission.Build(context.Background(), emission.Plan{Definition: def, Price: 100, Blocks: 1}, put, nil)
	})
	if !errors.Is(err, lottery.ErrExists) {
		t.Fatalf("duplicate id: %v", err)
	}
	// A staging file left by a process that died is removed when the database is next opened.
	dead := d.Path + "-staging-0123456789abcdef"
	if err := os.WriteFile(dead, []byte("half-built"), 0o644); err != nil {
		t.Fatal(err)
	}
	d2, err := Open(context.Background(), d.Path, testKey)
	if err != nil {
		t.Fatal(err)
	}
	d2.Close()
	if _, err := os.Stat(dead); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a dead creation's staging file is still there: %v", err)
	}
}

// BenchmarkCreateWhileSelling creates a 1,000,000-unit block while another goroutine writes
// every millisecond, as sales would, and reports the longest wait of those writes: how long
// sales pause. Direct: CreateEmission; staged: CreateEmissionStaged.
func BenchmarkCreateWhileSelling(b *testing.B) {
	def, _ := gamedef.Lookup(gamedef.Default)
	table, _ := def.Table(100)
	for _, staged := range []bool{false, true} {
		name := map[bool]string{false: "direct", true: "staged"}[staged]
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			var longest time.Duration
			for i := 0; b.Loop(); i++ {
				d, err := Open(ctx, filepath.Join(b.TempDir(), fmt.Sprintf("w%d.db", i)), testKey)
				if err != nil {
					b.Fatal(err)
				}
				stop := make(chan struct{})
				done := make(chan struct{})
				go func() {
					defer close(done)
					for {
						select {
						case <-stop:
							return
						case <-time.After(time.Millisecond):
						}
						start := time.Now()
						d.update(ctx, func(t *tx) error {
							_, err := t.transfer(lottery.Transfer{From: lottery.BankAccount, To: lottery.PrizeFundAccount, Amount: 1, Kind: "deposit", CreatedAt: start})
							return err
						})
						longest = max(longest, time.Since(start))
					}
				}()
				e := &emission.Emission{ID: "W", Price: 100, Definition: def.Version, Table: *table, CreatedAt: time.Now()}
				var seed [emission.SeedSize]byte
				build := func(put func(emission.Page) error) ([]emission.Block, error) {
					return emission.Build(ctx, emission.Plan{Definition: def, Price: 100, Blocks: 1, Seed: seed}, put, nil)
				}
				if staged {
					err = d.CreateEmissionStaged(ctx, e, seed, "test", build)
				} else {
					err = d.CreateEmission(ctx, e, seed, "test", build)
				}
				close(stop)
				<-done
				if err != nil {
					b.Fatal(err)
				}
				d.Close()
			}
			b.ReportMetric(longest.Seconds()*1000, "ms-longest-write-wait")
		})
	}
}

// Opening the database (any command, a restart) while an emission is being created in a staging
// file leaves that file alone: it belongs to its creator until the creation ends. Only a file
// whose creator is gone is removed.
func TestOpenLeavesALiveStagingFile(t *testing.T) {
	d := mustOpen(t)
	def := gamedeftest.Mini(t)
	table, _ := def.Table(100)
	building, resume := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		e := &emission.Emission{ID: "LIVE", Price: 100, Definition: def.Version, Table: *table, CreatedAt: time.Now()}
		done <- d.CreateEmissionStaged(context.Background(), e, [32]byte{}, "test", func(put func(emission.Page) error) ([]emission.Block, error) {
			n := 0
			return emission.Build(context.Background(), emission.Plan{Definition: def, Price: 100, Blocks: 2}, func(p emission.Page) error {
				if n++; n == 3 {
					close(building)
					<-resume
				}
				return put(p)
			}, nil)
		})
	}()
	<-building
	live, _ := filepath.Glob(d.Path + "-staging-*")
	if len(live) == 0 {
		t.Fatal("no staging file while building")
	}
	other, err := Open(context.Background(), d.Path, testKey)
	if err != nil {
		t.Fatal(err)
	}
	other.Close()
	for _, f := range live {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("opening the database removed a live staging file: %v", err)
		}
	}
	close(resume)
	if err := <-done; err != nil {
		t.Fatalf("the creation failed: %v", err)
	}
	if left, _ := filepath.Glob(d.Path + "-staging-*"); len(left) > 0 {
		t.Fatalf("staging files left after the creation: %v", left)
	}
}

// counts is the number of emissions, blocks and pages, to show that a failure changed nothing.
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
