package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// Weekly limits (docs/spec/API.md 1.1): the amounts are columns of the player's account, beside the
// balance a sale reads, and so are the stakes of the week, a lottery.Window (migration 0015), brought forward when a stake leaves the
// week; deposits, a few a week, are summed from the ledger. A change of limits, a deposit and a
// batch of sales each lock the player's account row first, so that on every server they are
// checked one after the other.

// limitsOf reads a player's limits as they hold at now, with the sums they bound; lock locks
// the player's account row until the transaction ends.
func limitsOf(ctx context.Context, q querier, playerID int64, now time.Time, lock bool) (lottery.Limits, error) {
	var l lottery.Limits
	var account int64
	var w lottery.Window
	var reality *int32
	var dep, stake limitColumns
	var next, last *time.Time
	query := `SELECT p.account_id, a.deposit_limit, a.deposit_raise, a.deposit_raise_at, a.stake_limit, a.stake_raise, a.stake_raise_at,
			p.reality_check, a.staked_total, a.staked_expired, a.staked_through_id, a.staked_next, a.staked_last
		FROM players p JOIN accounts a ON a.id = p.account_id WHERE p.id = $1`
	if lock {
		query += ` FOR NO KEY UPDATE OF a`
	}
	err := q.QueryRow(ctx, query, playerID).Scan(&account, &dep.amount, &dep.raise, &dep.raiseAt, &stake.amount, &stake.raise, &stake.raiseAt,
		&reality, &w.Total, &w.Expired, &w.ThroughID, &next, &last)
	if errors.Is(err, pgx.ErrNoRows) {
		return l, fault.Errorf(fault.NotFound, "no such player")
	}
	if err != nil {
		return l, err
	}
	l.Deposit, l.Stake = dep.limit(), stake.limit()
	w.Next, w.Last = timeOr(next), timeOr(last)
	if reality != nil {
		l.RealityCheck = int(*reality)
	}
	if l.Deposited, err = deposited(ctx, q, account, now); err != nil {
		return l, err
	}
	if err := forward(ctx, q, playerID, &w, now); err != nil {
		return l, err
	}
	l.Staked = w.Sum()
	return l.At(now), nil
}

// limitColumns are a limit as the accounts table keeps it.
type limitColumns struct {
	amount, raise *int64
	raiseAt       *time.Time
}

func (c limitColumns) limit() lottery.Limit {
	var l lottery.Limit
	if c.amount != nil {
		l.Set, l.Amount = true, *c.amount
	}
	if c.raise != nil && c.raiseAt != nil {
		l.Pending = &lottery.Pending{Amount: *c.raise, EffectiveAt: c.raiseAt.UTC()}
	}
	return l
}

func columnsOf(l lottery.Limit) (amount, raise *int64, raiseAt *time.Time) {
	if l.Set {
		amount = &l.Amount
	}
	if l.Pending != nil {
		raise, raiseAt = &l.Pending.Amount, &l.Pending.EffectiveAt
	}
	return
}

func timeOr(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// deposited is the sum of an account's deposits over the week up to now.
func deposited(ctx context.Context, q querier, account int64, now time.Time) (int64, error) {
	var sum int64
	err := q.QueryRow(ctx, `SELECT coalesce(sum(amount), 0)::bigint FROM transfers WHERE to_account = $1 AND kind IN ('deposit', 'withdrawal')
		AND kind = 'deposit' AND created_at > $2 AND created_at <= $3`, account, now.Add(-lottery.Week), now).Scan(&sum)
	return sum, err
}

// forward brings a player's stake window to now if a stake has left the week since it was last
// brought forward, reading the player's games after the last that left, in order, through the
// games' (player_id, id) index.
func forward(ctx context.Context, q querier, playerID int64, w *lottery.Window, now time.Time) error {
	return w.Forward(now, func(after int64) ([]lottery.StakeAt, error) {
		rows, err := q.Query(ctx, `SELECT id, stake, created_at FROM games WHERE player_id = $1 AND id > $2 ORDER BY id LIMIT 256`, playerID, after)
		if err != nil {
			return nil, err
		}
		return pgx.CollectRows(rows, func(r pgx.CollectableRow) (lottery.StakeAt, error) {
			var s lottery.StakeAt
			err := r.Scan(&s.GameID, &s.Amount, &s.At)
			return s, err
		})
	})
}

// Limits reads a player's limits as they hold at now, with the deposits and the stakes of the
// week up to now.
func (d *DB) Limits(ctx context.Context, playerID int64, now time.Time) (lottery.Limits, error) {
	l, err := limitsOf(ctx, d.pool, playerID, now, false)
	return l, asFault(err)
}

// SetLimits applies a change of a player's limits asked for at now by someone ("player", or an
// operator's name), keeps each change of a limit, and returns the limits after it, in one
// transaction holding the player's account row: a sale or a deposit is checked against the
// limits before it or after it.
func (d *DB) SetLimits(ctx context.Context, playerID int64, c lottery.LimitsChange, by string, now time.Time) (lottery.Limits, error) {
	var l lottery.Limits
	err := d.inTx(ctx, func(tx pgx.Tx) error {
		was, err := limitsOf(ctx, tx, playerID, now, true)
		if err != nil {
			return err
		}
		var kept []lottery.LimitChange
		if l, kept, err = was.Apply(c, now); err != nil {
			return err
		}
		dep, depRaise, depAt := columnsOf(l.Deposit)
		st, stRaise, stAt := columnsOf(l.Stake)
		var reality *int32
		if l.RealityCheck != 0 {
			r := int32(l.RealityCheck)
			reality = &r
		}
		b := &pgx.Batch{}
		b.Queue(`UPDATE accounts SET deposit_limit = $1, deposit_raise = $2, deposit_raise_at = $3, stake_limit = $4, stake_raise = $5,
			stake_raise_at = $6 WHERE id = (SELECT account_id FROM players WHERE id = $7)`, dep, depRaise, depAt, st, stRaise, stAt, playerID)
		b.Queue(`UPDATE players SET reality_check = $1 WHERE id = $2`, reality, playerID)
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return err
		}
		for _, k := range kept {
			if _, err := tx.Exec(ctx, `INSERT INTO limit_changes (player_id, kind, old, new, requested_at, effective_at, by) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
				playerID, k.Limit, k.Old, k.New, k.RequestedAt, k.EffectiveAt, by); err != nil {
				return err
			}
		}
		return nil
	})
	return l, asFault(err)
}

// LimitChanges lists the changes of a player's limits, the latest first.
func (d *DB) LimitChanges(ctx context.Context, playerID int64) ([]lottery.LimitChange, error) {
	rows, err := d.pool.Query(ctx, `SELECT kind, old, new, requested_at, effective_at, by FROM limit_changes WHERE player_id = $1 ORDER BY id DESC`, playerID)
	if err != nil {
		return nil, asFault(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (lottery.LimitChange, error) {
		var c lottery.LimitChange
		err := r.Scan(&c.Limit, &c.Old, &c.New, &c.RequestedAt, &c.EffectiveAt, &c.By)
		c.RequestedAt, c.EffectiveAt = c.RequestedAt.UTC(), c.EffectiveAt.UTC()
		return c, err
	})
	return out, asFault(err)
}

// checkDeposit locks the player's account and refuses a deposit past their weekly deposit
// limit, or before they set one (fault.LimitsRequired, fault.LimitReached), in the deposit's own
// transaction.
func checkDeposit(ctx context.Context, tx pgx.Tx, p lottery.Payment, now time.Time) error {
	var dep limitColumns
	err := tx.QueryRow(ctx, `SELECT deposit_limit, deposit_raise, deposit_raise_at FROM accounts WHERE id = $1 FOR NO KEY UPDATE`,
		p.AccountID).Scan(&dep.amount, &dep.raise, &dep.raiseAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return fault.Errorf(fault.NotFound, "no such account")
	}
	if err != nil {
		return err
	}
	sum, err := deposited(ctx, tx, p.AccountID, now)
	if err != nil {
		return err
	}
	return dep.limit().Allows(lottery.DepositWeekly, p.Amount, sum, now)
}
