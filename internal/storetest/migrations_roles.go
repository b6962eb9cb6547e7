package storetest

import (
	"context"
	"io/fs"
	"testing"
	"testing/fstest"

	"starcolor/internal/lottery"
	"starcolor/internal/sqlstore"
)

// historyBefore is the migration history up to the step numbered step, excluded: a database of
// an earlier build.
func historyBefore(t *testing.T, step string) fs.FS {
	t.Helper()
	before := fstest.MapFS{}
	err := fs.WalkDir(sqlstore.History, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path >= step {
			return err
		}
		body, err := fs.ReadFile(sqlstore.History, path)
		before[path] = &fstest.MapFile{Data: body}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return before
}

// An operator made before roles existed (migration 0030) keeps every role.
func testOperatorsKeepRoles(t *testing.T, m Migrations) {
	raw, open := m.Empty(t)
	if err := migrateRaw(raw, m.Dialect, historyBefore(t, "0030")); err != nil {
		t.Fatal(err)
	}
	if err := raw.Exec(`INSERT INTO operators (name, password_hash, created_at) VALUES (?, ?, ?)`, "olga", "x", "2026-11-01T00:00:00.000000000Z"); err != nil {
		t.Fatal(err)
	}
	s, err := open()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if o, err := s.OperatorByName(context.Background(), "olga"); err != nil || o.Roles != lottery.AllRoles {
		t.Fatalf("an operator made before roles: %v (%v), want every role", o.Roles, err)
	}
}
