// Package sqlstore is what the SQLite store (internal/sqlite) and the PostgreSQL store
// (internal/postgres) share: one history of the schema for both (migrations/, migrate.go), and
// the querier both drivers run it through, each behind a thin adapter of its own.
//
// A statement written here is written once for both databases. Its parameters are numbered as
// PostgreSQL numbers them ($1, $2, …), which SQLite reads too: modernc's driver binds a
// parameter named $N to the Nth argument (TestDollarParameters), so no statement is rewritten
// at run time, and a parameter used twice is written once. Where the dialects differ, the
// difference is a method of Dialect, in one place.
package sqlstore

import (
	"context"
)

// Querier runs statements: a connection, a pool or a transaction of either driver, through its
// store's adapter.
type Querier interface {
	// Exec runs a statement and returns how many rows it changed.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	// Query runs a statement that returns rows.
	Query(ctx context.Context, query string, args ...any) (Rows, error)
	// QueryRow runs a statement that returns one row; its error, sql.ErrNoRows when it returns
	// none (which pgx.ErrNoRows wraps too), comes out of Scan.
	QueryRow(ctx context.Context, query string, args ...any) Row
}

// Row is one row of a result, as both drivers give it.
type Row interface {
	Scan(dest ...any) error
}

// Rows is the rows of a result, as both drivers give them.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}
