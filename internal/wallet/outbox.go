package wallet

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"starcolor/internal/lottery"
	"starcolor/internal/store"
)

// OutboxStore is what the sender needs of a store: the calls due, and what became of them.
type OutboxStore interface {
	store.Outbox
}

// Sender sends the outbox's calls until the wallet acknowledges each, many at once:
//
//   - A call whose outcome is unknown, or whose signature the wallet refuses (the operator may
//     fix the secret), is sent again after a jittered exponential backoff (from at most Base,
//     capped at Cap).
//   - A call refused otherwise (another 4xx) is a dispute, shown to the operator, not sent
//     again.
//
// Every server runs one. A call is claimed for Lease before it is sent, so one server at a time
// sends it.
//
// Calls are claimed many at a time, and each is sent on its own: a slow answer holds up its call
// only. Their outcomes are written as they come, many in one write.
//
// The credit of an « Auto » game is kept claimed by the write of its sale (Claim), and handed to
// the sender at once (Hand): no claim is written for it. A crash before it is answered leaves
// it to the next claim once its lease is over, on any server.
type Sender struct {
	Store  OutboxStore
	Client *Client
	Now    func() time.Time
	Log    *slog.Logger
	Base   time.Duration // the first wait (1 s)
	Cap    time.Duration // the longest wait (1 min)
	Lease  time.Duration // how long a claimed call is this sender's (20 s): more than a call's timeout (10 s)
	Batch  int           // calls claimed at once, and outcomes written at once (256)
	// Answered, if not nil, is told the balance the wallet answered to each call it acknowledged
	// (the player's balance after a credit or a rollback), before the call is settled.
	Answered func(c lottery.WalletCall, balance int64)
	// InFlight bounds the calls sent and not yet settled (4 × Batch).
	InFlight int
	Poll     time.Duration // how often the outbox is read when nothing wakes the sender (250 ms)
	// Gather is how long the sender waits, once woken, for more calls to come due (10 ms). The
	// writer of outcomes waits as long for more outcomes. So one claim and one write carry many
	// calls under load.
	Gather time.Duration

	once    sync.Once
	wake    chan struct{}
	slots   chan struct{} // one per call in flight
	running atomic.Pointer[sending]
}

// sending is what a running sender sends with: its context and where outcomes go.
type sending struct {
	ctx     context.Context
	results chan<- sent
}

func (s *Sender) init() {
	s.once.Do(func() {
		s.wake = make(chan struct{}, 1)
		if s.Now == nil {
			s.Now = time.Now
		}
		if s.Log == nil {
			s.Log = slog.New(slog.DiscardHandler)
		}
		if s.Base <= 0 {
			s.Base = time.Second
		}
		if s.Cap <= 0 {
			s.Cap = time.Minute
		}
		if s.Lease <= 0 {
			s.Lease = 20 * time.Second
		}
		if s.Batch <= 0 {
			s.Batch = 256
		}
		if s.InFlight <= 0 {
			s.InFlight = 4 * s.Batch
		}
		if s.Gather <= 0 {
			s.Gather = 10 * time.Millisecond
		}
		if s.Poll <= 0 {
			s.Poll = 250 * time.Millisecond
		}
		s.slots = make(chan struct{}, s.InFlight)
	})
}

// Wake tells the sender that calls were just kept, so that it sends them without waiting.
func (s *Sender) Wake() {
	s.init()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// sent is a call's sending and what became of it, by transaction id.
type sent struct {
	id string
	o  lottery.CallOutcome
}

// Claim makes a call about to be kept claimed by this sender from its keeping at now, if it is
// running: its first sending, due again only after the lease. The write that keeps it is its
// claim. A sender not running leaves it due at once, for any server's claim.
func (s *Sender) Claim(c *lottery.WalletCall, now time.Time) {
	s.init()
	if s.running.Load() != nil {
		c.Attempts, c.NextAt = 1, now.Add(s.Lease)
	}
}

// Hand sends at once a call kept claimed (Claim), if there is room in flight; it tells whether it
// took it. One not taken is sent by a claim once its lease is over.
func (s *Sender) Hand(c lottery.WalletCall) bool {
	s.init()
	r := s.running.Load()
	if r == nil {
		return false
	}
	select {
	case s.slots <- struct{}{}:
		go s.send(r.ctx, c, r.results)
		return true
	default:
		return false
	}
}

// Run sends until ctx ends.
func (s *Sender) Run(ctx context.Context) {
	s.init()
	results := make(chan sent, s.InFlight)
	go s.settle(ctx, results)
	s.running.Store(&sending{ctx, results})
	defer s.running.Store(nil)
	t := time.NewTicker(s.Poll)
	defer t.Stop()
	for {
		for s.claim(ctx, results) { // as many as it could take: more may be due
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.wake:
			select {
			case <-ctx.Done():
				return
			case <-time.After(s.Gather):
			}
		}
	}
}

// claim claims the calls due, as many as there is room for in flight, and starts sending each;
// it tells whether it took as many as it asked for.
func (s *Sender) claim(ctx context.Context, results chan<- sent) bool {
	room := min(s.Batch, cap(s.slots)-len(s.slots))
	if room == 0 {
		return false
	}
	calls, err := s.Store.ClaimWalletCalls(ctx, s.Now(), s.Lease, room)
	if err != nil {
		if ctx.Err() == nil {
			s.Log.Warn("wallet outbox: reading the calls due", "err", err)
		}
		return false
	}
	for _, c := range calls {
		s.slots <- struct{}{}
		go s.send(ctx, c, results)
	}
	return len(calls) == room
}

// send sends a call that holds a slot in flight, and passes on its outcome.
func (s *Sender) send(ctx context.Context, c lottery.WalletCall, results chan<- sent) {
	body, err := BodyOf(c)
	if err != nil {
		// Nothing can be sent for it: the operator settles it by hand.
		s.Log.Error("wallet outbox: a call with no body to send", "transaction", c.TransactionID, "err", err)
		results <- sent{c.TransactionID, lottery.CallOutcome{Disputed: true, Error: err.Error()}}
		return
	}
	balance, err := s.Client.CallRaw(ctx, c.Call, c.TransactionID, body)
	if ctx.Err() != nil {
		<-s.slots
		return // shutting down: the lease runs out and the call is sent again
	}
	if err == nil && s.Answered != nil {
		s.Answered(c, balance)
	}
	o := Outcome(err, c.Attempts, s.Base, s.Cap, s.Now())
	if o.Disputed {
		s.Log.Error("wallet outbox: a call refused, to settle by hand", "call", c.Call, "transaction", c.TransactionID, "round", c.RoundID, "err", err)
	}
	results <- sent{c.TransactionID, o} // never blocks: it has room for every call in flight
}

// settle writes the calls' outcomes as they come: those that come within Gather of the first,
// up to Batch, in one write. A call's slot is freed once its outcome is written.
func (s *Sender) settle(ctx context.Context, results <-chan sent) {
	outcomes := make(map[string]lottery.CallOutcome, s.Batch)
	for {
		select {
		case <-ctx.Done():
			return
		case r := <-results:
			outcomes[r.id] = r.o
		}
		gather := time.NewTimer(s.Gather)
	more:
		for len(outcomes) < s.Batch {
			select {
			case r := <-results:
				outcomes[r.id] = r.o
			case <-gather.C:
				break more
			}
		}
		gather.Stop()
		if err := s.Store.SettleWalletCalls(context.WithoutCancel(ctx), outcomes, s.Now()); err != nil {
			// Not written: each call is sent again once its lease runs out.
			s.Log.Warn("wallet outbox: writing the calls' outcomes", "calls", len(outcomes), "err", err)
		}
		for range outcomes {
			<-s.slots
		}
		clear(outcomes)
		s.Wake() // room again for the calls due
	}
}

// Outcome is what becomes of a call after a sending that answered err, at its attempt-th sending:
// acknowledged; disputed (a 4xx other than 401); or sent again after Backoff.
func Outcome(err error, attempt int, base, limit time.Duration, now time.Time) lottery.CallOutcome {
	var refused *Refused
	switch {
	case err == nil:
		return lottery.CallOutcome{Acked: true}
	case errors.As(err, &refused) && refused.Status != 401:
		return lottery.CallOutcome{Disputed: true, Error: err.Error()}
	}
	return lottery.CallOutcome{Retry: now.Add(Backoff(attempt, base, limit, rand.Float64())), Error: err.Error()}
}

// Backoff is the wait after the attempt-th failed sending (1, 2, …). It is base doubled at each
// attempt, capped at limit, then jittered down to between half and all of it (jitter in [0, 1)).
func Backoff(attempt int, base, limit time.Duration, jitter float64) time.Duration {
	d := base
	for i := 1; i < attempt && d < limit; i++ {
		d *= 2
	}
	d = min(d, limit)
	return d/2 + time.Duration(jitter*float64(d/2))
}
