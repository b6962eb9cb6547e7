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
func (d *DB) CreatePlayer(ctx context.Context, username, passwordHash string, now time.Time) (lottery.Player, error) {
	var p lottery.Player
	err := d.update(ctx, func(t *tx) error {
		res, err := t.exec(`INSERT INTO accounts (kind) VALUES ('player')`)
		if err != nil {
			return err
		}
		account, _ := res.LastInsertId()
		res, err = t.exec(`INSERT INTO players (username, name_key, password_hash, account_id, created_at) VALUES (?, ?, ?, ?, ?)`,
			username, identity.UsernameKey(username), passwordHash, account, storedTime(now))
		if isConstraint(err, sqlite3.SQLITE_CONSTRAINT_UNIQUE) {
			return fault.Errorf(fault.UsernameTaken, "the username %q is already taken", username)
		}
		if err != nil {
			return err
		}
		id, _ := res.LastInsertId()
		p = lottery.Player{ID: id, Username: username, AccountID: account, PasswordHash: passwordHash}
		return nil
	})
	return p, err
}

const playerColumns = `p.id, p.username, p.account_id, a.balance, p.password_hash`

func scanPlayer(row scanner) (lottery.Player, error) {
	var p lottery.Player
	err := row.Scan(&p.ID, &p.Username, &p.AccountID, &p.Balance, &p.PasswordHash)
	if errors.Is(err, sql.ErrNoRows) {
		return p, fault.Errorf(fault.NotFound, "no such player")
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
