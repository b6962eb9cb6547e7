package main

import (
	"context"

	"starcolor/internal/app"
)

// The journal's key file, as the stores need it: the account key of the journal's entries
// (docs/spec/API.md 1.2), derived from the file's signer key (journal.Key). The servers and the
// commands of one database find the same file. The first to open the database makes it; a
// database whose journal has entries must be given its own.

// journalKeyEnv names the variable that gives the commands the journal's key file, as serve's
// --journal-key does.
const journalKeyEnv = app.JournalKeyEnv

// journalKeyPath is the journal's key file of a database (app.JournalKeyPath).
func journalKeyPath(db string) string { return app.JournalKeyPath(db) }

// openStore opens the store a --db names for a command (app.OpenCommandStore), its journal's
// account key read from the database's key file (journalKeyPath).
func openStore(ctx context.Context, db string) (app.Store, error) {
	return openStoreKeyed(ctx, db, journalKeyPath(db))
}

// openStoreKeyed opens the store a --db names, its journal's account key read from keyFile, which
// is made first for a database whose journal is empty (app.OpenKeyed).
func openStoreKeyed(ctx context.Context, db, keyFile string) (app.Store, error) {
	s, _, _, err := app.OpenKeyed(ctx, db, keyFile, "", app.OpenCommandStore)
	return s, err
}
