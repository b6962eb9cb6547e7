package postgres

import (
	"context"
	"strings"

	"starcolor/internal/identity"
	"starcolor/internal/lottery"
)

// The back office's reads are written once (internal/sqlstore/reports.go), but for the search
// of players by the start of their name, which each dialect compares its own way.

// FindPlayers lists up to limit players whose name starts with start (compared as names are:
// identity.UsernameKey), in name order.
func (d *DB) FindPlayers(ctx context.Context, start string, limit int) ([]lottery.Player, error) {
	esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(identity.UsernameKey(start))
	rows, err := d.pool.Query(ctx, `SELECT `+playerColumns+` FROM players p JOIN accounts a ON a.id = p.account_id
		WHERE p.name_key LIKE $1 ESCAPE '\' ORDER BY p.username COLLATE "C" LIMIT $2`, esc+"%", limit)
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
