package sqlite

import (
	"context"
	"fmt"
	"starcolor/internal/ledger"
	"time"

	sqlite3 "modernc.org/sqlite/lib"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// Pay makes a deposit or a withdrawal: its transfer, and the answer kept under its key, in one
// write. A deposit to an account closed or self-excluded is refused (lottery.Player.Shut's
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
		if err := t.transfer(p.Transfer(now)); err != nil {
			return err
		}
		var balance int64
		if err := t.queryRow(`SELECT balance FROM accounts WHERE id = ?`, p.AccountID).Scan(&balance); err != nil {
			return err
		}
		ans = lottery.PaidAnswer(balance)
		if p.Key == "" {
			return nil
		}
		return t.keep(p.PlayerID, p.Key, lottery.KeptAnswer{RequestHash: p.RequestHash, Answer: ans}, now)
	})
	return ans, err
}

// transfer moves a transfer's amount between its accounts and records it. A player's account
// going below zero is refused (fault.InsufficientFunds).
func (t *tx) transfer(tr lottery.Transfer) error {
	if tr.Amount <= 0 {
		return fault.Errorf(fault.Invalid, "an amount must be positive")
	}
	if _, err := t.exec(`UPDATE accounts SET balance = balance - ? WHERE id = ?`, tr.Amount, tr.From); err != nil {
		if isConstraint(err, sqlite3.SQLITE_CONSTRAINT_CHECK) {
			return fault.Errorf(fault.InsufficientFunds, "not enough money in the account")
		}
		return err
	}
	if _, err := t.exec(`UPDATE accounts SET balance = balance + ? WHERE id = ?`, tr.Amount, tr.To); err != nil {
		return err
	}
	var game, reason any
	if tr.GameID > 0 {
		game = tr.GameID
	}
	if tr.Reason != "" {
		reason = tr.Reason
	}
	_, err := t.exec(`INSERT INTO transfers (from_account, to_account, amount, kind, game_id, reason, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		tr.From, tr.To, tr.Amount, tr.Kind, game, reason, storedTime(tr.CreatedAt))
	return err
}

// CheckLedger proves that the books balance: the accounts sum to zero, every balance equals its
// transfers, every game has exactly its stake and (when it won) its prize transfer, every
// block's sold count equals its games, which are its first units, each sold once, and what the
// sales keep for the back office (the totals by block and by hour, each game's transfer ids)
// agrees with the games and transfers.
func (d *DB) CheckLedger(ctx context.Context) (*lottery.LedgerCheck, error) {
	c, err := d.checkLedger(ctx)
	return c, asFault(err)
}

func (d *DB) checkLedger(ctx context.Context) (*lottery.LedgerCheck, error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	c := &lottery.LedgerCheck{}
	problem := func(format string, args ...any) { c.Problems = append(c.Problems, fmt.Sprintf(format, args...)) }
	var total int64
	if err := tx.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(balance), 0),
		coalesce(sum(CASE WHEN kind = 'player' THEN balance END), 0) FROM accounts`).Scan(&c.Accounts, &total, &c.Players); err != nil {
		return nil, err
	}
	if total != 0 {
		problem("the accounts sum to %d cents, not 0: money was created or lost", total)
	}
	for _, q := range []struct {
		sql string
		dst *int64
	}{{`SELECT balance FROM accounts WHERE id = 1`, &c.Bank}, {`SELECT balance FROM accounts WHERE id = 2`, &c.PrizeFund}} {
		if err := tx.QueryRowContext(ctx, q.sql).Scan(q.dst); err != nil {
			return nil, err
		}
	}
	rows, err := tx.QueryContext(ctx, `WITH moved AS (
			SELECT to_account AS account, amount FROM transfers
			UNION ALL SELECT from_account, -amount FROM transfers)
		SELECT a.id, a.kind, a.balance, coalesce(m.total, 0)
		FROM accounts a LEFT JOIN (SELECT account, sum(amount) AS total FROM moved GROUP BY account) m ON m.account = a.id`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var id, balance, moved int64
		var kind string
		if err := rows.Scan(&id, &kind, &balance, &moved); err != nil {
			rows.Close()
			return nil, err
		}
		if balance != moved {
			problem("account %d (%s) holds %d cents but its transfers add up to %d", id, kind, balance, moved)
		}
		if kind == "player" && balance < 0 {
			problem("player account %d is below zero: %d", id, balance)
		}
	}
	rows.Close()
	// The shared checks, then SQLite's own.
	checks := append(ledger.Checks[:len(ledger.Checks):len(ledger.Checks)], []ledger.Check{
		{What: "hours of sales (sales_hourly) whose totals differ from their games", SQL: `WITH kept AS (SELECT hour, price, units, stakes, prizes, winners FROM sales_hourly),
			      games_by_hour AS (SELECT substr(created_at, 1, 13), stake, count(*), sum(stake), sum(prize), sum(prize > 0)
			        FROM games GROUP BY 1, 2)
			 SELECT (SELECT count(*) FROM (SELECT * FROM kept EXCEPT SELECT * FROM games_by_hour)) +
			        (SELECT count(*) FROM (SELECT * FROM games_by_hour EXCEPT SELECT * FROM kept))`},
		{What: "sessions of players or operators that do not exist", SQL: `SELECT count(*) FROM sessions s WHERE (s.kind = 'player' AND s.owner_id NOT IN (SELECT id FROM players))
			    OR (s.kind = 'operator' AND s.owner_id NOT IN (SELECT id FROM operators))`},
		// The writer's connection does not check foreign keys at each write (writer.go); every
		// reference is checked here instead.
		{What: "rows referring to rows that do not exist (foreign keys)", SQL: `SELECT count(*) FROM pragma_foreign_key_check`},
	}...)
	for _, ch := range checks {
		var n int64
		if err := tx.QueryRowContext(ctx, ch.SQL).Scan(&n); err != nil {
			return nil, err
		}
		if n != 0 {
			problem("%s: %d", ch.What, n)
		}
	}
	if err := tx.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(stake), 0), coalesce(sum(prize), 0) FROM games`).Scan(&c.Games, &c.Stakes, &c.Prizes); err != nil {
		return nil, err
	}
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM transfers`).Scan(&c.Transfers); err != nil {
		return nil, err
	}
	return c, nil
}
