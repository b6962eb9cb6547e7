package game

import (
	"context"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
	"starcolor/internal/store"
)

// Where the players' money lives is chosen once, at start: in their accounts here, moved by the
// store's double-entry ledger (ledger, the default), or at the operator's wallet (Wallet, put in
// by WithWallet: docs/spec/WALLET.md). Everything that differs between the two is asked of the
// service's money; the rest of the package does not know which one it runs over.

// money is where the players' money lives.
type money interface {
	// accounts is nil where the players' accounts are this server's: their money, their
	// protection, their passwords. Otherwise it is the refusal of every call of theirs.
	accounts() error
	// launches is the store of the operator's launches of its players, where there are any.
	launches() (store.Launches, error)
	// balance is the player's balance; p.Balance is what their account here holds.
	balance(ctx context.Context, p Player) (int64, error)
	// sell sells a unit to the player, and answers the sale (Service.saleAnswer).
	sell(ctx context.Context, p Player, req lottery.SaleRequest) (lottery.Answer, *lottery.Game, error)
	// finished is told of a game that has just finished.
	finished(ctx context.Context, g *lottery.Game)
	// answered notes the balance the wallet answered for one of its players to a call of the
	// outbox (there is none where the money is here).
	answered(walletPlayer string, amount int64)
	// dropAhead forgets what was kept ahead of sales that have not started by until.
	dropAhead(ctx context.Context, until time.Time) error
}

// ledger is the players' money in their accounts here: a sale's stake and prize are transfers of
// the store's ledger, in the sale's own transaction.
type ledger struct{ s *Service }

func (ledger) accounts() error { return nil }

func (ledger) launches() (store.Launches, error) {
	return nil, fault.Errorf(fault.NotFound, "this server has no operator's wallet")
}

func (ledger) balance(_ context.Context, p Player) (int64, error) { return p.Balance, nil }

func (l ledger) sell(ctx context.Context, p Player, req lottery.SaleRequest) (lottery.Answer, *lottery.Game, error) {
	g, err := l.s.db.Sell(ctx, req, l.s.now())
	return l.s.saleAnswer(ctx, p, &req, g, err)
}

func (ledger) finished(context.Context, *lottery.Game) {}

func (ledger) answered(string, int64) {}

func (ledger) dropAhead(context.Context, time.Time) error { return nil }
