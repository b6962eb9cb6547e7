package sqlite

import (
	"context"
	"database/sql"
	"time"

	"starcolor/internal/lottery"
	"starcolor/internal/sqlstore"
)

// Weekly limits (docs/spec/API.md 1.1): the amounts are columns of the player's account, beside the
// balance a sale reads, and so are the stakes of the week, a lottery.Window (migration 0015), brought forward when a stake leaves the
// week; deposits, a few a week, are summed from the ledger.

// querier reads one row, in the writer's transaction or outside it.
type querier func(query string, args ...any) *sql.Row

// limitsOf reads a player's limits as they hold at now, with the sums they bound, and the
// account's stake window as it stands in the database (not brought forward).
func limitsOf(q querier, rows rowsQuerier, playerID int64, now time.Time) (lottery.Limits, error) {
	var l lottery.Limits
	var account int64
	var w lottery.Window
	var reality sql.NullInt64
	dep, stake := limitColumns{}, limitColumns{}
	var next, last sql.NullString
	err := q(`SELECT p.account_id, a.deposit_limit, a.deposit_raise, a.deposit_raise_at, a.stake_limit, a.stake_raise, a.stake_raise_at,
			p.reality_check, a.staked_total, a.staked_expired, a.staked_through_id, a.staked_next, a.staked_last
		FROM players p JOIN accounts a ON a.id = p.account_id WHERE p.id = ?`, playerID).Scan(&account,
		&dep.amount, &dep.raise, &dep.raiseAt, &stake.amount, &stake.raise, &stake.raiseAt,
		&reality, &w.Total, &w.Expired, &w.ThroughID, &next, &last)
	if err != nil {
		return l, sqlstore.NotFound(err, "no such player")
	}
	if l.Deposit, err = dep.limit(); err != nil {
		return l, err
	}
	if l.Stake, err = stake.limit(); err != nil {
		return l, err
	}
	if w.Next, w.Last, err = windowTimes(next, last); err != nil {
		return l, err
	}
	l.RealityCheck = int(reality.Int64)
	if l.Deposited, err = deposited(q, account, now); err != nil {
		return l, err
	}
	if err := forward(rows, playerID, &w, now); err != nil {
		return l, err
	}
	l.Staked = w.Sum()
	return l.At(now), nil
}

// limitColumns are a limit as the accounts table keeps it.
type limitColumns struct {
	amount, raise sql.NullInt64
	raiseAt       sql.NullString
}

func (c limitColumns) limit() (lottery.Limit, error) {
	l := lottery.Limit{Set: c.amount.Valid, Amount: c.amount.Int64}
	if c.raise.Valid && c.raiseAt.Valid {
		at, err := time.Parse(time.RFC3339Nano, c.raiseAt.String)
		if err != nil {
			return l, err
		}
		l.Pending = &lottery.Pending{Amount: c.raise.Int64, EffectiveAt: at}
	}
	return l, nil
}

func columnsOf(l lottery.Limit) (amount, raise sql.NullInt64, raiseAt sql.NullString) {
	if l.Set {
		amount = sql.NullInt64{Int64: l.Amount, Valid: true}
	}
	if l.Pending != nil {
		raise = sql.NullInt64{Int64: l.Pending.Amount, Valid: true}
		raiseAt = sql.NullString{String: storedTime(l.Pending.EffectiveAt), Valid: true}
	}
	return
}

// windowTimes reads a window's times (NULL: none).
func windowTimes(next, last sql.NullString) (n, l time.Time, err error) {
	if next.Valid {
		if n, err = time.Parse(time.RFC3339Nano, next.String); err != nil {
			return
		}
	}
	if last.Valid {
		l, err = time.Parse(time.RFC3339Nano, last.String)
	}
	return
}

func nullTime(t time.Time) sql.NullString {
	if t.IsZero() {
		return sql.NullString{}
	}
	return sql.NullString{String: storedTime(t), Valid: true}
}

// deposited is the sum of an account's deposits over the week up to now.
func deposited(q querier, account int64, now time.Time) (int64, error) {
	var sum int64
	err := q(`SELECT coalesce(sum(amount), 0) FROM transfers WHERE to_account = ? AND kind IN ('deposit', 'withdrawal')
		AND kind = 'deposit' AND created_at > ? AND created_at <= ?`, account, storedTime(now.Add(-lottery.Week)), storedTime(now)).Scan(&sum)
	return sum, err
}

// forward brings a player's stake window to now if a stake has left the week since it was last
// brought forward, reading the player's games after the last that left, in order, through the
// games' (player_id, id) index.
func forward(q rowsQuerier, playerID int64, w *lottery.Window, now time.Time) error {
	return w.Forward(now, func(after int64) ([]lottery.StakeAt, error) {
		var page []lottery.StakeAt
		err := q(func(r *sql.Rows) error {
			var s lottery.StakeAt
			var at string
			if err := r.Scan(&s.GameID, &s.Amount, &at); err != nil {
				return err
			}
			var err error
			s.At, err = time.Parse(time.RFC3339Nano, at)
			page = append(page, s)
			return err
		}, `SELECT id, stake, created_at FROM games WHERE player_id = ? AND id > ? ORDER BY id LIMIT 256`, playerID, after)
		return page, err
	})
}

// rowsQuerier reads rows, in the writer's transaction or outside it.
type rowsQuerier func(fn func(*sql.Rows) error, query string, args ...any) error

// readRows is a rowsQuerier outside the writer.
func (d *DB) readRows(ctx context.Context) rowsQuerier {
	return func(fn func(*sql.Rows) error, query string, args ...any) error {
		rows, err := d.db.QueryContext(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			if err := fn(rows); err != nil {
				return err
			}
		}
		return rows.Err()
	}
}

// Limits reads a player's limits as they hold at now, with the deposits and the stakes of the
// week up to now.
func (d *DB) Limits(ctx context.Context, playerID int64, now time.Time) (lottery.Limits, error) {
	l, err := limitsOf(func(q string, a ...any) *sql.Row { return d.queryRow(ctx, q, a...) }, d.readRows(ctx), playerID, now)
	return l, asFault(err)
}

// SetLimits applies a change of a player's limits asked for at now by someone ("player", or an
// operator's name), keeps each change of a limit, and returns the limits after it. It is one
// write, so a sale or a deposit is checked against the limits before it or after it.
func (d *DB) SetLimits(ctx context.Context, playerID int64, c lottery.LimitsChange, by string, now time.Time) (lottery.Limits, error) {
	var l lottery.Limits
	err := d.update(ctx, func(t *tx) error {
		was, err := limitsOf(t.queryRow, t.rows, playerID, now)
		if err != nil {
			return err
		}
		var kept []lottery.LimitChange
		if l, kept, err = was.Apply(c, now); err != nil {
			return err
		}
		dep, depRaise, depAt := columnsOf(l.Deposit)
		st, stRaise, stAt := columnsOf(l.Stake)
		reality := sql.NullInt64{Int64: int64(l.RealityCheck), Valid: l.RealityCheck != 0}
		if _, err := t.exec(`UPDATE accounts SET deposit_limit = ?, deposit_raise = ?, deposit_raise_at = ?, stake_limit = ?, stake_raise = ?, stake_raise_at = ?
			WHERE id = (SELECT account_id FROM players WHERE id = ?)`, dep, depRaise, depAt, st, stRaise, stAt, playerID); err != nil {
			return err
		}
		if _, err := t.exec(`UPDATE players SET reality_check = ? WHERE id = ?`, reality, playerID); err != nil {
			return err
		}
		for _, k := range kept {
			var old sql.NullInt64
			if k.Old != nil {
				old = sql.NullInt64{Int64: *k.Old, Valid: true}
			}
			if _, err := t.exec(`INSERT INTO limit_changes (player_id, kind, old, new, requested_at, effective_at, by) VALUES (?, ?, ?, ?, ?, ?, ?)`,
				playerID, k.Limit, old, k.New, storedTime(k.RequestedAt), storedTime(k.EffectiveAt), by); err != nil {
				return err
			}
		}
		return nil
	})
	return l, asFault(err)
}

// LimitChanges lists the changes of a player's limits, the latest first.
func (d *DB) LimitChanges(ctx context.Context, playerID int64) ([]lottery.LimitChange, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT kind, old, new, requested_at, effective_at, by FROM limit_changes WHERE player_id = ? ORDER BY id DESC`, playerID)
	if err != nil {
		return nil, asFault(err)
	}
	defer rows.Close()
	var out []lottery.LimitChange
	for rows.Next() {
		var c lottery.LimitChange
		var old sql.NullInt64
		var req, eff string
		if err := rows.Scan(&c.Limit, &old, &c.New, &req, &eff, &c.By); err != nil {
			return nil, asFault(err)
		}
		if old.Valid {
			c.Old = &old.Int64
		}
		c.RequestedAt, _ = time.Parse(time.RFC3339Nano, req)
		c.EffectiveAt, _ = time.Parse(time.RFC3339Nano, eff)
		out = append(out, c)
	}
	return out, asFault(rows.Err())
}

// checkDeposit refuses a deposit of a player past their weekly deposit limit, or before they set
// one (fault.LimitsRequired, fault.LimitReached), in the deposit's own write.
func (t *tx) checkDeposit(p lottery.Payment, now time.Time) error {
	var dep limitColumns
	if err := t.queryRow(`SELECT deposit_limit, deposit_raise, deposit_raise_at FROM accounts WHERE id = ?`, p.AccountID).Scan(
		&dep.amount, &dep.raise, &dep.raiseAt); err != nil {
		return sqlstore.NotFound(err, "no such account")
	}
	l, err := dep.limit()
	if err != nil {
		return err
	}
	sum, err := deposited(t.queryRow, p.AccountID, now)
	if err != nil {
		return err
	}
	return l.Allows(lottery.DepositWeekly, p.Amount, sum, now)
}
