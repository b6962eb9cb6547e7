package sqlite

import (
	"database/sql"
	"time"

	"starcolor/internal/lottery"
	"starcolor/internal/sqlstore"
)

// Weekly limits (internal/sqlstore/limits.go): here, what a batch of sales reads and writes of
// them (sales.go), and the check of a deposit (Pay).

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

// forward brings a player's stake window to now if a stake has left the week since it was last
// brought forward, reading the player's games after the last that left, in order, through the
// games' (player_id, id) index.
func forward(q rowsQuerier, playerID int64, w *lottery.Window, now time.Time) error {
	return w.Forward(now, func(after int64) ([]lottery.StakeAt, error) {
		var page []lottery.StakeAt
		err := q(func(r *sql.Rows) error {
			var s lottery.StakeAt
			err := r.Scan(&s.GameID, &s.Amount, sqlstore.ScanTime(&s.At))
			page = append(page, s)
			return err
		}, `SELECT id, stake, created_at FROM games WHERE player_id = ? AND id > ? ORDER BY id LIMIT 256`, playerID, after)
		return page, err
	}, func() (s lottery.StakeAt, ok bool, err error) {
		err = q(func(r *sql.Rows) error {
			ok = true
			return r.Scan(&s.GameID, &s.Amount, sqlstore.ScanTime(&s.At))
		}, sqlstore.LatestGameQuery, playerID)
		return s, ok, err
	})
}

// rowsQuerier reads rows, in the writer's transaction or outside it.
type rowsQuerier func(fn func(*sql.Rows) error, query string, args ...any) error

// checkDeposit refuses a deposit past the player's weekly deposit limit (sqlstore.CheckDeposit).
func (t *tx) checkDeposit(p lottery.Payment, now time.Time) error {
	return sqlstore.CheckDeposit(t.ctx, txQ{t}, sqlstore.SQLite, p, now)
}
