// Package login is what a password goes through, for players and operators alike, before it is
// hashed or checked: the rate of its client's address (throttle.Rates), the bound on hashes at
// once (passhash.Gate, which bounds their memory), and for a login, the count of failed attempts
// for that name from that address, taken and decided in one write before the password is
// checked (sqlite.Tx.ReserveLogin), so that guesses sent at once cannot all be evaluated.
package login

import (
	"context"
	"errors"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/passhash"
	"starcolor/internal/sqlite"
	"starcolor/internal/throttle"
)

// Guard checks and hashes passwords for one server.
type Guard struct {
	DB     *sqlite.DB
	Cost   passhash.Argon2  // the cost of new hashes, and of the stand-in for unknown names
	Hashes *passhash.Gate   // shared by everything that hashes in the process
	Rates  *throttle.Rates  // nil: no limit by address
	Now    func() time.Time //
}

// busyFor is the wait suggested when every hash slot and the queue are taken: a few hashes' time.
const busyFor = 2 * time.Second

// Hash hashes a new password (a sign-up, a new operator) within the address's rate and the gate.
func (g *Guard) Hash(ctx context.Context, addr, password string) (string, error) {
	if err := g.allow(addr); err != nil {
		return "", err
	}
	var hash string
	err := g.run(ctx, func() { hash = g.Cost.Hash(password) })
	return hash, err
}

// Check checks a login attempt for subject (sqlite.PlayerSubject or OperatorSubject) from addr
// against stored, the account's hash, or "" when no account has that name (a stand-in hash is
// then checked, so that the answer takes as long and says the same). It returns nil for the
// right password, and the caller then clears the failures (sqlite.Tx.ClearLogin) in the write
// that opens the session; fault.NotLoggedIn for a wrong one; fault.TooManyAttempts, with when to
// try again, while the name is locked for that address or the address has tried too much;
// fault.Unavailable when too many passwords are being checked.
func (g *Guard) Check(ctx context.Context, subject, addr, password, stored string) error {
	if err := g.allow(addr); err != nil {
		return err
	}
	if stored == "" {
		stored = g.Cost.Dummy()
	}
	var err error
	if runErr := g.run(ctx, func() { err = g.check(ctx, subject, addr, password, stored) }); runErr != nil {
		return runErr
	}
	return err
}

func (g *Guard) check(ctx context.Context, subject, addr, password, stored string) error {
	var wait time.Duration
	err := g.DB.Update(ctx, func(tx *sqlite.Tx) error {
		var err error
		wait, err = tx.ReserveLogin(subject, addr, g.Now(), throttle.LockFor, throttle.Forget)
		return err
	})
	if err != nil {
		return err
	}
	if wait > 0 {
		wait = ceilSecond(wait)
		return fault.Retry(fault.TooManyAttempts, wait, "too many failed logins for this name from your address: try again in %s", wait)
	}
	ok, err := passhash.Check(password, stored)
	if err != nil {
		return err
	}
	if !ok {
		return fault.Errorf(fault.NotLoggedIn, "wrong username or password")
	}
	return nil
}

func (g *Guard) allow(addr string) error {
	if ok, wait := g.Rates.Allow(addr); !ok {
		wait = ceilSecond(wait)
		return fault.Retry(fault.TooManyAttempts, wait, "too many logins or sign-ups from your address: try again in %s", wait)
	}
	return nil
}

func (g *Guard) run(ctx context.Context, fn func()) error {
	err := g.Hashes.Run(ctx, fn)
	if errors.Is(err, passhash.ErrBusy) {
		return fault.Retry(fault.Unavailable, busyFor, "too many passwords are being checked right now: try again in a moment")
	}
	return err
}

// ceilSecond rounds a wait up to whole seconds, as Retry-After says it.
func ceilSecond(d time.Duration) time.Duration { return (d + time.Second - 1).Truncate(time.Second) }
