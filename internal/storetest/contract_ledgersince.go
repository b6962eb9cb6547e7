package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"starcolor/internal/journal"
	"starcolor/internal/lottery"
)

// The check of the books since a mark (lottery.Watermark, Store.CheckBooks) proves what a full
// check proves of the same books, reading only the new rows:
//
//   - a game whose id was reserved before the watermark and sold after it (a wallet's round)
//     is read as new, from what the triggers recorded;
//   - its totals are the full check's;
//   - a game at or below the watermark changed since, a balance changed, a block's count
//     changed: each is a problem;
//   - a trigger dropped is a schema changed, refused.
func testLedgerSince(t *testing.T, h Harness) {
	f := newFixture(t, h)
	a, b := f.player(t, "alice", 10_000), f.player(t, "bob", 10_000)
	sell := func(n int, key string) lottery.Game {
		t.Helper()
		var last lottery.Game
		for i := range n {
			for _, p := range []lottery.Player{a, b} {
				g, err := f.sell(p, fmt.Sprintf("%s%d", key, i))
				if err != nil {
					t.Fatal(err)
				}
				last = g
			}
		}
		return last
	}
	sell(10, "a")
	late, err := f.s.ReserveGameID(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	won := sell(5, "b")
	w1, err := f.s.RaiseLedgerMark(f.ctx, lottery.Watermark{})
	if err != nil {
		t.Fatal(err)
	}
	if w1.Games < late || w1.Schema == "" {
		t.Fatalf("watermark %+v, below the reserved game %d", w1, late)
	}
	c, m1, err := f.s.CheckBooks(f.ctx, lottery.Watermark{}, nil, w1)
	if err != nil || len(c.Problems) > 0 || m1 == nil {
		t.Fatalf("full check: %v %q, mark %v", err, c.Problems, m1 != nil)
	}
	// The reserved game is sold after the watermark, below it.
	r := f.sale(a, "late")
	r.GameID = late
	if _, err := f.s.Sell(f.ctx, r, f.now); err != nil {
		t.Fatal(err)
	}
	sell(7, "c")
	f.pay(t, b, lottery.Withdrawal, 50, "")
	w2, err := f.s.RaiseLedgerMark(f.ctx, w1)
	if err != nil {
		t.Fatal(err)
	}
	since, m2, err := f.s.CheckBooks(f.ctx, w1, m1, w2)
	if err != nil || len(since.Problems) > 0 || m2 == nil {
		t.Fatalf("check since: %v %q", err, since.Problems)
	}
	full := f.ledgerOK(t)
	if since.Games != full.Games || since.Transfers != full.Transfers || since.Stakes != full.Stakes || since.Prizes != full.Prizes ||
		since.Players != full.Players || full.Games != 2*22+1 {
		t.Fatalf("since the mark: %+v; the full check: %+v", since, full)
	}

	cur := w2 // the triggers' watermark and schema, raised by each case
	fixed := func(sql string) func() string { return func() string { return sql } }
	for _, c := range []struct {
		name    string
		sql     func() string // sells what it changes, if anything
		problem string
	}{
		// The rules of each row, on the new rows: first, while the books let sales go on.
		{"a new game's stake transfer not its own", func() string {
			g := sell(1, "d")
			return fmt.Sprintf(`UPDATE games SET stake_transfer = stake_transfer + 1000 WHERE id = %d`, g.ID)
		}, "stake transfer or prize transfer is not theirs"},
		{"a new deposit paid by the prize fund", fixed(fmt.Sprintf(`INSERT INTO transfers (from_account, to_account, amount, kind, created_at)
			SELECT 2, %d, 50, 'deposit', created_at FROM transfers WHERE id = (SELECT max(id) FROM transfers)`, a.AccountID)),
			"deposits or withdrawals not between the bank and a player"},
		// A new transfer's game above the watermark is known from the pass over the new games;
		// one below it is looked up.
		{"a new prize of a game that does not exist", fixed(fmt.Sprintf(`INSERT INTO transfers (from_account, to_account, amount, kind, game_id, created_at)
			SELECT 2, %d, 50, 'prize', 999999, created_at FROM transfers WHERE id = (SELECT max(id) FROM transfers)`, a.AccountID)),
			"transfers of games that do not exist: 1"},
		{"a new prize of a game below the watermark that does not exist", fixed(fmt.Sprintf(`INSERT INTO transfers (from_account, to_account, amount, kind, game_id, created_at)
			SELECT 2, %d, 50, 'prize', -7, created_at FROM transfers WHERE id = (SELECT max(id) FROM transfers)`, a.AccountID)),
			"transfers of games that do not exist: 2"}, // with the case before
		{"a new game of a block that does not exist", func() string {
			g := sell(1, "e")
			return fmt.Sprintf(`UPDATE games SET block_number = 999999 WHERE id = %d`, g.ID)
		}, "block number 999999, which does not exist"},
		{"a game below the watermark changed", fixed(fmt.Sprintf(`UPDATE games SET prize = prize + 100 WHERE id = %d`, won.ID)), fmt.Sprintf("game %d was updated after the last check", won.ID)},
		{"a balance changed", fixed(fmt.Sprintf(`UPDATE accounts SET balance = balance + 100 WHERE id = %d`, a.AccountID)), "transfers add up to"},
		{"a block's count changed", fixed(`UPDATE blocks SET sold = sold + 1 WHERE emission_id = 'S' AND block = 0`), "sold count differs"},
		{"a player's totals changed", fixed(fmt.Sprintf(`UPDATE accounts SET games_won = games_won + 1 WHERE id = %d`, b.AccountID)), "or totals that differ"},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			if err := f.raw.Exec(c.sql()); err != nil {
				t.Fatal(err)
			}
			w3, err := f.s.RaiseLedgerMark(f.ctx, cur)
			if err != nil {
				t.Fatal(err)
			}
			got, m, err := f.s.CheckBooks(f.ctx, w2, m2, w3)
			if err != nil || m != nil || !strings.Contains(strings.Join(got.Problems, "\n"), c.problem) {
				t.Fatalf("want %q, got %v %q", c.problem, err, got.Problems)
			}
			cur = w3
		})
	}

	// A trigger dropped and made again is a schema changed.
	drop := `DROP TRIGGER ledger_games_update`
	if f.raw.Rebind != nil {
		drop += ` ON games`
	}
	if err := f.raw.Exec(drop); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.RaiseLedgerMark(f.ctx, cur); !errors.Is(err, lottery.ErrSchemaChanged) {
		t.Fatalf("a trigger dropped: %v, want %v", err, lottery.ErrSchemaChanged)
	}
}

// Checks since a mark while sales go on, two players selling and a sequencer appending their
// entries: every check finds nothing wrong, though games and transfers are sold between the
// raising of each watermark and the snapshots that read past it (the marks leave those rows
// out, and the next check reads them), and the last one's totals are the full check's of the
// same books once the sales stop.
func testLedgerSinceUnderSales(t *testing.T, h Harness) {
	f := newFixture(t, h)
	players := []lottery.Player{f.player(t, "alice", 1_000_000), f.player(t, "bob", 1_000_000)}
	ctx, stop := context.WithCancel(f.ctx)
	var (
		wg   sync.WaitGroup
		sold atomic.Int64
	)
	// A check that fails stops the sales before the store closes.
	defer func() { stop(); wg.Wait() }()
	for i, p := range players {
		wg.Go(func() {
			for n := 0; ctx.Err() == nil; n++ {
				if _, err := f.s.Sell(ctx, f.sale(p, fmt.Sprintf("s%d-%d", i, n)), f.now); err != nil && ctx.Err() == nil {
					t.Error(err)
					return
				}
				sold.Add(1)
			}
		})
	}
	wg.Go(func() {
		for ctx.Err() == nil {
			if _, err := f.s.Sequence(ctx); err != nil && ctx.Err() == nil {
				t.Error(err)
				return
			}
			time.Sleep(time.Millisecond)
		}
	})
	var (
		w     lottery.Watermark
		books *lottery.BooksMark
		jm    *journal.Mark
		last  *lottery.LedgerCheck
	)
	check := func(round int) {
		t.Helper()
		next, err := f.s.RaiseLedgerMark(f.ctx, w)
		if err != nil {
			t.Fatal(err)
		}
		c, bm, err := f.s.CheckBooks(f.ctx, w, books, next)
		if err != nil || len(c.Problems) > 0 || bm == nil {
			t.Fatalf("round %d, the books since the mark: %v %q", round, err, c.Problems)
		}
		j, err := f.s.CompareJournal(f.ctx, journal.CompareOptions{AccountKey: AccountKey, Now: f.now, Since: jm, Games: next.Games, Transfers: next.Transfers})
		if err != nil || !j.OK() || j.Mark == nil {
			t.Fatalf("round %d, the journal since the mark: %v %v", round, err, j.Problems)
		}
		w, books, jm, last = next, bm, j.Mark, c
	}
	// Each round waits for 20 sales more, however busy the machine.
	for round := range 5 {
		for want := sold.Load() + 20; sold.Load() < want && !t.Failed(); {
			time.Sleep(time.Millisecond)
		}
		check(round)
	}
	stop()
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	Sequence(t, f.s)
	check(5)
	full := f.ledgerOK(t)
	if last.Games != full.Games || last.Transfers != full.Transfers || last.Stakes != full.Stakes || last.Prizes != full.Prizes || full.Games < 100 {
		t.Fatalf("the last check since a mark: %+v; the full check: %+v", last, full)
	}
}

// A stake window that moves since the mark over games on both sides of its watermark: the check
// since sums the games above in its pass over the new rows and reads those below by the games'
// index by player, and finds the window right; changed by hand, wrong.
func testLedgerSinceWindows(t *testing.T, h Harness) {
	f := newFixture(t, h)
	a := f.player(t, "alice", 1_000_000)
	sell := func(key string, n int) {
		t.Helper()
		for i := range n {
			if _, err := f.sell(a, fmt.Sprintf("%s%d", key, i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	sell("below", 5)
	w1, err := f.s.RaiseLedgerMark(f.ctx, lottery.Watermark{})
	if err != nil {
		t.Fatal(err)
	}
	_, m1, err := f.s.CheckBooks(f.ctx, lottery.Watermark{}, nil, w1)
	if err != nil || m1 == nil {
		t.Fatalf("full check: %v", err)
	}
	sell("above", 5)
	f.now = f.now.Add(8 * 24 * time.Hour) // the ten games leave the week at the next sale
	sell("later", 1)
	w2, err := f.s.RaiseLedgerMark(f.ctx, w1)
	if err != nil {
		t.Fatal(err)
	}
	through := f.raw.Int(t, `SELECT staked_through_id FROM accounts WHERE id = ?`, a.AccountID)
	expired := f.raw.Int(t, `SELECT staked_expired FROM accounts WHERE id = ?`, a.AccountID)
	if through <= w1.Games || expired == 0 {
		t.Fatalf("the window moved through game %d (%d cents), not past the watermark %d: the test proves nothing", through, expired, w1.Games)
	}
	c, m2, err := f.s.CheckBooks(f.ctx, w1, m1, w2)
	if err != nil || len(c.Problems) > 0 || m2 == nil {
		t.Fatalf("check since: %v %q", err, c.Problems)
	}
	if err := f.raw.Exec(fmt.Sprintf(`UPDATE accounts SET staked_expired = staked_expired - 100 WHERE id = %d`, a.AccountID)); err != nil {
		t.Fatal(err)
	}
	w3, err := f.s.RaiseLedgerMark(f.ctx, w2)
	if err != nil {
		t.Fatal(err)
	}
	c, m3, err := f.s.CheckBooks(f.ctx, w1, m1, w3)
	if err != nil || m3 != nil || !strings.Contains(strings.Join(c.Problems, "\n"), "window keeps") {
		t.Fatalf("a window changed by hand: %v %q", err, c.Problems)
	}
}

// The mark of the last check is kept in the database, one for every server and command:
//   - none at first;
//   - a check's mark is kept if the schema is still the one its watermark names;
//   - once another check raised the watermark since (and so wrote the triggers again), it is
//     stale: refused (lottery.ErrSchemaChanged), and the one kept stays.
func testLedgerMarkKept(t *testing.T, h Harness) {
	f := newFixture(t, h)
	if m, err := f.s.LedgerMark(f.ctx); err != nil || m != nil {
		t.Fatalf("a new database's mark: %q %v, want none", m, err)
	}
	at := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	w1, err := f.s.RaiseLedgerMark(f.ctx, lottery.Watermark{})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.s.KeepLedgerMark(f.ctx, w1.Schema, []byte("first"), at); err != nil {
		t.Fatal(err)
	}
	w2, err := f.s.RaiseLedgerMark(f.ctx, w1)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.s.KeepLedgerMark(f.ctx, w1.Schema, []byte("stale"), at); !errors.Is(err, lottery.ErrSchemaChanged) {
		t.Fatalf("a mark kept after another check raised the watermark: %v, want ErrSchemaChanged", err)
	}
	if m, err := f.s.LedgerMark(f.ctx); err != nil || string(m) != "first" {
		t.Fatalf("the mark kept: %q %v, want the first", m, err)
	}
	if err := f.s.KeepLedgerMark(f.ctx, w2.Schema, []byte("second"), at); err != nil {
		t.Fatal(err)
	}
	if m, err := f.s.LedgerMark(f.ctx); err != nil || string(m) != "second" {
		t.Fatalf("the mark kept: %q %v, want the second", m, err)
	}
}
