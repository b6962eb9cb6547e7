package sqlite

import (
	"context"
	"sync"
)

// gameIDs hands out the ids of new games: to the writer's sales, and ahead of a sale
// (ReserveGameID: a sale in wallet mode names its round to the wallet before it is made). An id
// is handed out once, by the one process selling from the file (its serve lock); one whose sale
// fails is a gap. The ids handed out ahead are reserved in the file first, reserveBlock at a time
// (reserved_game_ids, migration 0019), so that a process started after a crash does not name a
// round the wallet already knows: it starts past both the games and the reservation.
type gameIDs struct {
	mu      sync.Mutex
	next    int64 // 0: not read yet
	through int64 // reserved in the file up to this id
}

// reserveBlock is how many ids one write of the reservation covers.
const reserveBlock = 1024

// firstGameID is the query of the first id a process hands out.
const firstGameID = `SELECT max((SELECT coalesce(max(id), 0) FROM games), through) + 1, through FROM reserved_game_ids`

// init reads the first id to hand out, the first time.
func (g *gameIDs) init(read func() (next, through int64, err error)) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.next != 0 {
		return nil
	}
	n, through, err := read()
	if err == nil {
		g.next, g.through = n, through
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

// ReserveGameID hands out the id of a game to be sold later (SaleRequest.GameID), reserved in the
// file before it is handed out.
func (d *DB) ReserveGameID(ctx context.Context) (int64, error) {
	if err := d.gameIDs.init(func() (next, through int64, err error) {
		err = d.queryRow(ctx, firstGameID).Scan(&next, &through)
		return
	}); err != nil {
		return 0, asFault(err)
	}
	g := &d.gameIDs
	for {
		g.mu.Lock()
		if g.next <= g.through {
			id := g.next
			g.next++
			g.mu.Unlock()
			return id, nil
		}
		want := g.next + reserveBlock
		g.mu.Unlock()
		// Not under the lock: the writer's sales take ids meanwhile.
		if err := d.update(ctx, func(t *tx) error {
			_, err := t.exec(`UPDATE reserved_game_ids SET through = max(through, ?)`, want)
			return err
		}); err != nil {
			return 0, err
		}
		g.mu.Lock()
		g.through = max(g.through, want)
		g.mu.Unlock()
	}
}
