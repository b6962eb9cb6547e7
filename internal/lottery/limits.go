package lottery

import (
	"errors"
	"time"
)

// Player protection (API.md 1.1, décret 2010-518 art. 16): every player sets a weekly limit on
// their deposits and one on their stakes before their first deposit and first stake; a limit
// bounds the sum over the last 7 × 24 hours, rolling.

// The limits a player sets.
const (
	DepositWeekly = "deposit_weekly"
	StakeWeekly   = "stake_weekly"
)

// Week is the span a weekly limit bounds, rolling.
const Week = 7 * 24 * time.Hour

// RaiseDelay is how long a raised limit waits before it holds; the old one holds meanwhile.
const RaiseDelay = 48 * time.Hour

// MaxLimit bounds a limit, in cents: 1,000,000 € a week.
const MaxLimit = 100_000_000

// ErrLimitAmount is a limit out of range.
var ErrLimitAmount = errors.New("a weekly limit is a whole number of cents from 0 to 100000000")

// Limit is one of a player's weekly limits: the amount that holds (if any has been set) and a
// raise waiting for its RaiseDelay.
type Limit struct {
	Set     bool
	Amount  int64    // cents, when Set
	Pending *Pending // a raise not yet in force
}

// Pending is a raise of a limit and when it takes effect.
type Pending struct {
	Amount      int64
	EffectiveAt time.Time
}

// At is the limit as it holds at now: a pending raise whose time has come is in force.
func (l Limit) At(now time.Time) Limit {
	if l.Pending != nil && !now.Before(l.Pending.EffectiveAt) {
		return Limit{Set: true, Amount: l.Pending.Amount}
	}
	return l
}

// LimitChange is a change of a limit as kept for the record: who asked, when, the amount that
// held, the amount asked, and when it takes effect.
type LimitChange struct {
	Limit       string
	Old         *int64 // nil: none was set
	New         int64
	RequestedAt time.Time
	EffectiveAt time.Time
}

// Change applies a new amount asked for at now to a limit. The first value and any lowering (or
// the same amount) hold at once and cancel a pending raise; a raise waits RaiseDelay, replacing
// any raise pending before it, and the amount in force holds meanwhile.
func (l Limit) Change(kind string, amount int64, now time.Time) (Limit, LimitChange, error) {
	if amount < 0 || amount > MaxLimit {
		return l, LimitChange{}, ErrLimitAmount
	}
	l = l.At(now)
	c := LimitChange{Limit: kind, New: amount, RequestedAt: now, EffectiveAt: now}
	if l.Set {
		old := l.Amount
		c.Old = &old
	}
	if !l.Set || amount <= l.Amount {
		return Limit{Set: true, Amount: amount}, c, nil
	}
	c.EffectiveAt = now.Add(RaiseDelay)
	l.Pending = &Pending{Amount: amount, EffectiveAt: c.EffectiveAt}
	return l, c, nil
}

// Allows says whether a movement of amount fits under the limit at now, given the sum of the
// same movements over the last Week: ErrLimitsRequired without a limit, ErrLimitReached past it.
func (l Limit) Allows(amount, lastWeek int64, now time.Time) error {
	l = l.At(now)
	switch {
	case !l.Set:
		return ErrLimitsRequired
	case lastWeek+amount > l.Amount:
		return ErrLimitReached
	}
	return nil
}

// Errors of the limits, which the API answers 403 (limits_required, limit_reached).
var (
	ErrLimitsRequired = errors.New("set a weekly limit first")
	ErrLimitReached   = errors.New("this would go past the weekly limit")
)

// RealityCheck bounds the interval of reality checks, in minutes (API.md: null, or 15 to 120).
const (
	MinRealityCheck = 15
	MaxRealityCheck = 120
)

// Movement is a deposit or a stake as the rolling sums count it.
type Movement struct {
	At     time.Time
	Amount int64
}

// WeekSum is the sum of the movements in the Week up to now: those after now − Week, up to now.
func WeekSum(ms []Movement, now time.Time) int64 {
	from := now.Add(-Week)
	var sum int64
	for _, m := range ms {
		if m.At.After(from) && !m.At.After(now) {
			sum += m.Amount
		}
	}
	return sum
}
