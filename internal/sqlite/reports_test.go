package sqlite

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/lottery"
	"starcolor/internal/sqlstore"
)

// checkTotals compares the kept totals with sums over the games, and checks the ledger.
func (f *salesFixture) checkTotals(t *testing.T, since time.Time) {
	t.Helper()
	ctx := context.Background()
	fromGames := func(prefix int, where string, args ...any) []lottery.Sales {
		// The games' times as text (they are unix nanoseconds, migration 0041), cut to the period.
		rows, err := f.d.db.Query(fmt.Sprintf(`WITH g AS (SELECT strftime('%%Y-%%m-%%dT%%H:%%M:%%S', created_at / 1000000000, 'unixepoch') AS created_at,
				stake, prize FROM games)
			SELECT substr(created_at, 1, %d), stake, count(*), sum(stake), sum(prize), sum(prize > 0), max(prize)
			FROM g %s GROUP BY 1, 2 ORDER BY 1, 2`, prefix, where), args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []lottery.Sales
		for rows.Next() {
			var s lottery.Sales
			var period string
			if err := rows.Scan(&period, &s.Price, &s.Units, &s.Stakes, &s.Prizes, &s.Winners, &s.Top); err != nil {
				t.Fatal(err)
			}
			if prefix > 0 {
				layout := "2006-01-02T15"[:prefix]
				if s.Period, err = time.Parse(layout, period); err != nil {
					t.Fatal(err)
				}
			}
			out = append(out, s)
		}
		return out
	}
	for _, c := range []struct {
		p     lottery.Period
		since time.Time
	}{{lottery.Hour, time.Time{}}, {lottery.Hour, since}, {lottery.Day, time.Time{}}, {lottery.Day, since}} {
		got, err := f.d.SalesOver(ctx, c.p, c.since)
		if err != nil {
			t.Fatal(err)
		}
		n := len("2006-01-02T15") // how many characters of a stored time name the period
		if c.p == lottery.Day {
			n = len("2006-01-02")
		}
		want := fromGames(n, `WHERE created_at >= ?`, c.since.UTC().Format(time.RFC3339Nano)[:n])
		if len(want) == 0 || !reflect.DeepEqual(got, want) {
			t.Fatalf("sales by %s since %v:\n got %+v\nwant %+v", c.p, c.since, got, want)
		}
	}
	from, until := since.Add(-3*time.Hour), since.Add(5*time.Hour)
	between, err := f.d.SalesBetween(ctx, lottery.Hour, from, until)
	if err != nil {
		t.Fatal(err)
	}
	if want := fromGames(13, `WHERE created_at >= ? AND created_at < ?`, from.Format(hourLayout), until.Format(hourLayout)); !reflect.DeepEqual(between, want) {
		t.Fatalf("sales by hour from %v until %v:\n got %+v\nwant %+v", from, until, between, want)
	}
	got, err := f.d.SalesTotals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := fromGames(0, ``); !reflect.DeepEqual(got, want) {
		t.Fatalf("sales totals:\n got %+v\nwant %+v", got, want)
	}
	open, err := f.d.OpenBlockSales(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(open) == 0 {
		t.Fatal("no open block")
	}
	for _, b := range open {
		var want lottery.BlockSales
		if err := f.d.db.QueryRow(`SELECT count(*), coalesce(sum(prize), 0), coalesce(sum(prize > 0), 0) FROM games
			WHERE block_number = (SELECT number FROM blocks WHERE emission_id = ? AND block = ?)`,
			b.Emission, b.Block).Scan(&want.Sold, &want.Prizes, &want.Winners); err != nil {
			t.Fatal(err)
		}
		if b.Sold != want.Sold || b.Prizes != want.Prizes || b.Winners != want.Winners {
			t.Fatalf("block %d of %s: sold %d, prizes %d, winners %d; its games: %d, %d, %d",
				b.Block, b.Emission, b.Sold, b.Prizes, b.Winners, want.Sold, want.Prizes, want.Winners)
		}
	}
	c, err := f.d.CheckLedger(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Problems) > 0 {
		t.Fatalf("ledger: %q", c.Problems)
	}
}

// reopenBefore takes the database back to before some migrations, with the statements given
// (each migration's undoing, its row in schema_migrations deleted), then opens it again: the
// migrations run on what the sales wrote before them.
func (f *salesFixture) reopenBefore(t *testing.T, undo ...string) *DB {
	t.Helper()
	// One connection, its foreign keys unchecked, as the migrations run (a table made again).
	conn, err := f.d.db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range append([]string{`PRAGMA foreign_keys = OFF`}, undo...) {
		if _, err := conn.ExecContext(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	conn.Close()
	path := f.d.Path
	if err := f.d.Close(); err != nil {
		t.Fatal(err)
	}
	d, err := Open(context.Background(), path, testKey)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	f.d = d
	return d
}

// beforeSaleRows takes the games and the transfers back to the rows of before migrations 0041
// and 0042 (times as text, the games naming their block by emission and index), for a test of
// an earlier step: reopenBefore runs the step on the rows it read, then 0041 and 0042 again.
var beforeSaleRows = []string{
	`CREATE TABLE games_before (id INTEGER PRIMARY KEY, player_id INTEGER NOT NULL REFERENCES players(id), emission_id TEXT NOT NULL,
		block INTEGER NOT NULL, unit INTEGER NOT NULL, stake INTEGER NOT NULL, mode TEXT NOT NULL, prize INTEGER NOT NULL,
		clicks BLOB NOT NULL DEFAULT x'', status TEXT NOT NULL, balance_after INTEGER NOT NULL, created_at TEXT NOT NULL,
		updated_at INTEGER NOT NULL, color INTEGER NOT NULL DEFAULT -1, stake_transfer INTEGER NOT NULL DEFAULT 0,
		UNIQUE (emission_id, block, unit), FOREIGN KEY (emission_id, block) REFERENCES blocks(emission_id, block))`,
	`INSERT INTO games_before SELECT g.id, g.player_id, b.emission_id, b.block, g.unit, g.stake, g.mode, g.prize, g.clicks, g.status, g.balance_after,
		strftime('%Y-%m-%dT%H:%M:%S', g.created_at / 1000000000, 'unixepoch') || printf('.%09dZ', g.created_at % 1000000000),
		g.updated_at, g.color, g.stake_transfer FROM games g JOIN blocks b ON b.number = g.block_number`,
	`DROP TABLE games`,
	`ALTER TABLE games_before RENAME TO games`,
	`CREATE INDEX games_by_player ON games(player_id, id)`,
	`CREATE INDEX games_unfinished ON games(updated_at) WHERE status <> 'finished'`,
	`ALTER TABLE transfers ADD COLUMN created_text TEXT NOT NULL DEFAULT ''`,
	`DROP TRIGGER transfers_append_only`,
	`UPDATE transfers SET created_text = strftime('%Y-%m-%dT%H:%M:%S', created_at / 1000000000, 'unixepoch') || printf('.%09dZ', created_at % 1000000000)`,
	`ALTER TABLE transfers DROP COLUMN created_at`,
	`ALTER TABLE transfers RENAME COLUMN created_text TO created_at`,
	`CREATE TRIGGER transfers_append_only BEFORE UPDATE ON transfers BEGIN SELECT RAISE(ABORT, 'transfers are never changed'); END`,
	`DELETE FROM schema_migrations WHERE version IN (41, 42)`,
}

// A database with sales from before the kept totals (migration 0004), the games' transfer ids
// (0005), the hours' top prizes (0036) and the players' totals (0037) gets them all from its
// games and transfers.
func TestSalesMigrations(t *testing.T) {
	f := newSalesFixture(t)
	ctx := context.Background()
	p := f.player(t, "before", 1_000_000)
	for i := range 1200 { // into the second block
		f.now = f.now.Add(7 * time.Minute)
		if _, err := f.sell(p, fmt.Sprintf("k%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	d := f.reopenBefore(t, append(beforeSaleRows, `DROP TABLE sales_hourly`, `ALTER TABLE blocks DROP COLUMN prizes_sold`,
		`ALTER TABLE blocks DROP COLUMN winners_sold`, `ALTER TABLE games DROP COLUMN stake_transfer`,
		`DROP INDEX transfers_money_out`, `DROP INDEX transfers_money_in`, `ALTER TABLE accounts DROP COLUMN games_played`,
		`ALTER TABLE accounts DROP COLUMN games_won`, `ALTER TABLE accounts DROP COLUMN prizes_won`,
		`DELETE FROM schema_migrations WHERE version IN (4, 5, 36, 37)`)...)
	f.checkTotals(t, f.now.Add(-24*time.Hour)) // and the ledger, which checks the games' transfer ids and the players' totals
	var want lottery.PlayerTotals
	if err := d.db.QueryRow(`SELECT count(*), sum(prize > 0), sum(stake), sum(prize) FROM games WHERE player_id = ?`, p.ID).
		Scan(&want.Games, &want.Winners, &want.Stakes, &want.Prizes); err != nil {
		t.Fatal(err)
	}
	if tot, err := d.PlayerTotals(ctx, p.ID); err != nil || tot != want || tot.Games != 1200 {
		t.Fatalf("the player's totals after the migration: %+v, %v; want %+v", tot, err, want)
	}
	got, err := d.PlayerTransfers(ctx, p, 100, 0)
	if want := f.scanTransfers(t, p.AccountID, 100); err != nil || len(want) != 100 || !reflect.DeepEqual(got, want) {
		t.Fatalf("latest transfers after the migration (%v):\n got %+v\nwant %+v", err, got, want)
	}
}

// BenchmarkSalesReports is what the back office's sales page reads: sales by hour over two days,
// by day over a month, the totals by price, the open blocks' prizes sold. The database holds a
// million games, 600,000 of them from the one open block of a million units. It reads them two
// ways:
//
//   - "kept": from the totals the sales keep;
//   - "games": summed over the games, as before migration 0004.
func BenchmarkSalesReports(b *testing.B) {
	ctx := context.Background()
	d := mustOpen(b)
	if _, err := create(ctx, d, gamedeftest.Mini(b), "S", 100, 1); err != nil {
		b.Fatal(err)
	}
	end := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	start := end.Add(-30 * 24 * time.Hour)
	conn, err := d.db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{`PRAGMA foreign_keys = OFF`,
		`UPDATE blocks SET sold = units WHERE emission_id = 'S'`, // its units are among the 400,000 below
		`INSERT INTO blocks (emission_id, block, units, root, sold) VALUES ('S', 1, 1000000, zeroblob(32), 600000)`,
		fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 999999)
		INSERT INTO games (id, player_id, block_number, unit, stake, mode, prize, color, status, balance_after, created_at, updated_at)
		SELECT i + 1, 1 + i %% 64, CASE WHEN i < 400000 THEN 1000 + i / 1000 ELSE (SELECT number FROM blocks WHERE emission_id = 'S' AND block = 1) END,
		  CASE WHEN i < 400000 THEN i %% 1000 ELSE i - 400000 END,
		  100, 'auto', CASE WHEN i %% 4 = 0 THEN 200 ELSE 0 END, 0, 'finished', 0,
		  CAST((%d + i * 2.592) * 1000000000 AS INTEGER), 0 FROM n`, start.Unix()),
		`INSERT INTO sales_hourly (hour, price, units, stakes, prizes, winners)
		  SELECT strftime('%Y-%m-%dT%H', created_at / 1000000000, 'unixepoch'), stake, count(*), sum(stake), sum(prize), sum(prize > 0) FROM games GROUP BY 1, 2`,
		`UPDATE blocks SET (prizes_sold, winners_sold) = (SELECT coalesce(sum(g.prize), 0), coalesce(sum(g.prize > 0), 0)
		  FROM games g WHERE g.block_number = blocks.number)`,
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			b.Fatalf("%.60s: %v", q, err)
		}
	}
	conn.Close()
	b.Run("kept", func(b *testing.B) {
		for b.Loop() {
			if _, err := d.SalesOver(ctx, lottery.Hour, end.Add(-47*time.Hour)); err != nil {
				b.Fatal(err)
			}
			if _, err := d.SalesOver(ctx, lottery.Day, end.Add(-29*24*time.Hour)); err != nil {
				b.Fatal(err)
			}
			if _, err := d.SalesTotals(ctx); err != nil {
				b.Fatal(err)
			}
			if open, err := d.OpenBlockSales(ctx); err != nil || len(open) != 1 || open[0].Winners != 150000 {
				b.Fatalf("open blocks %+v, %v", open, err)
			}
		}
	})
	b.Run("games", func(b *testing.B) {
		for b.Loop() {
			for _, q := range []struct {
				sql  string
				args []any
			}{
				{`SELECT strftime('%Y-%m-%dT%H', created_at / 1000000000, 'unixepoch') AS period, stake, count(*), sum(stake), sum(prize), sum(prize > 0)
				  FROM games WHERE created_at >= ? GROUP BY period, stake`, []any{end.Add(-47 * time.Hour).Truncate(time.Hour).UnixNano()}},
				{`SELECT strftime('%Y-%m-%d', created_at / 1000000000, 'unixepoch') AS period, stake, count(*), sum(stake), sum(prize), sum(prize > 0)
				  FROM games WHERE created_at >= ? GROUP BY period, stake`, []any{end.Add(-29 * 24 * time.Hour).Truncate(24 * time.Hour).UnixNano()}},
				{`SELECT stake, count(*), sum(stake), sum(prize), sum(prize > 0) FROM games GROUP BY stake`, nil},
				{`SELECT b.block, (SELECT sum(g.prize) FROM games g WHERE g.block_number = b.number),
				  (SELECT count(*) FROM games g WHERE g.block_number = b.number AND g.prize > 0)
				  FROM blocks b WHERE b.sold < b.units`, nil},
			} {
				rows, err := d.db.QueryContext(ctx, q.sql, q.args...)
				if err != nil {
					b.Fatal(err)
				}
				for rows.Next() {
				}
				if err := rows.Err(); err != nil {
					b.Fatal(err)
				}
				rows.Close()
			}
		}
	})
}

// A player's transfers are found through their games and the partial indexes: reading them
// reads no whole table. (That they are the right ones is the stores' contract: storetest.)
func TestPlayerTransfersPlan(t *testing.T) {
	d := mustOpen(t)
	for _, q := range []struct {
		sql  string
		args []any
	}{{sqlstore.PlayerTransfersQuery, []any{1, 3, 10, int64(1) << 62}}, {sqlstore.PlayerGamesTransfersQuery, []any{1, 3, 10, int64(1) << 62, int64(1) << 62}}} {
		for _, detail := range queryPlan(t, d, q.sql, q.args...) {
			if strings.HasPrefix(detail, "SCAN transfers") || strings.HasPrefix(detail, "SCAN games") {
				t.Errorf("the query reads a whole table: %s", detail)
			}
		}
	}
}

// scanTransfers reads an account's latest transfers the plain way: the whole ledger, newest first.
func (f *salesFixture) scanTransfers(t *testing.T, account int64, limit int) []lottery.Transfer {
	t.Helper()
	rows, err := f.d.db.Query(`SELECT id, from_account, to_account, amount, kind, coalesce(game_id, 0), created_at
		FROM transfers WHERE from_account = ?1 OR to_account = ?1 ORDER BY id DESC LIMIT ?2`, account, limit)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []lottery.Transfer
	for rows.Next() {
		var tr lottery.Transfer
		var created int64 // unix nanoseconds (migration 0041)
		if err := rows.Scan(&tr.ID, &tr.From, &tr.To, &tr.Amount, &tr.Kind, &tr.GameID, &created); err != nil {
			t.Fatal(err)
		}
		tr.CreatedAt = time.Unix(0, created).UTC()
		out = append(out, tr)
	}
	return out
}

// BenchmarkPlayerTransfers is the back office's read of a player's latest 100 transfers, on a
// ledger of a million games (1.25 million transfers). The player's only transfers are the
// oldest. It reads them two ways:
//
//   - "indexed": through the games and the partial indexes;
//   - "scan": from the newest transfer back, as before migration 0005.
func BenchmarkPlayerTransfers(b *testing.B) {
	ctx := context.Background()
	d := mustOpen(b)
	f := &salesFixture{d: d, now: time.Now()}
	idle := f.playerTB(b, "idle", 1000) // transfer 1: its deposit
	conn, err := d.db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{`PRAGMA foreign_keys = OFF`,
		`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 999999)
		INSERT INTO games (id, player_id, block_number, unit, stake, mode, prize, color, status, balance_after, created_at, updated_at, stake_transfer)
		SELECT i + 1, 100 + i % 64, i / 1000, i % 1000, 100, 'auto', CASE WHEN i % 4 = 0 THEN 200 ELSE 0 END, 0, 'finished', 0,
		  unixepoch('2026-11-30T12:00:00Z') * 1000000000, 0, 10 + 2 * i FROM n`,
		`INSERT INTO transfers (id, from_account, to_account, amount, kind, game_id, created_at)
		  SELECT stake_transfer, 100 + player_id, 2, 100, 'stake', id, created_at FROM games`,
		`INSERT INTO transfers (id, from_account, to_account, amount, kind, game_id, created_at)
		  SELECT stake_transfer + 1, 2, 100 + player_id, prize, 'prize', id, created_at FROM games WHERE prize > 0`,
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			b.Fatalf("%.60s: %v", q, err)
		}
	}
	conn.Close()
	b.Run("indexed", func(b *testing.B) {
		for b.Loop() {
			if ts, err := d.PlayerTransfers(ctx, idle, 100, 0); err != nil || len(ts) != 1 {
				b.Fatalf("%d transfers, %v", len(ts), err)
			}
		}
	})
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			var n int
			if err := d.db.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT id FROM transfers WHERE from_account = ?1 OR to_account = ?1
				ORDER BY id DESC LIMIT 100)`, idle.AccountID).Scan(&n); err != nil || n != 1 {
				b.Fatalf("%d transfers, %v", n, err)
			}
		}
	})
}
