package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	sqlite3 "modernc.org/sqlite/lib"

	"starcolor/internal/fault"
	"starcolor/internal/identity"
)

// Player is a player's account as the server sees it.
type Player struct {
	ID           int64
	Username     string
	AccountID    int64
	Balance      int64
	PasswordHash string
}

// CreatePlayer registers a player with an empty account.
func (t *Tx) CreatePlayer(username, passwordHash string, now time.Time) (Player, error) {
	res, err := t.exec(`INSERT INTO accounts (kind) VALUES ('player')`)
	if err != nil {
		return Player{}, err
	}
	account, _ := res.LastInsertId()
	res, err = t.exec(`INSERT INTO players (username, name_key, password_hash, account_id, created_at) VALUES (?, ?, ?, ?, ?)`,
		username, identity.UsernameKey(username), passwordHash, account, now.UTC().Format(time.RFC3339Nano))
	if isConstraint(err, sqlite3.SQLITE_CONSTRAINT_UNIQUE) {
		return Player{}, fault.Errorf(fault.UsernameTaken, "the username %q is already taken", username)
	}
	if err != nil {
		return Player{}, err
	}
	id, _ := res.LastInsertId()
	return Player{ID: id, Username: username, AccountID: account, PasswordHash: passwordHash}, nil
}

const playerColumns = `p.id, p.username, p.account_id, a.balance, p.password_hash`

func scanPlayer(row *sql.Row) (Player, error) {
	var p Player
	err := row.Scan(&p.ID, &p.Username, &p.AccountID, &p.Balance, &p.PasswordHash)
	if errors.Is(err, sql.ErrNoRows) {
		return p, fault.Errorf(fault.NotFound, "no such player")
	}
	return p, err
}

// PlayerByName finds a player by username, compared by identity.UsernameKey (case does not
// matter, in any alphabet).
func (d *DB) PlayerByName(ctx context.Context, username string) (Player, error) {
	return scanPlayer(d.queryRow(ctx, `SELECT `+playerColumns+` FROM players p JOIN accounts a ON a.id = p.account_id WHERE p.name_key = ?`, identity.UsernameKey(username)))
}

// PlayerByID finds a player by id.
func (d *DB) PlayerByID(ctx context.Context, id int64) (Player, error) {
	return scanPlayer(d.queryRow(ctx, `SELECT `+playerColumns+` FROM players p JOIN accounts a ON a.id = p.account_id WHERE p.id = ?`, id))
}

// Session is a logged-in player's session.
type Session struct {
	PlayerID  int64
	CreatedAt int64 // unix seconds
	LastSeen  int64
}

// CreateSession starts a session.
func (t *Tx) CreateSession(tokenHash []byte, playerID int64, now time.Time) error {
	_, err := t.exec(`INSERT INTO sessions (token_hash, player_id, created_at, last_seen) VALUES (?, ?, ?, ?)`,
		tokenHash, playerID, now.Unix(), now.Unix())
	return err
}

// Session finds a session by its token's hash.
func (d *DB) Session(ctx context.Context, tokenHash []byte) (Session, error) {
	var s Session
	err := d.queryRow(ctx, `SELECT player_id, created_at, last_seen FROM sessions WHERE token_hash = ?`, tokenHash).
		Scan(&s.PlayerID, &s.CreatedAt, &s.LastSeen)
	if errors.Is(err, sql.ErrNoRows) {
		return s, fault.Errorf(fault.NotLoggedIn, "not logged in")
	}
	return s, err
}

// RequireSession fails with fault.NotLoggedIn unless the session is still there: a write made
// for a player checks it in its own transaction, so that nothing moves after a logout has
// committed. A nil hash (the server's own actions) is not checked.
func (t *Tx) RequireSession(tokenHash []byte) error {
	if tokenHash == nil {
		return nil
	}
	var one int
	err := t.queryRow(`SELECT 1 FROM sessions WHERE token_hash = ?`, tokenHash).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return errSessionEnded
	}
	return err
}

// errSessionEnded refuses a write whose session has ended since its request was let in.
var errSessionEnded = fault.Errorf(fault.NotLoggedIn, "not logged in, or the session has ended: log in again")

// TouchSession records activity on a session.
func (t *Tx) TouchSession(tokenHash []byte, now time.Time) error {
	_, err := t.exec(`UPDATE sessions SET last_seen = ? WHERE token_hash = ?`, now.Unix(), tokenHash)
	return err
}

// DeleteSession ends a session.
func (t *Tx) DeleteSession(tokenHash []byte) error {
	_, err := t.exec(`DELETE FROM sessions WHERE token_hash = ?`, tokenHash)
	return err
}

// DeleteExpiredSessions removes sessions idle since before idleBefore or created before createdBefore.
func (t *Tx) DeleteExpiredSessions(idleBefore, createdBefore time.Time) error {
	_, err := t.exec(`DELETE FROM sessions WHERE last_seen < ? OR created_at < ?`, idleBefore.Unix(), createdBefore.Unix())
	return err
}
