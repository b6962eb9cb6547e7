package storetest

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"starcolor/internal/audit"
	"starcolor/internal/emission"
	"starcolor/internal/journal"
	"starcolor/internal/lottery"
	"starcolor/internal/sqlstore"
	"starcolor/internal/store"
)

// OpenRaw opens a connection of its own to the database of a --db (a SQLite file, or a
// PostgreSQL URL), closed when the test ends: how a test of the commands reads what their store
// wrote.
func OpenRaw(t testing.TB, db string) *Raw {
	t.Helper()
	if strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://") {
		cfg, err := pgx.ParseConfig(db)
		if err != nil {
			t.Fatal(err)
		}
		raw := stdlib.OpenDB(*cfg)
		t.Cleanup(func() { raw.Close() })
		return &Raw{DB: raw, Rebind: dollars}
	}
	raw, err := sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return &Raw{DB: raw}
}

// entryHead is what CheckJournal reads of an entry: its seq and kind, and what names its rows.
type entryHead struct {
	Seq      int64  `json:"seq"`
	Kind     string `json:"kind"`
	Game     int64  `json:"game"`
	Transfer int64  `json:"transfer"`
}

// CheckJournal checks that a store's journal and its rows agree, as a crash or a race must leave
// them, and returns how many entries it read:
//
//   - the entries are seqs 0 to State.Size-1, each with its seq, of a known kind;
//   - every game since the journal began has its sale entry, once, which games.journal_seq
//     names, and which is the bytes journal.Encode makes of the game (its unit's leaf read from
//     its emission) under key;
//   - every transfer since the journal began but the stakes (their sale entries name them) has
//     its entry, once, the bytes journal.Encode makes of it;
//   - no entry names a game or a transfer that is not there.
func CheckJournal(t testing.TB, s store.Store, raw *Raw, key *journal.AccountKey) int {
	t.Helper()
	ctx := context.Background()
	st, err := s.JournalState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	firstGame, firstTransfer, err := s.Beginning(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := raw.Int(t, `SELECT count(*) FROM journal`); n != st.Size {
		t.Errorf("the journal holds %d entries, its counter says %d", n, st.Size)
	}
	entries, err := s.JournalEntries(ctx, 0, st.Size)
	if err != nil {
		t.Fatalf("the journal's entries 0 to %d: %v", st.Size-1, err)
	}
	kinds := map[string]bool{journal.KindSale: true, journal.KindPrize: true, journal.KindDeposit: true, journal.KindWithdrawal: true,
		journal.KindLimits: true, journal.KindExclusion: true, journal.KindClosure: true, journal.KindRegisterImport: true,
		journal.KindEmission: true, journal.KindOperator: true}
	sales := map[int64]int64{}     // game → the seq of its sale entry
	transfers := map[int64]int64{} // transfer → the seq of its entry (a stake's: its sale's)
	for i, e := range entries {
		var h entryHead
		if err := json.Unmarshal(e, &h); err != nil || h.Seq != int64(i) || !kinds[h.Kind] {
			t.Errorf("entry %d: %q (%v): want an entry of a known kind, of seq %d", i, e, err, i)
			continue
		}
		if h.Kind == journal.KindSale {
			if seq, twice := sales[h.Game]; twice {
				t.Errorf("game %d has two sale entries: %d and %d", h.Game, seq, h.Seq)
			}
			sales[h.Game] = h.Seq
		}
		switch h.Kind {
		case journal.KindSale, journal.KindPrize, journal.KindDeposit, journal.KindWithdrawal:
			if seq, twice := transfers[h.Transfer]; twice {
				t.Errorf("transfer %d has two entries: %d and %d", h.Transfer, seq, h.Seq)
			}
			transfers[h.Transfer] = h.Seq
		}
	}

	// The games, each rebuilt into its sale entry.
	readers := map[string]*emission.Reader{}
	type game struct {
		g       lottery.Game
		account int64
		seq     sql.NullInt64
	}
	var games []game
	rows, err := raw.DB.Query(raw.rebind(`SELECT g.id, g.emission_id, g.block, g.unit, g.stake, g.mode, g.prize, g.stake_transfer, g.created_at, p.account_id, g.journal_seq
		FROM games g JOIN players p ON p.id = g.player_id WHERE g.id >= ? OR g.journal_seq IS NOT NULL ORDER BY g.id`), firstGame)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var r game
		if err := rows.Scan(&r.g.ID, &r.g.Emission, &r.g.Block, &r.g.Unit, &r.g.Stake, &r.g.Mode, &r.g.Prize, &r.g.StakeTransfer,
			sqlstore.ScanTime(&r.g.CreatedAt), &r.account, &r.seq); err != nil {
			t.Fatal(err)
		}
		games = append(games, r)
	}
	rows.Close()
	for _, r := range games {
		seq, ok := sales[r.g.ID]
		delete(sales, r.g.ID)
		switch {
		case !ok:
			t.Errorf("game %d has no sale entry", r.g.ID)
			continue
		case !r.seq.Valid || r.seq.Int64 != seq:
			t.Errorf("game %d: journal_seq %v, but its sale entry is %d", r.g.ID, r.seq, seq)
			continue
		}
		rd := readers[r.g.Emission]
		if rd == nil {
			e, err := s.Emission(ctx, r.g.Emission)
			if err != nil {
				t.Fatal(err)
			}
			if rd, err = emission.NewReader(e, s); err != nil {
				t.Fatal(err)
			}
			readers[r.g.Emission] = rd
		}
		unit, err := rd.Unit(ctx, r.g.Block, r.g.Unit)
		if err != nil {
			t.Fatal(err)
		}
		want := journal.Encode(uint64(seq), r.g.CreatedAt, sqlstore.SaleEvent(&r.g, r.account, audit.LeafHash(audit.AppendLine(nil, &unit))), key)
		if got := entries[seq]; string(got) != string(want) {
			t.Errorf("the sale entry of game %d:\n%s\nwant, from its row:\n%s", r.g.ID, got, want)
		}
	}
	for g, seq := range sales {
		t.Errorf("entry %d is the sale of game %d, which is not there", seq, g)
	}

	// The transfers, each rebuilt into its entry.
	rows, err = raw.DB.Query(raw.rebind(`SELECT id, from_account, to_account, amount, kind, coalesce(game_id, 0), coalesce(reason, ''), created_at
		FROM transfers WHERE id >= ? ORDER BY id`), firstTransfer)
	if err != nil {
		t.Fatal(err)
	}
	var all []lottery.Transfer
	for rows.Next() {
		var tr lottery.Transfer
		if err := rows.Scan(&tr.ID, &tr.From, &tr.To, &tr.Amount, &tr.Kind, &tr.GameID, &tr.Reason, sqlstore.ScanTime(&tr.CreatedAt)); err != nil {
			t.Fatal(err)
		}
		all = append(all, tr)
	}
	rows.Close()
	for _, tr := range all {
		seq, ok := transfers[tr.ID]
		delete(transfers, tr.ID)
		switch {
		case !ok:
			t.Errorf("transfer %d (%s of %d) has no entry", tr.ID, tr.Kind, tr.Amount)
		case tr.Kind == lottery.Stake:
			var h entryHead
			json.Unmarshal(entries[seq], &h)
			if h.Kind != journal.KindSale || h.Game != tr.GameID {
				t.Errorf("the stake transfer %d of game %d is named by entry %d: %s", tr.ID, tr.GameID, seq, entries[seq])
			}
		default:
			if want := journal.Encode(uint64(seq), tr.CreatedAt, sqlstore.MoneyEvent(tr), key); string(entries[seq]) != string(want) {
				t.Errorf("the entry of transfer %d:\n%s\nwant, from its row:\n%s", tr.ID, entries[seq], want)
			}
		}
	}
	for tr, seq := range transfers {
		t.Errorf("entry %d names transfer %d, which is not there: %s", seq, tr, entries[seq])
	}
	return len(entries)
}

// journalSince reads the entries appended since the journal held n.
func journalSince(t testing.TB, s store.Journal, n int64) [][]byte {
	t.Helper()
	st, err := s.JournalState(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	entries, err := s.JournalEntries(context.Background(), n, st.Size)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// journalSize is how many entries the journal holds.
func journalSize(t testing.TB, s store.Journal) int64 {
	t.Helper()
	st, err := s.JournalState(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st.Size
}

// sameEntries fails the test unless got are the entries want, byte for byte.
func sameEntries(t testing.TB, what string, got, want [][]byte) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s appended %d entries, want %d:\n%s", what, len(got), len(want), lines(got))
		return
	}
	for i := range got {
		if string(got[i]) != string(want[i]) {
			t.Errorf("%s: entry %d of %d:\n%s\nwant:\n%s", what, i+1, len(got), got[i], want[i])
		}
	}
}

func lines(entries [][]byte) string {
	var s string
	for _, e := range entries {
		s += fmt.Sprintf("%s\n", e)
	}
	return s
}
