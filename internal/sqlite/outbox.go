package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"starcolor/internal/lottery"
	"starcolor/internal/sqlstore"
)

// The wallet's outbox (internal/sqlstore/outbox.go): here, the writes a sale makes in wallet mode,
// and those of many calls, each a loop in one write of the writer.

// AddWalletCalls keeps calls to send. A call already kept under its transaction id is kept as it
// was: the same call is a no-op, another (another body, amount, player or round) an error (a
// call never changes).
func (d *DB) AddWalletCalls(ctx context.Context, calls []lottery.WalletCall, now time.Time) error {
	return asFault(d.update(ctx, func(t *tx) error { return t.addWalletCalls(calls, now) }))
}

// addWalletCalls inserts the calls in one statement for each chunk; those it did not insert
// (their ids kept already) are compared with what is kept.
func (t *tx) addWalletCalls(calls []lottery.WalletCall, now time.Time) error {
	if len(calls) == 0 {
		return nil
	}
	args := make([]any, 0, 10*len(calls))
	for _, c := range calls {
		args = append(args, c.Call, c.TransactionID, c.Player, c.RoundID, c.Amount, sqlstore.KeptBody(c.Body), callStatus(c),
			c.Attempts, storedTime(nextAt(c, now)), storedTime(now))
	}
	added := make(map[string]bool, len(calls))
	err := t.chunks(`INSERT INTO wallet_calls (call, transaction_id, player, round_id, amount, body, status, attempts, next_at, created_at) VALUES `,
		` ON CONFLICT (transaction_id) DO NOTHING RETURNING transaction_id`, 10, args, func(query string, args []any) error {
			return t.rows(func(r *sql.Rows) error {
				var id string
				err := r.Scan(&id)
				added[id] = true
				return err
			}, query, args...)
		})
	if err != nil {
		return err
	}
	for _, c := range calls {
		if added[c.TransactionID] {
			continue
		}
		var kept lottery.WalletCall
		if err := t.queryRow(`SELECT call, player, round_id, amount, body FROM wallet_calls WHERE transaction_id = ?`, c.TransactionID).
			Scan(&kept.Call, &kept.Player, &kept.RoundID, &kept.Amount, &kept.Body); err != nil {
			return err
		}
		if !sqlstore.SameCall(kept, c) {
			return sqlstore.CallChanged(c.TransactionID)
		}
	}
	return nil
}

// SettleWalletCalls writes what became of a sending of calls, by transaction id: acknowledged,
// disputed, or due again at a time; in one write. A call acknowledged stays so (a late answer of
// an earlier sending changes nothing). The acknowledged, most of them, are written by one
// statement.
func (d *DB) SettleWalletCalls(ctx context.Context, outcomes map[string]lottery.CallOutcome, now time.Time) error {
	return asFault(d.update(ctx, func(t *tx) error {
		var acked []any
		for id, o := range outcomes {
			var err error
			switch {
			case o.Acked:
				acked = append(acked, id)
			case o.Disputed:
				_, err = t.exec(`UPDATE wallet_calls SET status = 'disputed', last_error = ? WHERE transaction_id = ? AND status = 'pending'`, o.Error, id)
			default:
				_, err = t.exec(`UPDATE wallet_calls SET next_at = ?, last_error = ? WHERE transaction_id = ? AND status = 'pending'`, storedTime(o.Retry), o.Error, id)
			}
			if err != nil {
				return err
			}
		}
		return t.chunks(`UPDATE wallet_calls SET status = 'acked', acked_at = ?1, last_error = '' WHERE status <> 'acked' AND transaction_id IN (`, `)`, 1, acked,
			func(query string, args []any) error {
				_, err := t.exec(query, append([]any{storedTime(now)}, args...)...)
				return err
			})
	}))
}

// nextAt is when a call being kept is due (for one kept claimed, when its lease ends), or for a
// held rollback, when it is held from.
func nextAt(c lottery.WalletCall, now time.Time) time.Time {
	if c.NextAt.IsZero() {
		return now
	}
	return c.NextAt
}

// callStatus is the status a call is kept with: pending unless held.
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
		err := t.queryRow(sqlstore.KeptAnswerQuery, playerID, key).
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
