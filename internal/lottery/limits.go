package lottery

import (
	"errors"
	"time"

	"starcolor/internal/fault"
)

// Player protection (docs/spec/API.md 1.1, décret 2010-518 art. 16): every player sets a weekly limit on
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
	By          string // "player", or the operator's name
}

// Change applies a new amount asked for at now to a limit. The first value and any lowering (or
// the same amount) hold at once and cancel a pending raise; a raise waits RaiseDelay, replacing
// any raise pending before it, and the amount in force holds meanwhile; the raise pending asked
// again changes nothing (its change is zero: nothing to keep).
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
	if l.Pending != nil && l.Pending.Amount == amount {
		// The raise pending, asked again (a client sending all its limits each time): it keeps
		// its time; nothing changes, nothing is kept.
		return l, LimitChange{}, nil
	}
	c.EffectiveAt = now.Add(RaiseDelay)
	l.Pending = &Pending{Amount: amount, EffectiveAt: c.EffectiveAt}
	return l, c, nil
}

// Allows says whether a movement of amount fits under the limit of its kind at now, given the sum
// of the same movements over the last Week: fault.LimitsRequired without a limit,
// fault.LimitReached past it.
func (l Limit) Allows(kind string, amount, lastWeek int64, now time.Time) error {
	l = l.At(now)
	what := map[string]string{DepositWeekly: "deposit", StakeWeekly: "stake"}[kind]
	switch {
	case !l.Set:
		return fault.Errorf(fault.LimitsRequired, "set your weekly %s limit before your first %s", what, what)
	case lastWeek+amount > l.Amount:
		return fault.Errorf(fault.LimitReached, "this %s of %d cents would take your %ss of the last 7 days to %d cents, past your weekly limit of %d",
			what, amount, what, lastWeek+amount, l.Amount)
	}
	return nil
}

// RealityCheck bounds the interval of reality checks, in minutes (docs/spec/API.md: null, or 15 to 120).
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

// Limits are a player's limits as they hold at a time, with the sums they bound.
type Limits struct {
	Deposit, Stake    Limit
	Deposited, Staked int64 // over the last Week, cents
	RealityCheck      int   // minutes between reality checks; 0: none
}

// At is the limits as they hold at now.
func (l Limits) At(now time.Time) Limits {
	l.Deposit, l.Stake = l.Deposit.At(now), l.Stake.At(now)
	return l
}

// LimitsChange is what a player asks to change of their limits: nil leaves one as it is.
type LimitsChange struct {
	Deposit, Stake *int64
	// RealityCheck is the new interval in minutes (0: none), when SetRealityCheck.
	RealityCheck    int
	SetRealityCheck bool
}

// ErrRealityCheck is an interval of reality checks out of range.
var ErrRealityCheck = errors.New("reality checks come every 15 to 120 minutes, or never (null)")

// Apply applies a change asked for at now, and returns the limits after it and the changes of
// limits to keep (the interval of reality checks is a preference, not kept).
func (l Limits) Apply(c LimitsChange, now time.Time) (Limits, []LimitChange, error) {
	var kept []LimitChange
	for _, x := range []struct {
		kind   string
		amount *int64
		limit  *Limit
	}{{DepositWeekly, c.Deposit, &l.Deposit}, {StakeWeekly, c.Stake, &l.Stake}} {
		if x.amount == nil {
			continue
		}
		next, change, err := x.limit.Change(x.kind, *x.amount, now)
		if err != nil {
			return l, nil, err
		}
		*x.limit = next
		if change.Limit != "" {
			kept = append(kept, change)
		}
	}
	if c.SetRealityCheck {
		if c.RealityCheck != 0 && (c.RealityCheck < MinRealityCheck || c.RealityCheck > MaxRealityCheck) {
			return l, nil, ErrRealityCheck
		}
		l.RealityCheck = c.RealityCheck
	}
	return l.At(now), kept, nil
}

// Window is the sum of a player's stakes over the last Week, kept as they play rather than summed
// at each sale (a player may stake thousands of times a week): the sum of all their stakes, less
// those that have left the week. A player's games are in the order of their times by id (a sale
// is never dated before the player's previous one: Decide), so the stakes that have left are
// those of the games up to an id. The window holds while no stake has left the week since it was
// last brought forward: until Next, the time of the first stake after ThroughID, is a Week old.
// Then the store brings it forward (Forward), reading the games after ThroughID in order.
type Window struct {
	Total     int64     // every stake, cents
	Expired   int64     // the stakes of the games up to ThroughID
	ThroughID int64     // the last game whose stake has left the week (0: none)
	Next      time.Time // the time of the first stake after ThroughID; zero: none
	Last      time.Time // the time of the latest stake
}

// Sum is the stakes of the week.
func (w Window) Sum() int64 { return w.Total - w.Expired }

// Current tells whether the window holds at now: no stake it counts is a Week old.
func (w Window) Current(now time.Time) bool {
	return w.Next.IsZero() || now.Add(-Week).Before(w.Next)
}

// Add counts the stake of a game made at a time, no earlier than the window's Last.
func (w *Window) Add(amount int64, at time.Time) {
	w.Total += amount
	if w.Next.IsZero() {
		w.Next = at
	}
	if at.After(w.Last) {
		w.Last = at
	}
}

// StakeAt is a game's stake as a window counts it.
type StakeAt struct {
	GameID int64
	Amount int64
	At     time.Time
}

// Forward brings the window to now: after(id) gives the player's stakes of the games after id,
// in the order of their ids, a page at a time (none: no more); the stakes a Week old or more
// leave the window, up to the first one still in the week. latest gives the player's latest game
// (ok false: none).
//
// When the latest stake the window counts is a Week old, all of them have left: the player
// stopped. If the latest game is that old too (no sale came since the window was read), the
// window is emptied to it without reading the games between. A player who stopped after a
// heavy week had hundreds of thousands of them, read again at each look at their limits.
func (w *Window) Forward(now time.Time, after func(id int64) ([]StakeAt, error), latest func() (s StakeAt, ok bool, err error)) error {
	from := now.Add(-Week)
	if !w.Current(now) && !w.Last.After(from) {
		s, ok, err := latest()
		if err != nil {
			return err
		}
		if ok && !s.At.After(from) && s.GameID >= w.ThroughID {
			w.Expired, w.ThroughID, w.Next = w.Total, s.GameID, time.Time{}
			return nil
		}
	}
	for !w.Current(now) {
		page, err := after(w.ThroughID)
		if err != nil {
			return err
		}
		w.Next = time.Time{}
		for _, s := range page {
			if s.At.After(from) {
				w.Next = s.At
				return nil
			}
			w.Expired += s.Amount
			w.ThroughID = s.GameID
		}
		if len(page) == 0 {
			return nil
		}
		if w.Next.IsZero() {
			// The page ended within the span that left: the next page says where the week starts.
			w.Next = from
		}
	}
	return nil
}
