package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	sqlite3 "modernc.org/sqlite/lib"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// CreateOperator registers an operator and logs it, in one write; a name already taken (whatever
// its case) is fault.UsernameTaken.
func (d *DB) CreateOperator(ctx context.Context, name, passwordHash string, log lottery.OperatorAction) (lottery.Operator, error) {
	var o lottery.Operator
	err := d.update(ctx, func(t *tx) error {
		// The writer runs one write at a time: no other operator is made between this check and
		// the insert.
		if err := t.operatorNameFree(name); err != nil {
			return err
		}
		res, err := t.exec(`INSERT INTO operators (name, password_hash, created_at) VALUES (?, ?, ?)`, name, passwordHash, storedTime(log.CreatedAt))
		if isConstraint(err, sqlite3.SQLITE_CONSTRAINT_UNIQUE) {
			return fault.Errorf(fault.UsernameTaken, "the operator %q already exists", name)
		}
		if err != nil {
			return err
		}
		id, _ := res.LastInsertId()
		o = lottery.Operator{ID: id, Name: name, PasswordHash: passwordHash}
		log.OperatorID, log.Name = id, name
		return t.logAction(log)
	})
	return o, err
}

// operatorNameFree refuses a name that reads like an operator's (lottery.OperatorNameTaken).
func (t *tx) operatorNameFree(name string) error {
	var names []string
	if err := t.rows(func(rows *sql.Rows) error {
		var n string
		err := rows.Scan(&n)
		names = append(names, n)
		return err
	}, `SELECT name FROM operators`); err != nil {
		return err
	}
	return lottery.OperatorNameTaken(name, names)
}

func scanOperator(row scanner) (lottery.Operator, error) {
	var o lottery.Operator
	err := row.Scan(&o.ID, &o.Name, &o.PasswordHash)
	if errors.Is(err, sql.ErrNoRows) {
		return o, fault.Errorf(fault.NotFound, "no such operator")
	}
	return o, asFault(err)
}

const operatorColumns = `id, name, password_hash`

// OperatorByName finds an operator by name (case does not matter).
func (d *DB) OperatorByName(ctx context.Context, name string) (lottery.Operator, error) {
	return scanOperator(d.db.QueryRowContext(ctx, `SELECT `+operatorColumns+` FROM operators WHERE name = ?`, name))
}

// OperatorByID finds an operator by id.
func (d *DB) OperatorByID(ctx context.Context, id int64) (lottery.Operator, error) {
	return scanOperator(d.db.QueryRowContext(ctx, `SELECT `+operatorColumns+` FROM operators WHERE id = ?`, id))
}

// LogOperatorAction appends a line to the operators' log.
func (d *DB) LogOperatorAction(ctx context.Context, a lottery.OperatorAction) error {
	return d.update(ctx, func(t *tx) error { return t.logAction(a) })
}

func (t *tx) logAction(a lottery.OperatorAction) error {
	var op any
	if a.OperatorID > 0 {
		op = a.OperatorID
	}
	_, err := t.exec(`INSERT INTO operator_log (operator_id, name, action, detail, remote, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		op, a.Name, a.Action, a.Detail, a.Remote, storedTime(a.CreatedAt))
	return err
}

// OperatorLog lists the latest lines of the operators' log, newest first, before an id (0: from
// the newest).
func (d *DB) OperatorLog(ctx context.Context, limit int, before int64) ([]lottery.OperatorAction, error) {
	if before <= 0 {
		before = 1<<63 - 1
	}
	rows, err := d.db.QueryContext(ctx, `SELECT id, coalesce(operator_id, 0), name, action, detail, remote, created_at
		FROM operator_log WHERE id < ? ORDER BY id DESC LIMIT ?`, before, limit)
	if err != nil {
		return nil, asFault(err)
	}
	defer rows.Close()
	var out []lottery.OperatorAction
	for rows.Next() {
		var a lottery.OperatorAction
		var created string
		if err := rows.Scan(&a.ID, &a.OperatorID, &a.Name, &a.Action, &a.Detail, &a.Remote, &created); err != nil {
			return nil, asFault(err)
		}
		a.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
		out = append(out, a)
	}
	return out, asFault(rows.Err())
}
