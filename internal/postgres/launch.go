package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// LaunchPlayer finds the operator's player by their id at the operator, or opens an account for
// them, and keeps the launch: its token (its hash), good until it expires, with its nonce and
// its operator's session; in one transaction (two launches of a new player at once: one
// account). A nonce used already, by any launch on any server, is fault.DuplicateLaunch, and
// nothing is written: of two launches with one nonce at once, the unique index makes the second
// wait for the first, then find it. A player's operator_session in wallet_players is their
// first launch's, never changed (migration 0022).
func (d *DB) LaunchPlayer(ctx context.Context, l lottery.Launch, now time.Time) (lottery.Player, error) {
	var id int64
	err := d.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('wallet-player:' || $1, 0))`, l.WalletPlayer); err != nil {
			return err
		}
		err := tx.QueryRow(ctx, `SELECT player_id FROM wallet_players WHERE wallet_player = $1`, l.WalletPlayer).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			// A new player: an account of their own (it stays at zero: the money is the wallet's),
			// named after their id at the operator, which no sign-up can take.
			var account int64
			if err := tx.QueryRow(ctx, `INSERT INTO accounts (kind) VALUES ('player') RETURNING id`).Scan(&account); err != nil {
				return err
			}
			name := lottery.WalletUsername(l.WalletPlayer)
			k := lottery.KeysOf(name, true, nil)
			if err := tx.QueryRow(ctx, `INSERT INTO players (username, name_key, name_skeleton, password_hash, account_id, created_at) VALUES ($1, $2, $3, '', $4, $5) RETURNING id`,
				name, k.NameKey, k.NameSkeleton, account, now).Scan(&id); err != nil {
				return err
			}
			_, err = tx.Exec(ctx, `INSERT INTO wallet_players (player_id, wallet_player, operator_session) VALUES ($1, $2, $3)`, id, l.WalletPlayer, l.OperatorSession)
		}
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `INSERT INTO launch_tokens (token_hash, player_id, expires_at, nonce, operator_session) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (nonce) DO NOTHING`, l.TokenHash, id, l.Expires, l.Nonce, l.OperatorSession)
		if err == nil && tag.RowsAffected() == 0 {
			err = errDuplicateLaunch // undoes the account made above too
		}
		return err
	})
	if err != nil {
		return lottery.Player{}, err
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
	err := d.pool.QueryRow(ctx, `UPDATE launch_tokens SET used = true, session_hash = $1 WHERE token_hash = $2 AND NOT used AND expires_at > $3 RETURNING player_id`,
		sessionHash, tokenHash, now).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fault.Errorf(fault.NotLoggedIn, "this launch link was used already, or has expired: open the game again from the operator's site")
	}
	return id, asFault(d.noteWrite(err))
}

// WalletPlayerOf says who a player is at the operator, and the operator's session that their
// session (its token's hash) sends: that of the launch that opened it, or, for a session opened
// before launches kept theirs (or none: the server's own calls), the player's own
// (fault.NotFound: not a player the operator launched).
func (d *DB) WalletPlayerOf(ctx context.Context, playerID int64, sessionHash []byte) (walletPlayer, operatorSession string, err error) {
	err = d.pool.QueryRow(ctx, `SELECT wp.wallet_player, coalesce((SELECT l.operator_session FROM launch_tokens l
			WHERE l.session_hash = $1 AND l.player_id = wp.player_id), wp.operator_session)
		FROM wallet_players wp WHERE wp.player_id = $2`, sessionHash, playerID).Scan(&walletPlayer, &operatorSession)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", fault.Errorf(fault.NotFound, "not a player of the operator's wallet")
	}
	return walletPlayer, operatorSession, asFault(err)
}
