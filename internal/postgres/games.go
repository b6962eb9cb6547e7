package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"starcolor/internal/lottery"
)

// ForgetKeys deletes keys by their primary key and returns how many it deleted.
func (d *DB) ForgetKeys(ctx context.Context, keys []lottery.KeyRef) (int64, error) {
	// One delete by primary key each, pipelined: one round trip, and a plan that never reads the
	// whole table.
	var n int64
	err := d.inTx(ctx, func(tx pgx.Tx) error {
		n = 0
		b := &pgx.Batch{}
		for _, k := range keys {
			b.Queue(`DELETE FROM idempotency WHERE player_id = $1 AND key = $2`, k.PlayerID, k.Key).Exec(func(tag pgconn.CommandTag) error {
				n += tag.RowsAffected()
				return nil
			})
		}
		return tx.SendBatch(ctx, b).Close()
	})
	return n, err
}

// ReserveGameID hands out the id of a game to be sold later (SaleRequest.GameID), from the games'
// sequence: never twice, on any server.
func (d *DB) ReserveGameID(ctx context.Context) (int64, error) {
	var id int64
	err := d.pool.QueryRow(ctx, `SELECT nextval('games_id_seq')`).Scan(&id)
	return id, asFault(err)
}
