package sqlite

import (
	"context"
	"database/sql"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The migrations are numbered 1, 2, 3… once each: two branches that both took the next number
// would otherwise merge into a history where one file is never applied.
func TestMigrationsNumberedOnce(t *testing.T) {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		n, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil || n != i+1 {
			t.Errorf("%s: want number %d (%v)", base, i+1, err)
		}
	}
}

// A database whose migration of a number was another file is refused at open: its schema is
// not the one this build's queries expect.
func TestMigrationAppliedAsAnotherFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	d, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`UPDATE schema_migrations SET name = '0003_something_else.sql' WHERE version = 3`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	d, err = Open(ctx, path)
	if err == nil {
		d.Close()
		t.Fatal("opened a database whose migration 3 was another file")
	}
	if !strings.Contains(err.Error(), "version 3 was applied as 0003_something_else.sql") {
		t.Fatalf("error %q does not say which migration differs", err)
	}
}
