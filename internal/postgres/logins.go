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

// ClearLogin forgets the failures of subject from address: it has just logged in there.
func (d *DB) ClearLogin(ctx context.Context, subject, address string) error {
	_, err := d.pool.Exec(ctx, `DELETE FROM login_failures WHERE subject = $1 AND address = $2`, subject, address)
	return d.noteWrite(err)
}

// LoginFailures is what the failed logins of a subject stand at: the failures counted at every
// address, and how many addresses are locked out now.
func (d *DB) LoginFailures(ctx context.Context, subject string, now time.Time) (failures, lockedAddresses int, err error) {
	err = d.pool.QueryRow(ctx, `SELECT coalesce(sum(failures), 0)::int, count(*) FILTER (WHERE locked_until > $1)::int
		FROM login_failures WHERE subject = $2`, now.Unix(), subject).Scan(&failures, &lockedAddresses)
	return failures, lockedAddresses, asFault(err)
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

// ForgetLogins deletes the counts of failed logins quiet since before a time and no longer
// locked, and the throttles' states older than that, and returns how many rows it deleted.
func (d *DB) ForgetLogins(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := d.inTx(ctx, func(tx pgx.Tx) error {
		a, err := tx.Exec(ctx, `DELETE FROM login_failures WHERE last_at < $1 AND locked_until < $1`, before.Unix())
		if err != nil {
			return err
		}
		b, err := tx.Exec(ctx, `DELETE FROM throttles WHERE tat < $1`, before.UnixNano())
		n = a.RowsAffected() + b.RowsAffected()
		return err
	})
	return n, err
}
