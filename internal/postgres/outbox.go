package postgres

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"starcolor/internal/lottery"
)

// The wallet's outbox (migration 0017): credits and rollbacks kept until the wallet acknowledges
// them; any server may send them, one server at a time for each call (ClaimWalletCalls).

// AddWalletCalls keeps calls to send. A call already kept under its transaction id is kept as it
// was: the same body is a no-op, another body an error (a call never changes).
func (d *DB) AddWalletCalls(ctx context.Context, calls []lottery.WalletCall, now time.Time) error {
	return d.inTx(ctx, func(tx pgx.Tx) error { return addWalletCalls(ctx, tx, calls, now) })
}

func addWalletCalls(ctx context.Context, tx pgx.Tx, calls []lottery.WalletCall, now time.Time) error {
	for _, c := range calls {
		var body []byte
		status := lottery.CallPending
		if c.Status == lottery.CallHeld {
			status = lottery.CallHeld
		}
		next := c.NextAt
		if next.IsZero() {
			next = now
		}
		err := tx.QueryRow(ctx, `WITH ins AS (INSERT INTO wallet_calls (call, transaction_id, player, round_id, amount, body, status, next_at, created_at)
				VALUES ($1, $2, $3, $4, $5, $6, $8, $9, $7) ON CONFLICT (transaction_id) DO NOTHING RETURNING body)
			SELECT body FROM ins UNION ALL SELECT body FROM wallet_calls WHERE transaction_id = $2 LIMIT 1`,
			c.Call, c.TransactionID, c.Player, c.RoundID, c.Amount, c.Body, now, status, next).Scan(&body)
		if err != nil {
			return err
		}
		if !bytes.Equal(body, c.Body) {
			return fmt.Errorf("wallet call %s is kept with another body: a call never changes", c.TransactionID)
		}
	}
	return nil
}

// ClaimWalletCalls takes up to limit calls due at now, oldest due first, and makes them due again
// only after lease: the time to send them. Calls another server is claiming are skipped.
func (d *DB) ClaimWalletCalls(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]lottery.WalletCall, error) {
	var out []lottery.WalletCall
	err := d.inTx(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `UPDATE wallet_calls SET next_at = $1, attempts = attempts + 1 WHERE id IN (
				SELECT id FROM wallet_calls WHERE status <> 'acked' AND status = 'pending' AND next_at <= $2 ORDER BY next_at, id LIMIT $3 FOR UPDATE SKIP LOCKED)
			RETURNING `+walletCallColumns, now.Add(lease), now, limit)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (lottery.WalletCall, error) { return scanWalletCall(r) })
		return err
	})
	return out, asFault(err)
}

const walletCallColumns = `id, call, transaction_id, player, round_id, amount, body, status, attempts, next_at, last_error, created_at, acked_at`

// scanWalletCall reads a call's walletCallColumns, then the columns after them into extra.
func scanWalletCall(r pgx.Row, extra ...any) (lottery.WalletCall, error) {
	var c lottery.WalletCall
	var acked *time.Time
	err := r.Scan(append([]any{&c.ID, &c.Call, &c.TransactionID, &c.Player, &c.RoundID, &c.Amount, &c.Body, &c.Status, &c.Attempts, &c.NextAt, &c.LastError, &c.CreatedAt, &acked}, extra...)...)
	c.NextAt, c.CreatedAt, c.AckedAt = c.NextAt.UTC(), c.CreatedAt.UTC(), timeOr(acked)
	return c, err
}

// SettleWalletCalls writes what became of a sending of calls, by id: acknowledged, disputed, or
// due again at a time; in one round trip. A call acknowledged stays so.
func (d *DB) SettleWalletCalls(ctx context.Context, outcomes map[int64]lottery.CallOutcome, now time.Time) error {
	b := &pgx.Batch{}
	for id, o := range outcomes {
		switch {
		case o.Acked:
			b.Queue(`UPDATE wallet_calls SET status = 'acked', acked_at = $1, last_error = '' WHERE id = $2 AND status <> 'acked'`, now, id)
		case o.Disputed:
			b.Queue(`UPDATE wallet_calls SET status = 'disputed', last_error = $1 WHERE id = $2 AND status = 'pending'`, o.Error, id)
		default:
			b.Queue(`UPDATE wallet_calls SET next_at = $1, last_error = $2 WHERE id = $3 AND status = 'pending'`, o.Retry, o.Error, id)
		}
	}
	return asFault(d.noteWrite(d.pool.SendBatch(ctx, b).Close()))
}

// OutboxState counts the calls not yet acknowledged, the oldest's age, and the disputed ones.
func (d *DB) OutboxState(ctx context.Context, now time.Time) (lottery.OutboxState, error) {
	var s lottery.OutboxState
	var oldest *time.Time
	err := d.pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE status = 'pending' OR (status = 'held' AND call = 'rollback' AND next_at <= $1)),
		min(created_at) FILTER (WHERE status = 'pending' OR (status = 'held' AND call = 'rollback' AND next_at <= $1)),
		count(*) FILTER (WHERE status = 'disputed'), count(*) FILTER (WHERE status = 'held' AND call = 'credit')
		FROM wallet_calls WHERE status <> 'acked'`, now).Scan(&s.Pending, &oldest, &s.Disputed, &s.Open)
	s.Oldest = timeOr(oldest)
	return s, asFault(err)
}

// WalletCalls lists up to limit calls in a status, the longest kept first, each with its
// player's account and its round's game here, when there are.
func (d *DB) WalletCalls(ctx context.Context, status string, limit int) ([]lottery.OutboxCall, error) {
	open := "c.status <> 'acked' AND " // the index of the calls not acknowledged (migration 0019)
	if status == lottery.CallAcked {
		open = ""
	}
	rows, err := d.pool.Query(ctx, `SELECT c.id, c.call, c.transaction_id, c.player, c.round_id, c.amount, c.body, c.status, c.attempts, c.next_at,
			c.last_error, c.created_at, c.acked_at, coalesce(wp.player_id, 0), coalesce(g.id, 0)
		FROM wallet_calls c LEFT JOIN wallet_players wp ON wp.wallet_player = c.player
		LEFT JOIN games g ON g.id = CASE WHEN c.round_id ~ '^[0-9]{1,18}$' THEN c.round_id::bigint END
		WHERE `+open+`c.status = $1 ORDER BY c.created_at, c.id LIMIT $2`, status, limit)
	if err != nil {
		return nil, asFault(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (lottery.OutboxCall, error) {
		var c lottery.OutboxCall
		var err error
		c.WalletCall, err = scanWalletCall(r, &c.PlayerID, &c.GameID)
		return c, err
	})
	return out, asFault(err)
}

// ReleaseWalletCalls makes held calls due now: by transaction id (a rollback whose sale was not
// made) or by round (the credit of a game that finished).
func (d *DB) ReleaseWalletCalls(ctx context.Context, transactionIDs, rounds []string, now time.Time) error {
	b := &pgx.Batch{}
	b.Queue(`UPDATE wallet_calls SET status = 'pending', next_at = $1 WHERE transaction_id = ANY($2) AND status = 'held'`, now, transactionIDs)
	b.Queue(`UPDATE wallet_calls SET status = 'pending', next_at = $1 WHERE round_id = ANY($2) AND call = 'credit' AND status = 'held'`, now, rounds)
	return asFault(d.noteWrite(d.pool.SendBatch(ctx, b).Close()))
}

// DropHeldWalletCalls forgets held calls that will never be owed: the rollback of a debit the
// wallet refused (a refusal is final), or of one never sent (held ahead of a sale that did not
// come).
func (d *DB) DropHeldWalletCalls(ctx context.Context, transactionIDs []string) error {
	_, err := d.pool.Exec(ctx, `DELETE FROM wallet_calls WHERE transaction_id = ANY($1) AND status = 'held'`, transactionIDs)
	return asFault(d.noteWrite(err))
}

// ReleaseStaleWalletCalls makes due the held calls a crash left held: a rollback held since
// before a time whose round was never sold (a server died between the debit and the sale), a
// credit whose game is finished (it died between the finish and the release).
func (d *DB) ReleaseStaleWalletCalls(ctx context.Context, before, now time.Time) (int64, error) {
	var n int64
	err := d.inTx(ctx, func(tx pgx.Tx) error {
		a, err := tx.Exec(ctx, `UPDATE wallet_calls w SET status = 'pending', next_at = $1 WHERE status <> 'acked' AND status = 'held' AND call = 'rollback' AND next_at < $2
			AND NOT EXISTS (SELECT 1 FROM games g WHERE g.id = w.round_id::bigint)`, now, before)
		if err != nil {
			return err
		}
		b, err := tx.Exec(ctx, `UPDATE wallet_calls w SET status = 'pending', next_at = $1 WHERE status <> 'acked' AND status = 'held' AND call = 'credit'
			AND EXISTS (SELECT 1 FROM games g WHERE g.id = w.round_id::bigint AND g.status = 'finished')`, now)
		n = a.RowsAffected() + b.RowsAffected()
		return err
	})
	return n, asFault(err)
}

// WalletRounds lists the rounds of the operator's players: each game's stake and prize, and
// whether the wallet acknowledged its credit.
func (d *DB) WalletRounds(ctx context.Context) ([]lottery.Round, error) {
	rows, err := d.pool.Query(ctx, `SELECT g.id::text, wp.wallet_player, g.stake, g.prize, coalesce(c.status = 'acked', false)
		FROM games g JOIN wallet_players wp ON wp.player_id = g.player_id
		LEFT JOIN wallet_calls c ON c.round_id = g.id::text AND c.call = 'credit' ORDER BY g.id`)
	if err != nil {
		return nil, asFault(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (lottery.Round, error) {
		var w lottery.Round
		err := r.Scan(&w.ID, &w.Player, &w.Stake, &w.Prize, &w.Credited)
		return w, err
	})
	return out, asFault(err)
}

// HoldRollback keeps a sale's rollback held before its debit is sent, in one transaction with the
// check of the sale's Idempotency-Key: a key answered already gives its answer (found), and
// nothing is kept.
func (d *DB) HoldRollback(ctx context.Context, playerID int64, key string, call lottery.WalletCall, now time.Time) (lottery.KeptAnswer, bool, error) {
	var r lottery.KeptAnswer
	var status *int32
	err := d.noteWrite(d.pool.QueryRow(ctx, `WITH k AS (SELECT request_hash, status, response FROM idempotency WHERE player_id = $1 AND key = $2),
		ins AS (INSERT INTO wallet_calls (call, transaction_id, player, round_id, amount, body, status, next_at, created_at)
			SELECT $3, $4, $5, $6, $7, $8, 'held', $9, $9 WHERE NOT EXISTS (SELECT 1 FROM k))
		SELECT k.request_hash, k.status, k.response FROM (SELECT 1) one LEFT JOIN k ON true`,
		playerID, key, call.Call, call.TransactionID, call.Player, call.RoundID, call.Amount, call.Body, now).Scan(&r.RequestHash, &status, &r.Body))
	if status == nil {
		return lottery.KeptAnswer{}, false, asFault(err)
	}
	r.Status = int(*status)
	return r, true, asFault(err)
}
