package fakewallet

import (
	"context"
	"time"
)

// timeFormat is the transactions' times: UTC, to the nanosecond, sorting as text.
const timeFormat = "2006-01-02T15:04:05.000000000Z"

// Sum is a count of movements and their amount in cents.
type Sum struct {
	Count  int64 `json:"count"`
	Amount int64 `json:"amount"`
}

// PlayerBooks is one player's account: what it started with, what moved, and its balance, which
// is Initial + Adjusted − Debits + Rollbacks + Credits when the books balance.
type PlayerBooks struct {
	Player   string `json:"player"`
	Initial  int64  `json:"initial"`  // the balance the player was created with
	Adjusted int64  `json:"adjusted"` // the sum of the changes made by POST /players
	Debits   Sum    `json:"debits"`   // the successful debits, rolled back or not
	// Rollbacks are the amounts given back: a successful debit's, once (a rollback of an unknown,
	// refused or already rolled back id is counted with 0).
	Rollbacks Sum `json:"rollbacks"`
	Credits   Sum `json:"credits"`
	// Staked is what stands of the debits: the successful debits not rolled back, Debits −
	// Rollbacks (docs/spec/WALLET.md's "stakes debited minus rollbacks").
	Staked   Sum   `json:"staked"`
	Refused  int64 `json:"refused"` // the debits refused (402, 403), which moved nothing
	Balance  int64 `json:"balance"`
	Blocked  bool  `json:"blocked"`
	Balanced bool  `json:"balanced"` // Balance = Initial + Adjusted − Debits + Rollbacks + Credits
}

// Books are every player's account and their total.
type Books struct {
	Players []PlayerBooks `json:"players"`
	Total   PlayerBooks   `json:"total"` // Player is empty
	// Unmatched counts the credits whose debit_transaction_id is not a successful debit standing
	// (unknown, refused or rolled back): accepted all the same, but a sign of disagreement.
	Unmatched int64 `json:"unmatched_credits"`
}

// Books reads every player's account, in the order of their names, and the total.
func (s *Store) Books(ctx context.Context) (Books, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Books{}, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `
		SELECT p.player, p.initial, p.adjusted, p.balance, p.blocked,
			count(t.seq) FILTER (WHERE t.kind = 'debit' AND t.status = 200),
			coalesce(sum(t.amount) FILTER (WHERE t.kind = 'debit' AND t.status = 200), 0),
			count(t.seq) FILTER (WHERE t.kind = 'debit' AND t.status <> 200),
			count(t.seq) FILTER (WHERE t.kind = 'rollback'),
			coalesce(sum(t.amount) FILTER (WHERE t.kind = 'rollback'), 0),
			count(t.seq) FILTER (WHERE t.kind = 'credit'),
			coalesce(sum(t.amount) FILTER (WHERE t.kind = 'credit'), 0),
			count(t.seq) FILTER (WHERE t.kind = 'debit' AND t.status = 200 AND r.id IS NULL),
			coalesce(sum(t.amount) FILTER (WHERE t.kind = 'debit' AND t.status = 200 AND r.id IS NULL), 0)
		FROM players p
		LEFT JOIN transactions t ON t.player = p.player
		LEFT JOIN rolled_back r ON r.id = t.id AND t.kind = 'debit'
		GROUP BY p.player ORDER BY p.player`)
	if err != nil {
		return Books{}, err
	}
	defer rows.Close()
	var b Books
	b.Total.Balanced = true
	for rows.Next() {
		var p PlayerBooks
		if err := rows.Scan(&p.Player, &p.Initial, &p.Adjusted, &p.Balance, &p.Blocked,
			&p.Debits.Count, &p.Debits.Amount, &p.Refused, &p.Rollbacks.Count, &p.Rollbacks.Amount,
			&p.Credits.Count, &p.Credits.Amount, &p.Staked.Count, &p.Staked.Amount); err != nil {
			return Books{}, err
		}
		p.Balanced = p.Balance == p.Initial+p.Adjusted-p.Debits.Amount+p.Rollbacks.Amount+p.Credits.Amount &&
			p.Staked.Amount == p.Debits.Amount-p.Rollbacks.Amount
		b.Players = append(b.Players, p)
		t := &b.Total
		t.Initial += p.Initial
		t.Adjusted += p.Adjusted
		t.Balance += p.Balance
		t.Refused += p.Refused
		for _, s := range []struct{ to, from *Sum }{{&t.Debits, &p.Debits}, {&t.Rollbacks, &p.Rollbacks}, {&t.Credits, &p.Credits}, {&t.Staked, &p.Staked}} {
			s.to.Count += s.from.Count
			s.to.Amount += s.from.Amount
		}
		t.Balanced = t.Balanced && p.Balanced
	}
	if err := rows.Err(); err != nil {
		return Books{}, err
	}
	err = tx.QueryRowContext(ctx, `
		SELECT count(*) FROM transactions c
		WHERE c.kind = 'credit' AND NOT EXISTS (
			SELECT 1 FROM transactions d WHERE d.id = c.ref AND d.kind = 'debit' AND d.status = 200
				AND NOT EXISTS (SELECT 1 FROM rolled_back r WHERE r.id = d.id))`).Scan(&b.Unmatched)
	return b, err
}

// Transaction is one line of the listing for reconciliation (GET /transactions): every debit,
// credit and rollback the wallet kept, in the order they came.
type Transaction struct {
	Seq           int64  `json:"seq"`            // the order of arrival, 1, 2, 3…: page with ?after=
	TransactionID string `json:"transaction_id"` // the caller's id
	Kind          string `json:"kind"`           // debit, credit or rollback
	Player        string `json:"player"`
	RoundID       string `json:"round_id"`
	// Amount in cents: a debit's stake asked (moved only if Status is 200), a credit's prize, the
	// amount a rollback gave back (0 for an id unknown, refused or already rolled back).
	Amount int64 `json:"amount"`
	// Ref is a credit's debit_transaction_id, a rollback's rolled_back_transaction_id.
	Ref    string `json:"ref,omitempty"`
	Status int    `json:"status"`         // 200, or a debit's refusal: 402, 403
	Code   string `json:"code,omitempty"` // a refusal's code
	// RolledBackBy is, for a debit rolled back, the id of its first rollback.
	RolledBack   bool      `json:"rolled_back"`
	RolledBackBy string    `json:"rolled_back_by,omitempty"`
	At           time.Time `json:"at"`
}

// MaxPage is the most transactions one page of the listing holds.
const MaxPage = 10_000

// Transactions lists the transactions after the one numbered after (0: from the first), at most
// limit of them (at most MaxPage), in the order they came.
func (s *Store) Transactions(ctx context.Context, after int64, limit int) ([]Transaction, error) {
	if limit <= 0 || limit > MaxPage {
		limit = MaxPage
	}
	rows, err := s.db.QueryContext(ctx, `
		SELECT t.seq, t.id, t.kind, t.player, t.round_id, t.amount, t.ref, t.status, t.code, coalesce(r.rollback_id, ''), t.at
		FROM transactions t LEFT JOIN rolled_back r ON r.id = t.id AND t.kind = 'debit'
		WHERE t.seq > ? ORDER BY t.seq LIMIT ?`, after, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	list := []Transaction{}
	for rows.Next() {
		var (
			t  Transaction
			at string
		)
		if err := rows.Scan(&t.Seq, &t.TransactionID, &t.Kind, &t.Player, &t.RoundID, &t.Amount, &t.Ref, &t.Status, &t.Code, &t.RolledBackBy, &at); err != nil {
			return nil, err
		}
		t.RolledBack = t.RolledBackBy != ""
		if t.At, err = time.Parse(timeFormat, at); err != nil {
			return nil, err
		}
		list = append(list, t)
	}
	return list, rows.Err()
}
