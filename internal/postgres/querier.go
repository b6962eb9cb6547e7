package postgres

import (
	"context"

	"starcolor/internal/sqlstore"
)

// pgxQ is a pgx pool, connection or transaction (a querier) as the statements shared with
// SQLite (internal/sqlstore) run on it.
type pgxQ struct{ q querier }

// Exec runs a statement and returns how many rows it changed.
func (p pgxQ) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := p.q.Exec(ctx, query, args...)
	return tag.RowsAffected(), err
}

// Query runs a statement that returns rows.
func (p pgxQ) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	return p.q.Query(ctx, query, args...)
}

// QueryRow runs a statement that returns one row.
func (p pgxQ) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return p.q.QueryRow(ctx, query, args...)
}
