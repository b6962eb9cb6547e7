package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"starcolor/internal/lottery"
)

// ReserveLogin counts a login attempt for subject from address before its password is checked:
// it locks the row of that subject and address (making it if need be), lets reserve decide (the
// rule is internal/login's), and writes what reserve returns, unless reserve says the attempt must
// wait. Attempts sent at once, to any servers, are counted one after the other.
func (d *DB) ReserveLogin(ctx context.Context, subject, address string,
	reserve func(lottery.LoginFailures) (lottery.LoginFailures, time.Duration)) (time.Duration, error) {
	var wait time.Duration
	err := d.inTx(ctx, func(tx pgx.Tx) error {
		var f lottery.LoginFailures
		var failures int32
		err := tx.QueryRow(ctx, `INSERT INTO login_failures AS l (subject, address, failures, locked_until, last_at) VALUES ($1, $2, 0, 0, 0)
			ON CONFLICT (subject, address) DO UPDATE SET failures = l.failures RETURNING failures, locked_until, last_at`, subject, address).
			Scan(&failures, &f.LockedUntil, &f.LastAt)
		if err != nil {
			return err
		}
		f.Failures = int(failures)
		if f, wait = reserve(f); wait > 0 {
			return nil
		}
		_, err = tx.Exec(ctx, `UPDATE login_failures SET failures = $3, locked_until = $4, last_at = $5 WHERE subject = $1 AND address = $2`,
			subject, address, int32(f.Failures), f.LockedUntil, f.LastAt)
		return err
	})
	return wait, err
}

// Throttle takes one request of a key against the state kept for it (0 for a new key): take
// decides and returns the state to keep, or how long the request must wait, which leaves the
// state as it was. The key's row is locked meanwhile: every server counts the same requests.
func (d *DB) Throttle(ctx context.Context, key string, take func(tat int64) (next int64, wait time.Duration)) (time.Duration, error) {
	var wait time.Duration
	err := d.inTx(ctx, func(tx pgx.Tx) error {
		var tat int64
		if err := tx.QueryRow(ctx, `INSERT INTO throttles AS t (key, tat) VALUES ($1, 0) ON CONFLICT (key) DO UPDATE SET tat = t.tat RETURNING tat`, key).Scan(&tat); err != nil {
			return err
		}
		var next int64
		if next, wait = take(tat); wait > 0 {
			return nil
		}
		_, err := tx.Exec(ctx, `UPDATE throttles SET tat = $2 WHERE key = $1`, key, next)
		return err
	})
	return wait, err
}
