package game

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
	"starcolor/internal/store"
	"starcolor/internal/wallet"
)

// Seamless wallet mode (docs/spec/WALLET.md): the operator holds its players' money. A sale goes
// in three steps:
//  1. The rollback of its debit is kept (held) before the debit is sent, so that even a crash
//     between the two leaves it to send.
//  2. The stake is debited at the operator's wallet.
//  3. Only a debit the wallet acknowledged sells a unit. It sells in one step with the game and the
//     credit of its prize, which the outbox sends (wallet.Sender).
//
// A debit whose outcome stays unknown refuses the sale and is rolled back.

// WalletStore is what wallet mode needs of a store, beyond Store.
type WalletStore interface {
	store.WalletSales
	store.Launches
}

// Outbox is the sender of the outbox's calls (wallet.Sender), as the sales see it.
type Outbox interface {
	// Wake tells it that calls were kept due.
	Wake()
	// Claim makes a call about to be kept claimed by the sender from its keeping at now, and
	// Hand sends such a call at once, if it has room (see wallet.Sender).
	Claim(c *lottery.WalletCall, now time.Time)
	Hand(c lottery.WalletCall) bool
}

// Wallet is the game's wallet mode, the service's money once WithWallet puts it in. It holds the
// store's side, the wallet's client, and the sender of the outbox to wake when a call is due.
type Wallet struct {
	Store  WalletStore
	Client *wallet.Client
	Outbox Outbox
	// DebitWait bounds how long a player's request waits for its debit, sent again meanwhile
	// (docs/spec/WALLET.md: a few seconds at most).
	DebitWait time.Duration

	s *Service // the service whose money this is

	balMu    sync.Mutex
	balances map[int64]balance // the wallet's answers, at most a second old
	ids      map[string]int64  // the players of balances, by their id at the operator

	keys  saleKeys // the sales under way, by player and Idempotency-Key
	ahead ahead    // the rollbacks held ahead of players' next sales (wallet_ahead.go)

	soldMu  sync.Mutex
	soldOut map[int64]bool // the stakes a sale found sold out, until one is on sale again

	whoMu sync.Mutex
	who   map[sessionOf]walletWho // see player
}

// WithWallet puts the service in wallet mode: its money is the operator's wallet from now on.
// It is called once, at start, before the service serves.
func (s *Service) WithWallet(w *Wallet) {
	if w.DebitWait <= 0 {
		w.DebitWait = 4 * time.Second
	}
	w.s = s
	w.balances, w.ids, w.who = map[int64]balance{}, map[string]int64{}, map[sessionOf]walletWho{}
	s.money = w
}

// errWalletMode refuses what the operator does in wallet mode: moving money, protecting players.
var errWalletMode = fault.Errorf(fault.WalletMode, "the operator holds the money and the player's protection: this is done on the operator's site")

// accounts refuses the calls of the players' accounts: the operator keeps them (403 wallet_mode).
func (w *Wallet) accounts() error { return errWalletMode }

// launches are the store's launches of the operator's players.
func (w *Wallet) launches() (store.Launches, error) { return w.Store, nil }

// balance is the player's balance at the wallet: asked, or an answer at most a second old.
func (w *Wallet) balance(ctx context.Context, p Player) (int64, error) {
	w.balMu.Lock()
	b, ok := w.balances[p.ID]
	w.balMu.Unlock()
	if ok && w.s.now().Sub(b.at) < time.Second {
		return b.amount, nil
	}
	who, session, err := w.player(ctx, p)
	if err != nil {
		return 0, err
	}
	amount, err := w.Client.Balance(ctx, wallet.BalanceRequest{Player: who, OperatorSession: session})
	if err != nil {
		return 0, walletFault(err)
	}
	w.keepBalance(p.ID, who, amount)
	return amount, nil
}

// sell debits the stake at the wallet, then sells: only a debit the wallet acknowledged sells a
// unit. A sale refused is not kept under its key (docs/spec/WALLET.md), so a retry is a new
// attempt. A key answered already answers the same. It is checked before the debit, or with the
// sale when the player's rollback was held ahead: the debit of a copy of an older sale is then
// rolled back. The same key sent twice at once:
//   - to this server, waits here for its first sale (saleKeys), and then answers the same;
//   - to two servers, is debited by both, and the second sale, refused for its key, rolls its
//     debit back.
func (w *Wallet) sell(ctx context.Context, p Player, req lottery.SaleRequest) (lottery.Answer, *lottery.Game, error) {
	unlock, err := w.keys.lock(ctx, p.ID, req.Key)
	if err != nil {
		return lottery.Answer{}, nil, err
	}
	defer unlock()
	kept, next, err := w.debit(ctx, p, &req)
	switch {
	case err != nil:
		// The debit refused, or its outcome unknown: the answer of a copy of the request sold
		// meanwhile on another server, if there is one, else the refusal.
		return w.s.saleAnswer(ctx, p, &req, lottery.Game{}, err)
	case kept != nil:
		ans, err := w.s.keptAnswer(ctx, p, *kept, req.RequestHash)
		return ans, nil, err
	}
	g, err := w.s.db.Sell(ctx, req, w.s.now())
	if err != nil {
		w.rollBack(ctx, req.Wallet.Rollback) // the debit stands, the sale does not: rolled back
		w.noteSoldOut(req.Price, err)
	} else {
		if req.Wallet.Next != nil {
			w.ahead.keep(p.ID, next)
		}
		// The credit of an « Auto » game is due: kept claimed, it is handed to the sender.
		if c, ok := req.Wallet.Credit.(*credit); !ok || c.kept == nil || !w.Outbox.Hand(*c.kept) {
			w.Outbox.Wake()
		}
	}
	return w.s.saleAnswer(ctx, p, &req, g, err)
}

// finished releases the credit of a game that has just finished.
func (w *Wallet) finished(ctx context.Context, g *lottery.Game) {
	if g.Status != lottery.Finished {
		return
	}
	if err := w.Store.ReleaseWalletCalls(context.WithoutCancel(ctx), nil, []string{strconv.FormatInt(g.ID, 10)}, w.s.now()); err != nil {
		w.s.log.Warn("wallet: releasing a credit", "round", g.ID, "err", err)
	}
	w.Outbox.Wake()
}

// NoteWalletBalance notes the balance the wallet answered to a credit or a rollback the outbox
// sent for one of its players. Without it, the balance shown for a second after a sale would be
// the debit's answer, which lacks the prize credited since. A player who has just won would see
// their stake taken and not their prize. One whose sale was refused and rolled back would see
// their stake still gone. Another server's calls still leave this one's answer at most a second
// old, as docs/spec/WALLET.md allows. (Answers of calls made at once may be noted out of order.
// Each is the wallet's own balance at its moment, and the next sale or second corrects it.)
func (s *Service) NoteWalletBalance(walletPlayer string, amount int64) {
	s.money.answered(walletPlayer, amount)
}

// answered notes a balance the wallet answered to the outbox. Only a player this server already
// shows a balance of is noted: there is no answer of theirs to correct otherwise.
func (w *Wallet) answered(walletPlayer string, amount int64) {
	w.balMu.Lock()
	if id, ok := w.ids[walletPlayer]; ok {
		w.balances[id] = balance{amount, w.s.now()}
	}
	w.balMu.Unlock()
}

type balance struct {
	amount int64
	at     time.Time
}

// keepBalance keeps the wallet's answer of a player's balance, for a second.
func (w *Wallet) keepBalance(playerID int64, walletPlayer string, amount int64) {
	w.balMu.Lock()
	w.balances[playerID] = balance{amount, w.s.now()}
	w.ids[walletPlayer] = playerID
	w.balMu.Unlock()
}

// sessionOf is a player's session.
type sessionOf struct {
	player  int64
	session string
}

// walletWho is a player as the operator knows them: their id there, and the operator's session
// of the launch that opened the session here.
type walletWho struct{ player, session string }

// maxWho bounds the players of sessions remembered by player.
const maxWho = 100_000

// player is who the player of a session is at the operator, read once per session rather than
// at every sale. A player's id at the operator never changes. A session is opened by one launch,
// whose operator's session the store keeps with it. A later launch opens another session, and
// changes nothing of this one's, on any server (docs/spec/WALLET.md 1.1).
func (w *Wallet) player(ctx context.Context, p Player) (who, session string, err error) {
	k := sessionOf{p.ID, string(p.session)}
	w.whoMu.Lock()
	e, ok := w.who[k]
	w.whoMu.Unlock()
	if ok {
		return e.player, e.session, nil
	}
	if who, session, err = w.Store.WalletPlayerOf(ctx, p.ID, p.session); err != nil {
		return "", "", err
	}
	w.whoMu.Lock()
	if len(w.who) >= maxWho {
		clear(w.who)
	}
	w.who[k] = walletWho{who, session}
	w.whoMu.Unlock()
	return who, session, nil
}

// saleKeys lets one sale at a time run under a player's Idempotency-Key, in this server. Copies
// of one request sent at once (a client retrying, a double click) wait for the first. They then
// find its answer kept under the key, instead of each debiting the stake at the wallet. There, a
// debit the balance no longer covers would be refused, and the player told 402 for a request
// that was sold.
type saleKeys struct {
	mu    sync.Mutex
	turns map[saleKey]*saleTurn
}

type saleKey struct {
	player int64
	key    string
}

type saleTurn struct {
	held  chan struct{} // holds a token while a sale under the key runs
	users int           // the sales running or waiting under the key
}

// lock waits for the turn of a sale under a player's key, or for ctx to end; unlock ends it.
func (k *saleKeys) lock(ctx context.Context, player int64, key string) (unlock func(), err error) {
	id := saleKey{player, key}
	k.mu.Lock()
	if k.turns == nil {
		k.turns = map[saleKey]*saleTurn{}
	}
	t := k.turns[id]
	if t == nil {
		t = &saleTurn{held: make(chan struct{}, 1)}
		k.turns[id] = t
	}
	t.users++
	k.mu.Unlock()
	leave := func() {
		k.mu.Lock()
		if t.users--; t.users == 0 {
			delete(k.turns, id)
		}
		k.mu.Unlock()
	}
	select {
	case t.held <- struct{}{}:
		return func() { <-t.held; leave() }, nil
	case <-ctx.Done():
		leave()
		return nil, ctx.Err()
	}
}

// transactionSuffix names a sale's movements (its debit, and its credit or rollback): the time in
// milliseconds then 64 random bits, in hex. It is unique forever without asking anyone. It is in
// time order, so that the outbox's index of transaction ids grows at its end. Random ids would
// grow it at a random page for each call, a page written again at every commit.
func transactionSuffix(now time.Time) string {
	var b [8]byte
	rand.Read(b[:])
	return fmt.Sprintf("%012x%x", now.UnixMilli(), b)
}

// walletFault is a wallet's refusal as the player is told it (the same status and code), or an
// unknown outcome as wallet_unavailable.
func walletFault(err error) error {
	var r *wallet.Refused
	if errors.As(err, &r) {
		switch {
		case r.Status == 402:
			return fault.Errorf(fault.InsufficientFunds, "the operator's wallet refused the stake: %s", r.Message)
		case r.Status == 403 && r.Code == wallet.CodePlayerBlocked:
			return fault.Errorf(fault.PlayerBlocked, "the operator's wallet refused the player: %s", r.Message)
		case r.Status == 403:
			return fault.Errorf(fault.LimitReached, "the operator's wallet refused the stake: %s", r.Message)
		}
	}
	return fault.Retry(fault.WalletUnavailable, time.Second, "the operator's wallet did not answer: nothing was sold; try again")
}

// debit debits the stake at the wallet for a sale about to be made, and puts in req what the sale
// needs of it. A refusal or an unknown outcome refuses the sale; the rollback of an unknown one
// is released to the outbox. If the sale's key has its answer already, nothing is debited: that
// answer is returned. next is the rollback held ahead of the player's next sale. It is kept once
// the sale is made, if req.Wallet.Next holds it.
func (w *Wallet) debit(ctx context.Context, p Player, req *lottery.SaleRequest) (kept *lottery.KeptAnswer, next heldAhead, err error) {
	who, session, err := w.player(ctx, p)
	if err != nil {
		return nil, heldAhead{}, err
	}
	if err := w.onSale(ctx, req.Price); err != nil {
		return nil, heldAhead{}, err
	}
	now := w.s.now()
	often := w.ahead.played(p.ID, now)
	h, ok := w.ahead.take(p.ID, req.Key, now)
	if !ok {
		if h.game, err = w.Store.ReserveGameID(ctx); err != nil {
			return nil, heldAhead{}, err
		}
		h.suffix = transactionSuffix(now)
		call := rollbackCall(who, h.game, h.suffix, req.Price)
		k, found, err := w.Store.HoldRollback(ctx, p.ID, req.Key, call, now)
		if err != nil || found {
			return &k, heldAhead{}, err
		}
	}
	// With a rollback held ahead, the key is checked with the sale only (lottery.Book.Taken), as
	// without a wallet. So another key of the player's used already (a copy of an older sale) is
	// debited, refused for its key, rolled back, and answered as it was.
	round := strconv.FormatInt(h.game, 10)
	debit := wallet.DebitRequest{TransactionID: "debit-" + h.suffix, Player: who, OperatorSession: session, RoundID: round,
		Amount: req.Price, Currency: wallet.Currency}
	rollback := "rollback-" + h.suffix
	body, _ := json.Marshal(debit)
	var after int64
	var refused *wallet.Refused
	deadline := time.Now().Add(w.DebitWait)
	for {
		after, err = w.Client.CallRaw(ctx, wallet.CallDebit, debit.TransactionID, body)
		if err == nil || (errors.As(err, &refused) && refused.Status != 401 && refused.Status != 409) || time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		time.Sleep(100 * time.Millisecond) // the same debit again: the wallet answers it once
	}
	switch {
	case err == nil:
	case errors.As(err, &refused) && (refused.Status == 402 || refused.Status == 403):
		// Final: no rollback is owed for it.
		if derr := w.Store.DropHeldWalletCalls(context.WithoutCancel(ctx), []string{rollback}); derr != nil {
			w.s.log.Warn("wallet: forgetting the rollback of a refused debit", "transaction", debit.TransactionID, "err", derr)
		}
		return nil, heldAhead{}, walletFault(err)
	default:
		w.rollBack(ctx, rollback)
		return nil, heldAhead{}, walletFault(err)
	}
	w.keepBalance(p.ID, who, after)
	call, next := w.holdAhead(ctx, who, req.Key, often)
	req.GameID = h.game
	req.Wallet = &lottery.WalletSale{Balance: after, Rollback: rollback, Next: call,
		Credit: &credit{who: who, round: round, suffix: h.suffix, outbox: w.Outbox}}
	return nil, next, nil
}

// credit is the credit of a sale's round, made once the sale knows its prize
// (lottery.WalletCredit): its transaction id is the debit's suffix after "credit-".
type credit struct {
	who, round string // the player at the operator, the round
	suffix     string // the round's transaction suffix
	outbox     Outbox
	// kept is the credit as the sale's write keeps it, if kept claimed: the one call the sale
	// hands to the sender. The writer sets it before the sale's answer, which the seller waits
	// for; one not claimed (no sender running then) is left to a claim.
	kept *lottery.WalletCall
}

// CreditOf is the credit of a sold game's prize: held until the game finishes, else kept
// claimed by the sender, which the sale hands it to (Wallet.sell). A write tried again makes it
// again, and the last one made is the one kept.
func (c *credit) CreditOf(g *lottery.Game) lottery.WalletCall {
	call := wallet.CreditCall(c.suffix, c.who, c.round, g.Prize)
	c.kept = nil
	if g.Status != lottery.Finished {
		call.Status = lottery.CallHeld // credited when the game finishes
	} else if c.outbox.Claim(&call, g.CreatedAt); call.Attempts > 0 {
		kept := call
		c.kept = &kept
	}
	return call
}

// onSale refuses, before its debit, a sale at a stake found sold out, while no emission puts
// one on sale again. Without it, each such sale would debit the operator's wallet, be refused
// by the store, and roll its debit back. The emissions are read only once a stake sold out.
func (w *Wallet) onSale(ctx context.Context, price int64) error {
	w.soldMu.Lock()
	out := w.soldOut[price]
	w.soldMu.Unlock()
	if !out {
		return nil
	}
	es, err := w.s.db.Emissions(ctx)
	if err != nil {
		return err
	}
	for _, e := range es {
		if e.Price != price {
			continue
		}
		for _, b := range e.Blocks {
			if b.Sold < b.Units {
				w.soldMu.Lock()
				delete(w.soldOut, price)
				w.soldMu.Unlock()
				return nil
			}
		}
	}
	return lottery.ErrSoldOut
}

// noteSoldOut notes a stake found sold out by a sale (see onSale).
func (w *Wallet) noteSoldOut(price int64, err error) {
	if fault.CodeOf(err) != fault.SoldOut {
		return
	}
	w.soldMu.Lock()
	if w.soldOut == nil {
		w.soldOut = map[int64]bool{}
	}
	w.soldOut[price] = true
	w.soldMu.Unlock()
}

// rollBack releases a held rollback to the outbox: its debit's sale was not made.
func (w *Wallet) rollBack(ctx context.Context, transactionID string) {
	if err := w.Store.ReleaseWalletCalls(context.WithoutCancel(ctx), []string{transactionID}, nil, w.s.now()); err != nil {
		// It stays held: the sweep of stale calls releases it (ReleaseStaleWalletCalls).
		w.s.log.Warn("wallet: releasing a rollback", "transaction", transactionID, "err", err)
	}
	w.Outbox.Wake()
}
