package storetest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"starcolor/internal/lottery"
)

// The ledger check passes on books that a real load wrote, and catches each kind of tampering
// with them, each on books of its own:
//
//   - money out of nothing;
//   - a balance changed;
//   - a prize changed;
//   - a game without its stake;
//   - a unit sold past its block's count;
//   - the kept totals changed;
//   - a session of nobody.
//
// Transfers can be neither changed nor deleted.
func testLedgerCatchesTampering(t *testing.T, h Harness) {
	for _, c := range []struct {
		name, sql, problem string
	}{
		{"money out of nothing", `UPDATE accounts SET balance = balance + 5 WHERE id = {account}`, "sum to 5 cents"},
		{"a balance moved between accounts", `UPDATE accounts SET balance = balance + 100 - 200 * (id - {account}) WHERE id IN ({account}, {account} + 1)`, "transfers add up to"},
		{"a prize changed", `UPDATE games SET prize = prize + 100 WHERE id = {game}`, "prize transfer"},
		{"a game whose stake is gone", `UPDATE games SET stake = stake * 2 WHERE id = {game}`, "stake transfer"},
		{"a block sold past its games", `UPDATE blocks SET sold = sold + 1 WHERE emission_id = 'S' AND block = 0`, "sold count differs"},
		{"the hours' totals changed", `UPDATE sales_hourly SET prizes = prizes + 100`, "hours of sales"},
		{"an hour's top prize lowered", `UPDATE sales_hourly SET top_prize = 0`, "hours of sales"},
		{"a block's totals changed", `UPDATE blocks SET winners_sold = winners_sold + 1 WHERE emission_id = 'S' AND block = 0`, "totals of prizes and winners"},
		{"a stake window changed", `UPDATE accounts SET staked_total = staked_total - 100 WHERE id = {account}`, "stake windows"},
		{"a player's totals changed", `UPDATE accounts SET prizes_won = prizes_won + 100 WHERE id = {account}`, "or totals that differ"},
		{"a session of nobody", `INSERT INTO sessions (token_hash, kind, owner_id, created_at, last_seen) VALUES ({hash}, 'player', 999999, 0, 0)`, "sessions of players or operators that do not exist"},
		{"a block's selling flag flipped by hand", `UPDATE blocks SET selling = NOT selling WHERE emission_id = 'S' AND block = 0`, "blocks selling against their emission's status"},
		{"an account closed with money in it", `UPDATE players SET closed_at = {now}, closed_by = 'player' WHERE account_id = {account}`, "closed accounts holding money"},
		{"a withdrawal passed off as a closure's payout", `INSERT INTO transfers (from_account, to_account, amount, kind, reason, created_at) VALUES ({account}, 1, 5, 'withdrawal', 'closure', {now})`,
			"payouts at a self-exclusion or a closure"},
		// A second stake of a game, beside the one the game names: the pass over the games
		// finds each game's own transfers right, and the count of stakes and prizes finds it.
		{"a game staked twice", `INSERT INTO transfers (from_account, to_account, amount, kind, game_id, created_at) VALUES ({account}, 2, 100, 'stake', {game}, {now})`,
			"stake or prize transfers of no game, or more than their games"},
		// A transfer's game is known from the pass over the games, or looked up: both fail.
		{"a prize of a game after the last", `INSERT INTO transfers (from_account, to_account, amount, kind, game_id, created_at) VALUES (2, {account}, 100, 'prize', {game} + 1000, {now})`,
			"transfers of games that do not exist: 1"},
		{"a prize of a game before the first", `INSERT INTO transfers (from_account, to_account, amount, kind, game_id, created_at) VALUES (2, {account}, 100, 'prize', -7, {now})`,
			"transfers of games that do not exist: 1"},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			f := newFixture(t, h)
			a, b := f.player(t, "alice", 10_000), f.player(t, "bob", 10_000)
			var wg sync.WaitGroup
			var g lottery.Game
			for i, p := range []lottery.Player{a, b} {
				wg.Go(func() {
					for n := range 40 {
						sold, err := f.sell(p, fmt.Sprintf("k%d", n))
						if err != nil {
							t.Error(err)
							return
						}
						if i == 0 && sold.Prize > 0 {
							g = sold
						}
					}
				})
			}
			wg.Wait()
			f.pay(t, b, lottery.Withdrawal, 50, "")
			clean := f.ledgerOK(t)
			if clean.Games != 80 || clean.Players+clean.Bank+clean.PrizeFund != 0 {
				t.Fatalf("clean ledger: %+v", clean)
			}
			if g.ID == 0 {
				t.Fatal("no winning game in the load: the tampering of a prize needs one")
			}
			hash, now := "x'00'", "1764493200" // now: unix seconds, as SQLite keeps closed_at
			if f.raw.Rebind != nil {
				hash, now = `'\x00'::bytea`, "now()"
			}
			q := strings.NewReplacer("{account}", fmt.Sprint(a.AccountID), "{game}", fmt.Sprint(g.ID), "{hash}", hash, "{now}", now).Replace(c.sql)
			if err := f.raw.Exec(q); err != nil {
				t.Fatal(err)
			}
			got, err := f.s.CheckLedger(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if all := strings.Join(got.Problems, "\n"); !strings.Contains(all, c.problem) {
				t.Fatalf("after %q the ledger check says %q, want a problem about %q", c.sql, got.Problems, c.problem)
			}
		})
	}
	t.Run("transfers_are_kept", func(t *testing.T) {
		f := newFixture(t, h)
		f.player(t, "carl", 1000)
		for _, q := range []string{`DELETE FROM transfers`, `UPDATE transfers SET amount = 1`} {
			if err := f.raw.Exec(q); err == nil {
				t.Errorf("%s: allowed", q)
			}
		}
		f.ledgerOK(t)
	})
}

// WithLock runs one section of a name at a time on a store.
func testWithLock(t *testing.T, h Harness) {
	f := newFixture(t, h)
	var in, most int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			err := f.s.WithLock(f.ctx, "test", func() error {
				mu.Lock()
				in++
				most = max(most, in)
				mu.Unlock()
				time.Sleep(5 * time.Millisecond)
				mu.Lock()
				in--
				mu.Unlock()
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if most != 1 {
		t.Fatalf("%d sections ran at once", most)
	}
}

// CheckWrite says the store can write, and its check of the file finds nothing to report.
func testCheckWrite(t *testing.T, h Harness) {
	f := newFixture(t, h)
	if err := f.s.CheckWrite(f.ctx); err != nil {
		t.Fatal(err)
	}
	if damage, err := f.s.CheckFile(f.ctx); err != nil || len(damage) > 0 {
		t.Fatalf("a sound store: %q, %v", damage, err)
	}
}
