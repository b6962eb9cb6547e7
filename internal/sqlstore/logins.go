package sqlstore

import (
	"context"
	"time"
)

// The failed logins and the throttles' states. ReserveLogin and Throttle stay each store's: a
// login's count is read and written under the lock each dialect takes its own way (SQLite's one
// writer; PostgreSQL's row, made if need be to be locked).

// ClearLogin forgets the failures of subject from address: it has just logged in there.
func (s *DB) ClearLogin(ctx context.Context, subject, address string) error {
	_, err := s.once.Exec(ctx, `DELETE FROM login_failures WHERE subject = $1 AND address = $2`, subject, address)
	return err
}

// LoginFailures is what the failed logins of a subject stand at: the failures counted at every
// address, and how many addresses are locked out now.
func (s *DB) LoginFailures(ctx context.Context, subject string, now time.Time) (failures, lockedAddresses int, err error) {
	err = s.read.QueryRow(ctx, `SELECT coalesce(sum(failures), 0), count(*) FILTER (WHERE locked_until > $1)
		FROM login_failures WHERE subject = $2`, now.Unix(), subject).Scan(&failures, &lockedAddresses)
	return failures, lockedAddresses, s.fault(err)
}

// ForgetLogins deletes the counts of failed logins quiet since before a time and no longer
// locked, and the throttles' states older than that (whose keys have all their requests again),
// and returns how many rows it deleted.
func (s *DB) ForgetLogins(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := s.write(ctx, func(q Querier) error {
		a, err := q.Exec(ctx, `DELETE FROM login_failures WHERE last_at < $1 AND locked_until < $1`, before.Unix())
		if err != nil {
			return err
		}
		b, err := q.Exec(ctx, `DELETE FROM throttles WHERE tat < $1`, before.UnixNano())
		n = a + b
		return err
	})
	return n, err
}
