package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	sqlite3 "modernc.org/sqlite/lib"

	"starcolor/internal/fault"
)

// Operator is an account of the back office, apart from the players'.
type Operator struct {
	ID           int64
	Name         string
	PasswordHash string
}

// CreateOperator registers an operator; a name already taken (whatever its case) is
// fault.UsernameTaken.
func (t *Tx) CreateOperator(name, passwordHash string, now time.Time) (Operator, error) {
	res, err := t.exec(`INSERT INTO operators (name, password_hash, created_at) VALUES (?, ?, ?)`,
		name, passwordHash, now.UTC().Format(time.RFC3339Nano))
	if isConstraint(err, sqlite3.SQLITE_CONSTRAINT_UNIQUE) {
		return Operator{}, fault.Errorf(fault.UsernameTaken, "the operator %q already exists", name)
	}
	if err != nil {
		return Operator{}, err
	}
	id, _ := res.LastInsertId()
	return Operator{ID: id, Name: name, PasswordHash: passwordHash}, nil
}

func scanOperator(row *sql.Row) (Operator, error) {
	var o Operator
	err := row.Scan(&o.ID, &o.Name, &o.PasswordHash)
	if errors.Is(err, sql.ErrNoRows) {
		return o, fault.Errorf(fault.NotFound, "no such operator")
	}
	return o, err
}

const operatorColumns = `id, name, password_hash`

// OperatorByName finds an operator by name (case does not matter).
func (d *DB) OperatorByName(ctx context.Context, name string) (Operator, error) {
	return scanOperator(d.db.QueryRowContext(ctx, `SELECT `+operatorColumns+` FROM operators WHERE name = ?`, name))
}

// OperatorByID finds an operator by id.
func (d *DB) OperatorByID(ctx context.Context, id int64) (Operator, error) {
	return scanOperator(d.db.QueryRowContext(ctx, `SELECT `+operatorColumns+` FROM operators WHERE id = ?`, id))
}

// CreateOperatorSession starts an operator's session.
func (t *Tx) CreateOperatorSession(tokenHash []byte, operatorID int64, now time.Time) error {
	_, err := t.exec(`INSERT INTO operator_sessions (token_hash, operator_id, created_at, last_seen) VALUES (?, ?, ?, ?)`,
		tokenHash, operatorID, now.Unix(), now.Unix())
	return err
}

// OperatorSession is a logged-in operator's session.
type OperatorSession struct {
	OperatorID int64
	Name       string
	CreatedAt  int64 // unix seconds
	LastSeen   int64
}

// OperatorSession finds a session by its token's hash; none is fault.NotLoggedIn.
func (d *DB) OperatorSession(ctx context.Context, tokenHash []byte) (OperatorSession, error) {
	var s OperatorSession
	err := d.db.QueryRowContext(ctx, `SELECT s.operator_id, o.name, s.created_at, s.last_seen
		FROM operator_sessions s JOIN operators o ON o.id = s.operator_id WHERE s.token_hash = ?`, tokenHash).
		Scan(&s.OperatorID, &s.Name, &s.CreatedAt, &s.LastSeen)
	if errors.Is(err, sql.ErrNoRows) {
		return s, fault.Errorf(fault.NotLoggedIn, "not logged in")
	}
	return s, err
}

// TouchOperatorSession records activity on a session.
func (t *Tx) TouchOperatorSession(tokenHash []byte, now time.Time) error {
	_, err := t.exec(`UPDATE operator_sessions SET last_seen = ? WHERE token_hash = ?`, now.Unix(), tokenHash)
	return err
}

// DeleteOperatorSession ends a session.
func (t *Tx) DeleteOperatorSession(tokenHash []byte) error {
	_, err := t.exec(`DELETE FROM operator_sessions WHERE token_hash = ?`, tokenHash)
	return err
}

// DeleteExpiredOperatorSessions removes sessions idle since before idleBefore or created before
// createdBefore.
func (t *Tx) DeleteExpiredOperatorSessions(idleBefore, createdBefore time.Time) error {
	_, err := t.exec(`DELETE FROM operator_sessions WHERE last_seen < ? OR created_at < ?`, idleBefore.Unix(), createdBefore.Unix())
	return err
}

// OperatorAction is one line of the operators' log.
type OperatorAction struct {
	ID         int64
	OperatorID int64 // 0 for a failed login under an unknown name
	Name       string
	Action     string
	Detail     string
	Remote     string
	CreatedAt  time.Time
}

// LogOperatorAction appends a line to the operators' log.
func (t *Tx) LogOperatorAction(a OperatorAction) error {
	var op any
	if a.OperatorID > 0 {
		op = a.OperatorID
	}
	_, err := t.exec(`INSERT INTO operator_log (operator_id, name, action, detail, remote, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		op, a.Name, a.Action, a.Detail, a.Remote, a.CreatedAt.UTC().Format(time.RFC3339Nano))
	return err
}

// OperatorLog lists the latest lines of the operators' log, newest first, before an id (0: from
// the newest).
func (d *DB) OperatorLog(ctx context.Context, limit int, before int64) ([]OperatorAction, error) {
	if before <= 0 {
		before = 1<<63 - 1
	}
	rows, err := d.db.QueryContext(ctx, `SELECT id, coalesce(operator_id, 0), name, action, detail, remote, created_at
		FROM operator_log WHERE id < ? ORDER BY id DESC LIMIT ?`, before, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []OperatorAction
	for rows.Next() {
		var a OperatorAction
		var created string
		if err := rows.Scan(&a.ID, &a.OperatorID, &a.Name, &a.Action, &a.Detail, &a.Remote, &created); err != nil {
			return nil, err
		}
		a.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
		out = append(out, a)
	}
	return out, rows.Err()
}
