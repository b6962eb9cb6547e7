package fakewallet

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"starcolor/internal/wallet"
)

// The kinds of transactions, as the listing names them.
const (
	KindDebit    = "debit"
	KindCredit   = "credit"
	KindRollback = "rollback"
)

// Balance answers a player's balance, creating the player on first use.
func (s *Store) Balance(ctx context.Context, req wallet.BalanceRequest) (Answer, error) {
	if req.Player == "" {
		return Answer{}, errorf(CodeInvalid, "no player")
	}
	return s.write(ctx, func(ctx context.Context, tx *txn) (Answer, error) {
		p, err := s.player(ctx, tx, req.Player)
		if err != nil {
			return Answer{}, err
		}
		return balanceAnswer(p.balance, ""), nil
	})
}

// Debit takes a stake from a player's balance: refused with 403 player_blocked if the player is
// blocked, with refuse's code if not empty (a fault injected: insufficient_funds or
// limit_reached), with 402 insufficient_funds if the balance is too low. A refusal is kept with
// the debit like a success: it is final (docs/spec/WALLET.md).
func (s *Store) Debit(ctx context.Context, req wallet.DebitRequest, body []byte, refuse string) (Answer, error) {
	switch {
	case req.TransactionID == "" || req.Player == "" || req.RoundID == "":
		return Answer{}, errorf(CodeInvalid, "a debit needs a transaction_id, a player and a round_id")
	case req.Amount <= 0:
		return Answer{}, errorf(CodeInvalid, "a debit's amount is a positive number of cents, not %d", req.Amount)
	case req.Currency != wallet.Currency:
		return Answer{}, errorf(CodeInvalid, "the currency is %s, not %q", wallet.Currency, req.Currency)
	}
	return s.write(ctx, func(ctx context.Context, tx *txn) (Answer, error) {
		// Rolled back before (even before it came), a debit is refused, also the same one again.
		if by, err := rollbackOf(ctx, tx, req.TransactionID); err != nil {
			return Answer{}, err
		} else if by != "" {
			return Answer{}, errorf(wallet.CodeDuplicateTransaction, "transaction %s was rolled back (by %s): a debit with its id is refused", req.TransactionID, by)
		}
		if a, found, err := replay(ctx, tx, KindDebit, req.TransactionID, body); found || err != nil {
			return a, err
		}
		p, err := s.player(ctx, tx, req.Player)
		if err != nil {
			return Answer{}, err
		}
		var a Answer
		switch {
		case p.blocked:
			a = refusal(req.TransactionID, wallet.CodePlayerBlocked, "the player is blocked")
		case refuse != "":
			a = refusal(req.TransactionID, refuse, "refused by the fault injected (--refuse)")
		case p.balance < req.Amount:
			a = refusal(req.TransactionID, wallet.CodeInsufficientFunds, fmt.Sprintf("the balance is %d cents, the stake %d", p.balance, req.Amount))
		default:
			p.balance -= req.Amount
			if err := setBalance(ctx, tx, p.name, p.balance); err != nil {
				return Answer{}, err
			}
			a = balanceAnswer(p.balance, req.TransactionID)
		}
		return a, s.record(ctx, tx, transaction{KindDebit, req.TransactionID, req.Player, req.RoundID, req.Amount, "", body}, a)
	})
}

// Credit pays a prize (0 too) to a player's balance. It is always accepted: a blocked player, an
// ended session or a debit unknown, refused or rolled back do not stop it (the books count those
// credits apart, see Books.Unmatched).
func (s *Store) Credit(ctx context.Context, req wallet.CreditRequest, body []byte) (Answer, error) {
	switch {
	case req.TransactionID == "" || req.Player == "" || req.RoundID == "":
		return Answer{}, errorf(CodeInvalid, "a credit needs a transaction_id, a player and a round_id")
	case req.Amount < 0:
		return Answer{}, errorf(CodeInvalid, "a credit's amount is 0 or more cents, not %d", req.Amount)
	case req.Currency != wallet.Currency:
		return Answer{}, errorf(CodeInvalid, "the currency is %s, not %q", wallet.Currency, req.Currency)
	}
	return s.write(ctx, func(ctx context.Context, tx *txn) (Answer, error) {
		if a, found, err := replay(ctx, tx, KindCredit, req.TransactionID, body); found || err != nil {
			return a, err
		}
		p, err := s.player(ctx, tx, req.Player)
		if err != nil {
			return Answer{}, err
		}
		p.balance += req.Amount
		if err := setBalance(ctx, tx, p.name, p.balance); err != nil {
			return Answer{}, err
		}
		a := balanceAnswer(p.balance, req.TransactionID)
		return a, s.record(ctx, tx, transaction{KindCredit, req.TransactionID, req.Player, req.RoundID, req.Amount, req.DebitTransactionID, body}, a)
	})
}

// Rollback undoes a debit: a successful one's amount goes back to its player, once; a refused
// one's, nothing. An id never seen is acknowledged and remembered, so that a debit arriving
// later with it is refused (409). An id already rolled back gets the first rollback's answer.
func (s *Store) Rollback(ctx context.Context, req wallet.RollbackRequest, body []byte) (Answer, error) {
	if req.TransactionID == "" || req.Player == "" || req.RolledBackTransactionID == "" {
		return Answer{}, errorf(CodeInvalid, "a rollback needs a transaction_id, a player and a rolled_back_transaction_id")
	}
	return s.write(ctx, func(ctx context.Context, tx *txn) (Answer, error) {
		if a, found, err := replay(ctx, tx, KindRollback, req.TransactionID, body); found || err != nil {
			return a, err
		}
		d := req.RolledBackTransactionID
		var (
			kind, owner string
			amount      int64
			status      int
		)
		err := tx.QueryRowContext(ctx, `SELECT kind, player, amount, status FROM transactions WHERE id = ?`, d).Scan(&kind, &owner, &amount, &status)
		known := err == nil
		switch {
		case err != nil && !errors.Is(err, sql.ErrNoRows):
			return Answer{}, err
		case known && kind != KindDebit:
			return Answer{}, errorf(CodeInvalid, "transaction %s is a %s: only debits are rolled back", d, kind)
		case known && owner != req.Player:
			return Answer{}, errorf(CodeInvalid, "debit %s is player %s's, not %s's", d, owner, req.Player)
		}
		given := int64(0)
		var a Answer
		by, err := rollbackOf(ctx, tx, d)
		if err != nil {
			return Answer{}, err
		}
		if by != "" {
			// Rolled back already: the first rollback's answer again, its balance, echoing this
			// rollback's id; nothing moves.
			var first []byte
			if err := tx.QueryRowContext(ctx, `SELECT answer FROM transactions WHERE id = ?`, by).Scan(&first); err != nil {
				return Answer{}, err
			}
			var b wallet.Answer
			if err := json.Unmarshal(first, &b); err != nil {
				return Answer{}, err
			}
			a = balanceAnswer(b.Balance, req.TransactionID)
		} else {
			p, err := s.player(ctx, tx, req.Player)
			if err != nil {
				return Answer{}, err
			}
			if known && status == 200 {
				given = amount
				p.balance += given
				if err := setBalance(ctx, tx, p.name, p.balance); err != nil {
					return Answer{}, err
				}
			}
			a = balanceAnswer(p.balance, req.TransactionID)
		}
		if err := s.record(ctx, tx, transaction{KindRollback, req.TransactionID, req.Player, req.RoundID, given, d, body}, a); err != nil {
			return Answer{}, err
		}
		if by == "" {
			if _, err := tx.ExecContext(ctx, `INSERT INTO rolled_back (id, rollback_id) VALUES (?, ?)`, d, req.TransactionID); err != nil {
				return Answer{}, err
			}
		}
		return a, nil
	})
}

// transaction is a movement to record.
type transaction struct {
	kind, id, player, round string
	amount                  int64
	ref                     string
	body                    []byte
}

func (s *Store) record(ctx context.Context, tx *txn, t transaction, a Answer) error {
	code := ""
	if a.Status != 200 {
		var e wallet.ErrorBody
		if err := json.Unmarshal(a.Body, &e); err == nil {
			code = e.Error.Code
		}
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO transactions (id, kind, player, round_id, amount, ref, status, code, body, answer, at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		t.id, t.kind, t.player, t.round, t.amount, t.ref, a.Status, code, t.body, a.Body, s.Now().UTC().Format(timeFormat))
	return err
}

// replay finds a transaction id already used: the same call with the same body gets its answer
// again; another call or another body, 409.
func replay(ctx context.Context, tx *txn, kind, id string, body []byte) (a Answer, found bool, err error) {
	var (
		was  string
		prev []byte
	)
	err = tx.QueryRowContext(ctx, `SELECT kind, body, status, answer FROM transactions WHERE id = ?`, id).Scan(&was, &prev, &a.Status, &a.Body)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return Answer{}, false, nil
	case err != nil:
		return Answer{}, false, err
	case was != kind || !wallet.SameJSON(prev, body):
		return Answer{}, true, errorf(wallet.CodeDuplicateTransaction, "transaction %s is known with another body (a %s)", id, was)
	}
	return a, true, nil
}

// rollbackOf is the id of the first rollback of a transaction id, or "" if it was never rolled
// back.
func rollbackOf(ctx context.Context, tx *txn, id string) (string, error) {
	var by string
	err := tx.QueryRowContext(ctx, `SELECT rollback_id FROM rolled_back WHERE id = ?`, id).Scan(&by)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return by, err
}

// SetPlayer sets a player's balance (if balance is not nil) and blocks or unblocks them (if
// blocked is not nil), creating the player if needed: the test's and the operator's hand on the
// accounts. A balance set is counted in the books as an adjustment.
func (s *Store) SetPlayer(ctx context.Context, name string, balance *int64, blocked *bool) (Player, error) {
	if name == "" {
		return Player{}, errorf(CodeInvalid, "no player")
	}
	if balance != nil && *balance < 0 {
		return Player{}, errorf(CodeInvalid, "a balance is 0 or more cents, not %d", *balance)
	}
	var out Player
	_, err := s.write(ctx, func(ctx context.Context, tx *txn) (Answer, error) {
		p, err := s.player(ctx, tx, name)
		if err != nil {
			return Answer{}, err
		}
		if balance != nil {
			if _, err := tx.ExecContext(ctx, `UPDATE players SET balance = ?, adjusted = adjusted + ? WHERE player = ?`, *balance, *balance-p.balance, name); err != nil {
				return Answer{}, err
			}
			p.balance = *balance
		}
		if blocked != nil {
			if _, err := tx.ExecContext(ctx, `UPDATE players SET blocked = ? WHERE player = ?`, *blocked, name); err != nil {
				return Answer{}, err
			}
			p.blocked = *blocked
		}
		out = Player{Player: name, Balance: p.balance, Blocked: p.blocked}
		return Answer{}, nil
	})
	return out, err
}

// Player is a player's account as SetPlayer answers it.
type Player struct {
	Player  string `json:"player"`
	Balance int64  `json:"balance"`
	Blocked bool   `json:"blocked"`
}
