package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	sqlite3 "modernc.org/sqlite/lib"

	"starcolor/internal/fault"
	"starcolor/internal/identity"
	"starcolor/internal/lottery"
)

// CreatePlayer registers a player with an empty account; a name already taken (compared by
// identity.UsernameKey) is fault.UsernameTaken.
func (d *DB) CreatePlayer(ctx context.Context, username, passwordHash string, person *identity.Person, now time.Time) (lottery.Player, error) {
	var p lottery.Player
	err := d.update(ctx, func(t *tx) error {
		res, err := t.exec(`INSERT INTO accounts (kind) VALUES ('player')`)
		if err != nil {
			return err
		}
		account, _ := res.LastInsertId()
		last, first, birth, key := personColumns(person)
		if key.Valid {
			if err := t.listed(key.String); err != nil {
				return err
			}
			var until sql.NullInt64
			if err := t.queryRow(`SELECT max(excluded_until) FROM players WHERE identity_key = ? AND excluded_until > ?`, key.String, now.Unix()).Scan(&until); err != nil {
				return err
			}
			if until.Valid {
				return excludedUntil(time.Unix(until.Int64, 0))
			}
		}
		res, err = t.exec(`INSERT INTO players (username, name_key, password_hash, account_id, created_at, last_name, first_names, birth_date, identity_key)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			username, identity.UsernameKey(username), passwordHash, account, storedTime(now), last, first, birth, key)
		if isConstraint(err, sqlite3.SQLITE_CONSTRAINT_UNIQUE) {
			return fault.Errorf(fault.UsernameTaken, "the username %q is already taken", username)
		}
		if err != nil {
			return err
		}
		id, _ := res.LastInsertId()
		p = lottery.Player{ID: id, Username: username, AccountID: account, PasswordHash: passwordHash, Person: person}
		return nil
	})
	return p, err
}

// personColumns is a person as the players table keeps them (all NULL for none).
func personColumns(p *identity.Person) (last, first, birth, key sql.NullString) {
	if p == nil {
		return
	}
	ok := func(s string) sql.NullString { return sql.NullString{String: s, Valid: true} }
	return ok(p.LastName), ok(p.FirstNames), ok(p.BirthDate.Format(identity.DateLayout)), ok(p.Key())
}

const playerColumns = `p.id, p.username, p.account_id, a.balance, p.password_hash, p.last_name, p.first_names, p.birth_date, p.excluded_until, p.closed_at, p.closed_by`

func scanPlayer(row scanner) (lottery.Player, error) {
	var p lottery.Player
	var last, first, birth sql.NullString
	var excluded, closed sql.NullInt64
	var closedBy sql.NullString
	err := row.Scan(&p.ID, &p.Username, &p.AccountID, &p.Balance, &p.PasswordHash, &last, &first, &birth, &excluded, &closed, &closedBy)
	p.ClosedBy = closedBy.String
	if excluded.Valid {
		p.ExcludedUntil = time.Unix(excluded.Int64, 0).UTC()
	}
	if closed.Valid {
		p.ClosedAt = time.Unix(closed.Int64, 0).UTC()
	}
	if errors.Is(err, sql.ErrNoRows) {
		return p, fault.Errorf(fault.NotFound, "no such player")
	}
	if err == nil && last.Valid && first.Valid && birth.Valid {
		b, perr := time.Parse(identity.DateLayout, birth.String)
		if perr != nil {
			return p, perr
		}
		p.Person = &identity.Person{LastName: last.String, FirstNames: first.String, BirthDate: b}
	}
	return p, asFault(err)
}

// PlayerByName finds a player by username, compared by identity.UsernameKey (case does not
// matter, in any alphabet).
func (d *DB) PlayerByName(ctx context.Context, username string) (lottery.Player, error) {
	return scanPlayer(d.queryRow(ctx, `SELECT `+playerColumns+` FROM players p JOIN accounts a ON a.id = p.account_id WHERE p.name_key = ?`, identity.UsernameKey(username)))
}

// PlayerByID finds a player by id.
func (d *DB) PlayerByID(ctx context.Context, id int64) (lottery.Player, error) {
	return scanPlayer(d.queryRow(ctx, `SELECT `+playerColumns+` FROM players p JOIN accounts a ON a.id = p.account_id WHERE p.id = ?`, id))
}

// excludedUntil is the refusal of an excluded person (fault.Excluded), saying until when.
func excludedUntil(until time.Time) error {
	return fault.Errorf(fault.Excluded, "this person is excluded from gambling until %s", until.UTC().Format(time.RFC3339))
}

// ExcludePlayer excludes a player until a time, or later if they already are (an exclusion is
// never shortened), and ends every session of theirs, in one transaction; it returns the end of
// the exclusion in force.
func (d *DB) ExcludePlayer(ctx context.Context, playerID int64, until time.Time) (time.Time, error) {
	var end int64
	err := d.update(ctx, func(t *tx) error {
		if err := t.queryRow(`UPDATE players SET excluded_until = max(coalesce(excluded_until, 0), ?) WHERE id = ? RETURNING excluded_until`,
			until.Unix(), playerID).Scan(&end); err != nil {
			return err
		}
		_, err := t.exec(`DELETE FROM sessions WHERE kind = ? AND owner_id = ?`, lottery.PlayerSession, playerID)
		return err
	})
	return time.Unix(end, 0).UTC(), err
}

// ClosePlayer closes a player's account if its balance is zero, and ends every session of
// theirs, in one transaction; it says whether the account is closed.
func (d *DB) ClosePlayer(ctx context.Context, playerID int64, now time.Time) (bool, error) {
	var closed bool
	err := d.update(ctx, func(t *tx) error {
		res, err := t.exec(`UPDATE players SET closed_at = coalesce(closed_at, ?), closed_by = coalesce(closed_by, 'player') WHERE id = ?
			AND (SELECT balance FROM accounts a WHERE a.id = players.account_id) = 0`, now.Unix(), playerID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		closed = true
		_, err = t.exec(`DELETE FROM sessions WHERE kind = ? AND owner_id = ?`, lottery.PlayerSession, playerID)
		return err
	})
	return closed, err
}
