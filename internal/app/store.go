package app

import (
	"context"
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
