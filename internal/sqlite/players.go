package sqlite

import (
	"context"
	"time"

	sqlite3 "modernc.org/sqlite/lib"

	"starcolor/internal/fault"
	"starcolor/internal/identity"
	"starcolor/internal/lottery"
	"starcolor/internal/sqlstore"
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
		last, first, birth := sqlstore.PersonColumns(person)
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
		return 0, sqlstore.NotFound(err, "no such player")
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

// playerColumns are the columns scanPlayer reads (sqlstore.PlayerColumns).
var playerColumns = sqlstore.PlayerColumns(sqlstore.SQLite)

// scanPlayer reads a player's playerColumns (sqlstore.ScanPlayer), its error a fault.
func scanPlayer(row scanner) (lottery.Player, error) {
	p, err := sqlstore.ScanPlayer(row)
	return p, asFault(err)
}

// requireSession checks a player's session in the write (sqlstore.RequireSession).
func (t *tx) requireSession(hash []byte) error { return sqlstore.RequireSession(t.ctx, txQ{t}, hash) }

// requireOpen refuses in the write a player whose account is shut (sqlstore.RequireOpen).
func (t *tx) requireOpen(playerID int64, now time.Time) (lottery.Player, error) {
	return sqlstore.RequireOpen(t.ctx, txQ{t}, sqlstore.SQLite, playerID, now, "")
}
