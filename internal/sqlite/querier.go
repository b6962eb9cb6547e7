package sqlite

import (
	"context"
	"database/sql"
	"errors"

	sqlite3 "modernc.org/sqlite/lib"

	"starcolor/internal/journal"
	"starcolor/internal/sqlstore"
)

// The SQLite store's ways of running the statements written once (internal/sqlstore): reads on
// the pool, through statements prepared once (queryRow); writes through the writer, in its next
// batch, each in a savepoint of its own.

// shared makes the part of the store written once for both dialects, its journal's entries made
// under key.
func (d *DB) shared(key *journal.AccountKey) *sqlstore.DB {
	return sqlstore.New(sqlstore.Config{
		Dialect: sqlstore.SQLite,
		Read:    readQ{d},
		Snapshot: func(ctx context.Context, fn func(sqlstore.Querier) error) error {
			tx, err := d.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
			if err != nil {
				return err
			}
			defer tx.Rollback()
			return fn(sqlstore.Std(tx))
		},
		Once: onceQ{d},
		Write: func(ctx context.Context, fn func(sqlstore.Querier) error) error {
			return d.update(ctx, func(t *tx) error { return fn(txQ{t}) })
		},
		Fault:         asFault,
		Health:        &d.health,
		Unique:        func(err error) bool { return isConstraint(err, sqlite3.SQLITE_CONSTRAINT_UNIQUE) },
		AccountKey:    key,
		Pages:         d,
		StatusChanged: func() { d.statuses.Add(1) },
	})
}

// readQ reads outside the writer.
type readQ struct{ d *DB }

func (r readQ) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	return 0, errors.New("sqlite: a write outside the writer")
}

func (r readQ) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	return sqlstore.Std(r.d.db).Query(ctx, query, args...)
}

func (r readQ) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return r.d.queryRow(ctx, query, args...)
}

// txQ runs statements in the writer's current transaction (a write of the store).
type txQ struct{ t *tx }

func (q txQ) Exec(_ context.Context, query string, args ...any) (int64, error) {
	res, err := q.t.exec(query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (q txQ) Query(_ context.Context, query string, args ...any) (sqlstore.Rows, error) {
	s, err := q.t.w.stmt(q.t.ctx, query)
	if err != nil {
		return nil, err
	}
	return sqlstore.Std(txStmt{s}).Query(q.t.ctx, "", args...)
}

func (q txQ) QueryRow(_ context.Context, query string, args ...any) sqlstore.Row {
	return q.t.queryRow(query, args...)
}

// txStmt is a statement prepared on the writer's connection, as sqlstore.Std runs it.
type txStmt struct{ s *sql.Stmt }

func (s txStmt) ExecContext(ctx context.Context, _ string, args ...any) (sql.Result, error) {
	return s.s.ExecContext(ctx, args...)
}

func (s txStmt) QueryContext(ctx context.Context, _ string, args ...any) (*sql.Rows, error) {
	return s.s.QueryContext(ctx, args...)
}

func (s txStmt) QueryRowContext(ctx context.Context, _ string, args ...any) *sql.Row {
	return s.s.QueryRowContext(ctx, args...)
}

// onceQ runs each statement as a write of its own, through the writer.
type onceQ struct{ d *DB }

func (o onceQ) Exec(ctx context.Context, query string, args ...any) (n int64, err error) {
	err = o.d.update(ctx, func(t *tx) error {
		n, err = txQ{t}.Exec(ctx, query, args...)
		return err
	})
	return n, err
}

func (o onceQ) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	return nil, errors.New("sqlite: rows of a write of one statement: run it in a write")
}

// QueryRow is a write of one statement that returns a row (INSERT … RETURNING): it runs when
// the row is scanned.
func (o onceQ) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return onceRow{o.d, ctx, query, args}
}

type onceRow struct {
	d     *DB
	ctx   context.Context
	query string
	args  []any
}

func (r onceRow) Scan(dest ...any) error {
	return r.d.update(r.ctx, func(t *tx) error { return t.queryRow(r.query, r.args...).Scan(dest...) })
}
