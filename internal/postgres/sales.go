package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"starcolor/internal/lottery"
	"starcolor/internal/sqlstore"
)

// The sales of every server are decided against the same rows, so a batch locks what it depends
// on. It always locks in the same order, so that two batches never wait for each other in a
// circle:
//
//  1. the buyers' accounts, by id;
//  2. in wallet mode, the outbox rows of the rollbacks still held for its sales;
//  3. the open block at each of its prices, by price (the block row is what sells each unit once
//     and in order, whichever server sells it);
//  4. the prize fund last, at its one update.
//
// A batch is one transaction in two round trips, whatever its size:
//
//  1. In one pipelined batch: BEGIN, the accounts locked and read, the keys already answered, the
//     live sessions, the held rollbacks locked, the open blocks locked and read. The same batch
//     draws ids for the games and transfers from their sequences (unused ids are gaps, never
//     reused).
//  2. The decision, in the server (lottery.Decide). A block sold out mid-batch costs one more
//     round trip, to write it and lock the next.
//  3. In one pipelined batch: the keys, the transfers, the games, the journal's entries
//     (queued: sqlstore.Sequence gives them their seqs after), the balances, the wallet's
//     outbox (in wallet mode), the hours' totals and the blocks (queueWrites). Each is one
//     statement over arrays (unnest), whatever the number of sales.
//  4. COMMIT, once the batch's counts say that no key was answered meanwhile.
//
// The blocks' rows are held from the first round trip's end to the commit. Every batch at a
// price, on any server, waits for the one before. So what lies between bounds the sales at a
// price: two round trips, the decision, the writes, the commit's flush. The journal takes no
// lock of its own: batches at different prices never wait for each other.
//
// Two servers may be given the same Idempotency-Key at once. A key that another server's batch
// answered between the read and the write makes the key's insert do nothing. The batch then runs
// again from the start, and reads the key as taken. A sale has one effect, whichever servers it
// is sent to.

// maxBatch bounds the sales of one transaction.
const maxBatch = 512

type saleOp struct {
	sale lottery.Sale
	done chan error
	hold chan struct{} // a hold of the batches (Hold), not a sale
}

// Sell sells the next unsold unit at the request's price to the player. It returns the game
// once it is durably committed: the stake debited, the prize credited, the game and the answer
// under the key written, all or nothing. A key the player has already used fails with
// lottery.ErrKeyTaken and changes nothing.
func (d *DB) Sell(ctx context.Context, r lottery.SaleRequest, now time.Time) (lottery.Game, error) {
	op := &saleOp{sale: lottery.Sale{Request: r, Time: now}, done: make(chan error, 1)}
	if err := d.queue(ctx, op); err != nil {
		return lottery.Game{}, err
	}
	if err := <-op.done; err != nil {
		return lottery.Game{}, d.noteWrite(err)
	}
	return op.sale.Game, nil
}

// errClosed is returned by sales after Close.
var errClosed = errors.New("store closed")

func (d *DB) queue(ctx context.Context, op *saleOp) error {
	d.closeMu.RLock()
	defer d.closeMu.RUnlock()
	if d.closed {
		return errClosed
	}
	select {
	case d.sales <- op:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Hold keeps the batches of sales from starting until release is called, so that the sales sent
// meanwhile all join one batch: for tests of what batches do.
func (d *DB) Hold() (release func()) {
	op := &saleOp{hold: make(chan struct{}), done: make(chan error, 1)}
	if d.queue(context.Background(), op) != nil {
		return func() {}
	}
	<-op.done // the loop has taken it: it waits now
	return func() { close(op.hold) }
}

// A batch that waited for another server's batch to release a block (its reads took longer than
// contended) is followed by one that gathers sales for as long, up to maxLinger, before it
// starts. It would spend that time waiting for the lock anyway, and the batches that take turns
// at a block then carry more sales each. Measured with two servers at one price: about a tenth
// more sales a second, and no longer answers (docs/PERFORMANCE.md). A server alone never waits.
const (
	contended = time.Millisecond
	maxLinger = 2 * time.Millisecond
)

// sellLoop runs the batches of sales until the store is closed: every sale waiting when a batch
// starts joins it.
func (d *DB) sellLoop() {
	defer close(d.salesDone)
	batch := make([]*saleOp, 0, maxBatch)
	for first := range d.sales {
		if first.hold != nil {
			first.done <- nil
			<-first.hold
			continue
		}
		batch = append(batch[:0], first)
		var linger <-chan time.Time
		if wait := time.Duration(d.lastReads.Load()); wait > contended {
			linger = time.After(min(wait, maxLinger))
		}
	more:
		for len(batch) < maxBatch {
			var op *saleOp
			var ok bool
			select {
			case op, ok = <-d.sales:
			default:
				if linger == nil {
					break more
				}
				select {
				case op, ok = <-d.sales:
				case <-linger:
					linger = nil
					continue
				}
			}
			if !ok {
				break more
			}
			if op.hold != nil {
				// Held in the middle of collecting: this batch goes, the next waits.
				d.sellBatch(batch)
				batch = batch[:0]
				op.done <- nil
				<-op.hold
				continue
			}
			batch = append(batch, op)
		}
		if len(batch) > 0 {
			d.sellBatch(batch)
		}
	}
}

// sellBatch runs a batch in one transaction, again from the start when PostgreSQL gives up on it
// for a conflict or a key was answered meanwhile, and answers each sale.
func (d *DB) sellBatch(ops []*saleOp) {
	ctx := context.Background()
	start := time.Now()
	var err error
	for attempt := 0; attempt < retries; attempt++ {
		var commit time.Duration
		commit, err = d.trySales(ctx, ops)
		if err == nil {
			d.running.Add(int64(time.Since(start) - commit))
			d.committing.Add(int64(commit))
			d.batches.Add(1)
			d.batchedOps.Add(int64(len(ops)))
			break
		}
		if !retryable(err) && !errors.Is(err, errKeyRace) {
			break
		}
		time.Sleep(time.Duration(attempt) * 200 * time.Microsecond)
	}
	for _, op := range ops {
		switch {
		case err != nil:
			op.done <- err
		default:
			op.done <- op.sale.Err
		}
	}
}

// errKeyRace is a key answered by another batch between this batch's read and its write.
var errKeyRace = errors.New("an idempotency key was answered meanwhile")

// querier is a connection in a transaction.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// trySales runs the batch's transaction once, and says how long its writes and commit took.
func (d *DB) trySales(ctx context.Context, ops []*saleOp) (time.Duration, error) {
	tx, err := d.pool.Acquire(ctx)
	if err != nil {
		return 0, err
	}
	defer func() {
		// A transaction left open by an error is rolled back before the connection goes back.
		if tx.Conn().PgConn().TxStatus() != 'I' {
			if _, err := tx.Exec(context.Background(), `ROLLBACK`); err != nil {
				tx.Conn().Close(context.Background())
			}
		}
		tx.Release()
	}()
	sales := make([]*lottery.Sale, len(ops))
	var accounts, players []int64
	var keys []string
	var sessions [][]byte
	prices := map[int64]bool{}
	for i, op := range ops {
		s := &op.sale
		s.Game, s.Answer, s.Err = lottery.Game{}, lottery.Answer{}, nil
		sales[i] = s
		r := &s.Request
		accounts = append(accounts, r.AccountID)
		if !r.Unkept {
			players, keys = append(players, r.PlayerID), append(keys, r.Key)
		}
		if r.Session != nil {
			sessions = append(sessions, r.Session)
		}
		prices[r.Price] = true
	}
	slices.Sort(accounts)
	accounts = slices.Compact(accounts)
	priceList := make([]int64, 0, len(prices))
	for p := range prices {
		priceList = append(priceList, p)
	}
	slices.Sort(priceList)

	book := &lottery.Book{Balances: map[int64]int64{}, Taken: map[lottery.KeyRef]bool{}, Live: map[string]bool{}}
	stock := &saleStock{ctx: ctx, tx: tx, cursors: map[int64]*lottery.Cursor{}}
	b := &pgx.Batch{}
	b.Queue(`BEGIN`)
	// Every read and write of a batch goes through an index, planned so even on tables whose
	// statistics are not gathered yet. A new database fills them at thousands of rows a second,
	// and a plan cached while they were empty reads them whole at every batch.
	b.Queue(`SET LOCAL enable_seqscan = off`)
	// The buyers' accounts, with their weekly stake limits and the stakes of their week: each
	// locked, so that every server checks a player's sales one batch after the other.
	book.Stakes = map[int64]*lottery.Staking{}
	b.Queue(`SELECT id, balance, staked_total, staked_expired, staked_through_id, staked_next, staked_last, stake_limit, stake_raise, stake_raise_at
		FROM accounts WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE`, accounts).Query(func(rows pgx.Rows) error {
		var id, bal int64
		var next, last *time.Time
		var w lottery.Window
		var lim limitColumns
		_, err := pgx.ForEachRow(rows, []any{&id, &bal, &w.Total, &w.Expired, &w.ThroughID, &next, &last, &lim.amount, &lim.raise, &lim.raiseAt}, func() error {
			book.Balances[id] = bal
			w.Next, w.Last = timeOr(next), timeOr(last)
			book.Stakes[id] = &lottery.Staking{Limit: lim.limit(), Window: w}
			return nil
		})
		return err
	})
	b.Queue(`SELECT k.p, k.k FROM unnest($1::bigint[], $2::text[]) k(p, k)
		CROSS JOIN LATERAL (SELECT 1 FROM idempotency i WHERE i.player_id = k.p AND i.key = k.k) i`,
		players, keys).Query(func(rows pgx.Rows) error {
		var k lottery.KeyRef
		_, err := pgx.ForEachRow(rows, []any{&k.PlayerID, &k.Key}, func() error { book.Taken[k] = true; return nil })
		return err
	})
	if len(sessions) > 0 {
		b.Queue(`SELECT token_hash FROM sessions WHERE token_hash = ANY($1)`, sessions).Query(func(rows pgx.Rows) error {
			var h []byte
			_, err := pgx.ForEachRow(rows, []any{&h}, func() error { book.Live[string(h)] = true; return nil })
			return err
		})
	}
	// The rollbacks still held of the sales in wallet mode (Book.Held), locked: a sweep that
	// releases one (ReleaseStaleWalletCalls) waits for this batch, and then finds it deleted.
	book.Held = map[string]bool{}
	if held := heldRollbacks(ops); len(held) > 0 {
		b.Queue(`SELECT transaction_id FROM wallet_calls WHERE status = 'held' AND transaction_id = ANY($1) FOR UPDATE`, held).Query(func(rows pgx.Rows) error {
			var id string
			_, err := pgx.ForEachRow(rows, []any{&id}, func() error { book.Held[id] = true; return nil })
			return err
		})
	}
	// Sales in wallet mode write two transfers more (the debit's deposit, the prize's
	// withdrawal): a pair of ids each, from the same sequence.
	if n := walletSales(ops); n > 0 {
		b.Queue(`SELECT nextval('transfers_id_seq') FROM generate_series(1, $1)`, n).Query(func(rows pgx.Rows) error {
			var t int64
			_, err := pgx.ForEachRow(rows, []any{&t}, func() error { stock.others = append(stock.others, t, t+1); return nil })
			return err
		})
	}
	b.Queue(`SELECT nextval('games_id_seq'), nextval('transfers_id_seq') FROM generate_series(1, $1)`, len(ops)).Query(func(rows pgx.Rows) error {
		var g, t int64
		_, err := pgx.ForEachRow(rows, []any{&g, &t}, func() error {
			stock.games, stock.stakes = append(stock.games, g), append(stock.stakes, t)
			return nil
		})
		return err
	})
	// The open blocks last: each price's block row is locked from here to the commit. Every
	// server's batch at that price waits for it, so nothing else is read while it is held.
	b.Queue(openBlocks, priceList).Query(func(rows pgx.Rows) error {
		var price int64
		var c lottery.Cursor
		_, err := pgx.ForEachRow(rows, []any{&price, &c.Emission, &c.Block, &c.Number, &c.Sold, &c.Units}, func() error {
			c.Written = c.Sold
			cc := c
			stock.cursors[price] = &cc
			return nil
		})
		return err
	})
	reads := time.Now()
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return 0, fmt.Errorf("read the batch's state: %w", err)
	}
	d.lastReads.Store(int64(time.Since(reads)))

	if err := book.BringForward(sales, func(player int64, w *lottery.Window, at time.Time) error {
		return forward(ctx, tx, player, w, at)
	}); err != nil {
		return 0, err
	}
	rows, err := lottery.Decide(ctx, sales, book, stock)
	if err != nil {
		return 0, err
	}
	if len(rows.Games) == 0 {
		_, err := tx.Exec(ctx, `COMMIT`)
		return 0, err
	}
	// The writes and the COMMIT go in one round trip: the blocks' rows are locked from the reads
	// above until the commit, so the other servers' batches wait through every round trip made
	// here. A write that must not pass fails in SQL (writeChecks), and PostgreSQL then skips the
	// rest, the COMMIT with it: the deferred ROLLBACK ends the transaction.
	w := &pgx.Batch{}
	queueWrites(w, rows, stock.cursors)
	w.Queue(`COMMIT`)
	commit := time.Now()
	res := tx.SendBatch(ctx, w)
	var tag pgconn.CommandTag
	for range w.Len() {
		if tag, err = res.Exec(); err != nil {
			res.Close()
			return 0, writeChecks(err)
		}
	}
	if err := res.Close(); err != nil {
		return 0, writeChecks(err)
	}
	if tag.String() != "COMMIT" || tx.Conn().PgConn().TxStatus() != 'I' {
		return 0, fmt.Errorf("the batch's COMMIT answered %q", tag)
	}
	return time.Since(commit), nil
}

// writeChecks names the failures of a batch's writes that their statements raise (queueWrites):
// a key answered by another batch since this one read the keys (the idempotency key's primary
// key), or a block whose sold count is no longer the one read (a division by zero).
func writeChecks(err error) error {
	switch {
	case isCode(err, "23505", "idempotency_pkey"):
		return errKeyRace
	case isCode(err, "22012", ""):
		return fmt.Errorf("a block's sold count changed under the batch: %w", err)
	}
	return err
}

// saleStock is what a batch's decision asks of its transaction (lottery.Stock). It holds the
// cursors of the open blocks it locked, and the ids it drew from the sequences before (unused
// ones are gaps).
type saleStock struct {
	ctx     context.Context
	tx      querier
	cursors map[int64]*lottery.Cursor // by price
	// The ids of the games and of their stake transfers, a pair for each sale of the batch. Then
	// those of the other transfers of the sales in wallet mode, two for each.
	games, stakes, others []int64
}

// Cursor is where the sales at a price stand (nextCursor).
func (s *saleStock) Cursor(price int64) (*lottery.Cursor, error) {
	return nextCursor(s.ctx, s.tx, s.cursors, price)
}

// NextIDs gives a game the next pair of ids drawn: its own and its stake transfer's. (The
// transfers' sequence steps by two: the prize's is the next.)
func (s *saleStock) NextIDs(bool) (game, stake int64) {
	game, stake = s.games[0], s.stakes[0]
	s.games, s.stakes = s.games[1:], s.stakes[1:]
	return game, stake
}

// TransferID gives a transfer the next id drawn for the sales in wallet mode.
func (s *saleStock) TransferID() int64 {
	t := s.others[0]
	s.others = s.others[1:]
	return t
}

// openBlocks locks and reads, for each price given in order, the block its sales sell from: the
// first block with units left of its oldest open emission.
const openBlocks = `SELECT p.price, b.emission_id, b.block, b.number, b.sold, b.units FROM unnest($1::bigint[]) p(price)
	CROSS JOIN LATERAL (SELECT b.emission_id, b.block, b.number, b.sold, b.units FROM blocks b JOIN emissions e ON e.id = b.emission_id
		WHERE e.price = p.price AND b.sold < b.units AND b.selling ORDER BY e.created_at, e.id, b.block LIMIT 1 FOR NO KEY UPDATE OF b) b
	ORDER BY p.price`

// nextCursor is where the sales at a price stand. It moves on to the next open block once the
// current one is sold out, whose count it writes first so that the search skips it.
func nextCursor(ctx context.Context, tx querier, cursors map[int64]*lottery.Cursor, price int64) (*lottery.Cursor, error) {
	c := cursors[price]
	switch {
	case c != nil && c.Open():
		return c, nil
	case c != nil && c.Units == 0:
		return nil, lottery.ErrSoldOut // looked for already in this batch
	case c != nil:
		if err := writeCursor(ctx, tx, c); err != nil {
			return nil, err
		}
	}
	// Looked for again: the first read finds nothing when the block it waited for was sold out by
	// the batch that held it. Its row no longer qualifies once the lock is granted, and the search
	// does not go on to the next. A statement of its own sees the blocks as they are now.
	found := &lottery.Cursor{}
	var p int64
	err := tx.QueryRow(ctx, openBlocks, []int64{price}).Scan(&p, &found.Emission, &found.Block, &found.Number, &found.Sold, &found.Units)
	if errors.Is(err, pgx.ErrNoRows) {
		cursors[price] = &lottery.Cursor{}
		return nil, lottery.ErrSoldOut
	}
	if err != nil {
		return nil, err
	}
	found.Written = found.Sold
	cursors[price] = found
	return found, nil
}

// writeCursor writes a block's sold count and adds its units' prizes to its totals. The update
// is guarded by the count read: the row is locked, so a mismatch is a bug, and fails the batch.
func writeCursor(ctx context.Context, tx querier, c *lottery.Cursor) error {
	if c.Sold == c.Written {
		return nil
	}
	tag, err := tx.Exec(ctx, `UPDATE blocks SET sold = $1, prizes_sold = prizes_sold + $2, winners_sold = winners_sold + $3
		WHERE emission_id = $4 AND block = $5 AND sold = $6`, c.Sold, c.Prizes, c.Winners, c.Emission, c.Block, c.Written)
	if err != nil {
		return fmt.Errorf("write block: %w", err)
	}
	if tag.RowsAffected() != 1 {
		return fmt.Errorf("block %d of %s: sold count changed under the batch", c.Block, c.Emission)
	}
	c.Written, c.Prizes, c.Winners = c.Sold, 0, 0
	return nil
}

// queueWrites queues the batch's writes, each one statement over arrays, in this order:
//
//  1. the keys, which fail if one was answered meanwhile;
//  2. the transfers;
//  3. the games;
//  4. the journal's entries, queued (sqlstore.Sequence gives them their seqs after);
//  5. the balances;
//  6. the wallet's outbox, in wallet mode;
//  7. the hours;
//  8. the blocks, each failing if its count is no longer the one read.
func queueWrites(b *pgx.Batch, rows *lottery.Rows, cursors map[int64]*lottery.Cursor) {
	n := len(rows.Answers)
	kp, kk, kh, ks, kr, kc := make([]int64, n), make([]string, n), make([][]byte, n), make([]int32, n), make([][]byte, n), make([]int64, n)
	for i, a := range rows.Answers {
		kp[i], kk[i], kh[i], ks[i], kr[i], kc[i] = a.PlayerID, a.Key, a.RequestHash, int32(a.Status), a.Body, a.CreatedAt
	}
	b.Queue(insertKeys, kp, kk, kh, ks, kr, kc)

	n = len(rows.Transfers)
	tid, from, to, amount := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	game := make([]*int64, n) // NULL: a wallet sale's deposit and withdrawal are no game's
	kind, at := make([]string, n), make([]time.Time, n)
	for i, t := range rows.Transfers {
		tid[i], from[i], to[i], amount[i], kind[i], at[i] = t.ID, t.From, t.To, t.Amount, t.Kind, t.CreatedAt
		if t.GameID != 0 {
			game[i] = &rows.Transfers[i].GameID
		}
	}
	b.Queue(`INSERT INTO transfers (id, from_account, to_account, amount, kind, game_id, created_at)
		SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::text[], $6::bigint[], $7::timestamptz[])`,
		tid, from, to, amount, kind, game, at)
	queueGames(b, rows)
	queueJournal(b, sqlstore.SaleEvents(rows))

	// The balances and the buyers' stake windows, one statement (NULL: no window to write, as for
	// the prize fund): one new version of each row.
	var acc, delta, played, won, wonPrizes []int64
	var total, expired, through []*int64
	var next, last []*time.Time
	add := func(a, d int64) {
		acc, delta = append(acc, a), append(delta, d)
		p := rows.Played[a]
		played, won, wonPrizes = append(played, p.Games), append(won, p.Winners), append(wonPrizes, p.Prizes)
		w, ok := rows.Windows[a]
		if !ok {
			total, expired, through, next, last = append(total, nil), append(expired, nil), append(through, nil), append(next, nil), append(last, nil)
			return
		}
		total, expired, through = append(total, &w.Total), append(expired, &w.Expired), append(through, &w.ThroughID)
		next, last = append(next, nullTime(w.Next)), append(last, nullTime(w.Last))
	}
	for a, d := range rows.Moves {
		if _, ok := rows.Windows[a]; ok || d != 0 {
			add(a, d)
		}
	}
	for a := range rows.Windows {
		if _, ok := rows.Moves[a]; !ok {
			add(a, 0)
		}
	}
	// The balances were decided against the locked rows; the accounts' CHECK would refuse a
	// player below zero anyway, failing the batch rather than letting it through. The prize
	// fund's row is updated once a batch, last of its locks.
	b.Queue(`UPDATE accounts SET balance = balance + v.d, staked_total = coalesce(v.t, staked_total), staked_expired = coalesce(v.e, staked_expired),
			staked_through_id = coalesce(v.th, staked_through_id), staked_next = CASE WHEN v.t IS NULL THEN staked_next ELSE v.n END,
			staked_last = coalesce(v.l, staked_last), games_played = games_played + v.gp, games_won = games_won + v.gw, prizes_won = prizes_won + v.pw
		FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::timestamptz[], $7::timestamptz[], $8::bigint[], $9::bigint[], $10::bigint[])
			v(id, d, t, e, th, n, l, gp, gw, pw)
		WHERE accounts.id = v.id`, acc, delta, total, expired, through, next, last, played, won, wonPrizes)

	// The wallet's outbox: the credits of the sales in wallet mode, with their games; the
	// rollbacks held for them are no longer owed.
	if len(rows.WalletCalls) > 0 {
		n := len(rows.WalletCalls)
		call, txid, player, round, status := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		amount, attempts, body, next := make([]int64, n), make([]int32, n), make([][]byte, n), make([]time.Time, n)
		for i, c := range rows.WalletCalls {
			call[i], txid[i], player[i], round[i], amount[i], body[i] = c.Call, c.TransactionID, c.Player, c.RoundID, c.Amount, sqlstore.KeptBody(c.Body)
			status[i], next[i], attempts[i] = lottery.CallPending, rows.Games[0].CreatedAt, int32(c.Attempts)
			if c.Status == lottery.CallHeld {
				status[i] = lottery.CallHeld
			}
			if !c.NextAt.IsZero() {
				next[i] = c.NextAt // a rollback held ahead of its sale, or a credit kept claimed
			}
		}
		b.Queue(`INSERT INTO wallet_calls (call, transaction_id, player, round_id, amount, body, status, next_at, created_at, attempts)
			SELECT c, t, p, r, a, b, s, n, $9::timestamptz, k FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bytea[], $7::text[], $8::timestamptz[], $10::int[])
				v(c, t, p, r, a, b, s, n, k) ON CONFLICT (transaction_id) DO NOTHING`, call, txid, player, round, amount, body, status, next, rows.Games[0].CreatedAt, attempts)
	}
	if len(rows.Released) > 0 {
		b.Queue(`DELETE FROM wallet_calls WHERE transaction_id = ANY($1) AND status = 'held'`, rows.Released)
	}

	var hour []time.Time
	var price, units, stakes, prizes, winners, top []int64
	for k, s := range rows.Hours {
		hour, price = append(hour, k.Hour), append(price, k.Price)
		units, stakes, prizes, winners = append(units, s.Units), append(stakes, s.Stakes), append(prizes, s.Prizes), append(winners, s.Winners)
		top = append(top, s.Top)
	}
	b.Queue(`INSERT INTO sales_hourly (hour, price, units, stakes, prizes, winners, top_prize)
		SELECT * FROM unnest($1::timestamptz[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[])
		ON CONFLICT (hour, price) DO UPDATE SET units = sales_hourly.units + excluded.units, stakes = sales_hourly.stakes + excluded.stakes,
			prizes = sales_hourly.prizes + excluded.prizes, winners = sales_hourly.winners + excluded.winners,
			top_prize = greatest(sales_hourly.top_prize, excluded.top_prize)`,
		hour, price, units, stakes, prizes, winners, top)

	for _, c := range cursors {
		if c.Sold != c.Written {
			b.Queue(updateSold, c.Sold, c.Prizes, c.Winners, c.Emission, c.Block, c.Written)
		}
	}
}

// The writes of a batch that fail rather than pass unseen (writeChecks):
//   - insertKeys: a key answered by another batch meanwhile breaks the keys' primary key;
//   - updateSold: a block whose count is no longer the one read updates no row, and the
//     division by that count fails.
const (
	insertKeys = `INSERT INTO idempotency (player_id, key, request_hash, status, response, created_at)
		SELECT * FROM unnest($1::bigint[], $2::text[], $3::bytea[], $4::int[], $5::bytea[], $6::bigint[])`
	updateSold = `WITH u AS (UPDATE blocks SET sold = $1, prizes_sold = prizes_sold + $2, winners_sold = winners_sold + $3
		WHERE emission_id = $4 AND block = $5 AND sold = $6 RETURNING 1) SELECT 1 / count(*) FROM u`
)

// queueGames queues the insert of the batch's games.
func queueGames(b *pgx.Batch, rows *lottery.Rows) {
	n := len(rows.Games)
	id, player, block := make([]int64, n), make([]int64, n), make([]int64, n)
	unit, color := make([]int32, n), make([]int16, n)
	stake, prize, balance, updated, stakeTr := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	mode, status := make([]string, n), make([]string, n)
	created := make([]time.Time, n)
	for i, g := range rows.Games {
		id[i], player[i], block[i], unit[i] = g.ID, g.PlayerID, g.BlockNumber, int32(g.Unit)
		stake[i], mode[i], prize[i], color[i], status[i] = g.Stake, g.Mode, g.Prize, int16(g.Color), g.Status
		balance[i], created[i], updated[i], stakeTr[i] = g.BalanceAfter, g.CreatedAt, g.UpdatedAt, g.StakeTransfer
	}
	b.Queue(`INSERT INTO games (id, player_id, block_number, unit, stake, mode, prize, color, status, balance_after, created_at, updated_at, stake_transfer)
		SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::int[], $5::bigint[], $6::text[], $7::bigint[],
			$8::smallint[], $9::text[], $10::bigint[], $11::timestamptz[], $12::bigint[], $13::bigint[])`,
		id, player, block, unit, stake, mode, prize, color, status, balance, created, updated, stakeTr)
}

// queueJournal queues the insert of the batch's entries into the journal's queue: one row, its
// entries in their order (sqlstore.QueueValue).
func queueJournal(b *pgx.Batch, events []sqlstore.Dated) {
	b.Queue(sqlstore.QueueInsert, sqlstore.QueueValue(events))
}

// walletSales counts the sales in wallet mode of a batch.
func walletSales(ops []*saleOp) int {
	n := 0
	for _, op := range ops {
		if op.sale.Request.Wallet != nil {
			n++
		}
	}
	return n
}

// heldRollbacks are the transaction ids of the rollbacks held for the batch's sales in wallet
// mode.
func heldRollbacks(ops []*saleOp) []string {
	var ids []string
	for _, op := range ops {
		if w := op.sale.Request.Wallet; w != nil && w.Rollback != "" {
			ids = append(ids, w.Rollback)
		}
	}
	return ids
}
