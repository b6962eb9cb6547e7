package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"starcolor/internal/lottery"
	"starcolor/internal/sqlstore"
)

// Weekly limits (internal/sqlstore/limits.go): here, what a batch of sales reads and writes of
// them (sales.go), and the check of a deposit (Pay). A change of limits, a deposit and a batch of
// sales each lock the player's account row first, so that on every server they are checked one
// after the other.

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
	}, func() (s lottery.StakeAt, ok bool, err error) {
		err = q.QueryRow(ctx, sqlstore.LatestGameQuery, playerID).Scan(&s.GameID, &s.Amount, &s.At)
		if errors.Is(err, pgx.ErrNoRows) {
			return s, false, nil
		}
		return s, err == nil, err
	})
}

// checkDeposit locks the player's account and refuses a deposit past their weekly deposit limit
// (sqlstore.CheckDeposit).
func checkDeposit(ctx context.Context, tx pgx.Tx, p lottery.Payment, now time.Time) error {
	return sqlstore.CheckDeposit(ctx, pgxQ{tx}, sqlstore.PostgreSQL, p, now)
}
