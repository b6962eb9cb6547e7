package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"starcolor/internal/lottery"
)

// The wallet's outbox (migration 0017): credits and rollbacks kept until the wallet acknowledges
// them. The queries of the calls not acknowledged say "status <> 'acked'" in so many words:
// SQLite uses a partial index (wallet_calls_open, migration 0019) only for a query whose WHERE
// holds the index's own condition, and without it each claim of the sender would read every
// call ever made.

// AddWalletCalls keeps calls to send. A call already kept under its transaction id is kept as it
// was: the same body is a no-op, another body an error (a call never changes).
func (d *DB) AddWalletCalls(ctx context.Context, calls []lottery.WalletCall, now time.Time) error {
	return asFault(d.update(ctx, func(t *tx) error { return t.addWalletCalls(calls, now) }))
}

func (t *tx) addWalletCalls(calls []lottery.WalletCall, now time.Time) error {
	for _, c := range calls {
		res, err := t.exec(`INSERT INTO wallet_calls (call, transaction_id, player, round_id, amount, body, status, next_at, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (transaction_id) DO NOTHING`,
			c.Call, c.TransactionID, c.Player, c.RoundID, c.Amount, c.Body, callStatus(c), storedTime(nextAt(c, now)), storedTime(now))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			var body []byte
			if err := t.queryRow(`SELECT body FROM wallet_calls WHERE transaction_id = ?`, c.TransactionID).Scan(&body); err != nil {
				return err
			}
			if !bytes.Equal(body, c.Body) {
				return fmt.Errorf("wallet call %s is kept with another body: a call never changes", c.TransactionID)
			}
		}
	}
	return nil
}

// ClaimWalletCalls takes up to limit calls due at now, oldest due first, and makes them due again
// only after lease: the time to send them, so that no other sender takes them meanwhile.
func (d *DB) ClaimWalletCalls(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]lottery.WalletCall, error) {
	var out []lottery.WalletCall
	err := d.update(ctx, func(t *tx) error {
		out = out[:0]
		if err := t.rows(func(r *sql.Rows) error {
			c, err := scanWalletCall(r)
			out = append(out, c)
			return err
		}, `UPDATE wallet_calls SET next_at = ?, attempts = attempts + 1 WHERE id IN (
				SELECT id FROM wallet_calls WHERE status <> 'acked' AND status = 'pending' AND next_at <= ? ORDER BY next_at, id LIMIT ?)
			RETURNING `+walletCallColumns, storedTime(now.Add(lease)), storedTime(now), limit); err != nil {
			return err
		}
		return nil
	})
	return out, asFault(err)
}

const walletCallColumns = `id, call, transaction_id, player, round_id, amount, body, status, attempts, next_at, last_error, created_at, acked_at`

// scanWalletCall reads a call's walletCallColumns, then the columns after them into extra.
func scanWalletCall(r scanner, extra ...any) (lottery.WalletCall, error) {
	var c lottery.WalletCall
	var next, created, acked sql.NullString
	err := r.Scan(append([]any{&c.ID, &c.Call, &c.TransactionID, &c.Player, &c.RoundID, &c.Amount, &c.Body, &c.Status, &c.Attempts, &next, &c.LastError, &created, &acked}, extra...)...)
	for _, t := range []struct {
		at *time.Time
		s  sql.NullString
	}{{&c.NextAt, next}, {&c.CreatedAt, created}, {&c.AckedAt, acked}} {
		if err == nil {
			*t.at, err = parseStored(t.s)
		}
	}
	return c, err
}

// SettleWalletCalls writes what became of a sending of calls, by id: acknowledged, disputed, or
// due again at a time; in one write. A call acknowledged stays so (a late answer of an earlier
// sending changes nothing).
func (d *DB) SettleWalletCalls(ctx context.Context, outcomes map[int64]lottery.CallOutcome, now time.Time) error {
	return asFault(d.update(ctx, func(t *tx) error {
		for id, o := range outcomes {
			var err error
			switch {
			case o.Acked:
				_, err = t.exec(`UPDATE wallet_calls SET status = 'acked', acked_at = ?, last_error = '' WHERE id = ? AND status <> 'acked'`, storedTime(now), id)
			case o.Disputed:
				_, err = t.exec(`UPDATE wallet_calls SET status = 'disputed', last_error = ? WHERE id = ? AND status = 'pending'`, o.Error, id)
			default:
				_, err = t.exec(`UPDATE wallet_calls SET next_at = ?, last_error = ? WHERE id = ? AND status = 'pending'`, storedTime(o.Retry), o.Error, id)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}))
}

// OutboxState counts the calls not yet acknowledged, the oldest's age, and the disputed ones.
func (d *DB) OutboxState(ctx context.Context, now time.Time) (lottery.OutboxState, error) {
	var s lottery.OutboxState
	var oldest sql.NullString
	err := d.queryRow(ctx, `SELECT count(*) FILTER (WHERE status = 'pending' OR (status = 'held' AND call = 'rollback' AND next_at <= ?1)),
		min(created_at) FILTER (WHERE status = 'pending' OR (status = 'held' AND call = 'rollback' AND next_at <= ?1)),
		count(*) FILTER (WHERE status = 'disputed'), count(*) FILTER (WHERE status = 'held' AND call = 'credit')
		FROM wallet_calls WHERE status <> 'acked'`, storedTime(now)).Scan(&s.Pending, &oldest, &s.Disputed, &s.Open)
	if err == nil {
		s.Oldest, err = parseStored(oldest)
	}
	return s, asFault(err)
}

// WalletCalls lists up to limit calls in a status, the longest kept first, each with its
// player's account and its round's game here, when there are.
func (d *DB) WalletCalls(ctx context.Context, status string, limit int) ([]lottery.OutboxCall, error) {
	open := "c.status <> 'acked' AND " // the index of the calls not acknowledged (migration 0019)
	if status == lottery.CallAcked {
		open = ""
	}
	rows, err := d.db.QueryContext(ctx, `SELECT c.id, c.call, c.transaction_id, c.player, c.round_id, c.amount, c.body, c.status, c.attempts, c.next_at,
			c.last_error, c.created_at, c.acked_at, coalesce(wp.player_id, 0), coalesce(g.id, 0)
		FROM wallet_calls c LEFT JOIN wallet_players wp ON wp.wallet_player = c.player
		LEFT JOIN games g ON g.id = CAST(c.round_id AS INTEGER)
		WHERE `+open+`c.status = ? ORDER BY c.created_at, c.id LIMIT ?`, status, limit)
	if err != nil {
		return nil, asFault(err)
	}
	defer rows.Close()
	var out []lottery.OutboxCall
	for rows.Next() {
		var c lottery.OutboxCall
		var err error
		if c.WalletCall, err = scanWalletCall(rows, &c.PlayerID, &c.GameID); err != nil {
			return nil, asFault(err)
		}
		out = append(out, c)
	}
	return out, asFault(rows.Err())
}

// callStatus is the status a call is kept with: pending unless held.
// nextAt is when a call being kept is due, or for a held rollback, when it is held from.
func nextAt(c lottery.WalletCall, now time.Time) time.Time {
	if c.NextAt.IsZero() {
		return now
	}
	return c.NextAt
}

func callStatus(c lottery.WalletCall) string {
	if c.Status == lottery.CallHeld {
		return lottery.CallHeld
	}
	return lottery.CallPending
}

// ReleaseWalletCalls makes held calls due now: by transaction id (a rollback whose sale was not
// made) or by round (the credit of a game that finished).
func (d *DB) ReleaseWalletCalls(ctx context.Context, transactionIDs, rounds []string, now time.Time) error {
	return asFault(d.update(ctx, func(t *tx) error {
		for _, id := range transactionIDs {
			if _, err := t.exec(`UPDATE wallet_calls SET status = 'pending', next_at = ? WHERE transaction_id = ? AND status = 'held'`, storedTime(now), id); err != nil {
				return err
			}
		}
		for _, r := range rounds {
			if _, err := t.exec(`UPDATE wallet_calls SET status = 'pending', next_at = ? WHERE round_id = ? AND call = 'credit' AND status = 'held'`, storedTime(now), r); err != nil {
				return err
			}
		}
		return nil
	}))
}

// DropHeldWalletCalls forgets held calls that will never be owed: the rollback of a debit the
// wallet refused (a refusal is final), or of one never sent (held ahead of a sale that did not
// come).
func (d *DB) DropHeldWalletCalls(ctx context.Context, transactionIDs []string) error {
	return asFault(d.update(ctx, func(t *tx) error {
		for _, id := range transactionIDs {
			if _, err := t.exec(`DELETE FROM wallet_calls WHERE transaction_id = ? AND status = 'held'`, id); err != nil {
				return err
			}
		}
		return nil
	}))
}

// ReleaseStaleWalletCalls makes due the held calls a crash left held: a rollback held since
// before a time whose round was never sold (the process died between the debit and the sale), a
// credit whose game is finished (it died between the finish and the release).
func (d *DB) ReleaseStaleWalletCalls(ctx context.Context, before, now time.Time) (int64, error) {
	var n int64
	err := d.update(ctx, func(t *tx) error {
		// A rollback held past its time whose round was not sold: the sale never happened.
		res, err := t.exec(`UPDATE wallet_calls SET status = 'pending', next_at = ? WHERE status <> 'acked' AND status = 'held' AND call = 'rollback' AND next_at < ?
			AND NOT EXISTS (SELECT 1 FROM games g WHERE g.id = CAST(wallet_calls.round_id AS INTEGER))`, storedTime(now), storedTime(before))
		if err != nil {
			return err
		}
		a, _ := res.RowsAffected()
		// A credit held whose game is finished: its release was lost in a crash.
		res, err = t.exec(`UPDATE wallet_calls SET status = 'pending', next_at = ? WHERE status <> 'acked' AND status = 'held' AND call = 'credit'
			AND EXISTS (SELECT 1 FROM games g WHERE g.id = CAST(wallet_calls.round_id AS INTEGER) AND g.status = 'finished')`, storedTime(now))
		if err != nil {
			return err
		}
		b, _ := res.RowsAffected()
		n = a + b
		return nil
	})
	return n, asFault(err)
}

// WalletRounds lists the rounds of the operator's players: each game's stake and prize, and
// whether the wallet acknowledged its credit. The credits acknowledged are read in one pass and
// matched here: the outbox keeps no index of every call by round (a sale would pay for it), and
// a join without one would read the calls once for each game.
func (d *DB) WalletRounds(ctx context.Context) ([]lottery.Round, error) {
	acked := map[string]bool{}
	rows, err := d.db.QueryContext(ctx, `SELECT round_id FROM wallet_calls WHERE call = 'credit' AND status = 'acked'`)
	if err != nil {
		return nil, asFault(err)
	}
	for rows.Next() {
		var round string
		if err := rows.Scan(&round); err != nil {
			rows.Close()
			return nil, asFault(err)
		}
		acked[round] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, asFault(err)
	}
	rows, err = d.db.QueryContext(ctx, `SELECT g.id, wp.wallet_player, g.stake, g.prize
		FROM games g JOIN wallet_players wp ON wp.player_id = g.player_id ORDER BY g.id`)
	if err != nil {
		return nil, asFault(err)
	}
	defer rows.Close()
	var out []lottery.Round
	for rows.Next() {
		var r lottery.Round
		if err := rows.Scan(&r.ID, &r.Player, &r.Stake, &r.Prize); err != nil {
			return nil, asFault(err)
		}
		r.Credited = acked[r.ID]
		out = append(out, r)
	}
	return out, asFault(rows.Err())
}

// HoldRollback keeps a sale's rollback held before its debit is sent, in one write with the check
// of the sale's Idempotency-Key: a key answered already gives its answer (found), and nothing is
// kept. One write, where a read of the key and then a write would cost a sale twice.
func (d *DB) HoldRollback(ctx context.Context, playerID int64, key string, call lottery.WalletCall, now time.Time) (lottery.KeptAnswer, bool, error) {
	var r lottery.KeptAnswer
	found := false
	err := d.update(ctx, func(t *tx) error {
		err := t.queryRow(keptAnswerQuery, playerID, key).
			Scan(&r.RequestHash, &r.Status, &r.Body)
		if err == nil {
			found = true
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		call.Status = lottery.CallHeld
		return t.addWalletCalls([]lottery.WalletCall{call}, now)
	})
	return r, found, asFault(err)
}
