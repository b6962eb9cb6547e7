// Package login is what a password goes through, for players and operators alike, before it is
// hashed or checked:
//
//   - the rate of its client's address (throttle.Rate);
//   - the bound on hashes at once (passhash.Gate), which bounds their memory;
//   - for a login, the count of failed attempts for that name from that address.
//
// The count is taken and decided in one write of the store before the password is checked
// (Store.ReserveLogin). So guesses sent at once cannot all be evaluated, whichever servers they
// are sent to.
package login

import (
	"context"
	"errors"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
	"starcolor/internal/passhash"
	"starcolor/internal/store"
	"starcolor/internal/throttle"
)

// Store is what the guard needs of a store: the counts it keeps of failed logins and of each
// address's requests, each read, decided and written in one step.
type Store interface {
	store.Attempts
}

// Guard checks and hashes passwords for one server.
type Guard struct {
	Store  Store
	Cost   passhash.Argon2  // the cost of new hashes, and of the stand-in for unknown names
	Hashes *passhash.Gate   // shared by everything that hashes in the process
	Rate   throttle.Rate    // of each address's logins and sign-ups (the zero Rate: no limit)
	Now    func() time.Time //
}

// busyFor is the wait suggested when every hash slot and the queue are taken: a few hashes' time.
const busyFor = 2 * time.Second

// Hash hashes a new password (a sign-up, a new operator) within the address's rate and the gate.
func (g *Guard) Hash(ctx context.Context, addr, password string) (string, error) {
	if err := g.allow(ctx, addr); err != nil {
		return "", err
	}
	var hash string
	err := g.run(ctx, func() { hash = g.Cost.Hash(password) })
	return hash, err
}

// Check checks a login attempt for subject (lottery.PlayerSubject or OperatorSubject) from addr
// against stored, the account's hash. stored is "" when no account has that name: a stand-in
// hash is then checked, so that the answer takes as long and says the same. It returns:
//
//   - nil for the right password; the caller then clears the failures (ClearLogin) before it
//     opens the session;
//   - fault.NotLoggedIn for a wrong one;
//   - fault.TooManyAttempts, with when to try again, while the name is locked for that address
//     or the address has tried too much;
//   - fault.Unavailable when too many passwords are being checked.
func (g *Guard) Check(ctx context.Context, subject, addr, password, stored string) error {
	if err := g.allow(ctx, addr); err != nil {
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
	wait, err := g.Store.ReserveLogin(ctx, subject, addr, func(f lottery.LoginFailures) (lottery.LoginFailures, time.Duration) {
		return reserve(f, g.Now())
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

// reserve counts an attempt on the failures counted so far, unless they lock it out: then it
// says how long the attempt must wait. The attempt stays counted as a failure unless the login
// succeeds and clears them; failures are forgotten once the subject has been quiet at the address
// for throttle.Forget.
func reserve(f lottery.LoginFailures, now time.Time) (lottery.LoginFailures, time.Duration) {
	if until := time.Unix(f.LockedUntil, 0); until.After(now) {
		return f, until.Sub(now)
	}
	if now.Sub(time.Unix(f.LastAt, 0)) > throttle.Forget {
		f.Failures = 0
	}
	f.Failures++
	f.LockedUntil, f.LastAt = 0, now.Unix()
	if lock := throttle.LockFor(f.Failures); lock > 0 {
		// The lock ends on the next whole second: it is kept in seconds.
		until := now.Add(lock)
		if f.LockedUntil = until.Unix(); time.Unix(f.LockedUntil, 0).Before(until) {
			f.LockedUntil++
		}
	}
	return f, 0
}

// allow takes one request of the address's rate.
func (g *Guard) allow(ctx context.Context, addr string) error {
	if !g.Rate.Limited() {
		return nil
	}
	wait, err := g.Store.Throttle(ctx, "auth:"+addr, func(tat int64) (int64, time.Duration) { return g.Rate.Take(tat, g.Now()) })
	if err != nil {
		return err
	}
	if wait > 0 {
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
