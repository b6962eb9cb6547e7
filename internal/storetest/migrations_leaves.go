package storetest

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"starcolor/internal/journal"
)

// A journal of entries kept whole (migration 0026) keeps them whole after 0043, which keeps a
// sale's entry as its leaf from then on: each entry is read back as its bytes, the tree is built
// of their leaves. The table keeps its guards: its rows are never changed, each holds one form (a
// leaf with its game), and no two name one game.
func testSaleLeaves(t *testing.T, m Migrations) {
	ctx := context.Background()
	raw, open := m.Empty(t)
	if err := migrateRaw(raw, m.Dialect, historyBefore(t, "0043")); err != nil {
		t.Fatal(err)
	}
	entries := [][]byte{[]byte(`{"seq":0,"kind":"operator"}`), []byte(`{"seq":1,"kind":"sale","game":5}`)}
	for i, e := range entries {
		var game any
		if i == 1 {
			game = 5
		}
		if err := raw.Exec(`INSERT INTO journal (seq, entry, game) VALUES ($1, $2, $3)`, i, e, game); err != nil {
			t.Fatal(err)
		}
	}
	if err := raw.Exec(`UPDATE journal_state SET size = 2`); err != nil {
		t.Fatal(err)
	}
	s, err := open()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.JournalEntries(ctx, 0, 2)
	if err != nil || len(got) != 2 || !bytes.Equal(got[0], entries[0]) || !bytes.Equal(got[1], entries[1]) {
		t.Fatalf("the entries migrated: %q, %v", got, err)
	}
	leaves, err := s.JournalLeaves(ctx, 0, 2)
	if err != nil || len(leaves) != 2 || leaves[0] != journal.Leaf(entries[0]) || leaves[1] != journal.Leaf(entries[1]) {
		t.Fatalf("the leaves migrated: %x, %v", leaves, err)
	}
	leaf := bytes.Repeat([]byte{1}, 32)
	for _, c := range []struct {
		what  string
		query string
		args  []any
	}{
		{"an entry changed", `UPDATE journal SET entry = $1 WHERE seq = 0`, []any{[]byte(`{}`)}},
		{"an entry deleted", `DELETE FROM journal WHERE seq = 0`, nil},
		{"a row of neither form", `INSERT INTO journal (seq, game) VALUES (2, 6)`, nil},
		{"a row of both forms", `INSERT INTO journal (seq, entry, leaf, game) VALUES (2, $1, $2, 6)`, []any{entries[1], leaf}},
		{"a leaf of no game", `INSERT INTO journal (seq, leaf) VALUES (2, $1)`, []any{leaf}},
		{"a leaf of 31 bytes", `INSERT INTO journal (seq, leaf, game) VALUES (2, $1, 6)`, []any{leaf[:31]}},
		{"a second row for a game", `INSERT INTO journal (seq, leaf, game) VALUES (2, $1, 5)`, []any{leaf}},
	} {
		if err := raw.Exec(c.query, c.args...); err == nil {
			t.Errorf("%s: the database took it", c.what)
		}
	}
	if err := raw.Exec(`INSERT INTO journal (seq, leaf, game) VALUES (2, $1, 6)`, leaf); err != nil {
		t.Fatalf("a sale kept as its leaf: %v", err)
	}
	if leaves, err := s.JournalLeaves(ctx, 2, 3); err != nil || fmt.Sprintf("%x", leaves[0][:]) != fmt.Sprintf("%x", leaf) {
		t.Fatalf("the leaf kept: %x, %v", leaves, err)
	}
}
