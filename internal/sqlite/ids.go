package sqlite

import (
	"context"
	"sync"
)

// gameIDs hands out the ids of new games: to the writer's sales, and ahead of a sale
// (ReserveGameID: a sale in wallet mode names its round to the wallet before it is made). An id
// is handed out once, by the one process selling from the file (its serve lock); one whose sale
// fails is a gap.
type gameIDs struct {
	mu   sync.Mutex
	next int64 // 0: not read yet
}

// init reads the first id to hand out, the first time.
func (g *gameIDs) init(read func() (int64, error)) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.next != 0 {
		return nil
	}
	n, err := read()
	if err == nil {
		g.next = n
	}
	return err
}

// take hands out the next id (after init).
func (g *gameIDs) take() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	id := g.next
	g.next++
	return id
}

// ReserveGameID hands out the id of a game to be sold later (SaleRequest.GameID).
func (d *DB) ReserveGameID(ctx context.Context) (int64, error) {
	if err := d.gameIDs.init(func() (next int64, err error) {
		err = d.queryRow(ctx, `SELECT coalesce(max(id), 0) + 1 FROM games`).Scan(&next)
		return
	}); err != nil {
		return 0, asFault(err)
	}
	return d.gameIDs.take(), nil
}
