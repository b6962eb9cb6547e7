package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
	"starcolor/internal/sqlstore"
)

// Pay makes a deposit or a withdrawal: its key claimed, its transfer, the answer kept under the
// key, and its entry in the journal, in one transaction. A deposit to an account closed or self-excluded is refused
// (lottery.Player.Shut's fault), session or not: its balance has been paid out, and no money may
// reach it again. Each of these fails and changes nothing:
//
//   - a deposit past the player's weekly deposit limit: fault.LimitReached;
//   - a deposit before they set one: fault.LimitsRequired;
//   - too little money: fault.InsufficientFunds;
//   - a key already used: lottery.ErrKeyTaken;
//   - an ended session: lottery.ErrSessionEnded.
//
// The player's account is locked before the limit is checked, so that two deposits on two
// servers are checked one after the other. When two servers are given one key at once, the
// second waits for the first, and finds the key taken.
func (d *DB) Pay(ctx context.Context, p lottery.Payment, now time.Time) (lottery.Answer, error) {
	var ans lottery.Answer
	err := d.inTx(ctx, func(tx pgx.Tx) error {
		if err := requireSession(ctx, tx, p.Session); err != nil {
			return err
		}
		tr := p.Transfer(now)
		if tr.Amount <= 0 {
			return fault.Errorf(fault.Invalid, "an amount must be positive")
		}
		if p.Key != "" {
			tag, err := tx.Exec(ctx, `INSERT INTO idempotency (player_id, key, request_hash, status, response, created_at)
				VALUES ($1, $2, $3, 0, '\x', $4) ON CONFLICT DO NOTHING`, p.PlayerID, p.Key, p.RequestHash, now.Unix())
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 0 {
				return lottery.ErrKeyTaken
			}
		}
		if p.Kind == lottery.Deposit {
			if err := checkDeposit(ctx, tx, p, now); err != nil {
				return err
			}
			// Read once the account is locked (checkDeposit): an exclusion or a closure that
			// held it has committed, and is seen.
			if _, err := requireOpen(ctx, tx, p.PlayerID, now, ""); err != nil {
				return err
			}
		}
		var balance int64
		b := &pgx.Batch{}
		b.Queue(`UPDATE accounts SET balance = balance - $1 WHERE id = $2 RETURNING balance`, tr.Amount, tr.From)
		b.Queue(`UPDATE accounts SET balance = balance + $1 WHERE id = $2 RETURNING balance`, tr.Amount, tr.To)
		b.Queue(`INSERT INTO transfers (from_account, to_account, amount, kind, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
			tr.From, tr.To, tr.Amount, tr.Kind, tr.CreatedAt)
		res := tx.SendBatch(ctx, b)
		var from, to int64
		err := res.QueryRow().Scan(&from)
		if isCode(err, "23514", "accounts_check") {
			res.Close()
			return fault.Errorf(fault.InsufficientFunds, "not enough money in the account")
		}
		if err == nil {
			err = res.QueryRow().Scan(&to)
		}
		if err == nil {
			err = res.QueryRow().Scan(&tr.ID)
		}
		if cerr := res.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		balance = to
		if p.Kind == lottery.Withdrawal {
			balance = from
		}
		ans = lottery.PaidAnswer(balance)
		if p.Key != "" {
			if _, err := tx.Exec(ctx, `UPDATE idempotency SET status = $1, response = $2 WHERE player_id = $3 AND key = $4`,
				int32(ans.Status), ans.Body, p.PlayerID, p.Key); err != nil {
				return err
			}
		}
		return d.AppendJournal(ctx, pgxQ{tx}, now, sqlstore.MoneyEvent(tr))
	})
	return ans, err
}

// playerColumns are the columns scanPlayer reads (sqlstore.PlayerColumns).
var playerColumns = sqlstore.PlayerColumns(sqlstore.PostgreSQL)

// scanPlayer reads a player's playerColumns (sqlstore.ScanPlayer), its error a fault.
func scanPlayer(row pgx.Row) (lottery.Player, error) {
	p, err := sqlstore.ScanPlayer(row)
	return p, asFault(err)
}

// requireSession checks a player's session in the transaction (sqlstore.RequireSession).
func requireSession(ctx context.Context, tx pgx.Tx, hash []byte) error {
	return sqlstore.RequireSession(ctx, pgxQ{tx}, hash)
}

// requireOpen refuses in the transaction a player whose account is shut (sqlstore.RequireOpen),
// with a row lock on the player (lock: "" for none).
func requireOpen(ctx context.Context, tx pgx.Tx, playerID int64, now time.Time, lock string) (lottery.Player, error) {
	return sqlstore.RequireOpen(ctx, pgxQ{tx}, sqlstore.PostgreSQL, playerID, now, lock)
}
