package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/journal"
	"starcolor/internal/lottery"
	"starcolor/internal/storetest"
)

// journalOK checks a database's journal against its rows (storetest.CheckJournal), under the
// account key of its key file, and says how many entries it holds.
func journalOK(t *testing.T, db string) string {
	t.Helper()
	ctx := context.Background()
	key, err := journal.LoadKey(journalKeyPath(db))
	if err != nil {
		t.Fatal(err)
	}
	store, err := openStore(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	n := storetest.CheckJournal(t, store, &key.AccountKey)
	return fmt.Sprintf("the journal's %d entries match the games and transfers", n)
}

// journal export writes every entry, its exact bytes one a line, gzip-compressed when asked; a
// command line without --out is refused.
func TestJournalExport(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "journal.db")
	store, err := openStore(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	storetest.CreateEmission(t, store, gamedeftest.Mini(t), "MINI", 100, 1, 7)
	now := time.Now()
	for i := range 3 {
		p, err := store.CreatePlayer(ctx, fmt.Sprint("exporter", i), "x", nil, now)
		if err != nil {
			t.Fatal(err)
		}
		limit := int64(lottery.MaxLimit)
		if _, err := store.SetLimits(ctx, p.ID, lottery.LimitsChange{Deposit: &limit, Stake: &limit}, "player", now); err != nil {
			t.Fatal(err)
		}
		if _, err := store.Pay(ctx, lottery.Payment{PlayerID: p.ID, AccountID: p.AccountID, Kind: lottery.Deposit, Amount: 10_00}, now); err != nil {
			t.Fatal(err)
		}
	}
	storetest.Sequence(t, store)
	st, err := store.JournalState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := store.JournalEntries(ctx, 0, st.Size)
	store.Close()
	if err != nil || st.Size != 10 {
		t.Fatalf("the journal: %d entries, %v; want the emission's, and 3 each of 3 players", st.Size, err)
	}
	want := string(bytes.Join(entries, []byte("\n"))) + "\n"

	out := filepath.Join(t.TempDir(), "journal.jsonl")
	r := cli("journal", "export", "--db", db, "--out", out)
	if r.code != 0 || !strings.Contains(r.stdout, "10 entries (0 to 9) written to "+out) {
		t.Fatalf("journal export: %+v", r)
	}
	if got, err := os.ReadFile(out); err != nil || string(got) != want {
		t.Fatalf("the export:\n%s(%v)\nwant:\n%s", got, err, want)
	}
	gz := out + ".gz"
	if r := cli("journal", "export", "--db", db, "--out", gz, "--gzip"); r.code != 0 {
		t.Fatalf("journal export --gzip: %+v", r)
	}
	f, err := os.Open(gz)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(z); err != nil || string(got) != want {
		t.Fatalf("the gzip export:\n%s(%v)\nwant:\n%s", got, err, want)
	}
	if r := cli("journal", "export", "--db", db); r.code != 2 || !strings.Contains(r.stderr, "--out is required") {
		t.Fatalf("without --out: %+v", r)
	}
	if r := cli("journal", "export", "--db", filepath.Join(t.TempDir(), "none.db"), "--out", out); r.code != 1 || !strings.Contains(r.stderr, "no database") {
		t.Fatalf("a database that is not there: %+v", r)
	}
}
