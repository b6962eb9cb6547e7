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
func TestJournalKeyNotMadeForAJournal(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	t.Setenv(journalKeyEnv, "")
	ctx := context.Background()
	store, err := openStore(ctx, db)
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
	storetest.Sequence(t, store)
	store.Close()

	kept := filepath.Join(dir, "kept.key")
	if err := os.Rename(db+".journal-key", kept); err != nil {
		t.Fatal(err)
	}
	if s, err := openStore(ctx, db); err == nil || !strings.Contains(err.Error(), "there is no key file at "+db+".journal-key") {
		if s != nil {
			s.Close()
		}
		t.Fatalf("a journal with entries opened without its key file: %v", err)
	}
	if _, err := os.Lstat(db + ".journal-key"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a key file was made for a journal that has entries: %v", err)
	}
	// Given its key file, it opens.
	t.Setenv(journalKeyEnv, kept)
	s, err := openStore(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}
