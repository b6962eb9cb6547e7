package sqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// The wallet's outbox (migration 0017): credits and rollbacks kept until the wallet acknowledges
// them. Any server may send them, one server at a time for each call (ClaimWalletCalls).
//
// The queries of the calls not acknowledged say "status <> 'acked'" in so many words. SQLite
// uses a partial index (wallet_calls_open, migration 0019) only for a query whose WHERE holds
// the index's own condition. Without it, each claim of the sender would read every call ever
// made.
//
// The writes a sale makes in wallet mode (AddWalletCalls, HoldRollback) and those made many at
// a time (SettleWalletCalls, ReleaseWalletCalls, DropHeldWalletCalls) stay each store's, in one
// round trip on PostgreSQL.

// ClaimWalletCalls takes up to limit calls due at now, oldest due first. It makes them due again
// only after lease, the time to send them, so that no other sender takes them meanwhile. Calls
// another server is claiming are skipped.
func (s *DB) ClaimWalletCalls(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]lottery.WalletCall, error) {
	var out []lottery.WalletCall
	err := s.write(ctx, func(q Querier) error {
		out = out[:0]
		return each(q.Query(ctx, `UPDATE wallet_calls SET next_at = $1, attempts = attempts + 1 WHERE id IN (
				SELECT id FROM wallet_calls WHERE status <> 'acked' AND status = 'pending' AND next_at <= $2 ORDER BY next_at, id LIMIT $3`+s.d.skipLocked()+`)
			RETURNING `+WalletCallColumns, s.d.Time(now.Add(lease)), s.d.Time(now), limit))(func(r Rows) error {
			c, err := ScanWalletCall(r)
			out = append(out, c)
			return err
		})
	})
	return out, s.fault(err)
}

// KeptBody is the body column of a call: empty, not NULL, for a call kept without its body
// (wallet.BodyOf makes it from the call's fields).
func KeptBody(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// SameCall tells whether a call kept under a transaction id is the call c: the same kind,
// player, round, amount and body.
func SameCall(kept, c lottery.WalletCall) bool {
	return kept.Call == c.Call && kept.Player == c.Player && kept.RoundID == c.RoundID && kept.Amount == c.Amount &&
		bytes.Equal(kept.Body, c.Body)
}

// CallChanged is the error of a call kept again under its transaction id as another call
// (!SameCall).
func CallChanged(transactionID string) error {
	return fmt.Errorf("wallet call %s is kept already as another call (its kind, player, round, amount or body): a call never changes", transactionID)
}

// WalletCallColumns are the columns ScanWalletCall reads.
const WalletCallColumns = `id, call, transaction_id, player, round_id, amount, body, status, attempts, next_at, last_error, created_at, acked_at`

// ScanWalletCall reads a call's WalletCallColumns, then the columns after them into extra.
func ScanWalletCall(r Row, extra ...any) (lottery.WalletCall, error) {
	var c lottery.WalletCall
	err := r.Scan(append([]any{&c.ID, &c.Call, &c.TransactionID, &c.Player, &c.RoundID, &c.Amount, &c.Body, &c.Status, &c.Attempts,
		ScanTime(&c.NextAt), &c.LastError, ScanTime(&c.CreatedAt), ScanTime(&c.AckedAt)}, extra...)...)
	return c, err
}

// OutboxState counts the calls not yet acknowledged, the oldest's age, and the disputed ones.
func (s *DB) OutboxState(ctx context.Context, now time.Time) (lottery.OutboxState, error) {
	var st lottery.OutboxState
	err := s.read.QueryRow(ctx, `SELECT count(*) FILTER (WHERE status = 'pending' OR (status = 'held' AND call = 'rollback' AND next_at <= $1)),
		min(created_at) FILTER (WHERE status = 'pending' OR (status = 'held' AND call = 'rollback' AND next_at <= $1)),
		count(*) FILTER (WHERE status = 'disputed'), count(*) FILTER (WHERE status = 'held' AND call = 'credit')
		FROM wallet_calls WHERE status <> 'acked'`, s.d.Time(now)).Scan(&st.Pending, ScanTime(&st.Oldest), &st.Disputed, &st.Open)
	return st, s.fault(err)
}

// WalletCalls lists up to limit calls in a status, the longest kept first, each with its
// player's account and its round's game here, when there are.
func (s *DB) WalletCalls(ctx context.Context, status string, limit int) ([]lottery.OutboxCall, error) {
	open := "c.status <> 'acked' AND " // the index of the calls not acknowledged (migration 0019)
	if status == lottery.CallAcked {
		open = ""
	}
	var out []lottery.OutboxCall
	err := each(s.read.Query(ctx, `SELECT c.id, c.call, c.transaction_id, c.player, c.round_id, c.amount, c.body, c.status, c.attempts, c.next_at,
			c.last_error, c.created_at, c.acked_at, coalesce(wp.player_id, 0), coalesce(g.id, 0)
		FROM wallet_calls c LEFT JOIN wallet_players wp ON wp.wallet_player = c.player
		LEFT JOIN games g ON g.id = `+s.d.gameOfRound("c.round_id")+`
		WHERE `+open+`c.status = $1 ORDER BY c.created_at, c.id LIMIT $2`, status, limit))(func(r Rows) error {
		var c lottery.OutboxCall
		var err error
		c.WalletCall, err = ScanWalletCall(r, &c.PlayerID, &c.GameID)
		out = append(out, c)
		return err
	})
	if err != nil {
		return nil, s.fault(err)
	}
	return out, nil
}

// ReleaseStaleWalletCalls makes due the held calls a crash left held:
//
//   - a rollback held since before a time whose round was never sold (a server died between the
//     debit and the sale);
//   - a credit whose game is finished (it died between the finish and the release).
func (s *DB) ReleaseStaleWalletCalls(ctx context.Context, before, now time.Time) (int64, error) {
	var n int64
	game := s.d.gameOfRound("wallet_calls.round_id")
	err := s.write(ctx, func(q Querier) error {
		// A rollback held past its time whose round was not sold: the sale never happened.
		a, err := q.Exec(ctx, `UPDATE wallet_calls SET status = 'pending', next_at = $1 WHERE status <> 'acked' AND status = 'held' AND call = 'rollback' AND next_at < $2
			AND NOT EXISTS (SELECT 1 FROM games g WHERE g.id = `+game+`)`, s.d.Time(now), s.d.Time(before))
		if err != nil {
			return err
		}
		// A credit held whose game is finished: its release was lost in a crash.
		b, err := q.Exec(ctx, `UPDATE wallet_calls SET status = 'pending', next_at = $1 WHERE status <> 'acked' AND status = 'held' AND call = 'credit'
			AND EXISTS (SELECT 1 FROM games g WHERE g.id = `+game+` AND g.status = 'finished')`, s.d.Time(now))
		n = a + b
		return err
	})
	return n, s.fault(err)
}

// LaunchPlayer finds the operator's player by their id at the operator, or opens an account for
// them. The same write keeps the launch: its token (its hash), good until it expires, with its
// nonce and its operator's session. Two launches of a new player at once make one account.
//
// A nonce used already, by any launch on any server, is fault.DuplicateLaunch, and nothing is
// written. Of two launches with one nonce at once, the unique index makes the second wait for
// the first, then find it. A player's operator_session in wallet_players is their first
// launch's, never changed (migration 0022).
func (s *DB) LaunchPlayer(ctx context.Context, l lottery.Launch, now time.Time) (lottery.Player, error) {
	var id int64
	err := s.write(ctx, func(q Querier) error {
		if err := s.d.lock(ctx, q, "wallet-player:"+l.WalletPlayer); err != nil {
			return err
		}
		err := q.QueryRow(ctx, `SELECT player_id FROM wallet_players WHERE wallet_player = $1`, l.WalletPlayer).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			// A new player: an account of their own (it stays at zero: the money is the wallet's),
			// named after their id at the operator, which no sign-up can take.
			var account int64
			if err := q.QueryRow(ctx, `INSERT INTO accounts (kind) VALUES ('player') RETURNING id`).Scan(&account); err != nil {
				return err
			}
			name := lottery.WalletUsername(l.WalletPlayer)
			k := lottery.KeysOf(name, true, nil)
			if err := q.QueryRow(ctx, `INSERT INTO players (username, name_key, name_skeleton, password_hash, account_id, created_at) VALUES ($1, $2, $3, '', $4, $5) RETURNING id`,
				name, k.NameKey, k.NameSkeleton, account, s.d.Time(now)).Scan(&id); err != nil {
				return err
			}
			_, err = q.Exec(ctx, `INSERT INTO wallet_players (player_id, wallet_player, operator_session) VALUES ($1, $2, $3)`, id, l.WalletPlayer, l.OperatorSession)
		}
		if err != nil {
			return err
		}
		n, err := q.Exec(ctx, `INSERT INTO launch_tokens (token_hash, player_id, expires_at, nonce, operator_session) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (nonce) DO NOTHING`, l.TokenHash, id, s.d.Time(l.Expires), l.Nonce, l.OperatorSession)
		if err == nil && n == 0 {
			err = errDuplicateLaunch // undoes the account made above too
		}
		return err
	})
	if err != nil {
		return lottery.Player{}, s.fault(err)
	}
	return s.PlayerByID(ctx, id)
}

// errDuplicateLaunch is a launch whose nonce was used already (docs/spec/WALLET.md 1.1).
var errDuplicateLaunch = fault.Errorf(fault.DuplicateLaunch, "this launch's nonce was used already: each launch has a nonce of its own")

// UseLaunch spends a launch token: the player it opens a session for, once, before it expires
// (fault.NotLoggedIn otherwise). The session it opens (its token's hash) is noted with the
// launch, for WalletPlayerOf.
func (s *DB) UseLaunch(ctx context.Context, tokenHash, sessionHash []byte, now time.Time) (int64, error) {
	var id int64
	err := s.once.QueryRow(ctx, `UPDATE launch_tokens SET used = TRUE, session_hash = $1 WHERE token_hash = $2 AND NOT used AND expires_at > $3 RETURNING player_id`,
		sessionHash, tokenHash, s.d.Time(now)).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fault.Errorf(fault.NotLoggedIn, "this launch link was used already, or has expired: open the game again from the operator's site")
	}
	return id, s.fault(err)
}

// WalletPlayerOf says who a player is at the operator, and the operator's session that their
// session (its token's hash) sends. That is the session of the launch that opened it. A session
// opened before launches kept theirs sends the player's own, and so does no session (the
// server's own calls). A player the operator did not launch is fault.NotFound.
func (s *DB) WalletPlayerOf(ctx context.Context, playerID int64, sessionHash []byte) (walletPlayer, operatorSession string, err error) {
	err = s.read.QueryRow(ctx, `SELECT wp.wallet_player, coalesce((SELECT l.operator_session FROM launch_tokens l
			WHERE l.session_hash = $1 AND l.player_id = wp.player_id), wp.operator_session)
		FROM wallet_players wp WHERE wp.player_id = $2`, sessionHash, playerID).Scan(&walletPlayer, &operatorSession)
	return walletPlayer, operatorSession, s.fault(NotFound(err, "not a player of the operator's wallet"))
}
