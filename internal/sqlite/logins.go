package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"starcolor/internal/lottery"
)

// ReserveLogin counts a login attempt for subject (a kind of account and a name) from address
// before its password is checked: it reads what is counted there, lets reserve decide (the rule
// is internal/login's), and writes what reserve returns, unless reserve says the attempt must
// wait. The read and the write are one write of the store, so attempts sent at once are counted
// one after the other.
func (d *DB) ReserveLogin(ctx context.Context, subject, address string,
	reserve func(lottery.LoginFailures) (lottery.LoginFailures, time.Duration)) (time.Duration, error) {
	var wait time.Duration
	err := d.update(ctx, func(t *tx) error {
		var f lottery.LoginFailures
		err := t.queryRow(`SELECT failures, locked_until, last_at FROM login_failures WHERE subject = ? AND address = ?`, subject, address).
			Scan(&f.Failures, &f.LockedUntil, &f.LastAt)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if f, wait = reserve(f); wait > 0 {
			return nil
		}
		_, err = t.exec(`INSERT INTO login_failures (subject, address, failures, locked_until, last_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (subject, address) DO UPDATE SET failures = excluded.failures, locked_until = excluded.locked_until, last_at = excluded.last_at`,
			subject, address, f.Failures, f.LockedUntil, f.LastAt)
		return err
	})
	return wait, err
}

// Throttle takes one request of a key (an address's logins and sign-ups) against the state kept
// for it, tat (0 for a new key): take decides (the rule is internal/throttle's) and returns the
// state to keep, or how long the request must wait, which leaves the state as it was.
func (d *DB) Throttle(ctx context.Context, key string, take func(tat int64) (next int64, wait time.Duration)) (time.Duration, error) {
	var wait time.Duration
	err := d.update(ctx, func(t *tx) error {
		var tat int64
		err := t.queryRow(`SELECT tat FROM throttles WHERE key = ?`, key).Scan(&tat)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		var next int64
		if next, wait = take(tat); wait > 0 {
			return nil
		}
		_, err = t.exec(`INSERT INTO throttles (key, tat) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET tat = excluded.tat`, key, next)
		return err
	})
	return wait, err
}
