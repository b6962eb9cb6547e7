package lottery

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"starcolor/internal/fault"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func TestLimitChange(t *testing.T) {
	var l Limit
	if err := l.Allows(StakeWeekly, 100, 0, t0); !fault.Is(err, fault.LimitsRequired) {
		t.Fatalf("no limit: %v", err)
	}
	// The first value holds at once.
	l, c, err := l.Change(StakeWeekly, 5000, t0)
	if err != nil || !l.Set || l.Amount != 5000 || l.Pending != nil || c.Old != nil || !c.EffectiveAt.Equal(t0) {
		t.Fatalf("first: %+v %+v %v", l, c, err)
	}
	// A raise waits 48 hours; the old limit holds meanwhile.
	l, c, _ = l.Change(StakeWeekly, 9000, t0.Add(time.Hour))
	if l.Amount != 5000 || l.Pending == nil || l.Pending.Amount != 9000 || !l.Pending.EffectiveAt.Equal(t0.Add(49*time.Hour)) || *c.Old != 5000 {
		t.Fatalf("raise: %+v %+v", l, c)
	}
	if got := l.At(t0.Add(49*time.Hour - time.Nanosecond)); got.Amount != 5000 {
		t.Errorf("a raise in force early: %+v", got)
	}
	if got := l.At(t0.Add(49 * time.Hour)); got.Amount != 9000 || got.Pending != nil {
		t.Errorf("a raise not in force after 48 hours: %+v", got)
	}
	// A lowering holds at once and cancels the raise.
	low, c, _ := l.Change(StakeWeekly, 3000, t0.Add(2*time.Hour))
	if low.Amount != 3000 || low.Pending != nil || !c.EffectiveAt.Equal(t0.Add(2*time.Hour)) {
		t.Fatalf("lowering: %+v", low)
	}
	if got := low.At(t0.Add(100 * time.Hour)); got.Amount != 3000 {
		t.Errorf("a cancelled raise came into force: %+v", got)
	}
	// The same raise asked again keeps its time, and nothing is kept of it.
	same, c, _ := l.Change(StakeWeekly, 9000, t0.Add(5*time.Hour))
	if same.Pending == nil || !same.Pending.EffectiveAt.Equal(t0.Add(49*time.Hour)) || c.Limit != "" {
		t.Fatalf("the raise asked again: %+v %+v", same, c)
	}
	// A second raise replaces the first, its 48 hours counted from itself.
	l2, _, _ := l.Change(StakeWeekly, 12000, t0.Add(10*time.Hour))
	if l2.Amount != 5000 || l2.Pending.Amount != 12000 || !l2.Pending.EffectiveAt.Equal(t0.Add(58*time.Hour)) {
		t.Errorf("second raise: %+v", l2)
	}
	// The limit against the week's sum: up to it exactly, not a cent past.
	if err := low.Allows(StakeWeekly, 1000, 2000, t0.Add(3*time.Hour)); err != nil {
		t.Errorf("up to the limit: %v", err)
	}
	if err := low.Allows(StakeWeekly, 1001, 2000, t0.Add(3*time.Hour)); !fault.Is(err, fault.LimitReached) {
		t.Errorf("a cent past the limit: %v", err)
	}
	for _, bad := range []int64{-1, MaxLimit + 1} {
		if _, _, err := low.Change(DepositWeekly, bad, t0); !errors.Is(err, ErrLimitAmount) {
			t.Errorf("%d taken: %v", bad, err)
		}
	}
}

// Over random changes at random times, the limit in force never goes up but 48 hours after a
// raise asked for exactly that amount, and any lowering holds from its request.
func TestLimitProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 2000 {
		var l Limit
		now := t0
		type ask struct {
			at     time.Time
			amount int64
		}
		var asks []ask
		inForce := func(at time.Time) (int64, bool) { g := l.At(at); return g.Amount, g.Set }
		for range 20 {
			before, wasSet := inForce(now)
			now = now.Add(time.Duration(r.IntN(60*60)) * time.Minute) // up to 60 hours later
			after, _ := inForce(now)
			if wasSet && after > before {
				// A rise: the amount of the last requests (a raise, maybe asked again since,
				// which keeps its time), the first of which was 48 hours before now or earlier.
				j := len(asks) - 1
				for j > 0 && asks[j-1].amount == after {
					j--
				}
				ok := asks[len(asks)-1].amount == after && !now.Before(asks[j].at.Add(RaiseDelay))
				if !ok {
					t.Fatalf("trial %d: the limit rose from %d to %d with asks %+v", trial, before, after, asks)
				}
			}
			amount := int64(r.IntN(10)) * 1000
			var err error
			l, _, err = l.Change(StakeWeekly, amount, now)
			if err != nil {
				t.Fatal(err)
			}
			asks = append(asks, ask{now, amount})
			got, _ := inForce(now)
			switch {
			case !wasSet || amount <= after:
				if got != amount || l.Pending != nil {
					t.Fatalf("trial %d: %d asked with %d in force: %d in force, pending %+v", trial, amount, after, got, l.Pending)
				}
			default:
				if got != after || l.Pending == nil || l.Pending.Amount != amount {
					t.Fatalf("trial %d: raise to %d from %d: %d in force, pending %+v", trial, amount, after, got, l.Pending)
				}
			}
		}
	}
}

// The rolling week: a movement counts for exactly 7 × 24 hours after it.
func TestWeekSum(t *testing.T) {
	ms := []Movement{{t0, 100}, {t0.Add(time.Hour), 200}, {t0.Add(Week), 400}}
	for _, c := range []struct {
		at   time.Time
		want int64
	}{
		{t0.Add(-time.Second), 0},
		{t0, 100},
		{t0.Add(Week - time.Nanosecond), 300},
		{t0.Add(Week), 600}, // the first is exactly a week old: out
		{t0.Add(Week + time.Hour), 400},
	} {
		if got := WeekSum(ms, c.at); got != c.want {
			t.Errorf("at %s: %d, want %d", c.at.Sub(t0), got, c.want)
		}
	}
}

// The window kept as stakes come, brought forward whenever it no longer holds (as a store does,
// reading the games after its last expired one, in pages, or only the latest when the player
// stopped), always equals the sum over the week of every stake, at random times over weeks.
func TestWindowEqualsWeekSum(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var paged, emptied int
	for trial := range 300 {
		var w Window
		var games []StakeAt
		now := t0
		pageSize := 1 + r.IntN(5)
		for range 200 {
			now = now.Add(time.Duration(r.Int64N(int64(3 * 24 * time.Hour))))
			err := w.Forward(now, func(after int64) ([]StakeAt, error) {
				var page []StakeAt
				for _, g := range games {
					if g.GameID > after && len(page) < pageSize {
						page = append(page, g)
					}
				}
				paged++
				return page, nil
			}, func() (StakeAt, bool, error) {
				if len(games) == 0 {
					return StakeAt{}, false, nil
				}
				if !games[len(games)-1].At.After(now.Add(-Week)) {
					emptied++
				}
				return games[len(games)-1], true, nil
			})
			if err != nil || !w.Current(now) {
				t.Fatalf("trial %d: the window does not hold after it was brought forward: %v", trial, err)
			}
			var want int64
			for _, g := range games {
				if g.At.After(now.Add(-Week)) && !g.At.After(now) {
					want += g.Amount
				}
			}
			if got := w.Sum(); got != want {
				t.Fatalf("trial %d at %s: the window says %d, the stakes of the week %d", trial, now.Sub(t0), got, want)
			}
			for range r.IntN(4) {
				g := StakeAt{GameID: int64(len(games) + 1), Amount: 1 + r.Int64N(500), At: now}
				games = append(games, g)
				w.Add(g.Amount, g.At)
			}
		}
	}
	// Both ways were taken, many times.
	if paged < 1000 || emptied < 100 {
		t.Errorf("the windows were brought forward by pages %d times, emptied to the latest game %d times", paged, emptied)
	}
}

// The limits as a player changes them: both limits at once, each kept; the interval of reality
// checks within its bounds or none.
func TestLimitsApply(t *testing.T) {
	var l Limits
	dep, stake := int64(10_000), int64(5_000)
	l, kept, err := l.Apply(LimitsChange{Deposit: &dep, Stake: &stake, RealityCheck: 30, SetRealityCheck: true}, t0)
	if err != nil || l.Deposit.Amount != dep || l.Stake.Amount != stake || l.RealityCheck != 30 || len(kept) != 2 {
		t.Fatalf("%+v %+v %v", l, kept, err)
	}
	more := int64(20_000)
	l, kept, _ = l.Apply(LimitsChange{Deposit: &more}, t0.Add(time.Hour))
	if l.Deposit.Amount != dep || l.Deposit.Pending == nil || len(kept) != 1 || *kept[0].Old != dep || kept[0].New != more || l.RealityCheck != 30 {
		t.Fatalf("raise: %+v %+v", l, kept)
	}
	for _, bad := range []int{1, 14, 121} {
		if _, _, err := l.Apply(LimitsChange{RealityCheck: bad, SetRealityCheck: true}, t0); !errors.Is(err, ErrRealityCheck) {
			t.Errorf("reality check every %d minutes: %v", bad, err)
		}
	}
	if l, _, err = l.Apply(LimitsChange{SetRealityCheck: true}, t0); err != nil || l.RealityCheck != 0 {
		t.Errorf("no reality checks: %+v %v", l, err)
	}
}
