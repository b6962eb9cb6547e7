package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"starcolor/internal/journal"
	"starcolor/internal/sqlstore"
)

// The PostgreSQL store's ways of running the statements written once (internal/sqlstore): reads
// on the pool; a write of one statement on the pool too, committed on its own; other writes in a
// transaction, run again on a conflict (inTx).

// shared makes the part of the store written once for both dialects, its journal's entries made
// under key.
func (d *DB) shared(key *journal.AccountKey) *sqlstore.DB {
	return sqlstore.New(sqlstore.Config{
		Dialect: sqlstore.PostgreSQL,
		Read:    pgxQ{d.pool},
		Snapshot: func(ctx context.Context, fn func(sqlstore.Querier) error) error {
			return pgx.BeginTxFunc(ctx, d.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
				func(tx pgx.Tx) error { return fn(pgxQ{tx}) })
		},
		Once: onceQ{d},
		Write: func(ctx context.Context, fn func(sqlstore.Querier) error) error {
			return d.inTx(ctx, func(tx pgx.Tx) error { return fn(pgxQ{tx}) })
		},
		Fault:      asFault,
		Health:     &d.health,
		Unique:     func(err error) bool { return isCode(err, "23505", "") },
		AccountKey: key,
		Pages:      d,
	})
}

// pgxQ is a pgx pool, connection or transaction (a querier) as the statements written once run
// on it.
type pgxQ struct{ q querier }

func (p pgxQ) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := p.q.Exec(ctx, query, args...)
	return tag.RowsAffected(), err
}

func (p pgxQ) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	return p.q.Query(ctx, query, args...)
}

func (p pgxQ) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return p.q.QueryRow(ctx, query, args...)
}

// copyFromer is a pgx pool, connection or transaction, which all bulk-load with COPY.
type copyFromer interface {
	CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error)
}

// CopyFrom loads rows into table with COPY, for the journal's appends (sqlstore's copier).
func (p pgxQ) CopyFrom(ctx context.Context, table string, columns []string, rows [][]any) (int64, error) {
	c, ok := p.q.(copyFromer)
	if !ok {
		return 0, fmt.Errorf("%T cannot COPY", p.q)
	}
	return c.CopyFrom(ctx, pgx.Identifier{table}, columns, pgx.CopyFromRows(rows))
}

// onceQ runs each statement on the pool, committed on its own, its error noted (noteWrite).
type onceQ struct{ d *DB }

func (o onceQ) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := o.d.pool.Exec(ctx, query, args...)
	return tag.RowsAffected(), o.d.noteWrite(err)
}

func (o onceQ) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	rows, err := o.d.pool.Query(ctx, query, args...)
	return rows, o.d.noteWrite(err)
}

func (o onceQ) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return onceRow{o.d, o.d.pool.QueryRow(ctx, query, args...)}
}

type onceRow struct {
	d   *DB
	row pgx.Row
}

func (r onceRow) Scan(dest ...any) error { return r.d.noteWrite(r.row.Scan(dest...)) }
