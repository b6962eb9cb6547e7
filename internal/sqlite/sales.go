package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/bits"
	"strings"
	"time"

	"starcolor/internal/fault"
)

// Sales are the server's hot path, so the writer does not run them one by one like other
// writes. It checks every sale of a batch against state it reads once per batch (the balances of
// the accounts involved, the keys already used, its cursor in each open block), assigns the game
// ids itself, and then writes the whole batch in a handful of multi-row statements: inserts of
// all the games, all the transfers and all the idempotency keys, one update of all the balances
// (rows go in chunks whose sizes are powers of two, so a batch of 19 is 3 statements a table),
// and one update per block sold from. The number of statements grows with the logarithm of the
// batch, so larger batches (more load) make each sale cheaper.

// SaleRequest is a sale (RULES §7) with its idempotency key: what Sell needs to know.
type SaleRequest struct {
	PlayerID, AccountID int64
	// Session is the hash of the buyer's session token: the sale is refused if the session has
	// ended (a logout) by the time it is written. Nil is not checked.
	Session []byte
	Price   int64
	Mode    string // manual or auto
	Color   int    // -1 until chosen (« Jouer »); drawn already for « Auto »
	Status  string // the game's first status: choose_color, or finished for « Auto »

	Key         string // the request's Idempotency-Key
	RequestHash []byte // SHA-256 of the request's body
	// Answer is the answer stored under the key for the sold game (API.md: a retry gets it back).
	Answer func(g *Game) Idempotent

	// PrizeOf reads the prize of a unit from its emission. It runs inside the writer, with the
	// writer's context: never the request's, whose end (a client hanging up) would otherwise fail
	// every sale of the batch.
	PrizeOf func(ctx context.Context, emission string, block, unit int) (int64, error)
}

type saleResult struct {
	game Game
	err  error
}

type saleOp struct {
	req  SaleRequest
	now  time.Time
	done chan saleResult

	// Filled by the writer while it checks the batch.
	game   Game
	answer Idempotent
	err    error
}

// Sell sells the next unsold unit at the request's price to the player and returns the game,
// once it is durably committed: the stake debited, the prize credited, the game and the answer
// under the key written, all or nothing. A key the player has already used fails with
// ErrKeyTaken and changes nothing.
func (d *DB) Sell(ctx context.Context, r SaleRequest, now time.Time) (Game, error) {
	op := &saleOp{req: r, now: now, done: make(chan saleResult, 1)}
	if err := d.queue(ctx, &writeOp{sale: op}); err != nil {
		return Game{}, err
	}
	res := <-op.done
	return res.game, d.noteWrite(res.err)
}

// salesState is what the writer knows between batches: where each price's sales stand and the
// next game id. It is dropped whenever a batch fails, and read again from the database.
type salesState struct {
	cursors map[int64]*cursor // by price
	nextID  int64             // 0: unknown
}

// cursor is where the sales at one price stand: the open block and how many of its units are
// sold (so the index of the next unit to sell). written is the sold count the database holds;
// prizes and winners are what the units sold since then hold, still to be added to the block's.
type cursor struct {
	emission      string
	block         int
	sold, written int
	units         int
	prizes        int64
	winners       int
}

func (s *salesState) reset() {
	s.cursors = map[int64]*cursor{}
	s.nextID = 0
}

// sellBatch runs the sales of a batch inside the current transaction. Each sale gets its game or
// its own error (a key already used, too little money, sold out); an error returned means that
// no sale of the batch was written, and the caller fails them all.
func (w *writer) sellBatch(ctx context.Context, ops []*saleOp) error {
	tx := &Tx{ctx: ctx, w: w}
	if w.sales.nextID == 0 {
		if err := tx.queryRow(`SELECT coalesce(max(id), 0) + 1 FROM games`).Scan(&w.sales.nextID); err != nil {
			return err
		}
	}
	// A game keeps the id of its stake transfer, and its prize's is the next (migration 0005).
	// SQLite gives each new row the largest id so far plus one, and the batch's transfers go in
	// order, so their ids are known before they are written; the insert checks that they were.
	// (Explicit ids would cost a lookup each.) Other writes of the batch may have added transfers.
	var nextTransfer int64
	if err := tx.queryRow(`SELECT coalesce(max(id), 0) + 1 FROM transfers`).Scan(&nextTransfer); err != nil {
		return err
	}

	// The keys already used, the balances and the live sessions of everyone in the batch: three
	// reads.
	keys := make([]any, 0, 2*len(ops))
	accounts := make([]any, 0, len(ops))
	sessions := make([]any, 0, len(ops))
	for _, op := range ops {
		keys = append(keys, op.req.PlayerID, op.req.Key)
		accounts = append(accounts, op.req.AccountID)
		if op.req.Session != nil {
			sessions = append(sessions, op.req.Session)
		}
	}
	type playerKey struct {
		player int64
		key    string
	}
	taken := map[playerKey]bool{}
	err := tx.chunks(`SELECT i.player_id, i.key FROM (VALUES `, `) v JOIN idempotency i ON i.player_id = v.column1 AND i.key = v.column2`, 2, keys,
		func(query string, args []any) error {
			return tx.rows(func(r *sql.Rows) error {
				var k playerKey
				err := r.Scan(&k.player, &k.key)
				taken[k] = true
				return err
			}, query, args...)
		})
	if err != nil {
		return fmt.Errorf("read keys: %w", err)
	}
	balance := map[int64]int64{}
	err = tx.chunks(`SELECT id, balance FROM accounts WHERE id IN (`, `)`, 1, accounts, func(query string, args []any) error {
		return tx.rows(func(r *sql.Rows) error {
			var id, b int64
			err := r.Scan(&id, &b)
			balance[id] = b
			return err
		}, query, args...)
	})
	if err != nil {
		return fmt.Errorf("read balances: %w", err)
	}

	live := map[string]bool{}
	err = tx.chunks(`SELECT token_hash FROM sessions WHERE token_hash IN (`, `)`, 1, sessions, func(query string, args []any) error {
		return tx.rows(func(r *sql.Rows) error {
			var h []byte
			err := r.Scan(&h)
			live[string(h)] = true
			return err
		}, query, args...)
	})
	if err != nil {
		return fmt.Errorf("read sessions: %w", err)
	}

	// Each sale in turn, against those figures as the batch's earlier sales leave them.
	var games, transfers, answers []any
	unread := map[int64]error{} // by price: the next unit's prize could not be read
	delta := map[int64]int64{}
	hours := hourTotals{}
	for _, op := range ops {
		r := &op.req
		k := playerKey{r.PlayerID, r.Key}
		if r.Session != nil && !live[string(r.Session)] {
			op.err = errSessionEnded
			continue
		}
		if taken[k] {
			op.err = ErrKeyTaken
			continue
		}
		c, err := w.nextUnit(tx, r.Price)
		if err != nil {
			if fault.CodeOf(err) != fault.SoldOut {
				return err
			}
			op.err = err
			continue
		}
		if balance[r.AccountID] < r.Price {
			op.err = fault.Errorf(fault.InsufficientFunds, "not enough money in the account for a stake of %d cents", r.Price)
			continue
		}
		g := Game{ID: w.sales.nextID, PlayerID: r.PlayerID, Emission: c.emission, Block: c.block, Unit: c.sold,
			Stake: r.Price, Mode: r.Mode, Color: r.Color, Status: r.Status, CreatedAt: op.now.UTC(), UpdatedAt: op.now.Unix()}
		if unread[r.Price] != nil {
			op.err = unread[r.Price]
			continue
		}
		if g.Prize, err = r.PrizeOf(ctx, g.Emission, g.Block, g.Unit); err != nil {
			// This unit cannot be read (or failed its check against the commitment): the sales at
			// this price fail, and it stays unsold; the others go on.
			op.err, unread[r.Price] = err, err
			continue
		}
		c.sold++
		c.prizes += g.Prize
		if g.Prize > 0 {
			c.winners++
		}
		w.sales.nextID++
		taken[k] = true
		balance[r.AccountID] += g.Prize - g.Stake
		g.BalanceAfter = balance[r.AccountID]
		delta[r.AccountID] += g.Prize - g.Stake
		delta[PrizeFundAccount] += g.Stake - g.Prize
		op.game, op.answer = g, r.Answer(&g)

		created := g.CreatedAt.Format(time.RFC3339Nano)
		hours.add(created, &g)
		games = append(games, g.ID, g.PlayerID, g.Emission, g.Block, g.Unit, g.Stake, g.Mode, g.Prize, color(g.Color), g.Status, g.BalanceAfter, created, g.UpdatedAt, nextTransfer)
		transfers = append(transfers, r.AccountID, PrizeFundAccount, g.Stake, "stake", g.ID, created)
		nextTransfer++
		if g.Prize > 0 {
			transfers = append(transfers, PrizeFundAccount, r.AccountID, g.Prize, "prize", g.ID, created)
			nextTransfer++
		}
		answers = append(answers, r.PlayerID, r.Key, r.RequestHash, op.answer.Status, op.answer.Response, op.now.Unix())
	}
	if games == nil {
		return nil
	}

	// The writes: the games, their transfers, the keys, the balances, the blocks.
	exec := func(query string, args []any) error {
		_, err := tx.exec(query, args...)
		return err
	}
	if err := tx.chunks(`INSERT INTO games (id, player_id, emission_id, block, unit, stake, mode, prize, color, status, balance_after, created_at, updated_at, stake_transfer) VALUES `,
		``, 14, games, exec); err != nil {
		return fmt.Errorf("write games: %w", err)
	}
	var lastTransfer int64
	if err := tx.chunks(`INSERT INTO transfers (from_account, to_account, amount, kind, game_id, created_at) VALUES `, ``, 6, transfers,
		func(query string, args []any) error {
			res, err := tx.exec(query, args...)
			if err == nil {
				lastTransfer, err = res.LastInsertId()
			}
			return err
		}); err != nil {
		return fmt.Errorf("write transfers: %w", err)
	}
	if lastTransfer != nextTransfer-1 {
		return fmt.Errorf("write transfers: the last got id %d, not %d as the games say", lastTransfer, nextTransfer-1)
	}
	if err := tx.chunks(`INSERT INTO idempotency (player_id, key, request_hash, status, response, created_at) VALUES `, ``, 6, answers, exec); err != nil {
		return fmt.Errorf("write keys: %w", err)
	}
	var moves []any
	for id, d := range delta {
		if d != 0 {
			moves = append(moves, id, d)
		}
	}
	// The balances were checked above; the accounts' CHECK would refuse a player below zero
	// anyway, failing the batch rather than letting it through.
	if err := tx.chunks(`UPDATE accounts SET balance = balance + v.column2 FROM (VALUES `, `) v WHERE accounts.id = v.column1`, 2, moves, exec); err != nil {
		return fmt.Errorf("write balances: %w", err)
	}
	if err := hours.write(tx); err != nil {
		return err
	}
	for _, c := range w.sales.cursors {
		if err := tx.writeCursor(c); err != nil {
			return err
		}
	}
	return nil
}

// nextUnit returns the cursor of the block the next unit at a price comes from, moving to the
// next open block when the current one is sold out. Its sold count is the unit's index.
func (w *writer) nextUnit(tx *Tx, price int64) (*cursor, error) {
	c := w.sales.cursors[price]
	if c != nil && c.sold < c.units {
		return c, nil
	}
	if c != nil {
		// The block is sold out: its count is written now, so that the search below skips it.
		if err := tx.writeCursor(c); err != nil {
			return nil, err
		}
		delete(w.sales.cursors, price)
	}
	c = &cursor{}
	err := tx.queryRow(`SELECT b.emission_id, b.block, b.sold, b.units FROM blocks b JOIN emissions e ON e.id = b.emission_id
		WHERE e.price = ? AND b.sold < b.units ORDER BY e.created_at, e.id, b.block LIMIT 1`, price).Scan(&c.emission, &c.block, &c.sold, &c.units)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fault.Errorf(fault.SoldOut, "no ticket left at this stake: the emission is sold out")
	}
	if err != nil {
		return nil, err
	}
	c.written = c.sold
	w.sales.cursors[price] = c
	return c, nil
}

// writeCursor writes a block's sold count, and adds the prizes of the units sold to its totals.
// The update is guarded by the count the writer last wrote, so a cursor gone stale (another
// process selling from the same file) fails the batch instead of selling a unit twice; the
// UNIQUE index on the games' units would refuse it too.
func (t *Tx) writeCursor(c *cursor) error {
	if c.sold == c.written {
		return nil
	}
	res, err := t.exec(`UPDATE blocks SET sold = ?, prizes_sold = prizes_sold + ?, winners_sold = winners_sold + ?
		WHERE emission_id = ? AND block = ? AND sold = ?`, c.sold, c.prizes, c.winners, c.emission, c.block, c.written)
	if err != nil {
		return fmt.Errorf("write block: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("block %d of %s: sold count changed under the writer", c.block, c.emission)
	}
	c.written, c.prizes, c.winners = c.sold, 0, 0
	return nil
}

// rows runs a query of the writer and calls fn on each row.
func (t *Tx) rows(fn func(*sql.Rows) error, query string, args ...any) error {
	s, err := t.w.stmt(t.ctx, query)
	if err != nil {
		return err
	}
	rows, err := s.QueryContext(t.ctx, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// chunks runs a statement over many rows of cols values each, given in one slice: head, then
// the rows as a VALUES list, then tail. The rows go in chunks whose sizes are powers of two, so
// that a handful of prepared statements serve every batch size.
func (t *Tx) chunks(head, tail string, cols int, args []any, run func(query string, args []any) error) error {
	rows := len(args) / cols
	for rows > 0 {
		n := 1 << (bits.Len(uint(min(rows, maxBatch))) - 1)
		k := chunkKey{head, n}
		query, ok := t.w.chunkQueries[k]
		if !ok {
			row := "(?" + strings.Repeat(",?", cols-1) + ")"
			query = head + row + strings.Repeat(","+row, n-1) + tail
			t.w.chunkQueries[k] = query
		}
		if err := run(query, args[:n*cols]); err != nil {
			return err
		}
		args, rows = args[n*cols:], rows-n
	}
	return nil
}

type chunkKey struct {
	head string
	rows int
}
