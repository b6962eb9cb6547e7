package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"starcolor/internal/journal"
	"starcolor/internal/postgres"
	"starcolor/internal/sqlite"
)

// IsPostgres tells whether a --db names a PostgreSQL database (a postgres:// or postgresql://
// URL) rather than a SQLite file.
func IsPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// OpenStore opens the store a --db names, bringing its schema up to date: a PostgreSQL database
// for a postgres:// URL (any number of servers may share it), else a SQLite file (one server
// sells from it; serve holds its lock). key makes the account references of the journal's
// entries: the servers and commands of one database share it (its key file).
func OpenStore(ctx context.Context, db string, key *journal.AccountKey) (Store, error) {
	if IsPostgres(db) {
		return postgres.Open(ctx, db, key)
	}
	return sqlite.Open(ctx, db, key)
}

// OpenCommandStore opens the store a --db names as OpenStore does, for a command rather than a
// server: a command's memory stays bounded whatever the history (sqlite.OpenCommand).
func OpenCommandStore(ctx context.Context, db string, key *journal.AccountKey) (Store, error) {
	if IsPostgres(db) {
		return postgres.Open(ctx, db, key)
	}
	return sqlite.OpenCommand(ctx, db, key)
}

// JournalKeyEnv names the variable that gives the commands the journal's key file, as serve's
// --journal-key does.
const JournalKeyEnv = "STARCOLOR_JOURNAL_KEY"

// JournalKeyPath is the journal's key file of a database: $STARCOLOR_JOURNAL_KEY, else beside a
// SQLite file (FILE.journal-key), else starcolor-journal.key in the working directory
// (PostgreSQL). The servers and the commands of one database find the same file.
func JournalKeyPath(db string) string {
	if p := os.Getenv(JournalKeyEnv); p != "" {
		return p
	}
	if IsPostgres(db) {
		return "starcolor-journal.key"
	}
	return db + ".journal-key"
}

// Opener opens the store a --db names with the journal's account key: OpenStore, or
// OpenCommandStore.
type Opener func(ctx context.Context, db string, key *journal.AccountKey) (Store, error)

// OpenKeyed reads a database's journal key file at path and opens its store with the key. A key
// file is made only for a database whose journal is empty. A new key for a journal with entries
// would reference their accounts under another key, and sign nothing (CheckJournalKey). The
// file left beside the database would then be found first by every command.
//
//  1. The key file is read. If there is one, the store is opened with it.
//  2. Else a new key is made in memory and the store opened with it.
//  3. A journal with entries, appended or queued, or signed for a key, is refused. Nothing is
//     written.
//  4. Else the key file is written. If another process wrote one meanwhile, the store is opened
//     again with theirs.
//
// name, when not "", is the name the key must have. made tells whether the key file was made.
func OpenKeyed(ctx context.Context, db, path, name string, open Opener) (s Store, key *journal.Key, made bool, err error) {
	key, err = journal.LoadKey(path)
	if errors.Is(err, fs.ErrNotExist) {
		return openNewKey(ctx, db, path, name, open)
	}
	if err != nil {
		return nil, nil, false, err
	}
	if name != "" && key.Origin != name {
		return nil, nil, false, fmt.Errorf("journal: the key file %s holds the key %q, not %q", path, key.Origin, name)
	}
	s, err = open(ctx, db, &key.AccountKey)
	return s, key, false, err
}

// openNewKey is OpenKeyed's steps 2 to 4.
func openNewKey(ctx context.Context, db, path, name string, open Opener) (Store, *journal.Key, bool, error) {
	key, text, err := journal.GenerateKey(name)
	if err != nil {
		return nil, nil, false, err
	}
	s, err := open(ctx, db, &key.AccountKey)
	if err != nil {
		return nil, nil, false, err
	}
	st, err := s.JournalState(ctx)
	if err == nil && (st.Size > 0 || st.Queued > 0 || st.Verifier != "") {
		signed := "signed for " + st.Verifier
		if st.Verifier == "" {
			signed = "not signed yet"
		}
		err = fmt.Errorf("journal: there is no key file at %s, and this database's journal holds %d entries and %d queued (%s): "+
			"give its key file (--journal-key, or $%s); a new key would not be its key", path, st.Size, st.Queued, signed, JournalKeyEnv)
	}
	if err == nil {
		err = journal.WriteKey(path, text)
		if errors.Is(err, fs.ErrExist) {
			// Another server or command made it meanwhile: theirs is the key.
			s.Close()
			return OpenKeyed(ctx, db, path, name, open)
		}
	}
	if err != nil {
		s.Close()
		return nil, nil, false, err
	}
	return s, key, true, nil
}
