package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/journal"
	"starcolor/internal/lottery"
	"starcolor/internal/sqlstore"
	"starcolor/internal/storetest"
)

// ledger check compares the rows with the journal. On a SQLite file whose journal is signed, a
// database administrator adds a deposit (its transfer and its balances) and removes an
// exclusion (the player's row): the books still balance, and ledger check names the transfer no
// entry records and the exclusion's entry, and exits 1. So does an auditor who holds the
// verifier and account keys and not the key file; without the account key, the references are
// said not to be compared. Without any key, the books are checked, and that the journal could not
// be is a problem.
func TestLedgerCheckAgainstJournal(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "ledger.db")
	store, err := openStore(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	storetest.CreateEmission(t, store, gamedeftest.Mini(t), "MINI", 100, 1, 7)
	now := time.Now().UTC()
	limit := int64(lottery.MaxLimit)
	player := func(name string) lottery.Player {
		p, err := store.CreatePlayer(ctx, name, "x", nil, now)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.SetLimits(ctx, p.ID, lottery.LimitsChange{Deposit: &limit, Stake: &limit}, "player", now); err != nil {
			t.Fatal(err)
		}
		return p
	}
	alice, xavier := player("alice"), player("xavier")
	if _, err := store.Pay(ctx, lottery.Payment{PlayerID: alice.ID, AccountID: alice.AccountID, Kind: lottery.Deposit, Amount: 20_00}, now); err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.ExcludePlayer(ctx, xavier.ID, nil, now.Add(90*24*time.Hour), now); err != nil {
		t.Fatal(err)
	}
	storetest.Sequence(t, store)
	st, err := store.JournalState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	exclusion := st.Size - 1
	key, err := journal.LoadKey(journalKeyPath(db))
	if err != nil {
		t.Fatal(err)
	}
	if err := journal.NewLog(store, key).Step(ctx, now); err != nil {
		t.Fatal(err)
	}
	store.Close()

	r := cli("ledger", "check", "--db", db)
	if r.code != 0 || !strings.Contains(r.stdout, "OK: the books balance, and are those the journal recorded") ||
		!strings.Contains(r.stdout, fmt.Sprintf("journal: %d entries, compared with 0 games, 1 transfers and the restrictions of 2 accounts; the latest checkpoint signs %d", st.Size, st.Size)) {
		t.Fatalf("ledger check of clean books: %+v", r)
	}

	raw := storetest.OpenRaw(t, db)
	for _, q := range []string{
		`INSERT INTO transfers (from_account, to_account, amount, kind, created_at) VALUES (1, ?, 5000, 'deposit', ?)`,
		`UPDATE accounts SET balance = balance + 5000 WHERE id = ?`,
		`UPDATE accounts SET balance = balance - 5000 WHERE id = 1`,
		`UPDATE players SET excluded_until = NULL WHERE id = ?`,
	} {
		var args []any
		switch {
		case strings.HasPrefix(q, "INSERT"):
			args = []any{alice.AccountID, sqlstore.SQLite.SaleTime(now)}
		case strings.Contains(q, "players"):
			args = []any{xavier.ID}
		case strings.Contains(q, "id = ?"):
			args = []any{alice.AccountID}
		}
		if err := raw.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	deposit := raw.Int(t, `SELECT max(id) FROM transfers`)
	want := []string{
		fmt.Sprintf("PROBLEM: transfer %d (a deposit of 5000 cents to account %d, at %s) has no entry", deposit, alice.AccountID, now.Format(journal.TimeFormat)),
		fmt.Sprintf("PROBLEM: entry %d (exclusion of account %d): the player's exclusion is removed, the entry says until %s",
			exclusion, xavier.AccountID, now.Add(90*24*time.Hour).Format(journal.TimeFormat)),
	}
	tampered := func(what string, r result) {
		t.Helper()
		var found []string
		for _, l := range strings.Split(r.stdout, "\n") {
			if strings.HasPrefix(l, "PROBLEM:") {
				found = append(found, l)
			}
		}
		if r.code != 1 || strings.Join(found, "\n") != strings.Join(want, "\n") ||
			!strings.Contains(r.stderr, "the books balance, but are not those the journal recorded") {
			t.Fatalf("%s, after the rewrite: exit %d\n%s%s\nwant exactly:\n%s", what, r.code, r.stdout, r.stderr, strings.Join(want, "\n"))
		}
	}
	tampered("ledger check", cli("ledger", "check", "--db", db))

	// An auditor: the verifier key and the account key, not the key file.
	keyFile := journalKeyPath(db)
	accountKey := cli("journal", "account-key", "--journal-key", keyFile)
	if accountKey.code != 0 {
		t.Fatalf("journal account-key: %+v", accountKey)
	}
	t.Setenv(journalKeyEnv, filepath.Join(t.TempDir(), "none.key"))
	tampered("ledger check --journal-verifier --account-key",
		cli("ledger", "check", "--db", db, "--journal-verifier", key.VerifierKey, "--account-key", strings.TrimSpace(accountKey.stdout)))
	r = cli("ledger", "check", "--db", db, "--journal-verifier", key.VerifierKey)
	tampered("ledger check --journal-verifier", r)
	if !strings.Contains(r.stdout, "journal: the account references were not compared (--account-key)") {
		t.Fatalf("without the account key: %s", r.stdout)
	}
	if r := cli("ledger", "check", "--db", db); r.code != 1 || !strings.Contains(r.stdout, "PROBLEM: the journal was not compared with the rows: no journal key file at") ||
		!strings.Contains(r.stdout, "accounts 4, transfers 2, games 0") || !strings.Contains(r.stderr, "were not compared with the journal") {
		t.Fatalf("without a key: %+v", r)
	}
	other, err := journal.CreateKey(filepath.Join(t.TempDir(), "other.key"), "")
	if err != nil {
		t.Fatal(err)
	}
	if r := cli("ledger", "check", "--db", db, "--journal-verifier", other.VerifierKey); r.code != 1 ||
		!strings.Contains(r.stdout, fmt.Sprintf("PROBLEM: the latest checkpoint, of %d entries: signed with the key %s", st.Size, key.Origin)) {
		t.Fatalf("with another journal's key: %+v", r)
	}
	if r := cli("ledger", "check", "--db", db, "--account-key", "00"); r.code != 2 || !strings.Contains(r.stderr, "--account-key goes with --journal-verifier") {
		t.Fatalf("--account-key alone: %+v", r)
	}
}
