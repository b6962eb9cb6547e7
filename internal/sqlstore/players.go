package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/identity"
	"starcolor/internal/lottery"
)

// PlayerColumns are the columns ScanPlayer reads, of players p joined with their accounts a.
func PlayerColumns(d Dialect) string {
	return `p.id, p.username, p.account_id, a.balance, p.password_hash, p.last_name, p.first_names, ` + d.date("p.birth_date") +
		`, p.excluded_until, p.closed_at, p.closed_by, p.blocked_at`
}

// ScanPlayer reads a player's PlayerColumns; none is fault.NotFound.
func ScanPlayer(row Row) (lottery.Player, error) {
	var p lottery.Player
	var last, first, birth, closedBy sql.NullString
	err := row.Scan(&p.ID, &p.Username, &p.AccountID, &p.Balance, &p.PasswordHash, &last, &first, &birth,
		ScanTime(&p.ExcludedUntil), ScanTime(&p.ClosedAt), &closedBy, ScanTime(&p.BlockedAt))
	p.ClosedBy = closedBy.String
	if errors.Is(err, sql.ErrNoRows) {
		return p, fault.Errorf(fault.NotFound, "no such player")
	}
	if err == nil {
		p.Person, err = StoredPerson(last, first, birth)
	}
	return p, err
}

// StoredPerson is a person as the players table keeps them (nil for none).
func StoredPerson(last, first, birth sql.NullString) (*identity.Person, error) {
	if !last.Valid || !first.Valid || !birth.Valid {
		return nil, nil
	}
	b, err := time.Parse(identity.DateLayout, birth.String)
	if err != nil {
		return nil, err
	}
	return &identity.Person{LastName: last.String, FirstNames: first.String, BirthDate: b}, nil
}

// PersonColumns is a person as the players table keeps them (all NULL for none).
func PersonColumns(p *identity.Person) (last, first, birth sql.NullString) {
	if p == nil {
		return
	}
	ok := func(s string) sql.NullString { return sql.NullString{String: s, Valid: true} }
	return ok(p.LastName), ok(p.FirstNames), ok(p.BirthDate.Format(identity.DateLayout))
}

// NotFound is a row not found as a fault.NotFound saying what.
func NotFound(err error, what string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return fault.Errorf(fault.NotFound, "%s", what)
	}
	return err
}

// PlayerByName finds a player by username, compared by identity.UsernameKey (case and widths do
// not matter, in any alphabet); of the accounts made before RFC 8265 that came to share a key,
// the one of that name (identity.PickUsername).
func (s *DB) PlayerByName(ctx context.Context, username string) (lottery.Player, error) {
	var found []lottery.Player
	var names []string
	err := each(s.read.Query(ctx, `SELECT `+PlayerColumns(s.d)+` FROM players p JOIN accounts a ON a.id = p.account_id
		WHERE p.name_key = $1 ORDER BY p.name_twin, p.id`, identity.UsernameKey(username)))(func(r Rows) error {
		p, err := ScanPlayer(r)
		found, names = append(found, p), append(names, p.Username)
		return err
	})
	if err != nil {
		return lottery.Player{}, s.fault(err)
	}
	if len(found) == 0 {
		return lottery.Player{}, fault.Errorf(fault.NotFound, "no such player")
	}
	return found[identity.PickUsername(username, names)], nil
}

// PlayerByID finds a player by id.
func (s *DB) PlayerByID(ctx context.Context, id int64) (lottery.Player, error) {
	p, err := ScanPlayer(s.read.QueryRow(ctx, `SELECT `+PlayerColumns(s.d)+` FROM players p JOIN accounts a ON a.id = p.account_id WHERE p.id = $1`, id))
	return p, s.fault(err)
}

// RequireOpen refuses, in a write, a player whose account is shut at now: closed, or
// self-excluded until later (lottery.Player.Shut). lock is the row lock the read takes (""
// for none; PostgreSQL's " FOR SHARE OF p", so that an exclusion or a closure waits for the
// write, or it for them). It returns the player as it read them.
func RequireOpen(ctx context.Context, q Querier, d Dialect, playerID int64, now time.Time, lock string) (lottery.Player, error) {
	p, err := ScanPlayer(q.QueryRow(ctx, `SELECT `+PlayerColumns(d)+` FROM players p JOIN accounts a ON a.id = p.account_id WHERE p.id = $1`+lock, playerID))
	if err != nil {
		return p, err
	}
	return p, p.Shut(now)
}

// RequireSession fails with lottery.ErrSessionEnded unless the session is still there, read in
// the write's own transaction: nothing moves once a logout has committed, on any server. A nil
// hash (the server's own actions) is not checked.
func RequireSession(ctx context.Context, q Querier, hash []byte) error {
	if hash == nil {
		return nil
	}
	var one int
	err := q.QueryRow(ctx, `SELECT 1 FROM sessions WHERE token_hash = $1`, hash).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return lottery.ErrSessionEnded
	}
	return err
}
