package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"starcolor/internal/lottery"
	"starcolor/internal/sqlstore"
)

// The wallet's outbox (internal/sqlstore/outbox.go): here, the writes a sale makes in wallet mode,
// and those of many calls, each in one round trip.

// AddWalletCalls keeps calls to send. A call already kept under its transaction id is kept as it
// was: the same call is a no-op, another (another body, amount, player or round) an error (a
// call never changes).
func (d *DB) AddWalletCalls(ctx context.Context, calls []lottery.WalletCall, now time.Time) error {
	return d.inTx(ctx, func(tx pgx.Tx) error { return addWalletCalls(ctx, tx, calls, now) })
}

func addWalletCalls(ctx context.Context, tx pgx.Tx, calls []lottery.WalletCall, now time.Time) error {
	for _, c := range calls {
		status := lottery.CallPending
		if c.Status == lottery.CallHeld {
			status = lottery.CallHeld
		}
		next := c.NextAt
		if next.IsZero() {
			next = now
		}
		var kept lottery.WalletCall
		err := tx.QueryRow(ctx, `WITH ins AS (INSERT INTO wallet_calls (call, transaction_id, player, round_id, amount, body, status, next_at, created_at, attempts)
				VALUES ($1, $2, $3, $4, $5, $6, $8, $9, $7, $10) ON CONFLICT (transaction_id) DO NOTHING RETURNING call, player, round_id, amount, body)
			SELECT * FROM ins UNION ALL SELECT call, player, round_id, amount, body FROM wallet_calls WHERE transaction_id = $2 LIMIT 1`,
			c.Call, c.TransactionID, c.Player, c.RoundID, c.Amount, sqlstore.KeptBody(c.Body), now, status, next, c.Attempts).
			Scan(&kept.Call, &kept.Player, &kept.RoundID, &kept.Amount, &kept.Body)
		if err != nil {
			return err
		}
		if !sqlstore.SameCall(kept, c) {
			return sqlstore.CallChanged(c.TransactionID)
		}
	}
	return nil
}

// SettleWalletCalls writes what became of a sending of calls, by transaction id: acknowledged,
// disputed, or due again at a time; in one round trip. A call acknowledged stays so.
func (d *DB) SettleWalletCalls(ctx context.Context, outcomes map[string]lottery.CallOutcome, now time.Time) error {
	b := &pgx.Batch{}
	for id, o := range outcomes {
		switch {
		case o.Acked:
			b.Queue(`UPDATE wallet_calls SET status = 'acked', acked_at = $1, last_error = '' WHERE transaction_id = $2 AND status <> 'acked'`, now, id)
		case o.Disputed:
			b.Queue(`UPDATE wallet_calls SET status = 'disputed', last_error = $1 WHERE transaction_id = $2 AND status = 'pending'`, o.Error, id)
		default:
			b.Queue(`UPDATE wallet_calls SET next_at = $1, last_error = $2 WHERE transaction_id = $3 AND status = 'pending'`, o.Retry, o.Error, id)
		}
	}
	return asFault(d.noteWrite(d.pool.SendBatch(ctx, b).Close()))
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
		playerID, key, call.Call, call.TransactionID, call.Player, call.RoundID, call.Amount, sqlstore.KeptBody(call.Body), now).Scan(&r.RequestHash, &status, &r.Body))
	if status == nil {
		return lottery.KeptAnswer{}, false, asFault(err)
	}
	r.Status = int(*status)
	return r, true, asFault(err)
}
