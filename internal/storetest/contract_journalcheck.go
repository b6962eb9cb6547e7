package storetest

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/transparency-dev/formats/log"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"starcolor/internal/journal"
	"starcolor/internal/lottery"
	"starcolor/internal/sqlstore"
)

// The comparison of the journal with the rows (store.JournalCheck, which ledger check runs). A
// database administrator rewrites the rows so that the books still balance (CheckLedger finds
// nothing): the comparison names the entry that says otherwise.

// journalScene is books with an entry of every kind the comparison compares, and a checkpoint
// signed over them all.
type journalScene struct {
	*fixture
	key *journal.Key
	// alice's games: one that won, and the last sold, which lost.
	alice     lottery.Player
	won, last lottery.Game
	// Players self-excluded, closed, and whose deposit limit was lowered, none holding money.
	excluded, closed, limited lottery.Player
	// The entries of each, by name: "won", "won's prize", "last", "exclusion", "closure",
	// "limit".
	seq map[string]int64
}

func newJournalScene(t *testing.T, h Harness) *journalScene {
	t.Helper()
	f := newFixture(t, h)
	key, err := journal.CreateKey(filepath.Join(t.TempDir(), "journal.key"), "")
	if err != nil {
		t.Fatal(err)
	}
	sc := &journalScene{fixture: f, key: key, seq: map[string]int64{}}
	sc.alice = f.player(t, "alice", 100_00)
	for n := 0; n < 20 || sc.won.ID == 0 || sc.last.Prize > 0; n++ {
		g, err := f.sell(sc.alice, fmt.Sprint("k", n))
		if err != nil {
			t.Fatal(err)
		}
		Sequence(t, f.s)
		seq, _, err := f.s.SaleEntry(f.ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		if g.Prize > 0 && sc.won.ID == 0 {
			sc.won, sc.seq["won"], sc.seq["won's prize"] = g, seq, seq+1
		}
		sc.last, sc.seq["last"] = g, seq
	}
	f.pay(t, sc.alice, lottery.Withdrawal, 1_00, "wd")

	sc.excluded = f.player(t, "xavier", 0)
	if _, _, err := f.s.ExcludePlayer(f.ctx, sc.excluded.ID, nil, f.now.Add(30*24*time.Hour), f.now); err != nil {
		t.Fatal(err)
	}
	sc.seq["exclusion"] = journalSize(t, f.s) - 1
	sc.closed = f.player(t, "chloe", 0)
	if _, err := f.s.ClosePlayer(f.ctx, sc.closed.ID, nil, f.now); err != nil {
		t.Fatal(err)
	}
	sc.seq["closure"] = journalSize(t, f.s) - 1
	sc.limited = f.player(t, "lina", 0)
	lower := int64(100_00)
	if _, err := f.s.SetLimits(f.ctx, sc.limited.ID, lottery.LimitsChange{Deposit: &lower}, "player", f.now); err != nil {
		t.Fatal(err)
	}
	sc.seq["limit"] = journalSize(t, f.s) - 1
	if err := journal.NewLog(f.s, key).Step(f.ctx, f.now); err != nil {
		t.Fatal(err)
	}
	return sc
}

// compare runs the comparison as ledger check does with the journal's key file.
func (sc *journalScene) compare(t testing.TB) *journal.Comparison {
	t.Helper()
	c, err := sc.s.CompareJournal(sc.ctx, journal.CompareOptions{Verifier: sc.key.Verifier, AccountKey: AccountKey, Now: sc.now})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// postgres says whether the scene's database is PostgreSQL.
func (sc *journalScene) postgres() bool { return sc.raw.Rebind != nil }

// exec runs statements as the database's administrator, failing the test on an error.
func (sc *journalScene) exec(t testing.TB, query string, args ...any) {
	t.Helper()
	if err := sc.raw.Exec(query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// rewritePrize rewrites the bytes of prize entry seq, of a prize of prize cents, to say 500 more,
// and returns want.
func (sc *journalScene) rewritePrize(t testing.TB, seq, prize int64, want []named) []named {
	t.Helper()
	entries, err := sc.s.JournalEntries(sc.ctx, seq, seq+1)
	if err != nil {
		t.Fatal(err)
	}
	was := fmt.Sprintf(`"amount":%d,`, prize)
	if !bytes.Contains(entries[0], []byte(was)) {
		t.Fatalf("entry %d: %s", seq, entries[0])
	}
	sc.dropTriggers(t, "journal")
	sc.exec(t, `UPDATE journal SET entry = ? WHERE seq = ?`, bytes.Replace(entries[0], []byte(was), fmt.Appendf(nil, `"amount":%d,`, prize+500), 1), seq)
	return want
}

// deleteLastSale deletes the entry of the last game's sale, and says what the comparison finds:
// the entry missing, and the game no entry names.
func (sc *journalScene) deleteLastSale(t testing.TB) []named {
	seq, g := sc.seq["last"], sc.last
	sc.dropTriggers(t, "journal")
	sc.exec(t, `DELETE FROM journal WHERE seq = ?`, seq)
	return []named{{seq, fmt.Sprintf("the journal has no entry %d, though its counter is past it", seq)},
		{-1, fmt.Sprintf("game %d (account %d, stake %d, prize %d, sold at %s) has no sale entry", g.ID, sc.alice.AccountID, g.Stake, g.Prize,
			g.CreatedAt.Format(journal.TimeFormat))}}
}

// queueSale queues, by hand, the entry of alice's sale of game (which need not exist), in the
// form of a row queued before migration 0029: its game in its column.
func (sc *journalScene) queueSale(t testing.TB, game, stake int64) {
	t.Helper()
	sc.exec(t, `INSERT INTO journal_queue (kind, account, game, pending) VALUES ('sale', ?, ?, ?)`, sc.alice.AccountID, game,
		journal.Pending(sc.now, journal.Sale{AccountID: sc.alice.AccountID, Game: game, Stake: stake, Mode: "auto"}))
}

// queueDeposit queues, by hand, the entry of a deposit to alice by transfer (which need not
// exist), in the form of a row queued before migration 0029.
func (sc *journalScene) queueDeposit(t testing.TB, transfer, amount int64) {
	t.Helper()
	sc.exec(t, `INSERT INTO journal_queue (kind, account, transfer, pending) VALUES ('deposit', ?, ?, ?)`, sc.alice.AccountID, transfer,
		journal.Pending(sc.now, journal.Payment{AccountID: sc.alice.AccountID, Amount: amount, Transfer: transfer}))
}

// dropTriggers drops the triggers that keep a table's rows from being changed or deleted, as the
// database's administrator can.
func (sc *journalScene) dropTriggers(t testing.TB, table string) {
	t.Helper()
	sc.dropTrigger(t, table, table+"_append_only")
	if !sc.postgres() {
		sc.dropTrigger(t, table, table+"_kept") // SQLite's triggers are one a statement
	}
}

// dropTrigger drops a trigger of a table.
func (sc *journalScene) dropTrigger(t testing.TB, table, trigger string) {
	t.Helper()
	if sc.postgres() {
		sc.exec(t, `DROP TRIGGER `+trigger+` ON `+table)
		return
	}
	sc.exec(t, `DROP TRIGGER `+trigger)
}

// at is a time as the database's columns take it.
func (sc *journalScene) at(t time.Time) any {
	if sc.postgres() {
		return t
	}
	return sqlstore.TextTime(t)
}

// saleAt is a time as the games' and the transfers' columns take it (Dialect.SaleTime).
func (sc *journalScene) saleAt(t time.Time) any {
	if sc.postgres() {
		return sqlstore.PostgreSQL.SaleTime(t)
	}
	return sqlstore.SQLite.SaleTime(t)
}

// On books that the store wrote, the comparison finds nothing: every entry is its rows', the
// checkpoint signs the entries, and journal_accounts holds the account of each limits, exclusion
// and closure entry, and of no other.
func testJournalCheckClean(t *testing.T, h Harness) {
	sc := newJournalScene(t, h)
	sc.ledgerOK(t)
	c := sc.compare(t)
	if !c.OK() {
		t.Fatalf("differences in clean books: %q", c.Problems)
	}
	size := journalSize(t, sc.s)
	games := sc.raw.Int(t, `SELECT count(*) FROM games`)
	money := sc.raw.Int(t, `SELECT count(*) FROM transfers WHERE kind <> 'stake'`)
	if c.Entries != size || c.Checkpoint != size || c.Games != games || c.Transfers != money || c.Accounts != 4 {
		t.Fatalf("compared %d entries (checkpoint of %d), %d games, %d transfers, %d accounts; want %d, %d, %d, %d and 4",
			c.Entries, c.Checkpoint, c.Games, c.Transfers, c.Accounts, size, size, games, money)
	}
	entries, err := sc.s.JournalEntries(sc.ctx, 0, size)
	if err != nil {
		t.Fatal(err)
	}
	restrictions := 0
	for seq, e := range entries {
		p, err := journal.Parse(e)
		if err != nil {
			t.Fatal(err)
		}
		n := sc.raw.Int(t, `SELECT count(*) FROM journal_accounts WHERE seq = ?`, seq)
		switch p.Kind {
		case journal.KindLimits, journal.KindExclusion, journal.KindClosure:
			restrictions++
			if n != 1 || AccountKey.Ref(sc.raw.Int(t, `SELECT account FROM journal_accounts WHERE seq = ?`, seq), uint64(seq)) != p.Account {
				t.Errorf("entry %d (%s): journal_accounts keeps %d rows, not its account", seq, p.Kind, n)
			}
		default:
			if n != 0 {
				t.Errorf("entry %d (%s): journal_accounts keeps an account for it", seq, p.Kind)
			}
		}
	}
	if restrictions != 4*2+3 { // two limits each, an exclusion, a closure, a lowered limit
		t.Fatalf("%d entries of restrictions", restrictions)
	}
	// An auditor without the account key compares all but the references.
	audit, err := sc.s.CompareJournal(sc.ctx, journal.CompareOptions{Verifier: sc.key.Verifier, Now: sc.now})
	// The sales kept as their leaves are not: their leaves hash the references.
	if err != nil || !audit.OK() || audit.Entries != size || audit.Unkeyed != games || c.Unkeyed != 0 {
		t.Fatalf("without the account key: %+v, %v (%d sales not compared with the key)", audit, err, c.Unkeyed)
	}
}

// Each rewrite of the rows that keeps the books balanced, on books of its own, is named by the
// comparison: the entry, and what the rows say instead.
func testJournalCheckCatchesTampering(t *testing.T, h Harness) {
	for _, c := range []struct {
		name string
		// tamper rewrites the rows, and says the differences the comparison must find.
		tamper func(t *testing.T, sc *journalScene) []named
	}{
		{"a prize changed with its transfers and balances", func(t *testing.T, sc *journalScene) []named {
			g, more := sc.won, int64(500)
			sc.dropTriggers(t, "transfers")
			sc.exec(t, `UPDATE games SET prize = prize + ? WHERE id = ?`, more, g.ID)
			sc.exec(t, `UPDATE transfers SET amount = amount + ? WHERE id = ?`, more, g.StakeTransfer+1)
			sc.exec(t, `UPDATE accounts SET balance = balance + ?, prizes_won = prizes_won + ? WHERE id = ?`, more, more, sc.alice.AccountID)
			sc.exec(t, `UPDATE accounts SET balance = balance - ? WHERE id = 2`, more)
			sc.exec(t, `UPDATE blocks SET prizes_sold = prizes_sold + ? WHERE emission_id = ? AND block = ?`, more, g.Emission, g.Block)
			sc.exec(t, `UPDATE sales_hourly SET prizes = prizes + ?, top_prize = CASE WHEN top_prize < ? THEN ? ELSE top_prize END`, more, g.Prize+more, g.Prize+more)
			// The sale is kept as its leaf hash: the game's rows as they are now are named, and
			// the prize's entry, kept whole, says what was paid.
			// The comparison compares each game's prize with its unit's, for the units' check.
			return []named{{sc.seq["won"], fmt.Sprintf("game %d as its rows say it (account %d, stake %d, prize %d,", g.ID, sc.alice.AccountID, g.Stake, g.Prize+more)},
				{sc.seq["won"], fmt.Sprintf("game %d paid %d cents, its unit (%s block %d unit %d) wins %d", g.ID, g.Prize+more, g.Emission, g.Block, g.Unit, g.Prize)},
				{sc.seq["won"], "rebuilds an entry whose leaf hash is"},
				{sc.seq["won's prize"], fmt.Sprintf("the transfer's amount is %d, the entry says %d", g.Prize+more, g.Prize)}}
		}},
		{"a game deleted with its transfers and balances", func(t *testing.T, sc *journalScene) []named {
			g := sc.last
			sc.dropTriggers(t, "transfers")
			sc.exec(t, `DELETE FROM transfers WHERE game_id = ?`, g.ID)
			sc.exec(t, `DELETE FROM games WHERE id = ?`, g.ID)
			sc.exec(t, `UPDATE accounts SET balance = balance + ?, staked_total = staked_total - ?, games_played = games_played - 1 WHERE id = ?`, g.Stake, g.Stake, sc.alice.AccountID)
			sc.exec(t, `UPDATE accounts SET balance = balance - ? WHERE id = 2`, g.Stake)
			sc.exec(t, `UPDATE blocks SET sold = sold - 1 WHERE emission_id = ? AND block = ?`, g.Emission, g.Block)
			sc.exec(t, `UPDATE sales_hourly SET units = units - 1, stakes = stakes - ?`, g.Stake)
			// The scene's games are of one hour: its top prize is that of the games left.
			sc.exec(t, `UPDATE sales_hourly SET top_prize = (SELECT coalesce(max(prize), 0) FROM games WHERE stake = sales_hourly.price)`)
			// The sale kept as its leaf names its stake by its game, which is gone with it.
			return []named{{sc.seq["last"], fmt.Sprintf("the database has no game %d: it was deleted", g.ID)}}
		}},
		{"a sale's entry deleted", func(t *testing.T, sc *journalScene) []named {
			return sc.deleteLastSale(t)
		}},
		{"a sale's entry deleted, and a queued entry of a game that does not exist", func(t *testing.T, sc *journalScene) []named {
			// The games the entries name are counted rather than read (allGamesNamed): a queued
			// entry's game counts only if it exists.
			want := sc.deleteLastSale(t)
			sc.queueSale(t, sc.last.ID+1000, sc.last.Stake)
			return append(want, named{-1, fmt.Sprintf("the journal's queue holds an entry of game %d, which the database does not have", sc.last.ID+1000)})
		}},
		{"a queued deposit of a transfer that does not exist", func(t *testing.T, sc *journalScene) []named {
			sc.queueDeposit(t, 1_000_000, 5000)
			return []named{{-1, "the journal's queue holds an entry of transfer 1000000, which the database does not have"}}
		}},
		{"a deposit added", func(t *testing.T, sc *journalScene) []named {
			sc.exec(t, `INSERT INTO transfers (from_account, to_account, amount, kind, created_at) VALUES (1, ?, 5000, 'deposit', ?)`, sc.alice.AccountID, sc.saleAt(sc.now))
			sc.exec(t, `UPDATE accounts SET balance = balance + 5000 WHERE id = ?`, sc.alice.AccountID)
			sc.exec(t, `UPDATE accounts SET balance = balance - 5000 WHERE id = 1`)
			id := sc.lastTransfer(t)
			return []named{{-1, fmt.Sprintf("transfer %d (a deposit of 5000 cents to account %d, at %s) has no entry", id, sc.alice.AccountID, sc.now.Format(journal.TimeFormat))}}
		}},
		{"an exclusion removed", func(t *testing.T, sc *journalScene) []named {
			sc.exec(t, `UPDATE players SET excluded_until = NULL WHERE id = ?`, sc.excluded.ID)
			return []named{{sc.seq["exclusion"], "the player's exclusion is removed, the entry says until " + sc.now.Add(30*24*time.Hour).Format(journal.TimeFormat)}}
		}},
		{"an exclusion shortened", func(t *testing.T, sc *journalScene) []named {
			sc.exec(t, `UPDATE players SET excluded_until = ? WHERE id = ?`, sc.at(sc.now.Add(time.Hour)), sc.excluded.ID)
			return []named{{sc.seq["exclusion"], "the exclusion was shortened"}}
		}},
		{"a closure undone", func(t *testing.T, sc *journalScene) []named {
			sc.exec(t, `UPDATE players SET closed_at = NULL, closed_by = NULL WHERE id = ?`, sc.closed.ID)
			return []named{{sc.seq["closure"], "the account is open, the entry says it was closed (by player)"}}
		}},
		{"a limit raised in the rows", func(t *testing.T, sc *journalScene) []named {
			sc.exec(t, `UPDATE accounts SET deposit_limit = 1000000 WHERE id = ?`, sc.limited.AccountID)
			sc.exec(t, `UPDATE limit_changes SET new = 1000000 WHERE id = (SELECT max(id) FROM limit_changes WHERE player_id = ?)`, sc.limited.ID)
			return []named{{sc.seq["limit"], "the account's deposit limit is 1000000, the entry, its last change, makes it 10000"},
				{sc.seq["limit"], "the limit_changes row's new is 1000000, the entry says 10000"}}
		}},
		{"the map of accounts rewritten", func(t *testing.T, sc *journalScene) []named {
			sc.dropTriggers(t, "journal_accounts")
			sc.exec(t, `UPDATE journal_accounts SET account = ? WHERE seq = ?`, sc.closed.AccountID, sc.seq["exclusion"])
			return []named{{sc.seq["exclusion"], fmt.Sprintf("journal_accounts says it is account %d's, whose reference at this seq is %s", sc.closed.AccountID,
				AccountKey.Ref(sc.closed.AccountID, uint64(sc.seq["exclusion"])))}}
		}},
		{"an entry's bytes changed", func(t *testing.T, sc *journalScene) []named {
			seq, g := sc.seq["won's prize"], sc.won
			return sc.rewritePrize(t, seq, g.Prize, []named{{seq, fmt.Sprintf("the transfer's amount is %d, the entry says %d", g.Prize, g.Prize+500)},
				{-1, "the latest checkpoint signs"}, {seq, "its bytes are not those the signed tree holds"}})
		}},
		{"an entry's bytes changed and the tree set to be rebuilt", func(t *testing.T, sc *journalScene) []named {
			// As after migration 0028, or an administrator hiding the rewrite: the tiles do not
			// cover the checkpoint, so only the entries' own root can show it.
			seq, g := sc.seq["won's prize"], sc.won
			want := sc.rewritePrize(t, seq, g.Prize, []named{{seq, fmt.Sprintf("the transfer's amount is %d, the entry says %d", g.Prize, g.Prize+500)},
				{-1, "the latest checkpoint signs"}})
			sc.dropTrigger(t, "journal_tiles", "journal_tiles_kept")
			sc.exec(t, `DELETE FROM journal_tiles`)
			sc.exec(t, `UPDATE journal_state SET hashed = 0`)
			return want
		}},
		{"a sale's leaf changed", func(t *testing.T, sc *journalScene) []named {
			// The leaf of another game's sale at this seq: what an administrator would write to
			// make the row say that game, or another prize, was sold.
			seq, g := sc.seq["won"], sc.won
			sc.dropTriggers(t, "journal")
			sc.exec(t, `UPDATE journal SET leaf = ? WHERE seq = ?`, bytes.Repeat([]byte{7}, 32), seq)
			return []named{{seq, fmt.Sprintf("game %d as its rows say it", g.ID)},
				{seq, "not the 0707070707070707070707070707070707070707070707070707070707070707 its row keeps"},
				{-1, "the latest checkpoint signs"}, {seq, "its leaf hash is not the one the signed tree holds"}}
		}},
		{"the games of two sales swapped", func(t *testing.T, sc *journalScene) []named {
			// journal.game says which game a sale kept as its leaf sells, and which entry proves
			// the game's sale: swapped, each row rebuilds another game's entry, at its own seq.
			a, b := sc.seq["won"], sc.seq["last"]
			sc.dropTriggers(t, "journal")
			sc.exec(t, `UPDATE journal SET game = -1 WHERE seq = ?`, a)
			sc.exec(t, `UPDATE journal SET game = ? WHERE seq = ?`, sc.won.ID, b)
			sc.exec(t, `UPDATE journal SET game = ? WHERE seq = ?`, sc.last.ID, a)
			return []named{{a, fmt.Sprintf("game %d as its rows say it", sc.last.ID)}, {b, fmt.Sprintf("game %d as its rows say it", sc.won.ID)}}
		}},
		{"a game's proof given to an entry of no sale", func(t *testing.T, sc *journalScene) []named {
			sc.dropTriggers(t, "journal")
			sc.exec(t, `UPDATE journal SET game = ? WHERE seq = ?`, 1_000_000, sc.seq["limit"])
			return []named{{sc.seq["limit"], "its row names game 1000000 for the game's proof (journal.game), but it records no sale"}}
		}},
		{"a block's root changed", func(t *testing.T, sc *journalScene) []named {
			e, err := sc.s.Emission(sc.ctx, "S")
			if err != nil {
				t.Fatal(err)
			}
			was := hex.EncodeToString(e.Blocks[1].Root[:])
			sc.dropTrigger(t, "blocks", "blocks_commitment_immutable")
			sc.exec(t, `UPDATE blocks SET root = ? WHERE emission_id = 'S' AND block = 1`, make([]byte, 32))
			return []named{{0, fmt.Sprintf(`the emission's roots are ["%s","%s"], the entry says ["%s","%s"]`,
				hex.EncodeToString(e.Blocks[0].Root[:]), strings.Repeat("0", 64), hex.EncodeToString(e.Blocks[0].Root[:]), was)}}
		}},
		{"the checkpoints deleted", func(t *testing.T, sc *journalScene) []named {
			sc.dropTriggers(t, "journal_checkpoints")
			sc.exec(t, `DELETE FROM journal_checkpoints`)
			return []named{{-1, "its checkpoints were deleted"}}
		}},
		{"a checkpoint of another key", func(t *testing.T, sc *journalScene) []named {
			// One more entry, integrated; its checkpoint signed with a key of the administrator's
			// own, who makes it the journal's.
			sc.pay(t, sc.alice, lottery.Withdrawal, 1_00, "wd-2")
			if err := journal.NewLog(sc.s, sc.key).Integrate(sc.ctx); err != nil {
				t.Fatal(err)
			}
			other, err := journal.CreateKey(filepath.Join(t.TempDir(), "other.key"), "")
			if err != nil {
				t.Fatal(err)
			}
			size := journalSize(t, sc.s)
			root, err := tlog.TreeHash(size, treeReader(sc.s))
			if err != nil {
				t.Fatal(err)
			}
			text, err := note.Sign(&note.Note{Text: string(log.Checkpoint{Origin: other.Origin, Size: uint64(size), Hash: root[:]}.Marshal())}, other.Signer)
			if err != nil {
				t.Fatal(err)
			}
			sc.exec(t, `INSERT INTO journal_checkpoints (size, note, signed_at) VALUES (?, ?, ?)`, size, string(text), sc.at(sc.now))
			sc.exec(t, `UPDATE journal_state SET verifier = ?`, other.VerifierKey)
			return []named{{-1, fmt.Sprintf("the latest checkpoint, of %d entries: signed with the key %s", size, other.Origin)},
				{-1, fmt.Sprintf("the journal says its checkpoints are signed with the key %s", other.VerifierKey)}}
		}},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			sc := newJournalScene(t, h)
			if clean := sc.compare(t); !clean.OK() {
				t.Fatalf("differences before the rewrite: %q", clean.Problems)
			}
			wants := c.tamper(t, sc)
			sc.ledgerOK(t)
			got := sc.compare(t)
			for _, w := range wants {
				if !slices.ContainsFunc(got.Problems, func(p journal.Difference) bool { return p.Seq == w.seq && strings.Contains(p.Msg, w.says) }) {
					t.Errorf("after %s, no difference of entry %d says %q", c.name, w.seq, w.says)
				}
			}
			if t.Failed() {
				t.Fatalf("the comparison finds %d differences:\n%s", len(got.Problems), lines(problems(got)))
			}
			for _, p := range got.Problems {
				t.Logf("%s", p)
			}
		})
	}
}

// A sale kept as its leaf is served rebuilt from its game's rows (JournalEntries): once they are
// rewritten, the entry is refused, named, rather than served as bytes the tree does not hold.
func testJournalRebuildRefusesRewrites(t *testing.T, h Harness) {
	for _, c := range []struct {
		name, says string
		tamper     func(sc *journalScene) // rewrites the game sc.last
	}{
		{"its prize", "the game's rows were changed since its sale", func(sc *journalScene) {
			sc.exec(t, `UPDATE games SET prize = 700 WHERE id = ?`, sc.last.ID)
		}},
		{"its block, to the other of its emission", "the game's rows were changed since its sale", func(sc *journalScene) {
			sc.exec(t, `UPDATE games SET block_number = (SELECT number FROM blocks WHERE emission_id = ? AND block = ?) WHERE id = ?`,
				sc.last.Emission, 1-sc.last.Block, sc.last.ID)
		}},
		{"its block, to none", "no such emission: block number of no block", func(sc *journalScene) {
			sc.exec(t, `UPDATE games SET block_number = 999999 WHERE id = ?`, sc.last.ID)
		}},
		{"its player, to none", "the game's rows were changed since its sale", func(sc *journalScene) {
			sc.exec(t, `UPDATE games SET player_id = 999999 WHERE id = ?`, sc.last.ID)
		}},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			sc := newJournalScene(t, h)
			seq := sc.seq["last"]
			before, err := sc.s.JournalEntries(sc.ctx, seq, seq+1)
			if err != nil || len(before) != 1 || !bytes.Contains(before[0], fmt.Appendf(nil, `"game":%d,`, sc.last.ID)) {
				t.Fatalf("before: %q, %v", before, err)
			}
			c.tamper(sc)
			entries, err := sc.s.JournalEntries(sc.ctx, seq-1, seq+1)
			if want := fmt.Sprintf("entry %d, the sale of game %d", seq, sc.last.ID); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("after %s: %q, %v; want an error naming %q and saying %q", c.name, entries, err, want, c.says)
			}
		})
	}
}

// The comparison reads the transfers that money entries name without the stakes between them;
// a prize's transfer made a stake is still found, and named as what it now is. (The books fail
// too: the game's prize transfer is no longer its prize.)
func testJournalCheckNamesAPrizeMadeAStake(t *testing.T, h Harness) {
	sc := newJournalScene(t, h)
	sc.dropTriggers(t, "transfers")
	sc.exec(t, `UPDATE transfers SET kind = 'stake' WHERE id = ?`, sc.won.StakeTransfer+1)
	got := sc.compare(t)
	want := fmt.Sprintf("transfer %d is the stake of game %d, %d cents from account 2", sc.won.StakeTransfer+1, sc.won.ID, sc.won.Prize)
	if !slices.ContainsFunc(got.Problems, func(p journal.Difference) bool {
		return p.Seq == sc.seq["won's prize"] && strings.Contains(p.Msg, want)
	}) {
		t.Fatalf("no difference of entry %d says %q:\n%s", sc.seq["won's prize"], want, lines(problems(got)))
	}
}

// A game whose sale entry is queued, not yet appended, is compared with its unit all the same:
// the units' check of a full check leaves every game the journal covers to the comparison.
func testJournalCheckComparesQueuedGames(t *testing.T, h Harness) {
	sc := newJournalScene(t, h)
	g, err := sc.sell(sc.alice, "queued")
	if err != nil {
		t.Fatal(err)
	}
	if sc.raw.Int(t, `SELECT count(*) FROM journal_queue`) == 0 {
		// A store that appends a write's entries with it (SQLite): the row a write queues, by
		// hand.
		sc.queueSale(t, g.ID, g.Stake)
	}
	sc.exec(t, `UPDATE games SET prize = prize + 300 WHERE id = ?`, g.ID)
	got := sc.compare(t)
	if got.Queued == 0 {
		t.Fatalf("no entry is queued: %+v", got)
	}
	want := fmt.Sprintf("game %d paid %d cents, its unit (%s block %d unit %d) wins %d", g.ID, g.Prize+300, g.Emission, g.Block, g.Unit, g.Prize)
	if !slices.ContainsFunc(got.Problems, func(p journal.Difference) bool { return p.Seq == -1 && strings.Contains(p.Msg, want) }) {
		t.Fatalf("no difference says %q:\n%s", want, lines(problems(got)))
	}
}

// named is a difference a comparison must find: of an entry (-1: of none), saying something.
type named struct {
	seq  int64
	says string
}

// problems are a comparison's differences as ledger check prints them.
func problems(c *journal.Comparison) [][]byte {
	out := make([][]byte, len(c.Problems))
	for i, p := range c.Problems {
		out[i] = []byte(p.String())
	}
	return out
}
