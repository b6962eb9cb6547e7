package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// CreateOperator registers an operator and logs it, in one transaction; a name already taken
// (whatever its case) is fault.UsernameTaken.
func (d *DB) CreateOperator(ctx context.Context, name, passwordHash string, log lottery.OperatorAction) (lottery.Operator, error) {
	var o lottery.Operator
	err := d.inTx(ctx, func(tx pgx.Tx) error {
		// One creation at a time, on every server, between the check and the insert.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('starcolor:operators', 0))`); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT name FROM operators`)
		if err != nil {
			return err
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		if err := lottery.OperatorNameTaken(name, names); err != nil {
			return err
		}
		var id int64
		err = tx.QueryRow(ctx, `INSERT INTO operators (name, password_hash, created_at) VALUES ($1, $2, $3) RETURNING id`,
			name, passwordHash, log.CreatedAt).Scan(&id)
		if isCode(err, "23505", "operators_by_name") {
			return fault.Errorf(fault.UsernameTaken, "the operator %q already exists", name)
		}
		if err != nil {
			return err
		}
		o = lottery.Operator{ID: id, Name: name, PasswordHash: passwordHash}
		log.OperatorID, log.Name = id, name
		return logAction(ctx, tx, log)
	})
	return o, err
}

func scanOperator(row pgx.Row) (lottery.Operator, error) {
	var o lottery.Operator
	err := row.Scan(&o.ID, &o.Name, &o.PasswordHash)
	if errors.Is(err, pgx.ErrNoRows) {
		return o, fault.Errorf(fault.NotFound, "no such operator")
	}
	return o, asFault(err)
}

// OperatorByName finds an operator by name (case does not matter).
func (d *DB) OperatorByName(ctx context.Context, name string) (lottery.Operator, error) {
	return scanOperator(d.pool.QueryRow(ctx, `SELECT id, name, password_hash FROM operators WHERE lower(name) = lower($1)`, name))
}

// OperatorByID finds an operator by id.
func (d *DB) OperatorByID(ctx context.Context, id int64) (lottery.Operator, error) {
	return scanOperator(d.pool.QueryRow(ctx, `SELECT id, name, password_hash FROM operators WHERE id = $1`, id))
}

// LogOperatorAction appends a line to the operators' log.
func (d *DB) LogOperatorAction(ctx context.Context, a lottery.OperatorAction) error {
	return d.inTx(ctx, func(tx pgx.Tx) error { return logAction(ctx, tx, a) })
}

func logAction(ctx context.Context, tx pgx.Tx, a lottery.OperatorAction) error {
	var op *int64
	if a.OperatorID > 0 {
		op = &a.OperatorID
	}
	_, err := tx.Exec(ctx, `INSERT INTO operator_log (operator_id, name, action, detail, remote, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		op, a.Name, a.Action, a.Detail, a.Remote, a.CreatedAt)
	return err
}

// OperatorLog lists the latest lines of the operators' log, newest first, before an id (0: from
// the newest).
func (d *DB) OperatorLog(ctx context.Context, limit int, before int64) ([]lottery.OperatorAction, error) {
	if before <= 0 {
		before = 1<<63 - 1
	}
	rows, err := d.pool.Query(ctx, `SELECT id, coalesce(operator_id, 0), name, action, detail, remote, created_at
		FROM operator_log WHERE id < $1 ORDER BY id DESC LIMIT $2`, before, limit)
	if err != nil {
		return nil, asFault(err)
	}
	var out []lottery.OperatorAction
	var a lottery.OperatorAction
	_, err = pgx.ForEachRow(rows, []any{&a.ID, &a.OperatorID, &a.Name, &a.Action, &a.Detail, &a.Remote, &a.CreatedAt}, func() error {
		a.CreatedAt = a.CreatedAt.UTC()
		out = append(out, a)
		return nil
	})
	return out, asFault(err)
}
