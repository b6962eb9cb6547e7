package game

import (
	"context"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// Payments of play money: deposits and withdrawals between the bank and the player's account,
// each once per Idempotency-Key.

// Deposit moves play money from the bank to the player, once per Idempotency-Key.
func (s *Service) Deposit(ctx context.Context, p Player, req Request, amount int64) (lottery.Answer, error) {
	if err := s.money.accounts(); err != nil {
		return lottery.Answer{}, err
	}
	if amount <= 0 || amount > s.cfg.MaxDeposit {
		hash, err := requestHash(req)
		if err != nil {
			return lottery.Answer{}, err
		}
		return s.storedAnswer(ctx, p, req.Key, hash[:], fault.Errorf(fault.Invalid, "a deposit is 1 cent to %d cents", s.cfg.MaxDeposit))
	}
	return s.pay(ctx, p, req, lottery.Deposit, amount)
}

// Withdraw moves money from the player back to the bank, once per Idempotency-Key.
func (s *Service) Withdraw(ctx context.Context, p Player, req Request, amount int64) (lottery.Answer, error) {
	if err := s.money.accounts(); err != nil {
		return lottery.Answer{}, err
	}
	if amount <= 0 {
		hash, err := requestHash(req)
		if err != nil {
			return lottery.Answer{}, err
		}
		return s.storedAnswer(ctx, p, req.Key, hash[:], fault.Errorf(fault.Invalid, "a withdrawal is a positive number of cents"))
	}
	return s.pay(ctx, p, req, lottery.Withdrawal, amount)
}

// pay runs a payment once per key (docs/spec/API.md): the first success is kept with its effects, in the
// same transaction, and a retry with the same key, call and body gets its answer back without
// moving money again; the same key with another call or body is refused. A refused payment keeps
// nothing, so that it may be tried again once the player can afford it.
func (s *Service) pay(ctx context.Context, p Player, req Request, kind string, amount int64) (lottery.Answer, error) {
	hash, err := requestHash(req)
	if err != nil {
		return lottery.Answer{}, err
	}
	if err := s.damagedStore(); err != nil {
		return s.storedAnswer(ctx, p, req.Key, hash[:], err)
	}
	// The common case, a new key, costs one insert: the payment runs, and its answer is kept
	// under the key; if the key is taken already, the store undoes the payment. Only then, or
	// when the payment fails, is the kept answer looked up.
	ans, err := s.db.Pay(ctx, lottery.Payment{PlayerID: p.ID, AccountID: p.AccountID, Session: p.session, Kind: kind, Amount: amount,
		Key: req.Key, RequestHash: hash[:]}, s.now())
	if err == nil {
		return ans, nil
	}
	return s.storedAnswer(ctx, p, req.Key, hash[:], err)
}
