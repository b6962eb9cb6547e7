package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"starcolor/internal/emission"
	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/journal"
	"starcolor/internal/lottery"
)

// BenchmarkCompareJournal is ledger check's comparison of the journal with the rows
// (sqlstore.DB.CompareJournal) on a SQLite file of $STARCOLOR_BENCH_GAMES games (100,000 when
// unset), sold by 64 players at once through the store's sale path, their journal integrated
// and signed. Each op is one whole comparison; games/s is its speed, µs-cpu/game the CPU of the
// process (user and system) it takes a game, which a machine's other work does not change.
func BenchmarkCompareJournal(b *testing.B) {
	ctx := context.Background()
	games := 100_000
	if s := os.Getenv("STARCOLOR_BENCH_GAMES"); s != "" {
		var err error
		if games, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	d := mustOpen(b)
	e, err := create(ctx, d, gamedeftest.Mini(b), "B", 100, games/1000+1)
	if err != nil {
		b.Fatal(err)
	}
	r, err := emission.NewReader(e, d)
	if err != nil {
		b.Fatal(err)
	}
	f := &salesFixture{d: d, reader: r, now: time.Now()}
	const players = 64
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for i := range players {
		p := f.playerTB(b, fmt.Sprintf("b%d", i), lottery.MaxLimit)
		wg.Go(func() {
			for n := 0; next.Add(1) <= int64(games); n++ {
				if _, err := f.sell(p, fmt.Sprintf("k%d", n)); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	sold := time.Since(start)
	key, err := journal.CreateKey(filepath.Join(b.TempDir(), "journal.key"), "")
	if err != nil {
		b.Fatal(err)
	}
	if err := journal.NewLog(d, key).Step(ctx, time.Now()); err != nil {
		b.Fatal(err)
	}
	st, err := d.JournalState(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d games sold in %s, %d entries", games, sold.Round(time.Millisecond), st.Size)
	before := cpuTime()
	for b.Loop() {
		c, err := d.CompareJournal(ctx, journal.CompareOptions{Verifier: key.Verifier, AccountKey: testKey, Now: f.now})
		if err != nil {
			b.Fatal(err)
		}
		if !c.OK() || c.Games != int64(games) || c.Checkpoint != st.Size {
			b.Fatalf("%d games compared, checkpoint of %d: %d differences, the first %v", c.Games, c.Checkpoint, len(c.Problems), c.Problems[:min(3, len(c.Problems))])
		}
	}
	b.ReportMetric(float64(games)*float64(b.N)/b.Elapsed().Seconds(), "games/s")
	b.ReportMetric(float64((cpuTime()-before).Microseconds())/float64(games*b.N), "µs-cpu/game")
}
