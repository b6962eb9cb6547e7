package sqlite

import (
	"context"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// LaunchPlayer finds the operator's player by their id at the operator, or opens an account for
// them, notes the operator's session of this launch, and keeps a launch token (its hash) for them,
// good until expires; in one write.
func (d *DB) LaunchPlayer(ctx context.Context, walletPlayer, operatorSession string, tokenHash []byte, expires, now time.Time) (lottery.Player, error) {
	var id int64
	err := d.update(ctx, func(t *tx) error {
		err := t.queryRow(`SELECT player_id FROM wallet_players WHERE wallet_player = ?`, walletPlayer).Scan(&id)
		if err != nil {
			if err := notFound(err, ""); !fault.Is(err, fault.NotFound) {
				return err
			}
			// A new player: an account of their own (it stays at zero: the money is the wallet's),
			// named after their id at the operator, which no sign-up can take.
			res, err := t.exec(`INSERT INTO accounts (kind) VALUES ('player')`)
			if err != nil {
				return err
			}
			account, _ := res.LastInsertId()
			name := lottery.WalletUsername(walletPlayer)
			k := lottery.KeysOf(name, true, nil)
			if res, err = t.exec(`INSERT INTO players (username, name_key, name_skeleton, password_hash, account_id, created_at) VALUES (?, ?, ?, '', ?, ?)`,
				name, k.NameKey, k.NameSkeleton, account, storedTime(now)); err != nil {
				return err
			}
			id, _ = res.LastInsertId()
			if _, err := t.exec(`INSERT INTO wallet_players (player_id, wallet_player, operator_session) VALUES (?, ?, ?)`, id, walletPlayer, operatorSession); err != nil {
				return err
			}
		} else if _, err := t.exec(`UPDATE wallet_players SET operator_session = ? WHERE player_id = ?`, operatorSession, id); err != nil {
			return err
		}
		_, err = t.exec(`INSERT INTO launch_tokens (token_hash, player_id, expires_at) VALUES (?, ?, ?)`, tokenHash, id, expires.UnixMilli())
		return err
	})
	if err != nil {
		return lottery.Player{}, asFault(err)
	}
	return d.PlayerByID(ctx, id)
}

// UseLaunch spends a launch token: the player it opens a session for, once, before it expires
// (fault.NotLoggedIn otherwise).
func (d *DB) UseLaunch(ctx context.Context, tokenHash []byte, now time.Time) (int64, error) {
	var id int64
	err := d.update(ctx, func(t *tx) error {
		err := t.queryRow(`UPDATE launch_tokens SET used = 1 WHERE token_hash = ? AND used = 0 AND expires_at > ? RETURNING player_id`,
			tokenHash, now.UnixMilli()).Scan(&id)
		return notFound(err, "")
	})
	if fault.Is(err, fault.NotFound) {
		return 0, fault.Errorf(fault.NotLoggedIn, "this launch link was used already, or has expired: open the game again from the operator's site")
	}
	return id, asFault(err)
}

// WalletPlayerOf says who a player is at the operator, and the operator's session of their
// latest launch (fault.NotFound: not a player the operator launched).
func (d *DB) WalletPlayerOf(ctx context.Context, playerID int64) (walletPlayer, operatorSession string, err error) {
	err = d.queryRow(ctx, `SELECT wallet_player, operator_session FROM wallet_players WHERE player_id = ?`, playerID).Scan(&walletPlayer, &operatorSession)
	return walletPlayer, operatorSession, asFault(notFound(err, "not a player of the operator's wallet"))
}
