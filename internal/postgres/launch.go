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
// them, notes the operator's session of this launch, and keeps a launch token (its hash) for them,
// good until expires; in one transaction (two launches of a new player at once: one account).
func (d *DB) LaunchPlayer(ctx context.Context, walletPlayer, operatorSession string, tokenHash []byte, expires, now time.Time) (lottery.Player, error) {
	var id int64
	err := d.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('wallet-player:' || $1, 0))`, walletPlayer); err != nil {
			return err
		}
		err := tx.QueryRow(ctx, `UPDATE wallet_players SET operator_session = $1 WHERE wallet_player = $2 RETURNING player_id`, operatorSession, walletPlayer).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			// A new player: an account of their own (it stays at zero: the money is the wallet's),
			// named after their id at the operator, which no sign-up can take.
			var account int64
			if err := tx.QueryRow(ctx, `INSERT INTO accounts (kind) VALUES ('player') RETURNING id`).Scan(&account); err != nil {
				return err
			}
			name := lottery.WalletUsername(walletPlayer)
			k := lottery.KeysOf(name, true, nil)
			if err := tx.QueryRow(ctx, `INSERT INTO players (username, name_key, name_skeleton, password_hash, account_id, created_at) VALUES ($1, $2, $3, '', $4, $5) RETURNING id`,
				name, k.NameKey, k.NameSkeleton, account, now).Scan(&id); err != nil {
				return err
			}
			_, err = tx.Exec(ctx, `INSERT INTO wallet_players (player_id, wallet_player, operator_session) VALUES ($1, $2, $3)`, id, walletPlayer, operatorSession)
		}
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO launch_tokens (token_hash, player_id, expires_at) VALUES ($1, $2, $3)`, tokenHash, id, expires)
		return err
	})
	if err != nil {
		return lottery.Player{}, err
	}
	return d.PlayerByID(ctx, id)
}

// UseLaunch spends a launch token: the player it opens a session for, once, before it expires
// (fault.NotLoggedIn otherwise).
func (d *DB) UseLaunch(ctx context.Context, tokenHash []byte, now time.Time) (int64, error) {
	var id int64
	err := d.pool.QueryRow(ctx, `UPDATE launch_tokens SET used = true WHERE token_hash = $1 AND NOT used AND expires_at > $2 RETURNING player_id`,
		tokenHash, now).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fault.Errorf(fault.NotLoggedIn, "this launch link was used already, or has expired: open the game again from the operator's site")
	}
	return id, asFault(d.noteWrite(err))
}

// WalletPlayerOf says who a player is at the operator, and the operator's session of their
// latest launch (fault.NotFound: not a player the operator launched).
func (d *DB) WalletPlayerOf(ctx context.Context, playerID int64) (walletPlayer, operatorSession string, err error) {
	err = d.pool.QueryRow(ctx, `SELECT wallet_player, operator_session FROM wallet_players WHERE player_id = $1`, playerID).Scan(&walletPlayer, &operatorSession)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", fault.Errorf(fault.NotFound, "not a player of the operator's wallet")
	}
	return walletPlayer, operatorSession, asFault(err)
}
