package main

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"starcolor/internal/journal"
	"starcolor/internal/lottery"
	"starcolor/internal/storetest"
)

// A database's key file is beside a SQLite file, here for PostgreSQL, or where
// $STARCOLOR_JOURNAL_KEY says. The store a command opens makes it when there is none, and makes
// its entries' account references with its account key.
func TestJournalKeyOfTheStore(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	t.Setenv(journalKeyEnv, "")
	if got := journalKeyPath(db); got != db+".journal-key" {
		t.Errorf("the key file of a SQLite file: %s, want %s.journal-key", got, db)
	}
	if got := journalKeyPath("postgres://h/db"); got != "starcolor-journal.key" {
		t.Errorf("the key file of a PostgreSQL database: %s, want starcolor-journal.key here", got)
	}
	t.Setenv(journalKeyEnv, "/etc/k")
	if got := journalKeyPath(db); got != "/etc/k" {
		t.Errorf("the key file $%s names: %s", journalKeyEnv, got)
	}
	t.Setenv(journalKeyEnv, "")

	ctx := context.Background()
	store, err := openStore(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	k, err := journal.LoadKey(db + ".journal-key")
	if err != nil {
		t.Fatalf("the key file the store made: %v", err)
	}
	now := time.Now()
	p, err := store.CreatePlayer(ctx, "keyed", "x", nil, now)
	if err != nil {
		t.Fatal(err)
	}
	limit := int64(100_00)
	if _, err := store.SetLimits(ctx, p.ID, lottery.LimitsChange{Deposit: &limit}, "player", now); err != nil {
		t.Fatal(err)
	}
	storetest.Sequence(t, store)
	got, err := store.JournalEntries(ctx, 0, 1)
	want := journal.Encode(0, now, journal.Limits{AccountID: p.AccountID, Limit: "deposit", New: limit, Effective: now, By: "player"}, &k.AccountKey)
	if err != nil || len(got) != 1 || string(got[0]) != string(want) {
		t.Fatalf("the entry of a limit: %q, %v; want, under the key file's account key:\n%s", got, err, want)
	}
}

// A command given no key file for a database whose journal has entries makes none: a new key
// would not be the journal's, and the file left would be found first by every command after.
// On PostgreSQL the entry is still queued, as a command leaves it with no server to append it.
func TestJournalKeyNotMadeForAJournal(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { testKeyNotMade(t, filepath.Join(t.TempDir(), "k.db")) })
	t.Run("postgres", func(t *testing.T) { testKeyNotMade(t, storetest.PostgresURL(t)) })
}

func testKeyNotMade(t *testing.T, db string) {
	dir := t.TempDir()
	made := filepath.Join(dir, "made.key")
	ctx := context.Background()
	store, err := openStoreKeyed(ctx, db, made)
	if err != nil {
		t.Fatal(err)
	}
	p, err := store.CreatePlayer(ctx, "keyed", "x", nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	limit := int64(100_00)
	if _, err := store.SetLimits(ctx, p.ID, lottery.LimitsChange{Deposit: &limit}, "player", time.Now()); err != nil {
		t.Fatal(err)
	}
	st, err := store.JournalState(ctx)
	if err != nil || st.Size+st.Queued != 1 {
		t.Fatalf("the journal after a limit: %+v, %v; want one entry, appended or queued", st, err)
	}
	store.Close()

	other := filepath.Join(dir, "other.key")
	if s, err := openStoreKeyed(ctx, db, other); err == nil || !strings.Contains(err.Error(), "there is no key file at "+other) {
		if s != nil {
			s.Close()
		}
		t.Fatalf("a journal with an entry opened without its key file: %v", err)
	}
	if _, err := os.Lstat(other); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a key file was made for a journal that has an entry: %v", err)
	}
	// Given its key file, it opens.
	s, err := openStoreKeyed(ctx, db, made)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}
