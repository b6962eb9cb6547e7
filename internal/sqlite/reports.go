package sqlite

import (
	"context"
	"strings"

	"starcolor/internal/lottery"
)

// The back office's reads are written once (internal/sqlstore/reports.go), but for the search
// of players by the start of their name, which each dialect compares its own way.

// FindPlayers lists up to limit players whose name starts with prefix (case does not matter),
// in name order.
func (d *DB) FindPlayers(ctx context.Context, start string, limit int) ([]lottery.Player, error) {
	esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(start)
	rows, err := d.db.QueryContext(ctx, `SELECT `+playerColumns+` FROM players p JOIN accounts a ON a.id = p.account_id
		WHERE p.username LIKE ? ESCAPE '\' ORDER BY p.username LIMIT ?`, esc+"%", limit)
	if err != nil {
		return nil, asFault(err)
	}
	defer rows.Close()
	var out []lottery.Player
	for rows.Next() {
		p, err := scanPlayer(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, asFault(rows.Err())
}
