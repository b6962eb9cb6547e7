package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"starcolor/internal/audit"
	"starcolor/internal/emission"
	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/lottery"
)

// salesFixture is a database with a two-block mini emission at 1 € and a way to sell from it.
type salesFixture struct {
	d      *DB
	reader *emission.Reader
	now    time.Time
}

func newSalesFixture(t *testing.T) *salesFixture {
	ctx := context.Background()
	d := mustOpen(t)
	e, err := create(ctx, d, gamedeftest.Mini(t), "S", 100, 2)
	if err != nil {
		t.Fatal(err)
	}
	r, err := emission.NewReader(e, d)
	if err != nil {
		t.Fatal(err)
	}
	return &salesFixture{d: d, reader: r, now: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}
}

func (f *salesFixture) player(t *testing.T, name string, deposit int64) lottery.Player {
	return f.playerTB(t, name, deposit)
}

func (f *salesFixture) playerTB(t testing.TB, name string, deposit int64) lottery.Player {
	ctx := context.Background()
	p, err := f.d.CreatePlayer(ctx, name, "x", nil, f.now)
	if err != nil {
		t.Fatal(err)
	}
	max := int64(lottery.MaxLimit)
	if _, err := f.d.SetLimits(ctx, p.ID, lottery.LimitsChange{Deposit: &max, Stake: &max}, "player", f.now); err != nil {
		t.Fatal(err)
	}
	if err := f.deposit(p, deposit); err != nil {
		t.Fatal(err)
	}
	return p
}

func (f *salesFixture) deposit(p lottery.Player, amount int64) error {
	_, err := f.d.Pay(context.Background(), lottery.Payment{PlayerID: p.ID, AccountID: p.AccountID, Kind: lottery.Deposit, Amount: amount}, f.now)
	return err
}

func (f *salesFixture) sell(p lottery.Player, key string) (lottery.Game, error) {
	return f.d.Sell(context.Background(), lottery.SaleRequest{
		PlayerID: p.ID, AccountID: p.AccountID, Price: 100, Mode: "auto", Color: 3, Status: "finished",
		Key: key, RequestHash: []byte("body"),
		Prizes: f,
	}, f.now)
}

// Unit reads the units of the fixture's sales from its emission's reader (lottery.Prizes), with
// the leaf hash their sale entries name, as the game's own does.
func (f *salesFixture) Unit(_ context.Context, _ string, block, unit int) (lottery.SoldUnit, error) {
	rec, err := f.reader.Unit(context.Background(), block, unit)
	return lottery.SoldUnit{Prize: rec.Prize, Leaf: audit.LeafHash(audit.AppendLine(nil, &rec))}, err
}

// A new database gets small pages (initFile); one made with other pages keeps them and opens.
func TestPageSize(t *testing.T) {
	d := mustOpen(t)
	var size int
	if err := d.db.QueryRow(`PRAGMA page_size`).Scan(&size); err != nil || size != pageSize {
		t.Fatalf("new database: pages of %d bytes (%v), want %d", size, err, pageSize)
	}
	path := filepath.Join(t.TempDir(), "old.db")
	old, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.Exec(`CREATE TABLE t (x)`); err != nil {
		t.Fatal(err)
	}
	old.Close()
	d2, err := Open(context.Background(), path, testKey)
	if err != nil {
		t.Fatalf("open a database of 4096-byte pages: %v", err)
	}
	defer d2.Close()
	if err := d2.db.QueryRow(`PRAGMA page_size`).Scan(&size); err != nil || size != 4096 {
		t.Fatalf("existing database: pages of %d bytes (%v), want 4096 kept", size, err)
	}
}

// BenchmarkSell is the database's share of a sale: 64 players selling at once through the
// writer, durably (WAL, synchronous=FULL), without HTTP. Each op is one sale.
func BenchmarkSell(b *testing.B) {
	ctx := context.Background()
	d := mustOpen(b)
	def := gamedeftest.Mini(b)
	blocks := b.N/1000 + 2
	e, err := create(ctx, d, def, "B", 100, blocks)
	if err != nil {
		b.Fatal(err)
	}
	// The server reads units through a page cache; so does the benchmark.
	r, err := emission.NewReader(e, &cachedPages{d: d, pages: map[[2]int][]byte{}})
	if err != nil {
		b.Fatal(err)
	}
	f := &salesFixture{d: d, reader: r, now: time.Now()}
	const players = 64
	ps := make([]lottery.Player, players)
	for i := range ps {
		ps[i] = f.playerTB(b, fmt.Sprintf("b%d", i), lottery.MaxLimit)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	before := cpuTime()
	b.ResetTimer()
	for i := range players {
		wg.Go(func() {
			for n := 0; next.Add(1) <= int64(b.N); n++ {
				if _, err := f.sell(ps[i], fmt.Sprintf("k%d", n)); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	st := d.WriteStats()
	b.ReportMetric(float64(st.Ops)/float64(st.Batches), "sales/batch")
	b.ReportMetric(float64(st.Committing.Microseconds())/float64(st.Batches), "µs-commit/batch")
	b.ReportMetric(float64(st.Running.Microseconds())/float64(st.Ops), "µs-statements/sale")
	b.ReportMetric(float64((cpuTime()-before).Microseconds())/float64(b.N), "µs-cpu/sale")
}

type cachedPages struct {
	d     *DB
	mu    sync.Mutex
	pages map[[2]int][]byte
}

func (c *cachedPages) Page(ctx context.Context, id string, block, page int) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.pages[[2]int{block, page}]; ok {
		return p, nil
	}
	p, err := c.d.Page(ctx, id, block, page)
	c.pages[[2]int{block, page}] = p
	return p, err
}

// Under writes that never pause, the WAL still starts again from its beginning: the background
// checkpoint alone never catches up, and the writer finishes it between batches.
func TestWALStaysShortUnderSteadyWrites(t *testing.T) {
	every, frames := checkpointEvery, restartFrames
	checkpointEvery, restartFrames = 20*time.Millisecond, 64
	// Restored once the store is closed (cleanups run last first): its checkpointer reads them.
	t.Cleanup(func() { checkpointEvery, restartFrames = every, frames })
	f := &salesFixture{d: mustOpen(t), now: time.Now()}
	var wg sync.WaitGroup
	var largest atomic.Int64
	stop := time.Now().Add(1500 * time.Millisecond)
	for i := range 16 {
		p := f.player(t, fmt.Sprintf("w%d", i), 1)
		wg.Go(func() {
			for time.Now().Before(stop) {
				if err := f.deposit(p, 1); err != nil {
					t.Error(err)
					return
				}
				if st, err := os.Stat(f.d.Path + "-wal"); err == nil && st.Size() > largest.Load() {
					largest.Store(st.Size())
				}
			}
		})
	}
	wg.Wait()
	st := f.d.WriteStats()
	t.Logf("%d writes in %d commits; the WAL reached %d KB", st.Ops, st.Batches, largest.Load()>>10)
	// Each commit writes about 6 pages (a deposit's transfer, balance and key, and its entry in
	// the journal's queue): without restarts the WAL would hold them all.
	if grown := st.Batches * 6 * int64(pageSize); largest.Load() > 2<<20 || largest.Load() > grown/2 {
		t.Fatalf("the WAL grew to %d bytes over %d commits", largest.Load(), st.Batches)
	}
}

// BenchmarkRawSaleRows is the raw cost of a sale's rows in SQLite, with none of the writer's
// logic. One connection writes a durable transaction of sales at a time, with the writer's
// multi-row statements: no reads, no checks, no goroutines.
//
//   - "sale" writes what a sale must, 32 sales a commit (the server's batches are 18–64): a
//     game, its stake transfer, a prize transfer for one sale in four, an idempotency key, the
//     balances, and the journal's row, its leaf hash and game (migration 0043).
//   - "sale-512" writes the same 512 sales a commit, the writer's largest batch and the fill's.
//   - "game-and-balances" writes only the game and the balances, 32 a commit, the least any
//     design of a sale could write.
//
// Each op is one sale. The CPU reported (user and system, getrusage) is the process's.
func BenchmarkRawSaleRows(b *testing.B) {
	b.Run("sale", func(b *testing.B) { rawSaleRows(b, true, 32) })
	b.Run("sale-512", func(b *testing.B) { rawSaleRows(b, true, maxBatch) })
	b.Run("game-and-balances", func(b *testing.B) { rawSaleRows(b, false, 32) })
}

func rawSaleRows(b *testing.B, whole bool, batch int) {
	ctx := context.Background()
	d := mustOpen(b)
	const players = 64
	f := &salesFixture{d: d, now: time.Now()}
	ps := make([]lottery.Player, players)
	for i := range ps {
		ps[i] = f.playerTB(b, fmt.Sprintf("r%d", i), lottery.MaxLimit)
	}
	conn, err := d.db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
		b.Fatal(err)
	}
	rows := func(head string, cols, n int, tail string) *sql.Stmt {
		row := "(?" + strings.Repeat(",?", cols-1) + ")"
		s, err := conn.PrepareContext(ctx, head+row+strings.Repeat(","+row, n-1)+tail)
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	games := rows(`INSERT INTO games (id, player_id, block_number, unit, stake, mode, prize, color, status, balance_after, created_at, updated_at, stake_transfer) VALUES `, 13, batch, ``)
	stakes := rows(`INSERT INTO transfers (from_account, to_account, amount, kind, game_id, created_at) VALUES `, 6, batch, ``)
	prizes := rows(`INSERT INTO transfers (from_account, to_account, amount, kind, game_id, created_at) VALUES `, 6, batch/4, ``)
	keys := rows(`INSERT INTO idempotency (player_id, key, request_hash, status, response, created_at) VALUES `, 6, batch, ``)
	balances := rows(`UPDATE accounts SET balance = balance + v.column2 FROM (VALUES `, 2, min(batch, players)+1, `) v WHERE accounts.id = v.column1`)
	leaves := rows(`INSERT INTO journal (seq, leaf, game) VALUES `, 3, batch, ``)
	// The journal's rows follow the entries of the players' creation.
	var seq int
	if err := conn.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM journal`).Scan(&seq); err != nil {
		b.Fatal(err)
	}
	hash := make([]byte, 32)
	exec := func(s *sql.Stmt, args []any) {
		if _, err := s.ExecContext(ctx, args...); err != nil {
			b.Fatal(err)
		}
	}
	before := cpuTime()
	b.ResetTimer()
	for id := 1; id <= b.N; {
		var g, st, pr, k, bal, j []any
		created := saleTime(time.Now())
		for i := range batch {
			p := ps[(id+i)%players]
			leaf := make([]byte, 32)
			binary.BigEndian.PutUint64(leaf, rand.Uint64())
			j = append(j, seq+id+i, leaf, id+i)
			g = append(g, id+i, p.ID, (id+i)/1000, (id+i)%1000, 100, "auto", 0, 1, "finished", 1000, created, 0, id+i)
			st = append(st, p.AccountID, lottery.PrizeFundAccount, 100, "stake", id+i, created)
			if i%4 == 0 {
				pr = append(pr, lottery.PrizeFundAccount, p.AccountID, 200, "prize", id+i, created)
			}
			k = append(k, p.ID, fmt.Sprintf("%08x-%04x-4000-8000-%012x", rand.Uint32(), rand.Uint32()&0xffff, rand.Uint64()&0xffffffffffff), hash, 201, []byte("game:1"), 0)
			if i < players {
				bal = append(bal, p.AccountID, 0)
			}
		}
		bal = append(bal, lottery.PrizeFundAccount, 0)
		if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
			b.Fatal(err)
		}
		exec(games, g)
		if whole {
			exec(stakes, st)
			exec(prizes, pr)
			exec(keys, k)
			exec(leaves, j)
		}
		exec(balances, bal)
		if _, err := conn.ExecContext(ctx, `COMMIT`); err != nil {
			b.Fatal(err)
		}
		id += batch
	}
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-before).Microseconds())/float64(b.N), "µs-cpu/sale")
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// The sweep of old idempotency keys (OldKeys, ForgetKeys) reads pages of the key table in key
// order and deletes by primary key: neither statement reads the whole table. (That it forgets
// exactly the old keys is the stores' contract: storetest.)
func TestForgetKeysPlans(t *testing.T) {
	d := mustOpen(t)
	for _, q := range []string{
		`SELECT player_id, key, created_at FROM idempotency WHERE (player_id, key) > (?, ?) ORDER BY player_id, key LIMIT ?`,
		`DELETE FROM idempotency WHERE (player_id, key) IN (VALUES (?, ?), (?, ?))`,
	} {
		for _, detail := range queryPlan(t, d, q, 1, "a", 2, "b") {
			if strings.HasPrefix(detail, "SCAN idempotency") {
				t.Errorf("%s reads the whole table: %s", q, detail)
			}
		}
	}
}

// BenchmarkForgetKeys is what forgetting old idempotency keys costs, on a table of 300,000 keys
// of which a third are old:
//
//   - "sweep" reads the whole table as the sweep does (OldKeys, 5,000 keys a read, beside the
//     writer).
//   - "forget-512" is one of its writes, deleting 512 old keys by their primary key. It shows
//     how long the sweep holds the writer.
//   - "delete-where" is the single statement it replaces, "DELETE … WHERE created_at < ?", here
//     with nothing to delete. It held the writer for a read of the whole table.
func BenchmarkForgetKeys(b *testing.B) {
	ctx := context.Background()
	d := mustOpen(b)
	conn, err := d.db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{`PRAGMA foreign_keys = OFF`, `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 299999)
		INSERT INTO idempotency (player_id, key, request_hash, status, response, created_at)
		SELECT 1 + i % 64, printf('%08x-%04x-4000-8000-%012x', abs(random()) % 4294967295, i % 65535, i), zeroblob(32), 201, 'game:1',
		  CASE WHEN i % 3 = 0 THEN 1000 ELSE 2000000000 END FROM n`} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	conn.Close()
	cutoff := time.Unix(1500000000, 0)
	b.Run("sweep", func(b *testing.B) {
		for b.Loop() {
			var after lottery.KeyRef
			n := 0
			for {
				old, last, done, err := d.OldKeys(ctx, after, 5000, cutoff)
				if err != nil {
					b.Fatal(err)
				}
				n += len(old)
				if done {
					break
				}
				after = last
			}
			if n != 100000 {
				b.Fatalf("%d old keys, want 100,000", n)
			}
		}
	})
	var after lottery.KeyRef // where the next forget-512 finds old keys: each run deletes some
	b.Run("forget-512", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			old, last, _, err := d.OldKeys(ctx, after, 3000, cutoff)
			if err != nil || len(old) < 512 {
				b.Fatalf("%d old keys, %v", len(old), err)
			}
			after = last
			b.StartTimer()
			if _, err := d.ForgetKeys(ctx, old[:512]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("delete-where", func(b *testing.B) {
		for b.Loop() {
			if err := d.update(ctx, func(t *tx) error {
				_, err := t.exec(`DELETE FROM idempotency WHERE created_at < ?`, 0)
				return err
			}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
