package sqlite

import (
	"context"
	"time"

	sqlite3 "modernc.org/sqlite/lib"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
	"starcolor/internal/sqlstore"
)

// Pay makes a deposit or a withdrawal: its transfer, the answer kept under its key, and its
// entry in the journal, in one write. A deposit to an account closed or self-excluded is refused (lottery.Player.Shut's
// fault), session or not: its balance has been paid out, and no money may reach it again. A
// deposit past the player's weekly deposit limit, or before they set one, is
// fault.LimitReached or fault.LimitsRequired; too little money is fault.InsufficientFunds, a key already used lottery.ErrKeyTaken, an
// ended session lottery.ErrSessionEnded; each changes nothing.
func (d *DB) Pay(ctx context.Context, p lottery.Payment, now time.Time) (lottery.Answer, error) {
	var ans lottery.Answer
	err := d.update(ctx, func(t *tx) error {
		if err := t.requireSession(p.Session); err != nil {
			return err
		}
		if p.Kind == lottery.Deposit {
			if _, err := t.requireOpen(p.PlayerID, now); err != nil {
				return err
			}
			if err := t.checkDeposit(p, now); err != nil {
				return err
			}
		}
		tr := p.Transfer(now)
		var err error
		if tr.ID, err = t.transfer(tr); err != nil {
			return err
		}
		var balance int64
		if err := t.queryRow(`SELECT balance FROM accounts WHERE id = ?`, p.AccountID).Scan(&balance); err != nil {
			return err
		}
		ans = lottery.PaidAnswer(balance)
		if p.Key != "" {
			if err := t.keep(p.PlayerID, p.Key, lottery.KeptAnswer{RequestHash: p.RequestHash, Answer: ans}, now); err != nil {
				return err
			}
		}
		return d.AppendJournal(t.ctx, txQ{t}, now, sqlstore.MoneyEvent(tr))
	})
	return ans, err
}

// transfer moves a transfer's amount between its accounts and records it, and returns its id. A
// player's account going below zero is refused (fault.InsufficientFunds).
func (t *tx) transfer(tr lottery.Transfer) (int64, error) {
	if tr.Amount <= 0 {
		return 0, fault.Errorf(fault.Invalid, "an amount must be positive")
	}
	if _, err := t.exec(`UPDATE accounts SET balance = balance - ? WHERE id = ?`, tr.Amount, tr.From); err != nil {
		if isConstraint(err, sqlite3.SQLITE_CONSTRAINT_CHECK) {
			return 0, fault.Errorf(fault.InsufficientFunds, "not enough money in the account")
		}
		return 0, err
	}
	if _, err := t.exec(`UPDATE accounts SET balance = balance + ? WHERE id = ?`, tr.Amount, tr.To); err != nil {
		return 0, err
	}
	var game, reason any
	if tr.GameID > 0 {
		game = tr.GameID
	}
	if tr.Reason != "" {
		reason = tr.Reason
	}
	res, err := t.exec(`INSERT INTO transfers (from_account, to_account, amount, kind, game_id, reason, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		tr.From, tr.To, tr.Amount, tr.Kind, game, reason, saleTime(tr.CreatedAt))
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}
