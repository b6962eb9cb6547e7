package game

import (
	"context"
	"strconv"
	"sync"
	"time"

	"starcolor/internal/lottery"
	"starcolor/internal/wallet"
)

// A sale in wallet mode keeps the rollback of its debit before it sends the debit, so that a
// crash between the two leaves the rollback to send. Kept on its own, that is a write and a
// commit before every debit: a player's request would wait for two commits and the wallet in
// turn. A player who plays again within heldAheadFor therefore gets the rollback of their next
// sale kept with this sale's game, in the same write (lottery.WalletSale.Next): their next sale
// sends its debit at once. The rollback is held from its sale's start at the latest, so the
// sweep of calls a crash left held (app.walletSweep) counts its time from then: its NextAt.
// One not used by then is forgotten by the server that kept it (DropUnusedRollbacks), which
// alone knows that its debit was never sent; a crash leaves it to the sweep, which sends it: a
// rollback of a debit the wallet never saw, which it acknowledges (docs/spec/WALLET.md).

// heldAheadFor is how long a rollback held ahead waits for its player's next sale.
const heldAheadFor = 5 * time.Second

// heldAhead is a rollback held ahead for a player's next sale: its round (a game id reserved),
// the suffix of its debit's and rollback's transaction ids, and the key of the sale that kept it.
type heldAhead struct {
	game   int64
	suffix string
	until  time.Time // its sale starts before this, or not at all
	after  string    // the Idempotency-Key of the sale that kept it
}

// ahead is what one server holds ahead, by player, and when each player last played.
type ahead struct {
	mu   sync.Mutex
	held map[int64]heldAhead
	last map[int64]time.Time
}

// take hands out the player's rollback held ahead, if it can still be used at now by a sale
// under key. A copy of the sale that kept it (the same key: a client that did not get its answer
// and asks again) is not given it: its sale checks its key before its debit (HoldRollback), and
// answers as the first did.
func (a *ahead) take(player int64, key string, now time.Time) (heldAhead, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	h, ok := a.held[player]
	if !ok || !now.Before(h.until) || h.after == key {
		return heldAhead{}, false // one out of time is left for DropUnusedRollbacks
	}
	delete(a.held, player)
	return h, true
}

// init makes the maps; a.mu is held.
func (a *ahead) init() {
	if a.last == nil {
		a.held, a.last = map[int64]heldAhead{}, map[int64]time.Time{}
	}
}

// played notes a sale's start, and tells whether the player played within heldAheadFor before.
func (a *ahead) played(player int64, now time.Time) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.init()
	prev, ok := a.last[player]
	if len(a.last) >= maxWho {
		for id, at := range a.last {
			if now.Sub(at) >= heldAheadFor {
				delete(a.last, id)
			}
		}
		if len(a.last) >= maxWho/2 {
			clear(a.last) // that many playing at once: each then holds its next rollback itself, once
		}
	}
	a.last[player] = now
	return ok && now.Sub(prev) < heldAheadFor
}

// keep notes a rollback held ahead once the sale that kept it is committed.
func (a *ahead) keep(player int64, h heldAhead) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.init()
	if old, ok := a.held[player]; ok {
		// Two sales of the player at once each kept one: the older one waits for the next
		// DropUnusedRollbacks in a list of its own.
		a.spare(old)
	}
	a.held[player] = h
}

// spare is kept in held under a negative player id: its own key, never a player's.
func (a *ahead) spare(h heldAhead) {
	a.held[-h.game] = h
}

// expired takes out the rollbacks held ahead whose time is over at now.
func (a *ahead) expired(now time.Time) []heldAhead {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []heldAhead
	for id, h := range a.held {
		if !now.Before(h.until) {
			out = append(out, h)
			delete(a.held, id)
		}
	}
	return out
}

// rollbackCall is the rollback of a sale's debit, as the outbox keeps it (held).
func rollbackCall(who string, game int64, suffix string, amount int64) lottery.WalletCall {
	return wallet.RollbackCall(suffix, who, strconv.FormatInt(game, 10), amount)
}

// holdAhead makes the rollback to hold ahead for the player's next sale, if they play often
// enough (nil otherwise, or if no round can be reserved: the next sale holds its own).
func (w *Wallet) holdAhead(ctx context.Context, who, key string, often bool) (*lottery.WalletCall, heldAhead) {
	if !often {
		return nil, heldAhead{}
	}
	id, err := w.Store.ReserveGameID(ctx)
	if err != nil {
		return nil, heldAhead{}
	}
	now := w.s.now()
	h := heldAhead{game: id, suffix: transactionSuffix(now), until: now.Add(heldAheadFor), after: key}
	// The amount of a rollback is not sent (docs/spec/WALLET.md): the outbox keeps the stake rolled back
	// for its own listing, and the next sale's is not known yet.
	call := rollbackCall(who, h.game, h.suffix, 0)
	call.NextAt = h.until
	return &call, h
}

// DropUnusedRollbacks forgets the rollbacks this server held ahead for sales that did not come
// in time: their debits were never sent.
func (s *Service) DropUnusedRollbacks(ctx context.Context) error {
	return s.money.dropAhead(ctx, s.now())
}

// DropRollbacksHeldAhead forgets every rollback this server holds ahead, once it takes no more
// sales (it is shutting down): without it, the sweep would send each to the wallet, the
// rollback of a debit never sent, for every player who played in the last seconds.
func (s *Service) DropRollbacksHeldAhead(ctx context.Context) error {
	return s.money.dropAhead(ctx, time.Unix(1<<62, 0))
}

// dropAhead forgets the rollbacks held ahead whose time is over at until.
func (w *Wallet) dropAhead(ctx context.Context, until time.Time) error {
	old := w.ahead.expired(until)
	if len(old) == 0 {
		return nil
	}
	ids := make([]string, len(old))
	for i, h := range old {
		ids[i] = "rollback-" + h.suffix
	}
	return w.Store.DropHeldWalletCalls(ctx, ids)
}
