package sqlite

import (
	"context"
	"time"

	sqlite3 "modernc.org/sqlite/lib"

	"starcolor/internal/lottery"
)

// scanner is a row as database/sql gives it: *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// keep stores the answer to a player's key, or fails with lottery.ErrKeyTaken.
func (t *tx) keep(playerID int64, key string, a lottery.KeptAnswer, now time.Time) error {
	_, err := t.exec(`INSERT INTO idempotency (player_id, key, request_hash, status, response, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		playerID, key, a.RequestHash, a.Status, a.Body, now.Unix())
	if isConstraint(err, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY) {
		return lottery.ErrKeyTaken
	}
	return err
}

// ForgetKeys deletes keys by their primary key and returns how many it deleted (see
// sqlstore.OldKeys), a few hundred in one write, in multi-row statements. (Keys are never
// changed, so a key that OldKeys found old is still the same old key.)
func (d *DB) ForgetKeys(ctx context.Context, keys []lottery.KeyRef) (int64, error) {
	args := make([]any, 0, 2*len(keys))
	for _, k := range keys {
		args = append(args, k.PlayerID, k.Key)
	}
	var deleted int64
	err := d.update(ctx, func(t *tx) error {
		deleted = 0
		return t.chunks(`DELETE FROM idempotency WHERE (player_id, key) IN (VALUES `, `)`, 2, args, func(query string, args []any) error {
			res, err := t.exec(query, args...)
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			deleted += n
			return err
		})
	})
	return deleted, err
}
