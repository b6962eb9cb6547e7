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

// CreatePlayer registers a player with an empty account. A name that reads like one taken
// (identity.UsernameSkeleton, unique in the table) is fault.UsernameTaken; a person who may not
// open an account (self-excluded, on the register, or alike: lottery.Refusal) is
// fault.RegistrationRefused.
func (d *DB) CreatePlayer(ctx context.Context, username, passwordHash string, person *identity.Person, now time.Time) (lottery.Player, error) {
	var p lottery.Player
	err := d.update(ctx, func(t *tx) error {
		res, err := t.exec(`INSERT INTO accounts (kind) VALUES ('player')`)
		if err != nil {
			return err
		}
		account, _ := res.LastInsertId()
		if person != nil {
			if err := t.refusal(*person, now); err != nil {
				return err
			}
		}
		last, first, birth := personColumns(person)
		k := lottery.KeysOf(username, false, person)
		res, err = t.exec(`INSERT INTO players (username, name_key, name_skeleton, password_hash, account_id, created_at, last_name, first_names, birth_date, identity_key, lookup_key)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			username, k.NameKey, k.NameSkeleton, passwordHash, account, storedTime(now), last, first, birth, nullable(k.IdentityKey), nullable(k.LookupKey))
		if isConstraint(err, sqlite3.SQLITE_CONSTRAINT_UNIQUE) {
			return fault.Errorf(fault.UsernameTaken, "the username %q is already taken, or one that reads like it", username)
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
func personColumns(p *identity.Person) (last, first, birth sql.NullString) {
	if p == nil {
		return
	}
	ok := func(s string) sql.NullString { return sql.NullString{String: s, Valid: true} }
	return ok(p.LastName), ok(p.FirstNames), ok(p.BirthDate.Format(identity.DateLayout))
}

// storedPerson is a person as the players table keeps them (nil for none).
func storedPerson(last, first, birth sql.NullString) (*identity.Person, error) {
	if !last.Valid || !first.Valid || !birth.Valid {
		return nil, nil
	}
	b, err := time.Parse(identity.DateLayout, birth.String)
	if err != nil {
		return nil, err
	}
	return &identity.Person{LastName: last.String, FirstNames: first.String, BirthDate: b}, nil
}

// shutTimes reads when a player's self-exclusion ends and when their account closed (NULL:
// never).
func shutTimes(p *lottery.Player, excluded, closed sql.NullString) (err error) {
	if p.ExcludedUntil, err = parseStored(excluded); err != nil {
		return err
	}
	p.ClosedAt, err = parseStored(closed)
	return err
}

const playerColumns = `p.id, p.username, p.account_id, a.balance, p.password_hash, p.last_name, p.first_names, p.birth_date, p.excluded_until, p.closed_at, p.closed_by`

func scanPlayer(row scanner) (lottery.Player, error) {
	var p lottery.Player
	var last, first, birth sql.NullString
	var excluded, closed, closedBy sql.NullString
	err := row.Scan(&p.ID, &p.Username, &p.AccountID, &p.Balance, &p.PasswordHash, &last, &first, &birth, &excluded, &closed, &closedBy)
	p.ClosedBy = closedBy.String
	if errors.Is(err, sql.ErrNoRows) {
		return p, fault.Errorf(fault.NotFound, "no such player")
	}
	if err == nil {
		err = shutTimes(&p, excluded, closed)
	}
	if err == nil {
		if p.Person, err = storedPerson(last, first, birth); err != nil {
			return p, err
		}
	}
	return p, asFault(err)
}

// PlayerByName finds a player by username, compared by identity.UsernameKey (case and widths do
// not matter, in any alphabet); of the accounts made before RFC 8265 that came to share a key,
// the one of that name (identity.PickUsername).
func (d *DB) PlayerByName(ctx context.Context, username string) (lottery.Player, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT `+playerColumns+` FROM players p JOIN accounts a ON a.id = p.account_id
		WHERE p.name_key = ? ORDER BY p.name_twin, p.id`, identity.UsernameKey(username))
	if err != nil {
		return lottery.Player{}, asFault(err)
	}
	defer rows.Close()
	var found []lottery.Player
	var names []string
	for rows.Next() {
		p, err := scanPlayer(rows)
		if err != nil {
			return p, err
		}
		found, names = append(found, p), append(names, p.Username)
	}
	if err := rows.Err(); err != nil {
		return lottery.Player{}, asFault(err)
	}
	if len(found) == 0 {
		return lottery.Player{}, fault.Errorf(fault.NotFound, "no such player")
	}
	return found[identity.PickUsername(username, names)], nil
}

// PlayerByID finds a player by id.
func (d *DB) PlayerByID(ctx context.Context, id int64) (lottery.Player, error) {
	return scanPlayer(d.queryRow(ctx, `SELECT `+playerColumns+` FROM players p JOIN accounts a ON a.id = p.account_id WHERE p.id = ?`, id))
}

// ExcludePlayer excludes a player until a time, or later if they already are (an exclusion is
// never shortened), in one write: the session checked (nil: not checked), the whole balance paid
// out to the bank (a withdrawal marked lottery.PaidAtExclusion), the exclusion, and every
// session of the player ended. It returns the end of the exclusion in force and what was paid.
func (d *DB) ExcludePlayer(ctx context.Context, playerID int64, session []byte, until, now time.Time) (time.Time, int64, error) {
	var end string
	var paid int64
	err := d.update(ctx, func(t *tx) error {
		var err error
		if paid, err = t.payOut(playerID, session, lottery.PaidAtExclusion, now); err != nil {
			return err
		}
		return t.queryRow(`UPDATE players SET excluded_until = max(coalesce(excluded_until, ''), ?) WHERE id = ? RETURNING excluded_until`,
			storedTime(until), playerID).Scan(&end)
	})
	if err != nil {
		return time.Time{}, 0, err
	}
	at, err := time.Parse(time.RFC3339Nano, end)
	return at, paid, err
}

// ClosePlayer closes a player's account in one write: the session checked (nil: not checked),
// the whole balance paid out to the bank (a withdrawal marked lottery.PaidAtClosure), the
// account closed, and every session of the player ended. It returns what was paid.
func (d *DB) ClosePlayer(ctx context.Context, playerID int64, session []byte, now time.Time) (int64, error) {
	var paid int64
	err := d.update(ctx, func(t *tx) error {
		var err error
		if paid, err = t.payOut(playerID, session, lottery.PaidAtClosure, now); err != nil {
			return err
		}
		_, err = t.exec(`UPDATE players SET closed_at = coalesce(closed_at, ?), closed_by = coalesce(closed_by, ?) WHERE id = ?`,
			storedTime(now), lottery.ClosedByPlayer, playerID)
		return err
	})
	if err != nil {
		return 0, err
	}
	return paid, nil
}

// payOut is what a self-exclusion and a closure do in their write besides marking the player: the
// session checked, the whole balance read and paid out to the bank as a withdrawal that says why,
// and every session of the player deleted. It returns the amount paid.
//
// No money reaches the account after it, by construction. The writer runs one write at a time,
// and the sales of a batch after its other writes: a sale decided before this write is in the
// balance paid out; one decided after finds every session of the player gone, and is refused
// (lottery.Decide). A deposit checks its session in its write as well, and refuses an account
// shut, whatever its session (Pay: the server's own deposit has none); no new session opens for
// a shut account (CreateSession). A game finished later moves no money: its prize was credited
// at its sale. (Wallet mode, where a prize is credited at the finish, has no exclusion nor
// closure here: they are the operator's.)
func (t *tx) payOut(playerID int64, session []byte, reason string, now time.Time) (int64, error) {
	if err := t.requireSession(session); err != nil {
		return 0, err
	}
	var account, balance int64
	if err := t.queryRow(`SELECT a.id, a.balance FROM players p JOIN accounts a ON a.id = p.account_id WHERE p.id = ?`, playerID).Scan(&account, &balance); err != nil {
		return 0, notFound(err, "no such player")
	}
	if balance > 0 {
		if err := t.transfer(lottery.Transfer{From: account, To: lottery.BankAccount, Amount: balance, Kind: lottery.Withdrawal,
			Reason: reason, CreatedAt: now}); err != nil {
			return 0, err
		}
	}
	_, err := t.exec(`DELETE FROM sessions WHERE kind = ? AND owner_id = ?`, lottery.PlayerSession, playerID)
	return balance, err
}

// requireOpen refuses, in the write, a player whose account is shut at now: closed, or
// self-excluded until later (lottery.Player.Shut). It returns the player as it read them.
func (t *tx) requireOpen(playerID int64, now time.Time) (lottery.Player, error) {
	p, err := scanPlayer(t.queryRow(`SELECT `+playerColumns+` FROM players p JOIN accounts a ON a.id = p.account_id WHERE p.id = ?`, playerID))
	if err != nil {
		return p, err
	}
	return p, p.Shut(now)
}

// ChangePassword sets a player's password hash in one write: the session checked (nil: not
// checked), the account required open, the hash replaced, every session of the player ended,
// and fresh, the session the change opens in their place, created. A password that may have
// leaked stops serving every device that used it, while the device that changed it stays in.
func (d *DB) ChangePassword(ctx context.Context, playerID int64, session []byte, passwordHash string, fresh lottery.Session) error {
	return d.update(ctx, func(t *tx) error {
		if err := t.requireSession(session); err != nil {
			return err
		}
		if _, err := t.requireOpen(playerID, time.Unix(fresh.CreatedAt, 0)); err != nil {
			return err
		}
		if _, err := t.exec(`UPDATE players SET password_hash = ? WHERE id = ?`, passwordHash, playerID); err != nil {
			return err
		}
		if _, err := t.exec(`DELETE FROM sessions WHERE kind = ? AND owner_id = ?`, lottery.PlayerSession, playerID); err != nil {
			return err
		}
		_, err := t.exec(`INSERT INTO sessions (token_hash, kind, owner_id, created_at, last_seen) VALUES (?, ?, ?, ?, ?)`,
			fresh.Hash, lottery.PlayerSession, playerID, fresh.CreatedAt, fresh.LastSeen)
		return err
	})
}
