package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"starcolor/internal/postgres"
	"starcolor/internal/sqlstore"
)

// PostgresEnv names the variable that gives the tests a PostgreSQL database: a postgres:// URL
// whose user may create schemas in it.
const PostgresEnv = "STARCOLOR_TEST_POSTGRES"

// PostgresURL makes a new, empty schema in the test database and returns the URL of the database
// with that schema as its search path: a store of its own for the test, dropped when it ends. It
// skips the test without $STARCOLOR_TEST_POSTGRES (fails under CI).
func PostgresURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(PostgresEnv)
	if base == "" {
		skipOrFail(t, "no PostgreSQL to test against: set $%s to a postgres:// URL (.ci/run starts one)", PostgresEnv)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		skipOrFail(t, "PostgreSQL at $%s cannot be reached: %v", PostgresEnv, err)
	}
	var b [6]byte
	rand.Read(b[:])
	schema := "test_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		conn.Close(ctx)
		t.Fatal(err)
	}
	conn.Close(ctx)
	t.Cleanup(func() {
		conn, err := pgx.Connect(context.Background(), base)
		if err != nil {
			return
		}
		defer conn.Close(context.Background())
		conn.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// OpenPostgres opens a new, empty PostgreSQL store: a schema of its own in the database of
// $STARCOLOR_TEST_POSTGRES.
func OpenPostgres(t testing.TB) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(context.Background(), PostgresURL(t), AccountKey)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Postgres is the contract suite's harness for the PostgreSQL store; its raw connection is one of
// its own to the same schema.
var Postgres = Harness{
	Open: func(t testing.TB) (Store, *Raw) {
		t.Helper()
		s, raw := openPostgres(t, 1)
		return s[0], raw
	},
	Servers: openPostgres,
}

// openPostgres opens n stores on one new schema, each a server of its own (its pools, its
// batches of sales), and a raw connection of its own to the schema.
func openPostgres(t testing.TB, n int) ([]Store, *Raw) {
	t.Helper()
	u := PostgresURL(t)
	stores := make([]Store, n)
	for i := range stores {
		s, err := postgres.Open(context.Background(), u, AccountKey)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		stores[i] = s
	}
	cfg, err := pgx.ParseConfig(u)
	if err != nil {
		t.Fatal(err)
	}
	raw := stdlib.OpenDB(*cfg)
	t.Cleanup(func() { raw.Close() })
	return stores, &Raw{DB: raw, Rebind: dollars, Reopen: func(t testing.TB) Store {
		again, err := postgres.Open(context.Background(), u, AccountKey)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { again.Close() })
		return again
	}}
}

// PostgresMigrations is the migration tests' harness for PostgreSQL: a schema of its own in the
// database of $STARCOLOR_TEST_POSTGRES.
var PostgresMigrations = Migrations{Dialect: sqlstore.PostgreSQL, Empty: func(t testing.TB) (*Raw, func() (Store, error)) {
	t.Helper()
	u := PostgresURL(t)
	cfg, err := pgx.ParseConfig(u)
	if err != nil {
		t.Fatal(err)
	}
	raw := stdlib.OpenDB(*cfg)
	t.Cleanup(func() { raw.Close() })
	return &Raw{DB: raw, Rebind: dollars}, func() (Store, error) {
		s, err := postgres.Open(context.Background(), u, AccountKey)
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { s.Close() })
		return s, nil
	}
}}

// dollars numbers a statement's '?' parameters as PostgreSQL's $1, $2, ….
func dollars(q string) string {
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
