package sqlite

import (
	"time"

	"starcolor/internal/lottery"
	"starcolor/internal/sqlstore"
)

// playerColumns are the columns scanPlayer reads (sqlstore.PlayerColumns).
var playerColumns = sqlstore.PlayerColumns(sqlstore.SQLite)

// scanPlayer reads a player's playerColumns (sqlstore.ScanPlayer), its error a fault.
func scanPlayer(row scanner) (lottery.Player, error) {
	p, err := sqlstore.ScanPlayer(row)
	return p, asFault(err)
}

// requireSession checks a player's session in the write (sqlstore.RequireSession).
func (t *tx) requireSession(hash []byte) error { return sqlstore.RequireSession(t.ctx, txQ{t}, hash) }

// requireOpen refuses in the write a player whose account is shut (sqlstore.RequireOpen).
func (t *tx) requireOpen(playerID int64, now time.Time) (lottery.Player, error) {
	return sqlstore.RequireOpen(t.ctx, txQ{t}, sqlstore.SQLite, playerID, now, "")
}
