package fakewallet

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
)

// txn is the writer's transaction, on the database's one connection taken whole (sql.Conn.Raw),
// its statements run prepared: each is prepared once on that connection, the first time it runs,
// and is then looked up by its text. It has sql.Tx's methods that the calls use.
//
// It talks to the driver directly because database/sql costs more than SQLite here: SQLite
// otherwise parses and plans every statement each time it runs, and a query in an sql.Tx starts
// a goroutine (to close its rows if the transaction's context ends) and allocates a context and
// a map. The statements run with the writer's context, never done: none is interrupted (which
// would undo the whole transaction), and the driver watches no context either.
type txn struct {
	s    *Store
	conn driver.Conn
	open bool                // BEGIN ran, not yet COMMIT or ROLLBACK
	args []driver.NamedValue // reused by each statement
}

// stmt is a statement prepared on the connection.
func (t *txn) stmt(ctx context.Context, query string) (driver.Stmt, error) {
	if st, ok := t.s.stmts[query]; ok {
		return st, nil
	}
	var (
		st  driver.Stmt
		err error
	)
	if p, ok := t.conn.(driver.ConnPrepareContext); ok {
		st, err = p.PrepareContext(ctx, query)
	} else {
		st, err = t.conn.Prepare(query)
	}
	if err != nil {
		return nil, err
	}
	t.s.stmts[query] = st
	return st, nil
}

// named converts a statement's arguments as database/sql does for a driver without a converter
// of its own (an int becomes an int64, and so on).
func (t *txn) named(args []any) ([]driver.NamedValue, error) {
	t.args = t.args[:0]
	for i, a := range args {
		v, err := driver.DefaultParameterConverter.ConvertValue(a)
		if err != nil {
			return nil, fmt.Errorf("sql: converting argument $%d type: %w", i+1, err)
		}
		t.args = append(t.args, driver.NamedValue{Ordinal: i + 1, Value: v})
	}
	return t.args, nil
}

// ExecContext is sql.Tx's.
func (t *txn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := t.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	nv, err := t.named(args)
	if err != nil {
		return nil, err
	}
	if e, ok := st.(driver.StmtExecContext); ok {
		return e.ExecContext(ctx, nv)
	}
	return nil, errors.New("the driver's statements have no ExecContext")
}

// QueryRowContext is sql.Tx's: the first row of a query, read at once.
func (t *txn) QueryRowContext(ctx context.Context, query string, args ...any) *row {
	st, err := t.stmt(ctx, query)
	if err != nil {
		return &row{err: err}
	}
	nv, err := t.named(args)
	if err != nil {
		return &row{err: err}
	}
	q, ok := st.(driver.StmtQueryContext)
	if !ok {
		return &row{err: errors.New("the driver's statements have no QueryContext")}
	}
	rows, err := q.QueryContext(ctx, nv)
	if err != nil {
		return &row{err: err}
	}
	vals := make([]driver.Value, len(rows.Columns()))
	err = rows.Next(vals)
	if errors.Is(err, io.EOF) {
		err = sql.ErrNoRows
	}
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	return &row{vals: vals, err: err}
}

// row is a row read by QueryRowContext, or its error (sql.ErrNoRows if there was none).
type row struct {
	vals []driver.Value
	err  error
}

// Scan is sql.Row's, for the types the calls read: *string, *[]byte (the driver's copy of the
// value, which no one else holds), *int64, *int, *bool (from 0 or 1).
func (r *row) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	if len(dest) != len(r.vals) {
		return fmt.Errorf("sql: expected %d destination arguments in Scan, not %d", len(r.vals), len(dest))
	}
	for i, d := range dest {
		if err := scan(d, r.vals[i]); err != nil {
			return fmt.Errorf("sql: Scan error on column index %d: %w", i, err)
		}
	}
	return nil
}

func scan(dest any, src driver.Value) error {
	switch d := dest.(type) {
	case *string:
		switch s := src.(type) {
		case string:
			*d = s
			return nil
		case []byte:
			*d = string(s)
			return nil
		}
	case *[]byte:
		switch s := src.(type) {
		case []byte:
			*d = s
			return nil
		case string:
			*d = []byte(s)
			return nil
		case nil:
			*d = nil
			return nil
		}
	case *int64:
		if s, ok := src.(int64); ok {
			*d = s
			return nil
		}
	case *int:
		if s, ok := src.(int64); ok && int64(int(s)) == s {
			*d = int(s)
			return nil
		}
	case *bool:
		if s, ok := src.(int64); ok && (s == 0 || s == 1) {
			*d = s == 1
			return nil
		}
	}
	return fmt.Errorf("cannot store %T (%v) into %T", src, src, dest)
}

// exec runs a statement of the transaction's own (BEGIN, SAVEPOINT…).
func (t *txn) exec(ctx context.Context, query string) error {
	_, err := t.ExecContext(ctx, query)
	return err
}

// begin begins the transaction, taking the write lock at once.
func (t *txn) begin(ctx context.Context) error {
	if err := t.exec(ctx, `BEGIN IMMEDIATE`); err != nil {
		return err
	}
	t.open = true
	return nil
}

// commit commits the transaction, which stays open if that fails.
func (t *txn) commit(ctx context.Context) error {
	err := t.exec(ctx, `COMMIT`)
	if err == nil {
		t.open = false
	}
	return err
}

// rollback rolls the transaction back if it is open.
func (t *txn) rollback(ctx context.Context) error {
	if !t.open {
		return nil
	}
	if err := t.exec(ctx, `ROLLBACK`); err != nil {
		return err
	}
	t.open = false
	return nil
}

// closeStmts closes the statements prepared on the connection.
func (s *Store) closeStmts() {
	c, err := s.db.Conn(context.Background())
	if err != nil {
		return
	}
	defer c.Close()
	c.Raw(func(dc any) error {
		if dc == s.stmtsConn {
			for _, st := range s.stmts {
				st.Close()
			}
		}
		return nil
	})
	s.stmts, s.stmtsConn = nil, nil
}
