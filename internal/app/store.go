package app

import (
	"context"
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
