// Package storetest gives the tests a real store to start from, of either kind: a SQLite file in
// a temporary folder, or a schema of its own in a PostgreSQL database. Every test of the API, the
// player's page and the back office runs on the store $STARCOLOR_TEST_STORE names ("sqlite", the
// default, or "postgres"); the contract suite (contract.go) runs on both.
//
// PostgreSQL tests take the URL of a database from $STARCOLOR_TEST_POSTGRES, in which each test
// makes a schema of its own and drops it at its end. Without it they skip, saying so; under CI
// (CI=true) they fail instead, so that a missing server cannot pass for a passing suite.
package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"starcolor/internal/emission"
	"starcolor/internal/gamedef"
	"starcolor/internal/journal"
	"starcolor/internal/lottery"
	"starcolor/internal/sqlite"
	"starcolor/internal/sqlstore"
	"starcolor/internal/store"
)

// Kind is the store the tests of the API, the page and the back office run on: $STARCOLOR_TEST_STORE.
func Kind() string {
	if k := os.Getenv("STARCOLOR_TEST_STORE"); k != "" {
		return k
	}
	return "sqlite"
}

// Open opens a new, empty store of the Kind the tests run on; it is closed when the test ends.
func Open(t testing.TB) store.Store {
	t.Helper()
	switch k := Kind(); k {
	case "sqlite":
		return OpenSQLite(t)
	case "postgres":
		return OpenPostgres(t)
	default:
		t.Fatalf("STARCOLOR_TEST_STORE=%q: want sqlite or postgres", k)
		return nil
	}
}

// OpenServers opens a new, empty store of the Kind the tests run on, as Open does, and n stores
// on its database in all, each a server of its own (its connections, its batches of sales), as n
// serve processes of one game are: on PostgreSQL. A SQLite file has one server: its n are the
// one store.
func OpenServers(t testing.TB, n int) []store.Store {
	t.Helper()
	out := make([]store.Store, n)
	if Kind() != "postgres" {
		s := Open(t)
		for i := range out {
			out[i] = s
		}
		return out
	}
	stores, _ := openPostgres(t, n)
	for i, s := range stores {
		out[i] = s
	}
	return out
}

// AccountKey is the journal's account key every test store is opened with: fixed, so that a
// test can make the entries it expects with journal.Encode.
var AccountKey = &journal.AccountKey{'s', 't', 'o', 'r', 'e', 't', 'e', 's', 't', ' ', 'a', 'c', 'c', 'o', 'u', 'n', 't', ' ', 'k', 'e', 'y'}

// OpenSQLite opens a new SQLite file in a temporary folder.
func OpenSQLite(t testing.TB) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "test.db"), AccountKey)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// SQLiteMigrations is the migration tests' harness for SQLite: a new file in a temporary folder.
var SQLiteMigrations = Migrations{Dialect: sqlstore.SQLite, Empty: func(t testing.TB) (*Raw, func() (Store, error)) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.db")
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return &Raw{DB: raw}, func() (Store, error) {
		s, err := sqlite.Open(context.Background(), path, AccountKey)
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { s.Close() })
		return s, nil
	}
}}

// CreateEmission stores an emission of the definition at a price, of the given blocks, built
// from a seed whose first byte is seed (so the same units every run).
func CreateEmission(t testing.TB, db store.Emissions, def *gamedef.Definition, id string, price int64, blocks int, seed byte) *emission.Emission {
	t.Helper()
	ctx := context.Background()
	table, err := def.Table(price)
	if err != nil {
		t.Fatal(err)
	}
	// Kept to the microsecond, as PostgreSQL keeps times.
	e := &emission.Emission{ID: id, Price: price, Definition: def.Version, Table: *table, CreatedAt: time.Now().UTC().Truncate(time.Microsecond)}
	s := [emission.SeedSize]byte{seed}
	if err := db.CreateEmission(ctx, e, s, lottery.ByCommandLine, func(put func(emission.Page) error) ([]emission.Block, error) {
		return emission.Build(ctx, emission.Plan{Definition: def, Price: price, Blocks: blocks, Seed: s}, put, nil)
	}); err != nil {
		t.Fatal(err)
	}
	return e
}

// Hold keeps the store's writer of batches busy until the returned release is called, so that a
// test can queue writes behind it and have them all join one batch.
func Hold(t testing.TB, db any) (release func()) {
	t.Helper()
	h, ok := db.(interface{ Hold() func() })
	if !ok {
		t.Fatalf("a %T cannot be held", db)
	}
	return h.Hold()
}

// skipOrFail skips a test that needs what this machine lacks, or fails it under CI.
func skipOrFail(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + " (CI=true: this must run)")
	}
	t.Skip(msg)
}

// SQLite is the contract suite's harness for the SQLite store; its raw connection is a
// connection of its own to the same file, which checks no foreign key.
var SQLite = Harness{Open: func(t testing.TB) (Store, *Raw) {
	t.Helper()
	s := OpenSQLite(t)
	raw, err := sql.Open("sqlite", "file:"+s.Path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return s, &Raw{DB: raw, Reopen: func(t testing.TB) Store {
		again, err := sqlite.Open(context.Background(), s.Path, AccountKey)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { again.Close() })
		return again
	}}
}}
