package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"starcolor/internal/identity"
)

// PlayerSubject and OperatorSubject name the account a login attempt is for, in login_failures:
// its kind and the name's key (identity.UsernameKey: names are compared without case), whether or
// not such an account exists. A name longer than any account's is cut, to bound what is stored.
func PlayerSubject(name string) string { return subject("player:", name) }

// OperatorSubject is PlayerSubject for the back office's operators.
func OperatorSubject(name string) string { return subject("operator:", name) }

func subject(kind, name string) string {
	name = identity.UsernameKey(name)
	if len(name) > 64 {
		name = name[:64]
	}
	return kind + name
}

// ReserveLogin counts a login attempt for subject (a kind of account and a name) from address
// before its password is checked, and returns how long the attempt must wait instead, if the
// failures already counted there have locked it. The count and the lock are one write, so
// attempts sent at once are counted one after the other: once lockFor(failures) is more than
// nothing, the next ones wait, however many were sent together. The attempt stays counted as a
// failure unless ClearLogin follows (a success). Failures are forgotten once the subject has been
// quiet at that address for forget.
func (t *Tx) ReserveLogin(subject, address string, now time.Time, lockFor func(failures int) time.Duration, forget time.Duration) (wait time.Duration, err error) {
	var failures int
	var lockedUntil, lastAt int64
	err = t.queryRow(`SELECT failures, locked_until, last_at FROM login_failures WHERE subject = ? AND address = ?`, subject, address).
		Scan(&failures, &lockedUntil, &lastAt)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	if until := time.Unix(lockedUntil, 0); until.After(now) {
		return until.Sub(now), nil
	}
	if now.Sub(time.Unix(lastAt, 0)) > forget {
		failures = 0
	}
	failures++
	lockedUntil = 0
	if lock := lockFor(failures); lock > 0 {
		// The lock ends on the next whole second: it is kept in seconds.
		until := now.Add(lock)
		if lockedUntil = until.Unix(); time.Unix(lockedUntil, 0).Before(until) {
			lockedUntil++
		}
	}
	_, err = t.exec(`INSERT INTO login_failures (subject, address, failures, locked_until, last_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (subject, address) DO UPDATE SET failures = excluded.failures, locked_until = excluded.locked_until, last_at = excluded.last_at`,
		subject, address, failures, lockedUntil, now.Unix())
	return 0, err
}

// ClearLogin forgets the failures of subject from address: it has just logged in there.
func (t *Tx) ClearLogin(subject, address string) error {
	_, err := t.exec(`DELETE FROM login_failures WHERE subject = ? AND address = ?`, subject, address)
	return err
}

// ForgetLoginFailures deletes the counts of failures quiet since before a time and no longer
// locked, and returns how many.
func (t *Tx) ForgetLoginFailures(before time.Time) (int64, error) {
	res, err := t.exec(`DELETE FROM login_failures WHERE last_at < ? AND locked_until < ?`, before.Unix(), before.Unix())
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// LoginFailures is what the failed logins of a subject stand at: the failures counted at every
// address, and how many addresses are locked out now.
func (d *DB) LoginFailures(ctx context.Context, subject string, now time.Time) (failures, lockedAddresses int, err error) {
	err = d.db.QueryRowContext(ctx, `SELECT coalesce(sum(failures), 0), coalesce(sum(locked_until > ?), 0) FROM login_failures WHERE subject = ?`,
		now.Unix(), subject).Scan(&failures, &lockedAddresses)
	return failures, lockedAddresses, err
}
