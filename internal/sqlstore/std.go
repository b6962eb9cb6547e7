package sqlstore

import (
	"context"
	"database/sql"
)

// StdQuerier is what database/sql's DB, Conn and Tx have in common.
type StdQuerier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Std adapts a database/sql database, connection or transaction (SQLite's, or a test's) to a
// Querier.
func Std(q StdQuerier) Querier { return std{q} }

type std struct{ q StdQuerier }

func (s std) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	r, err := s.q.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return r.RowsAffected()
}

func (s std) Query(ctx context.Context, query string, args ...any) (Rows, error) {
	r, err := s.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return stdRows{r}, nil
}

func (s std) QueryRow(ctx context.Context, query string, args ...any) Row {
	return s.q.QueryRowContext(ctx, query, args...)
}

// stdRows are database/sql's rows, closed as pgx's are (their error is Err's).
type stdRows struct{ *sql.Rows }

func (r stdRows) Close() { r.Rows.Close() }

// TxBeginner is what InStdTx begins a transaction on: a pool (*sql.DB) or one of its
// connections (*sql.Conn).
type TxBeginner interface {
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
}

// InStdTx runs fn in a transaction of db, committed if fn returns nil.
func InStdTx(ctx context.Context, db TxBeginner, fn func(Querier) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(Std(tx)); err != nil {
		return err
	}
	return tx.Commit()
}
