package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"starcolor/internal/journal"
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

// CheckJournal checks that a store's journal and its rows agree, as a crash or a race must leave
// them, and returns how many entries it read. It is the store's own comparison
// (store.JournalCheck, which ledger check runs) under the account key, against the journal's own
// verifier key: every difference it finds fails the test. The entries queued are appended first,
// as the next server's sequencer would: none is left out of the comparison.
func CheckJournal(t testing.TB, s interface {
	store.JournalCheck
	journal.Store
}, key *journal.AccountKey) int {
	t.Helper()
	Sequence(t, s)
	c, err := s.CompareJournal(context.Background(), journal.CompareOptions{AccountKey: key, Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if c.Queued > 0 {
		t.Errorf("%d entries queued still, after the sequencer ran", c.Queued)
	}
	for _, p := range c.Problems {
		t.Errorf("the journal and the rows differ: %s", p)
	}
	if c.Dropped > 0 {
		t.Errorf("and %d differences more", c.Dropped)
	}
	return int(c.Entries)
}

// Sequence appends the entries the writes queued, as the server's sequencer does
// (journal.Log.Integrate), and returns how many.
func Sequence(t testing.TB, s journal.Store) int64 {
	t.Helper()
	n, err := s.Sequence(context.Background())
	if err != nil {
		t.Fatalf("the journal's sequencer: %v", err)
	}
	return n
}

// journalSince reads the entries appended since the journal held n, once the queued ones are.
func journalSince(t testing.TB, s store.Journal, n int64) [][]byte {
	t.Helper()
	Sequence(t, s)
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

// journalSize is how many entries the journal holds, once the queued ones are appended.
func journalSize(t testing.TB, s store.Journal) int64 {
	t.Helper()
	Sequence(t, s)
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
