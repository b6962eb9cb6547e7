package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/bits"
	"strings"
	"time"

	"starcolor/internal/lottery"
	"starcolor/internal/sqlstore"
)

// Sales are the server's hot path, so the writer does not run them one by one like other
// writes. It runs a batch of them in four steps:
//
//  1. It reads once what the sales are decided against: the balances of the accounts
//     involved, the keys already used, the live sessions. Its cursor in each open block is not
//     read again: it keeps it between batches.
//  2. The domain decides each sale (lottery.Decide).
//  3. The writer assigns the game ids itself.
//  4. It writes the whole batch in a handful of multi-row statements. They are the inserts
//     of all the games, all the transfers, all the idempotency keys and all the journal's
//     entries, one update of all the balances, one update per block sold from, and one of the
//     journal's counter, which gives the entries their seqs (sqlstore.SealNow).
//
// Rows go in chunks whose sizes are powers of two, so a batch of 19 is 3 statements a table.
// The number of statements grows with the logarithm of the batch, so larger batches (more
// load) make each sale cheaper.

type saleResult struct {
	game lottery.Game
	err  error
}

type saleOp struct {
	sale lottery.Sale
	done chan saleResult
}

// Sell sells the next unsold unit at the request's price to the player. It returns the game
// once it is durably committed: the stake debited, the prize credited, the game and the answer
// under the key written, all or nothing. A key the player has already used fails with
// lottery.ErrKeyTaken and changes nothing.
func (d *DB) Sell(ctx context.Context, r lottery.SaleRequest, now time.Time) (lottery.Game, error) {
	op := &saleOp{sale: lottery.Sale{Request: r, Time: now}, done: make(chan saleResult, 1)}
	if err := d.queue(ctx, &writeOp{sale: op}); err != nil {
		return lottery.Game{}, asFault(err)
	}
	res := <-op.done
	return res.game, d.noteWrite(res.err)
}

// salesState is what the writer knows between batches: where each price's sales stand. It is
// dropped whenever a batch fails, and read again from the database.
type salesState struct {
	cursors  map[int64]*lottery.Cursor // by price
	statuses int64                     // DB.statuses when they were read
}

func (s *salesState) reset() {
	s.cursors = map[int64]*lottery.Cursor{}
}

// sellBatch runs the sales of a batch inside the current transaction. Each sale gets its game or
// its own error (a key already used, too little money, sold out). An error returned means that
// no sale of the batch was written, and the caller fails them all.
func (w *writer) sellBatch(ctx context.Context, ops []*saleOp) error {
	t := &tx{ctx: ctx, w: w}
	// An emission suspended or resumed since the last batch, maybe by a write of this one, run
	// before its sales: the cursors are read again, so that none sells from it. Their counts
	// were written by the batches before.
	if n := w.db.statuses.Load(); n != w.sales.statuses {
		w.sales.reset()
		w.sales.statuses = n
	}
	if err := w.db.gameIDs.init(func() (next, through int64, err error) {
		err = t.queryRow(firstGameID).Scan(&next, &through)
		return
	}); err != nil {
		return err
	}
	// The batch's transfers take the ids after the largest so far (saleStock).
	stock := &saleStock{t: t, w: w}
	if err := t.queryRow(`SELECT coalesce(max(id), 0) + 1 FROM transfers`).Scan(&stock.nextTransfer); err != nil {
		return err
	}

	// The keys already used, the balances and the live sessions of everyone in the batch: three
	// reads.
	keys := make([]any, 0, 2*len(ops))
	accounts := make([]any, 0, len(ops))
	sessions := make([]any, 0, len(ops))
	sales := make([]*lottery.Sale, len(ops))
	for i, op := range ops {
		r := &op.sale.Request
		sales[i] = &op.sale
		if !r.Unkept {
			keys = append(keys, r.PlayerID, r.Key)
		}
		accounts = append(accounts, r.AccountID)
		if r.Session != nil {
			sessions = append(sessions, r.Session)
		}
	}
	book := &lottery.Book{Balances: map[int64]int64{}, Taken: map[lottery.KeyRef]bool{}, Live: map[string]bool{}}
	err := t.chunks(`SELECT i.player_id, i.key FROM (VALUES `, `) v JOIN idempotency i ON i.player_id = v.column1 AND i.key = v.column2`, 2, keys,
		func(query string, args []any) error {
			return t.rows(func(r *sql.Rows) error {
				var k lottery.KeyRef
				err := r.Scan(&k.PlayerID, &k.Key)
				book.Taken[k] = true
				return err
			}, query, args...)
		})
	if err != nil {
		return fmt.Errorf("read keys: %w", err)
	}
	// The balances, with the buyers' weekly stake limits and the stakes of their week (brought
	// forward below, if a stake has left it: Book.BringForward).
	book.Stakes = map[int64]*lottery.Staking{}
	err = t.chunks(`SELECT id, balance, staked_total, staked_expired, staked_through_id, staked_next, staked_last, stake_limit, stake_raise, stake_raise_at
		FROM accounts WHERE id IN (`, `)`, 1, accounts, func(query string, args []any) error {
		return t.rows(func(r *sql.Rows) error {
			var id, b int64
			var st lottery.Staking
			var next, last sql.NullString
			var lim limitColumns
			err := r.Scan(&id, &b, &st.Window.Total, &st.Window.Expired, &st.Window.ThroughID, &next, &last, &lim.amount, &lim.raise, &lim.raiseAt)
			if err != nil {
				return err
			}
			book.Balances[id] = b
			if st.Window.Next, st.Window.Last, err = windowTimes(next, last); err != nil {
				return err
			}
			if st.Limit, err = lim.limit(); err != nil {
				return err
			}
			book.Stakes[id] = &st
			return nil
		}, query, args...)
	})
	if err != nil {
		return fmt.Errorf("read balances: %w", err)
	}
	if err := book.BringForward(sales, func(player int64, w *lottery.Window, at time.Time) error {
		return forward(t.rows, player, w, at)
	}); err != nil {
		return err
	}
	err = t.chunks(`SELECT token_hash FROM sessions WHERE token_hash IN (`, `)`, 1, sessions, func(query string, args []any) error {
		return t.rows(func(r *sql.Rows) error {
			var h []byte
			err := r.Scan(&h)
			book.Live[string(h)] = true
			return err
		}, query, args...)
	})
	if err != nil {
		return fmt.Errorf("read sessions: %w", err)
	}
	// The rollbacks still held of the sales in wallet mode (Book.Held): this writer is the only
	// one, so none is released between this read and the commit.
	book.Held = map[string]bool{}
	var held []any
	for _, op := range ops {
		if w := op.sale.Request.Wallet; w != nil && w.Rollback != "" {
			held = append(held, w.Rollback)
		}
	}
	err = t.chunks(`SELECT transaction_id FROM wallet_calls WHERE status = 'held' AND transaction_id IN (`, `)`, 1, held, func(query string, args []any) error {
		return t.rows(func(r *sql.Rows) error {
			var id string
			err := r.Scan(&id)
			book.Held[id] = true
			return err
		}, query, args...)
	})
	if err != nil {
		return fmt.Errorf("read held rollbacks: %w", err)
	}

	rows, err := lottery.Decide(ctx, sales, book, stock)
	if err != nil || len(rows.Games) == 0 {
		return err
	}

	// The writes: the games, their transfers, the keys, the balances, the hours, the blocks, the
	// journal.
	exec := func(query string, args []any) error {
		_, err := t.exec(query, args...)
		return err
	}
	args := make([]any, 0, 13*len(rows.Games))
	for _, g := range rows.Games {
		args = append(args, g.ID, g.PlayerID, g.BlockNumber, g.Unit, g.Stake, g.Mode, g.Prize, g.Color, g.Status,
			g.BalanceAfter, saleTime(g.CreatedAt), g.UpdatedAt, g.StakeTransfer)
	}
	if err := t.chunks(`INSERT INTO games (id, player_id, block_number, unit, stake, mode, prize, color, status, balance_after, created_at, updated_at, stake_transfer) VALUES `,
		``, 13, args, exec); err != nil {
		return fmt.Errorf("write games: %w", err)
	}
	args = args[:0]
	for _, tr := range rows.Transfers {
		var game any // NULL: a wallet sale's deposit and withdrawal are no game's
		if tr.GameID != 0 {
			game = tr.GameID
		}
		args = append(args, tr.From, tr.To, tr.Amount, tr.Kind, game, saleTime(tr.CreatedAt))
	}
	var lastTransfer int64
	if err := t.chunks(`INSERT INTO transfers (from_account, to_account, amount, kind, game_id, created_at) VALUES `, ``, 6, args,
		func(query string, args []any) error {
			res, err := t.exec(query, args...)
			if err == nil {
				lastTransfer, err = res.LastInsertId()
			}
			return err
		}); err != nil {
		return fmt.Errorf("write transfers: %w", err)
	}
	if want := rows.Transfers[len(rows.Transfers)-1].ID; lastTransfer != want {
		return fmt.Errorf("write transfers: the last got id %d, not %d as the games say", lastTransfer, want)
	}
	args = args[:0]
	for _, a := range rows.Answers {
		args = append(args, a.PlayerID, a.Key, a.RequestHash, a.Status, a.Body, a.CreatedAt)
	}
	if err := t.chunks(`INSERT INTO idempotency (player_id, key, request_hash, status, response, created_at) VALUES `, ``, 6, args, exec); err != nil {
		return fmt.Errorf("write keys: %w", err)
	}
	// The balances, the buyers' stake windows and their totals, in one statement (NULL: no
	// window to write).
	args = args[:0]
	for id, d := range rows.Moves {
		w, ok := rows.Windows[id]
		p := rows.Played[id]
		switch {
		case ok:
			args = append(args, id, d, w.Total, w.Expired, w.ThroughID, nullTime(w.Next), nullTime(w.Last), p.Games, p.Winners, p.Prizes)
		case d != 0:
			args = append(args, id, d, nil, nil, nil, nil, nil, 0, 0, 0)
		}
	}
	for id, w := range rows.Windows {
		if _, ok := rows.Moves[id]; !ok {
			p := rows.Played[id]
			args = append(args, id, 0, w.Total, w.Expired, w.ThroughID, nullTime(w.Next), nullTime(w.Last), p.Games, p.Winners, p.Prizes)
		}
	}
	// The balances were checked above; the accounts' CHECK would refuse a player below zero
	// anyway, failing the batch rather than letting it through.
	if err := t.chunks(`UPDATE accounts SET balance = balance + v.column2, staked_total = coalesce(v.column3, staked_total),
		staked_expired = coalesce(v.column4, staked_expired), staked_through_id = coalesce(v.column5, staked_through_id),
		staked_next = CASE WHEN v.column3 IS NULL THEN staked_next ELSE v.column6 END, staked_last = coalesce(v.column7, staked_last),
		games_played = games_played + v.column8, games_won = games_won + v.column9, prizes_won = prizes_won + v.column10
		FROM (VALUES `, `) v WHERE accounts.id = v.column1`, 10, args, exec); err != nil {
		return fmt.Errorf("write balances: %w", err)
	}
	// The wallet's outbox: the credits of the sales in wallet mode, with their games; the
	// rollbacks held for them are no longer owed.
	if err := t.addWalletCalls(rows.WalletCalls, sales[0].Time); err != nil {
		return fmt.Errorf("write the wallet's credits: %w", err)
	}
	args = args[:0]
	for _, id := range rows.Released {
		args = append(args, id)
	}
	if err := t.chunks(`DELETE FROM wallet_calls WHERE status = 'held' AND transaction_id IN (`, `)`, 1, args, exec); err != nil {
		return fmt.Errorf("release the held rollbacks: %w", err)
	}
	if err := t.addHours(rows.Hours); err != nil {
		return err
	}
	for _, c := range w.sales.cursors {
		if err := t.writeCursor(c); err != nil {
			return err
		}
	}
	// The journal's entries, sealed at their seqs: the writer is the file's only one, so none is
	// taken between the counter and the commit.
	sealed, err := w.db.SealNow(t.ctx, txQ{t}, sqlstore.SaleEvents(rows))
	if err != nil {
		return err
	}
	if err := t.chunks(`INSERT INTO `+sqlstore.JournalColumns+` VALUES `, ``, sqlstore.JournalWidth, sealed.Rows, exec); err != nil {
		return fmt.Errorf("write the journal: %w", err)
	}
	return nil
}

// saleStock is what a batch's decision asks of the writer (lottery.Stock): its cursors, and the
// ids of the games and transfers.
//
// A game keeps the id of its stake transfer, and its prize's is the next (migration 0005).
// SQLite gives each new row the largest id so far plus one. The batch's transfers go in order,
// so their ids are known before they are written; the insert checks that they were.
// (Explicit ids would cost a lookup each.) Other writes of the batch may have added transfers,
// so the first is read at the batch's start.
type saleStock struct {
	t            *tx
	w            *writer
	nextTransfer int64
}

// Cursor is where the sales at a price stand (writer.cursor).
func (s *saleStock) Cursor(price int64) (*lottery.Cursor, error) { return s.w.cursor(s.t, price) }

// NextIDs gives a game the next id reserved for games, and the next transfer's id to its stake.
func (s *saleStock) NextIDs(won bool) (game, stake int64) {
	game, stake = s.w.db.gameIDs.take(), s.nextTransfer
	s.nextTransfer++
	if won {
		s.nextTransfer++
	}
	return game, stake
}

// TransferID gives a transfer the next id.
func (s *saleStock) TransferID() int64 {
	id := s.nextTransfer
	s.nextTransfer++
	return id
}

// cursor returns where the sales at a price stand, moving to the next open block when the
// current one is sold out. Its sold count is the next unit's index.
func (w *writer) cursor(t *tx, price int64) (*lottery.Cursor, error) {
	c := w.sales.cursors[price]
	if c != nil && c.Open() {
		return c, nil
	}
	if c != nil {
		// The block is sold out: its count is written now, so that the search below skips it.
		if err := t.writeCursor(c); err != nil {
			return nil, err
		}
		delete(w.sales.cursors, price)
	}
	c = &lottery.Cursor{}
	err := t.queryRow(`SELECT b.emission_id, b.block, b.number, b.sold, b.units FROM blocks b JOIN emissions e ON e.id = b.emission_id
		WHERE e.price = ? AND b.sold < b.units AND b.selling ORDER BY e.created_at, e.id, b.block LIMIT 1`, price).Scan(&c.Emission, &c.Block, &c.Number, &c.Sold, &c.Units)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, lottery.ErrSoldOut
	}
	if err != nil {
		return nil, err
	}
	c.Written = c.Sold
	w.sales.cursors[price] = c
	return c, nil
}

// writeCursor writes a block's sold count, and adds the prizes of the units sold to its totals.
// The update is guarded by the count the writer last wrote. So a cursor gone stale (another
// process selling from the same file) fails the batch instead of selling a unit twice. The
// UNIQUE index on the games' units would refuse it too.
func (t *tx) writeCursor(c *lottery.Cursor) error {
	if c.Sold == c.Written {
		return nil
	}
	res, err := t.exec(`UPDATE blocks SET sold = ?, prizes_sold = prizes_sold + ?, winners_sold = winners_sold + ?
		WHERE emission_id = ? AND block = ? AND sold = ?`, c.Sold, c.Prizes, c.Winners, c.Emission, c.Block, c.Written)
	if err != nil {
		return fmt.Errorf("write block: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("block %d of %s: sold count changed under the writer", c.Block, c.Emission)
	}
	c.Written, c.Prizes, c.Winners = c.Sold, 0, 0
	return nil
}

// rows runs a query of the writer and calls fn on each row.
func (t *tx) rows(fn func(*sql.Rows) error, query string, args ...any) error {
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
func (t *tx) chunks(head, tail string, cols int, args []any, run func(query string, args []any) error) error {
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
