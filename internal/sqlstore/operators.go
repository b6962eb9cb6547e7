package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// CreateOperator registers an operator and logs it (in the operators' log and the journal), in
// one write; a name already taken (whatever its case) is fault.UsernameTaken.
func (s *DB) CreateOperator(ctx context.Context, name, passwordHash string, roles lottery.Roles, log lottery.OperatorAction) (lottery.Operator, error) {
	if roles == 0 || roles&^lottery.AllRoles != 0 {
		return lottery.Operator{}, fault.Errorf(fault.Invalid, "an operator has at least one role")
	}
	var o lottery.Operator
	err := s.write(ctx, func(q Querier) error {
		// One creation at a time, on every server, between the check and the insert.
		if err := s.d.lock(ctx, q, "starcolor:operators"); err != nil {
			return err
		}
		var names []string
		if err := each(q.Query(ctx, `SELECT name FROM operators`))(func(r Rows) error {
			var n string
			err := r.Scan(&n)
			names = append(names, n)
			return err
		}); err != nil {
			return err
		}
		if err := lottery.OperatorNameTaken(name, names); err != nil {
			return err
		}
		var id int64
		err := q.QueryRow(ctx, `INSERT INTO operators (name, password_hash, roles, created_at) VALUES ($1, $2, $3, $4) RETURNING id`,
			name, passwordHash, roles.String(), s.d.Time(log.CreatedAt)).Scan(&id)
		if s.unique(err) {
			return fault.Errorf(fault.UsernameTaken, "the operator %q already exists", name)
		}
		if err != nil {
			return err
		}
		o = lottery.Operator{ID: id, Name: name, PasswordHash: passwordHash, Roles: roles}
		log.OperatorID, log.Name = id, name
		return s.logAction(ctx, q, log)
	})
	return o, err
}

const operatorColumns = `id, name, password_hash, roles, disabled_at IS NOT NULL`

func (s *DB) scanOperator(row Row) (lottery.Operator, error) {
	var o lottery.Operator
	var roles string
	err := row.Scan(&o.ID, &o.Name, &o.PasswordHash, &roles, &o.Disabled)
	if errors.Is(err, sql.ErrNoRows) {
		return o, fault.Errorf(fault.NotFound, "no such operator")
	}
	if err != nil {
		return o, s.fault(err)
	}
	// Roles written by hand that do not read are no roles at all, not a guess.
	if o.Roles, err = lottery.ParseRoles(roles); err != nil {
		return o, fmt.Errorf("the operator %d's roles %q: %w", o.ID, roles, err)
	}
	return o, nil
}

// OperatorByName finds an operator by name (case does not matter: operators' names are ASCII,
// checked at their creation).
func (s *DB) OperatorByName(ctx context.Context, name string) (lottery.Operator, error) {
	return s.scanOperator(s.read.QueryRow(ctx, `SELECT `+operatorColumns+` FROM operators WHERE lower(name) = lower($1)`, name))
}

// OperatorByID finds an operator by id.
func (s *DB) OperatorByID(ctx context.Context, id int64) (lottery.Operator, error) {
	return s.scanOperator(s.read.QueryRow(ctx, `SELECT `+operatorColumns+` FROM operators WHERE id = $1`, id))
}

// LogOperatorAction appends a line to the operators' log, and to the journal.
func (s *DB) LogOperatorAction(ctx context.Context, a lottery.OperatorAction) error {
	return s.fault(s.write(ctx, func(q Querier) error { return s.logAction(ctx, q, a) }))
}

// logAction appends a line to the operators' log and its entry to the journal, as the last
// statements of a write. A failed login under a name no operator has stays out of the journal:
// the name is whatever was typed, maybe a password, and the journal is public.
func (s *DB) logAction(ctx context.Context, q Querier, a lottery.OperatorAction) error {
	if err := LogAction(ctx, q, s.d, a); err != nil {
		return err
	}
	if a.OperatorID == 0 {
		return nil
	}
	return s.AppendJournal(ctx, q, a.CreatedAt, OperatorEvent(a))
}

// LogAction appends a line to the operators' log, in a write of the store's own. The write
// journals it too (OperatorEvent).
func LogAction(ctx context.Context, q Querier, d Dialect, a lottery.OperatorAction) error {
	var op any
	if a.OperatorID > 0 {
		op = a.OperatorID
	}
	_, err := q.Exec(ctx, `INSERT INTO operator_log (operator_id, name, action, detail, remote, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		op, a.Name, a.Action, a.Detail, a.Remote, d.Time(a.CreatedAt))
	return err
}

// OperatorLog lists the latest lines of the operators' log, newest first, before an id (0: from
// the newest).
func (s *DB) OperatorLog(ctx context.Context, limit int, before int64) ([]lottery.OperatorAction, error) {
	if before <= 0 {
		before = 1<<63 - 1
	}
	var out []lottery.OperatorAction
	err := each(s.read.Query(ctx, `SELECT id, coalesce(operator_id, 0), name, action, detail, remote, created_at
		FROM operator_log WHERE id < $1 ORDER BY id DESC LIMIT $2`, before, limit))(func(r Rows) error {
		var a lottery.OperatorAction
		err := r.Scan(&a.ID, &a.OperatorID, &a.Name, &a.Action, &a.Detail, &a.Remote, ScanTime(&a.CreatedAt))
		out = append(out, a)
		return err
	})
	return out, s.fault(err)
}

// Operators lists every operator, by name.
func (s *DB) Operators(ctx context.Context) ([]lottery.Operator, error) {
	var out []lottery.Operator
	err := each(s.read.Query(ctx, `SELECT `+operatorColumns+` FROM operators ORDER BY lower(name)`))(func(r Rows) error {
		o, err := s.scanOperator(r)
		o.PasswordHash = ""
		out = append(out, o)
		return err
	})
	return out, s.fault(err)
}

// ChangeOperator disables or enables the operator id, gives them a new password hash, or ends
// their sessions, in one write with its line in the operators' log. Disabling and a new password
// end their sessions too. Disabling one disabled, or enabling one who is not, is
// fault.InvalidState; no such operator, fault.NotFound.
func (s *DB) ChangeOperator(ctx context.Context, id int64, change, passwordHash string, log lottery.OperatorAction) error {
	return s.fault(s.write(ctx, func(q Querier) error {
		if err := s.d.lock(ctx, q, "starcolor:operators"); err != nil {
			return err
		}
		o, err := s.scanOperator(q.QueryRow(ctx, `SELECT `+operatorColumns+` FROM operators WHERE id = $1`, id))
		if err != nil {
			return err
		}
		switch change {
		case lottery.OperatorDisable:
			if o.Disabled {
				return fault.Errorf(fault.InvalidState, "%s is disabled already", o.Name)
			}
			_, err = q.Exec(ctx, `UPDATE operators SET disabled_at = $1 WHERE id = $2`, s.d.Time(log.CreatedAt), id)
		case lottery.OperatorEnable:
			if !o.Disabled {
				return fault.Errorf(fault.InvalidState, "%s is not disabled", o.Name)
			}
			_, err = q.Exec(ctx, `UPDATE operators SET disabled_at = NULL WHERE id = $1`, id)
		case lottery.OperatorNewPassword:
			if passwordHash == "" {
				return fault.Errorf(fault.Invalid, "no password")
			}
			_, err = q.Exec(ctx, `UPDATE operators SET password_hash = $1 WHERE id = $2`, passwordHash, id)
		case lottery.OperatorEndSessions:
		default:
			return fault.Errorf(fault.Invalid, "no such change of an operator: %s", change)
		}
		if err != nil {
			return err
		}
		if change != lottery.OperatorEnable {
			if _, err := q.Exec(ctx, `DELETE FROM sessions WHERE kind = $1 AND owner_id = $2`, lottery.OperatorSession, id); err != nil {
				return err
			}
		}
		return s.logAction(ctx, q, log)
	}))
}
