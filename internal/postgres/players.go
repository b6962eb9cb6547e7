package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"starcolor/internal/fault"
	"starcolor/internal/identity"
	"starcolor/internal/lottery"
	"starcolor/internal/sqlstore"
)

// CreatePlayer registers a player with an empty account. A name that reads like one taken
// (identity.UsernameSkeleton, unique in the table, so that two sign-ups at once cannot both
// take it) is fault.UsernameTaken; a person who may not open an account (self-excluded, on the
// register, or alike: lottery.Refusal) is fault.RegistrationRefused.
func (d *DB) CreatePlayer(ctx context.Context, username, passwordHash string, person *identity.Person, now time.Time) (lottery.Player, error) {
	var p lottery.Player
	err := d.inTx(ctx, func(tx pgx.Tx) error {
		var account int64
		if err := tx.QueryRow(ctx, `INSERT INTO accounts (kind) VALUES ('player') RETURNING id`).Scan(&account); err != nil {
			return err
		}
		var id int64
		k := lottery.KeysOf(username, false, person)
		if person != nil {
			// The persons of one LookupKey one at a time: an exclusion of whoever may be the same
			// person waits for this sign-up, or this sign-up for it (ExcludePlayer takes the same
			// lock); and an import of the register waits for it, or it for the import.
			if _, err := tx.Exec(ctx, identityLock, k.LookupKey); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock_shared(`+registerLock+`)`); err != nil {
				return err
			}
			if err := refusal(ctx, tx, *person, now); err != nil {
				return err
			}
		}
		last, first, birth := sqlstore.PersonColumns(person)
		err := tx.QueryRow(ctx, `INSERT INTO players (username, name_key, name_skeleton, password_hash, account_id, created_at, last_name, first_names, birth_date, identity_key, lookup_key)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
			username, k.NameKey, k.NameSkeleton, passwordHash, account, now, last, first, birth, nullable(k.IdentityKey), nullable(k.LookupKey)).Scan(&id)
		if isCode(err, "23505", "players_by_name_skeleton") {
			return fault.Errorf(fault.UsernameTaken, "the username %q is already taken, or one that reads like it", username)
		}
		p = lottery.Player{ID: id, Username: username, AccountID: account, PasswordHash: passwordHash, Person: person}
		return err
	})
	return p, err
}

// Pay makes a deposit or a withdrawal: its key claimed, its transfer, and the answer kept under
// the key, in one transaction. A deposit to an account closed or self-excluded is refused
// (lottery.Player.Shut's fault), session or not: its balance has been paid out, and no money may
// reach it again. A deposit past the player's weekly deposit limit, or before they
// set one, is fault.LimitReached or fault.LimitsRequired (the player's account locked first, so
// that two deposits on two servers are checked one after the other); too little money is
// fault.InsufficientFunds, a key already used
// lottery.ErrKeyTaken (two servers given one key at once: the second waits for the first, and
// finds it taken), an ended session lottery.ErrSessionEnded; each changes nothing.
func (d *DB) Pay(ctx context.Context, p lottery.Payment, now time.Time) (lottery.Answer, error) {
	var ans lottery.Answer
	err := d.inTx(ctx, func(tx pgx.Tx) error {
		if err := requireSession(ctx, tx, p.Session); err != nil {
			return err
		}
		tr := p.Transfer(now)
		if tr.Amount <= 0 {
			return fault.Errorf(fault.Invalid, "an amount must be positive")
		}
		if p.Key != "" {
			tag, err := tx.Exec(ctx, `INSERT INTO idempotency (player_id, key, request_hash, status, response, created_at)
				VALUES ($1, $2, $3, 0, '\x', $4) ON CONFLICT DO NOTHING`, p.PlayerID, p.Key, p.RequestHash, now.Unix())
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 0 {
				return lottery.ErrKeyTaken
			}
		}
		if p.Kind == lottery.Deposit {
			if err := checkDeposit(ctx, tx, p, now); err != nil {
				return err
			}
			// Read once the account is locked (checkDeposit): an exclusion or a closure that
			// held it has committed, and is seen.
			if _, err := requireOpen(ctx, tx, p.PlayerID, now, ""); err != nil {
				return err
			}
		}
		var balance int64
		b := &pgx.Batch{}
		b.Queue(`UPDATE accounts SET balance = balance - $1 WHERE id = $2 RETURNING balance`, tr.Amount, tr.From)
		b.Queue(`UPDATE accounts SET balance = balance + $1 WHERE id = $2 RETURNING balance`, tr.Amount, tr.To)
		b.Queue(`INSERT INTO transfers (from_account, to_account, amount, kind, created_at) VALUES ($1, $2, $3, $4, $5)`,
			tr.From, tr.To, tr.Amount, tr.Kind, tr.CreatedAt)
		res := tx.SendBatch(ctx, b)
		var from, to int64
		err := res.QueryRow().Scan(&from)
		if isCode(err, "23514", "accounts_check") {
			res.Close()
			return fault.Errorf(fault.InsufficientFunds, "not enough money in the account")
		}
		if err == nil {
			err = res.QueryRow().Scan(&to)
		}
		if err == nil {
			_, err = res.Exec()
		}
		if cerr := res.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		balance = to
		if p.Kind == lottery.Withdrawal {
			balance = from
		}
		ans = lottery.PaidAnswer(balance)
		if p.Key == "" {
			return nil
		}
		_, err = tx.Exec(ctx, `UPDATE idempotency SET status = $1, response = $2 WHERE player_id = $3 AND key = $4`, int32(ans.Status), ans.Body, p.PlayerID, p.Key)
		return err
	})
	return ans, err
}

// ExcludePlayer excludes a player until a time, or later if they already are (an exclusion is
// never shortened), in one transaction: the session checked (nil: not checked), the whole
// balance paid out to the bank (a withdrawal marked lottery.PaidAtExclusion), the exclusion, and
// every session of the player ended. It returns the end of the exclusion in force and what was
// paid. A sign-up of the same identity waits for it (CreatePlayer).
func (d *DB) ExcludePlayer(ctx context.Context, playerID int64, session []byte, until, now time.Time) (time.Time, int64, error) {
	var end time.Time
	var paid int64
	err := d.inTx(ctx, func(tx pgx.Tx) error {
		var key *string
		if err := tx.QueryRow(ctx, `SELECT lookup_key FROM players WHERE id = $1`, playerID).Scan(&key); err != nil {
			return sqlstore.NotFound(err, "no such player")
		}
		if key != nil {
			if _, err := tx.Exec(ctx, identityLock, *key); err != nil {
				return err
			}
		}
		var err error
		if paid, err = payOut(ctx, tx, playerID, session, lottery.PaidAtExclusion, now); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `UPDATE players SET excluded_until = greatest(excluded_until, $1) WHERE id = $2 RETURNING excluded_until`,
			until, playerID).Scan(&end)
	})
	if err != nil {
		return time.Time{}, 0, err
	}
	return end.UTC(), paid, nil
}

// ClosePlayer closes a player's account in one transaction: the session checked (nil: not
// checked), the whole balance paid out to the bank (a withdrawal marked lottery.PaidAtClosure),
// the account closed, and every session of the player ended. It returns what was paid.
func (d *DB) ClosePlayer(ctx context.Context, playerID int64, session []byte, now time.Time) (int64, error) {
	var paid int64
	err := d.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		if paid, err = payOut(ctx, tx, playerID, session, lottery.PaidAtClosure, now); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE players SET closed_at = coalesce(closed_at, $1), closed_by = coalesce(closed_by, $2) WHERE id = $3`,
			now, lottery.ClosedByPlayer, playerID)
		return err
	})
	if err != nil {
		return 0, err
	}
	return paid, nil
}

// payOut is what a self-exclusion and a closure do in their transaction besides marking the
// player: the player's account row locked as a batch of sales locks it, and the player's row
// with it; the session checked; the whole balance paid out to the bank as a withdrawal that says
// why; and every session of the player deleted. It returns the amount paid.
//
// No money reaches the account after it, by construction, on any server. Every read below is a
// statement of its own, so with a snapshot taken once the locks are held, and so are those of
// the writes that wait for them:
//   - a batch of sales locks its buyers' accounts before it reads their sessions: a batch that
//     locked the account first commits before this reads the balance, which pays its prizes out
//     with the rest; one that waits for this transaction reads the sessions once it has
//     committed, finds them gone, and refuses the sale (lottery.Decide);
//   - a deposit locks the account and then reads whether it is shut, refused if so (Pay);
//   - a new session locks the player's row for share before it reads whether it is shut
//     (CreateSession): one that locked it first is committed, and deleted here; one that waits
//     sees the account shut. (Deleting the sessions before the player's row is locked would miss
//     a session committed between the two: a login racing the exclusion, answered 200.)
//
// A game finished later moves no money: its prize was credited at its sale. (Wallet mode, where
// a prize is credited at the finish, has no exclusion nor closure here: they are the operator's.)
func payOut(ctx context.Context, tx pgx.Tx, playerID int64, session []byte, reason string, now time.Time) (int64, error) {
	var account, balance int64
	if err := tx.QueryRow(ctx, `SELECT a.id, a.balance FROM players p JOIN accounts a ON a.id = p.account_id WHERE p.id = $1 FOR NO KEY UPDATE OF a, p`,
		playerID).Scan(&account, &balance); err != nil {
		return 0, sqlstore.NotFound(err, "no such player")
	}
	if err := requireSession(ctx, tx, session); err != nil {
		return 0, err
	}
	if balance > 0 {
		b := &pgx.Batch{}
		b.Queue(`UPDATE accounts SET balance = balance - $1 WHERE id = $2`, balance, account)
		b.Queue(`UPDATE accounts SET balance = balance + $1 WHERE id = $2`, balance, lottery.BankAccount)
		b.Queue(`INSERT INTO transfers (from_account, to_account, amount, kind, reason, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
			account, lottery.BankAccount, balance, lottery.Withdrawal, reason, now)
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return 0, err
		}
	}
	_, err := tx.Exec(ctx, `DELETE FROM sessions WHERE kind = $1 AND owner_id = $2`, lottery.PlayerSession, playerID)
	return balance, err
}

// ChangePassword sets a player's password hash in one transaction: the player's row locked as an
// exclusion locks it (so that a session opened meanwhile waits, and is ended here, or sees the
// change), the session checked (nil: not checked), the account required open, the hash replaced,
// every session of the player ended, and fresh, the session the change opens in their place,
// created. A password that may have leaked stops serving every device that used it, on every
// server, while the device that changed it stays in.
func (d *DB) ChangePassword(ctx context.Context, playerID int64, session []byte, passwordHash string, fresh lottery.Session) error {
	return d.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := requireOpen(ctx, tx, playerID, time.Unix(fresh.CreatedAt, 0), ` FOR NO KEY UPDATE OF p`); err != nil {
			return err
		}
		if err := requireSession(ctx, tx, session); err != nil {
			return err
		}
		b := &pgx.Batch{}
		b.Queue(`UPDATE players SET password_hash = $1 WHERE id = $2`, passwordHash, playerID)
		b.Queue(`DELETE FROM sessions WHERE kind = $1 AND owner_id = $2`, lottery.PlayerSession, playerID)
		b.Queue(`INSERT INTO sessions (token_hash, kind, owner_id, created_at, last_seen) VALUES ($1, $2, $3, $4, $5)`,
			fresh.Hash, lottery.PlayerSession, playerID, fresh.CreatedAt, fresh.LastSeen)
		return tx.SendBatch(ctx, b).Close()
	})
}

// playerColumns are the columns scanPlayer reads (sqlstore.PlayerColumns).
var playerColumns = sqlstore.PlayerColumns(sqlstore.PostgreSQL)

// scanPlayer reads a player's playerColumns (sqlstore.ScanPlayer), its error a fault.
func scanPlayer(row pgx.Row) (lottery.Player, error) {
	p, err := sqlstore.ScanPlayer(row)
	return p, asFault(err)
}

// requireSession checks a player's session in the transaction (sqlstore.RequireSession).
func requireSession(ctx context.Context, tx pgx.Tx, hash []byte) error {
	return sqlstore.RequireSession(ctx, pgxQ{tx}, hash)
}

// requireOpen refuses in the transaction a player whose account is shut (sqlstore.RequireOpen),
// with a row lock on the player (lock: "" for none).
func requireOpen(ctx context.Context, tx pgx.Tx, playerID int64, now time.Time, lock string) (lottery.Player, error) {
	return sqlstore.RequireOpen(ctx, pgxQ{tx}, sqlstore.PostgreSQL, playerID, now, lock)
}
