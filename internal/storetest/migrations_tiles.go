package storetest

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/transparency-dev/formats/log"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"starcolor/internal/journal"
	"starcolor/internal/sqlstore"
)

// The tree kept as a row a hash (migration 0026) becomes tiles (0028): a database of step 27
// whose journal has entries, their hashes and a signed checkpoint migrates; the journal's loop
// rebuilds the tree from the entries, to the root the checkpoint signs, and signs the next
// checkpoint only once it extends that one.
func testTreeToTiles(t *testing.T, m Migrations) {
	ctx := context.Background()
	raw, open := m.Empty(t)
	if err := migrateRaw(raw, m.Dialect, historyBefore(t, "0028")); err != nil {
		t.Fatal(err)
	}
	// 700 entries (three tiles of leaves), their stored hashes as 0026 kept them, and a
	// checkpoint of them signed with the journal's key.
	const n = 700
	key, err := journal.CreateKey(filepath.Join(t.TempDir(), "journal.key"), "")
	if err != nil {
		t.Fatal(err)
	}
	var hashes []tlog.Hash
	read := tlog.HashReaderFunc(func(ids []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(ids))
		for i, id := range ids {
			out[i] = hashes[id]
		}
		return out, nil
	})
	for i := range n {
		e := fmt.Appendf(nil, `{"seq":%d,"kind":"operator"}`, i)
		if err := raw.Exec(`INSERT INTO journal (seq, entry) VALUES ($1, $2)`, i, e); err != nil {
			t.Fatal(err)
		}
		hs, err := tlog.StoredHashes(int64(i), e, read)
		if err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, hs...)
	}
	for id, h := range hashes {
		if err := raw.Exec(`INSERT INTO journal_hashes (id, hash) VALUES ($1, $2)`, id, h[:]); err != nil {
			t.Fatal(err)
		}
	}
	root, err := tlog.TreeHash(n, read)
	if err != nil {
		t.Fatal(err)
	}
	text, err := note.Sign(&note.Note{Text: string(log.Checkpoint{Origin: key.Origin, Size: n, Hash: root[:]}.Marshal())}, key.Signer)
	if err != nil {
		t.Fatal(err)
	}
	signed := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	if err := raw.Exec(`INSERT INTO journal_checkpoints (size, note, signed_at) VALUES ($1, $2, $3)`, n, string(text), signed.Format(time.RFC3339)); err != nil {
		t.Fatal(err)
	}
	if err := raw.Exec(`UPDATE journal_state SET size = $1, hashed = $1, verifier = $2`, n, key.VerifierKey); err != nil {
		t.Fatal(err)
	}

	s, err := open()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if st, err := s.JournalState(ctx); err != nil || st.Size != n || st.Hashed != 0 {
		t.Fatalf("migrated: %+v %v, want %d entries, none hashed", st, err, n)
	}
	l := journal.NewLog(s, key)
	if err := l.Integrate(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := tlog.TreeHash(n, treeReader(s))
	if err != nil || got != root {
		t.Fatalf("the tree rebuilt from the tiles: %x (%v), want the checkpoint's %x", got, err, root)
	}
	if ok, err := l.Sign(ctx, signed.Add(time.Minute)); ok || err != nil {
		t.Fatalf("signed the same tree again: %v %v", ok, err)
	}
	// One entry more: the tree extends the checkpoint, and the next is signed. Then one whose
	// tile was rewritten behind the Log's back (a tile extended with other bytes than the
	// tree's, the trigger dropped): the Log signs nothing.
	if err := raw.Exec(`INSERT INTO journal (seq, entry) VALUES ($1, $2)`, n, []byte(`{"seq":700}`)); err != nil {
		t.Fatal(err)
	}
	if err := raw.Exec(`UPDATE journal_state SET size = size + 1`); err != nil {
		t.Fatal(err)
	}
	if err := l.Integrate(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := l.Sign(ctx, signed.Add(2*time.Minute)); !ok || err != nil {
		t.Fatalf("the checkpoint after the migration: %v %v", ok, err)
	}
	drop := `DROP TRIGGER journal_tiles_only_extended`
	if m.Dialect == sqlstore.PostgreSQL {
		drop += ` ON journal_tiles`
	}
	if err := raw.Exec(drop); err != nil {
		t.Fatal(err)
	}
	// The third tile of leaves, entries 512 to 700, made zeros.
	if err := raw.Exec(`UPDATE journal_tiles SET hashes = $1 WHERE level = 0 AND n = 2`, make([]byte, (n+1-512)*tlog.HashSize)); err != nil {
		t.Fatal(err)
	}
	if err := raw.Exec(`INSERT INTO journal (seq, entry) VALUES ($1, $2)`, n+1, []byte(`{"seq":701}`)); err != nil {
		t.Fatal(err)
	}
	if err := raw.Exec(`UPDATE journal_state SET size = size + 1`); err != nil {
		t.Fatal(err)
	}
	if err := l.Integrate(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := l.Sign(ctx, signed.Add(3*time.Minute)); ok || !errors.Is(err, journal.ErrFork) {
		t.Fatalf("a checkpoint over a rewritten tile: %v %v, want journal.ErrFork", ok, err)
	}
}
