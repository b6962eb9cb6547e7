package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/identity"
	"starcolor/internal/journal"
	"starcolor/internal/lottery"
)

// The writes that open and shut players' accounts. Where servers write at once (PostgreSQL),
// they take their locks in one order:
//
//  1. the identity's advisory lock;
//  2. the account's and the player's rows.
//
// Under SQLite's one writer, the locks are nothing (Dialect.lock, Dialect.forNoKeyUpdate).

// nullable is a key as a column keeps it: NULL for none.
func nullable(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

// CreatePlayer registers a player with an empty account. A name that reads like one taken is
// fault.UsernameTaken. Its skeleton is unique in the table (identity.UsernameSkeleton), so that
// two sign-ups at once cannot both take it. A person who may not open an account (self-excluded,
// on the register, or alike: lottery.Refusal) is fault.RegistrationRefused.
func (s *DB) CreatePlayer(ctx context.Context, username, passwordHash string, person *identity.Person, now time.Time) (lottery.Player, error) {
	var p lottery.Player
	err := s.write(ctx, func(q Querier) error {
		var account int64
		if err := q.QueryRow(ctx, `INSERT INTO accounts (kind) VALUES ('player') RETURNING id`).Scan(&account); err != nil {
			return err
		}
		k := lottery.KeysOf(username, false, person)
		if person != nil {
			// The persons of one LookupKey one at a time. An exclusion of whoever may be the same
			// person waits for this sign-up, or this sign-up for it (ExcludePlayer takes the same
			// lock). An import of the register waits for it, or it for the import.
			if err := s.d.lockIdentity(ctx, q, k.LookupKey); err != nil {
				return err
			}
			if err := s.d.lockShared(ctx, q, registerLock); err != nil {
				return err
			}
			if err := Refusal(ctx, q, s.d, *person, now); err != nil {
				return err
			}
		}
		last, first, birth := PersonColumns(person)
		var id int64
		err := q.QueryRow(ctx, `INSERT INTO players (username, name_key, name_skeleton, password_hash, account_id, created_at, last_name, first_names, birth_date, identity_key, lookup_key)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
			username, k.NameKey, k.NameSkeleton, passwordHash, account, s.d.Time(now), last, first, birth, nullable(k.IdentityKey), nullable(k.LookupKey)).Scan(&id)
		if s.unique(err) {
			return fault.Errorf(fault.UsernameTaken, "the username %q is already taken, or one that reads like it", username)
		}
		p = lottery.Player{ID: id, Username: username, AccountID: account, PasswordHash: passwordHash, Person: person}
		return err
	})
	return p, s.fault(err)
}

// ExcludePlayer excludes a player until a time, or later if they already are: an exclusion is
// never shortened. Its one write holds:
//
//   - the session checked (nil: not checked);
//   - the whole balance paid out to the bank (a withdrawal marked lottery.PaidAtExclusion);
//   - the exclusion;
//   - every session of the player ended.
//
// It returns the end of the exclusion in force and what was paid. A sign-up of the same
// identity waits for it (CreatePlayer).
func (s *DB) ExcludePlayer(ctx context.Context, playerID int64, session []byte, until, now time.Time) (time.Time, int64, error) {
	var end time.Time
	var paid int64
	err := s.write(ctx, func(q Querier) error {
		var key sql.NullString
		if err := q.QueryRow(ctx, `SELECT lookup_key FROM players WHERE id = $1`, playerID).Scan(&key); err != nil {
			return NotFound(err, "no such player")
		}
		if err := s.d.lockIdentity(ctx, q, key.String); err != nil {
			return err
		}
		out, err := PayOut(ctx, q, s.d, playerID, session, lottery.PaidAtExclusion, now)
		if err != nil {
			return err
		}
		paid = out.Withdrawal.Amount
		if err := q.QueryRow(ctx, `UPDATE players SET excluded_until = `+s.d.greatest()+`(coalesce(excluded_until, $1), $1) WHERE id = $2 RETURNING excluded_until`,
			s.d.Time(until), playerID).Scan(ScanTime(&end)); err != nil {
			return err
		}
		return s.AppendJournal(ctx, q, now, append(out.Events(), journal.Exclusion{AccountID: out.Account, Until: end, Paid: paid})...)
	})
	if err != nil {
		return time.Time{}, 0, s.fault(err)
	}
	return end, paid, nil
}

// ClosePlayer closes a player's account. Its one write holds:
//
//   - the session checked (nil: not checked);
//   - the whole balance paid out to the bank (a withdrawal marked lottery.PaidAtClosure);
//   - the account closed;
//   - every session of the player ended.
//
// It returns what was paid.
func (s *DB) ClosePlayer(ctx context.Context, playerID int64, session []byte, now time.Time) (int64, error) {
	var paid int64
	err := s.write(ctx, func(q Querier) error {
		out, err := PayOut(ctx, q, s.d, playerID, session, lottery.PaidAtClosure, now)
		if err != nil {
			return err
		}
		paid = out.Withdrawal.Amount
		// An account closed already stays as it was closed, and is not journaled again.
		closed, err := q.Exec(ctx, `UPDATE players SET closed_at = $1, closed_by = $2 WHERE id = $3 AND closed_at IS NULL`,
			s.d.Time(now), lottery.ClosedByPlayer, playerID)
		if err != nil {
			return err
		}
		events := out.Events()
		if closed == 1 {
			events = append(events, journal.Closure{AccountID: out.Account, Paid: paid, By: lottery.ClosedByPlayer})
		}
		return s.AppendJournal(ctx, q, now, events...)
	})
	if err != nil {
		return 0, s.fault(err)
	}
	return paid, nil
}

// Payout is what PayOut did: the account it paid out, and the withdrawal (an Amount of 0: there
// was nothing to pay).
type Payout struct {
	Account    int64
	Withdrawal lottery.Transfer
}

// Events are the payout's entries in the journal: its withdrawal, if it made one.
func (p Payout) Events() []journal.Event {
	if p.Withdrawal.Amount == 0 {
		return nil
	}
	return []journal.Event{MoneyEvent(p.Withdrawal)}
}

// PayOut is what a self-exclusion, a closure and an import of the register do in their write
// besides marking the player. It returns what it paid, for the write's journal. In order:
//
//  1. It locks the player's account row as a batch of sales locks it, and the player's row with
//     it.
//  2. It checks the session.
//  3. It pays the whole balance out to the bank, as a withdrawal that says why.
//  4. It deletes every session of the player.
//
// No money reaches the account after it, by construction:
//
//   - Under SQLite's one writer, the sales of a batch run after its other writes. A sale decided
//     before this write is in the balance paid out. One decided after finds every session of the
//     player gone, and is refused (lottery.Decide).
//   - On PostgreSQL every read below is a statement of its own, so its snapshot is taken once
//     the locks are held. So are the snapshots of the writes that wait for those locks. A batch
//     of sales locks its buyers' accounts before it reads their sessions. One that locked the
//     account first commits before this reads the balance, which pays its prizes out with the
//     rest. One that waits reads the sessions once this has committed, finds them gone, and
//     refuses the sale.
//   - A deposit locks the account and then reads whether it is shut, refused if so (Pay),
//     whatever its session (the server's own deposit has none).
//   - A new session locks the player's row for share before it reads whether it is shut
//     (CreateSession). One that locked it first is committed, and deleted here. One that waits
//     sees the account shut. (Deleting the sessions before the player's row is locked would miss
//     a session committed between the two. That is a login racing the exclusion, answered 200.)
//   - A game finished later moves no money: its prize was credited at its sale. (Wallet mode,
//     where a prize is credited at the finish, has no exclusion nor closure here: they are the
//     operator's.)
func PayOut(ctx context.Context, q Querier, d Dialect, playerID int64, session []byte, reason string, now time.Time) (Payout, error) {
	out, err := payBalance(ctx, q, d, playerID, session, reason, now)
	if err != nil {
		return out, err
	}
	_, err = q.Exec(ctx, `DELETE FROM sessions WHERE kind = $1 AND owner_id = $2`, lottery.PlayerSession, playerID)
	return out, err
}

// payBalance is PayOut's steps 1 to 3: the whole balance paid out, as a withdrawal that says
// why ("" for a plain one: an operator's payout), the sessions left as they are.
func payBalance(ctx context.Context, q Querier, d Dialect, playerID int64, session []byte, reason string, now time.Time) (Payout, error) {
	var out Payout
	var balance int64
	if err := q.QueryRow(ctx, `SELECT a.id, a.balance FROM players p JOIN accounts a ON a.id = p.account_id WHERE p.id = $1`+d.forNoKeyUpdate("a, p"),
		playerID).Scan(&out.Account, &balance); err != nil {
		return out, NotFound(err, "no such player")
	}
	if err := RequireSession(ctx, q, session); err != nil {
		return out, err
	}
	if balance > 0 {
		w := lottery.Transfer{From: out.Account, To: lottery.BankAccount, Amount: balance, Kind: lottery.Withdrawal, Reason: reason, CreatedAt: now}
		if _, err := q.Exec(ctx, `UPDATE accounts SET balance = balance - $1 WHERE id = $2`, balance, w.From); err != nil {
			return out, err
		}
		if _, err := q.Exec(ctx, `UPDATE accounts SET balance = balance + $1 WHERE id = $2`, balance, w.To); err != nil {
			return out, err
		}
		var why any // NULL: a plain withdrawal
		if reason != "" {
			why = reason
		}
		if err := q.QueryRow(ctx, `INSERT INTO transfers (from_account, to_account, amount, kind, reason, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
			w.From, w.To, w.Amount, w.Kind, why, d.SaleTime(now)).Scan(&w.ID); err != nil {
			return out, err
		}
		out.Withdrawal = w
	}
	return out, nil
}

// ChangePassword sets a player's password hash in one write:
//
//  1. It locks the player's row as an exclusion locks it, so that a session opened meanwhile
//     waits, and is ended here, or sees the change.
//  2. It requires the account open.
//  3. It checks the session (nil: not checked).
//  4. It replaces the hash.
//  5. It ends every session of the player.
//  6. It creates fresh, the session the change opens in their place.
//
// A password that may have leaked stops serving every device that used it, on every server,
// while the device that changed it stays in.
func (s *DB) ChangePassword(ctx context.Context, playerID int64, session []byte, passwordHash string, fresh lottery.Session) error {
	return s.fault(s.write(ctx, func(q Querier) error {
		if _, err := RequireOpen(ctx, q, s.d, playerID, time.Unix(fresh.CreatedAt, 0), s.d.forNoKeyUpdate("p")); err != nil {
			return err
		}
		if err := RequireSession(ctx, q, session); err != nil {
			return err
		}
		if _, err := q.Exec(ctx, `UPDATE players SET password_hash = $1 WHERE id = $2`, passwordHash, playerID); err != nil {
			return err
		}
		if _, err := q.Exec(ctx, `DELETE FROM sessions WHERE kind = $1 AND owner_id = $2`, lottery.PlayerSession, playerID); err != nil {
			return err
		}
		_, err := q.Exec(ctx, insertSession,
			fresh.Hash, lottery.PlayerSession, playerID, fresh.CreatedAt, fresh.LastSeen)
		return err
	}))
}
