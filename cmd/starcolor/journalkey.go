package main

import (
	"context"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"golang.org/x/mod/sumdb/note"

	"starcolor/internal/app"
	"starcolor/internal/journal"
)

// The journal's key file, as far as the stores need it: the account key of the journal's entries
// (docs/spec/API.md 1.2), derived from the file's signer key. The file is the one the journal's
// checkpoints are signed with (serve --journal-key FILE): two lines, the note signer key and its
// verifier key, made on the first start when absent, readable by its owner only.
//
// Interim: the journal's own reading of its key file (internal/journal, with the signer) takes
// the place of interimJournalAccountKey once it lands. It must derive the same account key.

// journalKeyEnv names the variable that gives the commands the journal's key file, as serve's
// --journal-key does.
const journalKeyEnv = "STARCOLOR_JOURNAL_KEY"

// journalKeyPath is the journal's key file of a database: $STARCOLOR_JOURNAL_KEY, else beside a
// SQLite file (FILE.journal-key), else starcolor-journal.key in the working directory
// (PostgreSQL).
func journalKeyPath(db string) string {
	if p := os.Getenv(journalKeyEnv); p != "" {
		return p
	}
	if app.IsPostgres(db) {
		return "starcolor-journal.key"
	}
	return db + ".journal-key"
}

// accountKeyInfo is the HKDF info the account key is derived with, from the signer key's line.
const accountKeyInfo = "starcolor journal account key v1"

// interimJournalAccountKey reads the journal's account key from the key file at path, making the
// file first if there is none: a new note key named starcolor-journal-<8 hex digits>, of mode
// 0600 (of two processes making it at once, one does and the other reads it). A file that group or others may read is refused: the key signs the journal, and its
// account key links a player's entries.
func interimJournalAccountKey(path string) (*journal.AccountKey, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := makeJournalKey(path); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("the journal's key %s: %w", path, err)
		}
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("the journal's key: %w", err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("the journal's key: %w", err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("the journal's key %s may be read by others (mode %v): chmod 600 it", path, st.Mode().Perm())
	}
	signer, _, _ := strings.Cut(string(data), "\n")
	if _, err := note.NewSigner(signer); err != nil {
		return nil, fmt.Errorf("the journal's key %s: its first line is not a note signer key: %w", path, err)
	}
	k, err := hkdf.Key(sha256.New, []byte(signer), nil, accountKeyInfo, len(journal.AccountKey{}))
	if err != nil {
		return nil, err
	}
	return (*journal.AccountKey)(k), nil
}

// makeJournalKey writes a new key file at path, unless one is there (fs.ErrExist). It is written
// whole beside it first, then linked into place: a process that finds the file finds it whole.
func makeJournalKey(path string) error {
	var b [4]byte
	rand.Read(b[:])
	skey, vkey, err := note.GenerateKey(rand.Reader, "starcolor-journal-"+hex.EncodeToString(b[:]))
	if err != nil {
		return err
	}
	tmp := fmt.Sprintf("%s.new-%x", path, b)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	_, err = f.WriteString(skey + "\n" + vkey + "\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Link(tmp, path)
}

// openStore opens the store a --db names (app.OpenStore), its journal's account key read from
// the database's key file (journalKeyPath).
func openStore(ctx context.Context, db string) (app.Store, error) {
	return openStoreKeyed(ctx, db, journalKeyPath(db))
}

// openStoreKeyed opens the store a --db names, its journal's account key read from keyFile.
func openStoreKeyed(ctx context.Context, db, keyFile string) (app.Store, error) {
	key, err := interimJournalAccountKey(keyFile)
	if err != nil {
		return nil, err
	}
	return app.OpenStore(ctx, db, key)
}
