package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"starcolor/internal/journal"
	"starcolor/internal/lottery"
)

// Weekly limits (docs/spec/API.md 1.1). The amounts are columns of the player's account, beside
// the balance a sale reads. So are the stakes of the week, a lottery.Window (migration 0015),
// brought forward when a stake leaves the week. Deposits, a few a week, are summed from the
// ledger. Where servers write at once, a change of limits, a deposit and a batch of sales each
// lock the player's account row first, so that they are checked one after the other.

// limitsOf reads a player's limits as they hold at now, with the sums they bound, and their
// account's id; lock locks the player's account row until the write ends.
func (s *DB) limitsOf(ctx context.Context, q Querier, playerID int64, now time.Time, lock bool) (l lottery.Limits, account int64, err error) {
	var w lottery.Window
	var reality sql.NullInt64
	var dep, stake limitColumns
	query := `SELECT p.account_id, a.deposit_limit, a.deposit_raise, a.deposit_raise_at, a.stake_limit, a.stake_raise, a.stake_raise_at,
			p.reality_check, a.staked_total, a.staked_expired, a.staked_through_id, a.staked_next, a.staked_last
		FROM players p JOIN accounts a ON a.id = p.account_id WHERE p.id = $1`
	if lock {
		query += s.d.forNoKeyUpdate("a")
	}
	err = q.QueryRow(ctx, query, playerID).Scan(&account, &dep.amount, &dep.raise, ScanTime(&dep.raiseAt), &stake.amount, &stake.raise,
		ScanTime(&stake.raiseAt), &reality, &w.Total, &w.Expired, &w.ThroughID, ScanTime(&w.Next), ScanTime(&w.Last))
	if err != nil {
		return l, 0, NotFound(err, "no such player")
	}
	l.Deposit, l.Stake, l.RealityCheck = dep.limit(), stake.limit(), int(reality.Int64)
	if l.Deposited, err = s.d.deposited(ctx, q, account, now); err != nil {
		return l, 0, err
	}
	if err := forward(ctx, q, playerID, &w, now); err != nil {
		return l, 0, err
	}
	l.Staked = w.Sum()
	return l.At(now), account, nil
}

// limitColumns are a limit as the accounts table keeps it.
type limitColumns struct {
	amount, raise sql.NullInt64
	raiseAt       time.Time // zero: NULL
}

func (c limitColumns) limit() lottery.Limit {
	l := lottery.Limit{Set: c.amount.Valid, Amount: c.amount.Int64}
	if c.raise.Valid && !c.raiseAt.IsZero() {
		l.Pending = &lottery.Pending{Amount: c.raise.Int64, EffectiveAt: c.raiseAt}
	}
	return l
}

// columnsOf is a limit as the accounts table keeps it (NULL for what is not set).
func (d Dialect) columnsOf(l lottery.Limit) (amount, raise sql.NullInt64, raiseAt any) {
	if l.Set {
		amount = sql.NullInt64{Int64: l.Amount, Valid: true}
	}
	if l.Pending != nil {
		raise, raiseAt = sql.NullInt64{Int64: l.Pending.Amount, Valid: true}, d.Time(l.Pending.EffectiveAt)
	}
	return
}

// deposited is the sum of an account's deposits over the week up to now.
func (d Dialect) deposited(ctx context.Context, q Querier, account int64, now time.Time) (int64, error) {
	var sum int64
	err := q.QueryRow(ctx, `SELECT CAST(coalesce(sum(amount), 0) AS BIGINT) FROM transfers WHERE to_account = $1 AND kind IN ('deposit', 'withdrawal')
		AND kind = 'deposit' AND created_at > $2 AND created_at <= $3`, account, d.SaleTime(now.Add(-lottery.Week)), d.SaleTime(now)).Scan(&sum)
	return sum, err
}

// forward brings a player's stake window to now if a stake has left the week since it was last
// brought forward. It reads the player's games after the last that left, in order, through the
// games' (player_id, id) index. (The stores' sales bring their buyers' windows forward their own
// way, in their batches.)
func forward(ctx context.Context, q Querier, playerID int64, w *lottery.Window, now time.Time) error {
	return w.Forward(now, func(after int64) ([]lottery.StakeAt, error) {
		var page []lottery.StakeAt
		err := each(q.Query(ctx, `SELECT id, stake, created_at FROM games WHERE player_id = $1 AND id > $2 ORDER BY id LIMIT 256`, playerID, after))(func(r Rows) error {
			var st lottery.StakeAt
			err := r.Scan(&st.GameID, &st.Amount, ScanTime(&st.At))
			page = append(page, st)
			return err
		})
		return page, err
	}, func() (st lottery.StakeAt, ok bool, err error) {
		err = each(q.Query(ctx, LatestGameQuery, playerID))(func(r Rows) error {
			ok = true
			return r.Scan(&st.GameID, &st.Amount, ScanTime(&st.At))
		})
		return st, ok, err
	})
}

// LatestGameQuery reads a player's latest game's stake ($1: the player), through the games'
// (player_id, id) index: what lottery.Window.Forward asks of a player who may have stopped.
const LatestGameQuery = `SELECT id, stake, created_at FROM games WHERE player_id = $1 ORDER BY id DESC LIMIT 1`

// Limits reads a player's limits as they hold at now, with the deposits and the stakes of the
// week up to now.
func (s *DB) Limits(ctx context.Context, playerID int64, now time.Time) (lottery.Limits, error) {
	l, _, err := s.limitsOf(ctx, s.read, playerID, now, false)
	return l, s.fault(err)
}

// SetLimits applies a change of a player's limits asked for at now by someone ("player", or an
// operator's name). It keeps each change of a limit, and journals it, and returns the limits
// after it. Its one write holds the player's account row, so a sale or a deposit is checked
// against the limits before it or after it.
func (s *DB) SetLimits(ctx context.Context, playerID int64, c lottery.LimitsChange, by string, now time.Time) (lottery.Limits, error) {
	var l lottery.Limits
	err := s.write(ctx, func(q Querier) error {
		was, account, err := s.limitsOf(ctx, q, playerID, now, true)
		if err != nil {
			return err
		}
		var kept []lottery.LimitChange
		if l, kept, err = was.Apply(c, now); err != nil {
			return err
		}
		dep, depRaise, depAt := s.d.columnsOf(l.Deposit)
		st, stRaise, stAt := s.d.columnsOf(l.Stake)
		reality := sql.NullInt64{Int64: int64(l.RealityCheck), Valid: l.RealityCheck != 0}
		if _, err := q.Exec(ctx, `UPDATE accounts SET deposit_limit = $1, deposit_raise = $2, deposit_raise_at = $3, stake_limit = $4, stake_raise = $5,
			stake_raise_at = $6 WHERE id = (SELECT account_id FROM players WHERE id = $7)`, dep, depRaise, depAt, st, stRaise, stAt, playerID); err != nil {
			return err
		}
		if _, err := q.Exec(ctx, `UPDATE players SET reality_check = $1 WHERE id = $2`, reality, playerID); err != nil {
			return err
		}
		events := make([]journal.Event, len(kept))
		for i, k := range kept {
			if _, err := q.Exec(ctx, `INSERT INTO limit_changes (player_id, kind, old, new, requested_at, effective_at, by) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
				playerID, k.Limit, k.Old, k.New, s.d.Time(k.RequestedAt), s.d.Time(k.EffectiveAt), by); err != nil {
				return err
			}
			k.By = by
			events[i] = LimitsEvent(account, k)
		}
		return s.AppendJournal(ctx, q, now, events...)
	})
	return l, s.fault(err)
}

// LimitChanges lists the changes of a player's limits, the latest first.
func (s *DB) LimitChanges(ctx context.Context, playerID int64) ([]lottery.LimitChange, error) {
	var out []lottery.LimitChange
	err := each(s.read.Query(ctx, `SELECT kind, old, new, requested_at, effective_at, by FROM limit_changes WHERE player_id = $1 ORDER BY id DESC`,
		playerID))(func(r Rows) error {
		var c lottery.LimitChange
		err := r.Scan(&c.Limit, &c.Old, &c.New, ScanTime(&c.RequestedAt), ScanTime(&c.EffectiveAt), &c.By)
		out = append(out, c)
		return err
	})
	if err != nil {
		return nil, s.fault(err)
	}
	return out, nil
}

// CheckDeposit refuses a deposit of a player past their weekly deposit limit, or before they set
// one (fault.LimitReached, fault.LimitsRequired), in the deposit's own write. Where servers write
// at once, it locks the account's row, so two deposits on two servers are checked one after the
// other.
func CheckDeposit(ctx context.Context, q Querier, d Dialect, p lottery.Payment, now time.Time) error {
	var dep limitColumns
	err := q.QueryRow(ctx, `SELECT deposit_limit, deposit_raise, deposit_raise_at FROM accounts WHERE id = $1`+d.forNoKeyUpdate(""),
		p.AccountID).Scan(&dep.amount, &dep.raise, ScanTime(&dep.raiseAt))
	if err != nil {
		return NotFound(err, "no such account")
	}
	sum, err := d.deposited(ctx, q, p.AccountID, now)
	if err != nil {
		return err
	}
	return dep.limit().Allows(lottery.DepositWeekly, p.Amount, sum, now)
}

// windowsWrite is how many windows one write of MoveStakeWindows moves.
const windowsWrite = 100

// MoveStakeWindows brings forward, as a sale would, the stake windows that a stake has left
// since they last moved: of at most n players. It says how many it moved.
//
// A sale brings its buyer's window forward. A player who stopped keeps theirs as it was, and a
// page that shows their limits (Limits) reads every game that left the week since their last
// sale, each a lookup among everyone's games: a heavy player's page of a file larger than the
// memory took 0.45–0.70 s (docs/PERFORMANCE.md). Swept often, it reads a sweep's span of games.
// (Once all of a window's stakes have left, Forward reads only the latest game.)
//
// The stalest windows go first. In the order of the accounts, more than n windows due at once (a
// busy hour a week before) would leave the last accounts' windows to grow stale sweep after
// sweep, behind the first ones, due again every minute while their players' stakes leave.
//
//  1. The windows due are read, and brought forward on a reading connection: the games they
//     read are not the writer's time.
//  2. One write a windowsWrite of them keeps each, unless a sale moved it meanwhile: the games
//     after a window's last expired one do not change, so a window still at it moves the same.
func (s *DB) MoveStakeWindows(ctx context.Context, now time.Time, n int) (int, error) {
	type due struct {
		player, account int64
		was, w          lottery.Window
	}
	var dues []due
	// The whole window: Forward empties one whose latest stake left the week to its total.
	err := each(s.read.Query(ctx, `SELECT p.id, a.id, a.staked_total, a.staked_expired, a.staked_through_id, a.staked_next, a.staked_last
		FROM players p JOIN accounts a ON a.id = p.account_id
		WHERE a.staked_next <= $1 ORDER BY a.staked_next, a.id LIMIT $2`, s.d.Time(now.Add(-lottery.Week)), n))(func(r Rows) error {
		var d due
		err := r.Scan(&d.player, &d.account, &d.was.Total, &d.was.Expired, &d.was.ThroughID, ScanTime(&d.was.Next), ScanTime(&d.was.Last))
		dues = append(dues, d)
		return err
	})
	if err != nil {
		return 0, s.fault(err)
	}
	for i := range dues {
		d := &dues[i]
		d.w = d.was
		if err := forward(ctx, s.read, d.player, &d.w, now); err != nil {
			return 0, s.fault(err)
		}
	}
	moved := 0
	for len(dues) > 0 {
		part := dues[:min(len(dues), windowsWrite)]
		dues = dues[len(part):]
		kept := 0
		err := s.write(ctx, func(q Querier) error {
			kept = 0
			for _, d := range part {
				if d.w.ThroughID == d.was.ThroughID && d.w.Next.Equal(d.was.Next) {
					continue
				}
				var next any
				if !d.w.Next.IsZero() {
					next = s.d.Time(d.w.Next)
				}
				k, err := q.Exec(ctx, `UPDATE accounts SET staked_expired = $1, staked_through_id = $2, staked_next = $3
					WHERE id = $4 AND staked_expired = $5 AND staked_through_id = $6`, d.w.Expired, d.w.ThroughID, next, d.account, d.was.Expired, d.was.ThroughID)
				if err != nil {
					return err
				}
				kept += int(k)
			}
			return nil
		})
		if err != nil {
			return moved, s.fault(err)
		}
		moved += kept
	}
	return moved, nil
}
