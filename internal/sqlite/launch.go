package sqlite

import (
	"context"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
	"starcolor/internal/sqlstore"
)

// LaunchPlayer finds the operator's player by their id at the operator, or opens an account for
// them, and keeps the launch: its token (its hash), good until it expires, with its nonce and
// its operator's session; in one write. A nonce used already, by any launch, is
// fault.DuplicateLaunch, and nothing is written. A player's operator_session in wallet_players
// is their first launch's, never changed (migration 0022).
func (d *DB) LaunchPlayer(ctx context.Context, l lottery.Launch, now time.Time) (lottery.Player, error) {
	var id int64
	err := d.update(ctx, func(t *tx) error {
		err := t.queryRow(`SELECT player_id FROM wallet_players WHERE wallet_player = ?`, l.WalletPlayer).Scan(&id)
		if err != nil {
			if err := sqlstore.NotFound(err, ""); !fault.Is(err, fault.NotFound) {
				return err
			}
			// A new player: an account of their own (it stays at zero: the money is the wallet's),
			// named after their id at the operator, which no sign-up can take.
			res, err := t.exec(`INSERT INTO accounts (kind) VALUES ('player')`)
			if err != nil {
				return err
			}
			account, _ := res.LastInsertId()
			name := lottery.WalletUsername(l.WalletPlayer)
			k := lottery.KeysOf(name, true, nil)
			if res, err = t.exec(`INSERT INTO players (username, name_key, name_skeleton, password_hash, account_id, created_at) VALUES (?, ?, ?, '', ?, ?)`,
				name, k.NameKey, k.NameSkeleton, account, storedTime(now)); err != nil {
				return err
			}
			id, _ = res.LastInsertId()
			if _, err := t.exec(`INSERT INTO wallet_players (player_id, wallet_player, operator_session) VALUES (?, ?, ?)`, id, l.WalletPlayer, l.OperatorSession); err != nil {
				return err
			}
		}
		res, err := t.exec(`INSERT INTO launch_tokens (token_hash, player_id, expires_at, nonce, operator_session) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (nonce) DO NOTHING`, l.TokenHash, id, storedTime(l.Expires), l.Nonce, l.OperatorSession)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err == nil && n == 0 {
			err = errDuplicateLaunch // undoes the account made above too
		}
		return err
	})
	if err != nil {
		return lottery.Player{}, asFault(err)
	}
	return d.PlayerByID(ctx, id)
}

// errDuplicateLaunch is a launch whose nonce was used already (docs/spec/WALLET.md 1.1).
var errDuplicateLaunch = fault.Errorf(fault.DuplicateLaunch, "this launch's nonce was used already: each launch has a nonce of its own")

// UseLaunch spends a launch token: the player it opens a session for, once, before it expires
// (fault.NotLoggedIn otherwise). The session it opens (its token's hash) is noted with the
// launch, for WalletPlayerOf.
func (d *DB) UseLaunch(ctx context.Context, tokenHash, sessionHash []byte, now time.Time) (int64, error) {
	var id int64
	err := d.update(ctx, func(t *tx) error {
		err := t.queryRow(`UPDATE launch_tokens SET used = 1, session_hash = ? WHERE token_hash = ? AND used = 0 AND expires_at > ? RETURNING player_id`,
			sessionHash, tokenHash, storedTime(now)).Scan(&id)
		return sqlstore.NotFound(err, "")
	})
	if fault.Is(err, fault.NotFound) {
		return 0, fault.Errorf(fault.NotLoggedIn, "this launch link was used already, or has expired: open the game again from the operator's site")
	}
	return id, asFault(err)
}

// WalletPlayerOf says who a player is at the operator, and the operator's session that their
// session (its token's hash) sends: that of the launch that opened it, or, for a session opened
// before launches kept theirs (or none: the server's own calls), the player's own
// (fault.NotFound: not a player the operator launched).
func (d *DB) WalletPlayerOf(ctx context.Context, playerID int64, sessionHash []byte) (walletPlayer, operatorSession string, err error) {
	err = d.queryRow(ctx, `SELECT wp.wallet_player, coalesce((SELECT l.operator_session FROM launch_tokens l
			WHERE l.session_hash = ? AND l.player_id = wp.player_id), wp.operator_session)
		FROM wallet_players wp WHERE wp.player_id = ?`, sessionHash, playerID).Scan(&walletPlayer, &operatorSession)
	return walletPlayer, operatorSession, asFault(sqlstore.NotFound(err, "not a player of the operator's wallet"))
}
