package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/mod/sumdb/note"

	"starcolor/internal/journal"
)

// The journal's key file, as the stores need it: beside a SQLite file, here for PostgreSQL, or
// where $STARCOLOR_JOURNAL_KEY says; made when absent, once whoever makes it at
// once, readable by its owner only, two note keys that sign and verify; its account key the same
// at every reading and another for another file; a file others may read is refused.
func TestJournalAccountKey(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "g.db.journal-key")
	t.Setenv(journalKeyEnv, "")
	if got := journalKeyPath(filepath.Join(dir, "g.db")); got != path {
		t.Errorf("the key file of a SQLite file: %s, want %s", got, path)
	}
	if got := journalKeyPath("postgres://h/db"); got != "starcolor-journal.key" {
		t.Errorf("the key file of a PostgreSQL database: %s, want starcolor-journal.key here", got)
	}
	t.Setenv(journalKeyEnv, "/etc/k")
	if got := journalKeyPath(filepath.Join(dir, "g.db")); got != "/etc/k" {
		t.Errorf("the key file $%s names: %s", journalKeyEnv, got)
	}
	keys := make([]*journal.AccountKey, 8)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Go(func() {
			k, err := interimJournalAccountKey(path)
			if err != nil {
				t.Error(err)
			}
			keys[i] = k
		})
	}
	wg.Wait()
	for _, k := range keys {
		if k == nil || *k != *keys[0] {
			t.Fatalf("the account keys of one file made at once differ: %x, %x", k, keys[0])
		}
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the key file: %v, %v; want mode 0600", st.Mode(), err)
	}
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "starcolor-journal-") {
		t.Fatalf("the key file: %q, want a signer and a verifier key", data)
	}
	signer, err := note.NewSigner(lines[0])
	if err != nil {
		t.Fatal(err)
	}
	verifier, err := note.NewVerifier(lines[1])
	if err != nil {
		t.Fatal(err)
	}
	msg, err := note.Sign(&note.Note{Text: "a checkpoint\n"}, signer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := note.Open(msg, note.VerifierList(verifier)); err != nil {
		t.Fatalf("a note signed with the file's key does not verify with its verifier: %v", err)
	}
	again, err := interimJournalAccountKey(path)
	if err != nil || *again != *keys[0] {
		t.Fatalf("the account key read again: %x, %v; want %x", again, err, keys[0])
	}
	other, err := interimJournalAccountKey(filepath.Join(dir, "other.journal-key"))
	if err != nil || *other == *keys[0] {
		t.Fatalf("another file's account key: %x, %v", other, err)
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if _, err := interimJournalAccountKey(path); err == nil || !strings.Contains(err.Error(), "may be read by others") {
		t.Fatalf("a key file the group may read: %v, want it refused", err)
	}
}
