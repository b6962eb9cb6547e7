package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// The server's writes go through one goroutine that commits them in batches: every operation
// waiting when a transaction starts joins it, each inside a savepoint of its own (so one that
// fails is undone alone), and one commit, one fsync, makes them all durable. A durable commit costs
// about 0.2 ms on this machine's disk, so one transaction per play cannot reach thousands of plays
// per second; batches can, and an operation is still acknowledged only once it is on disk.
//
// The writer owns one connection for its whole life, and every statement it runs is prepared once
// on it: preparing (parsing and planning) costs more than running the small statements of a sale.

// maxBatch bounds the operations of one transaction, to keep each commit's latency short.
const maxBatch = 512

// writeOp is one write: a function run in its own savepoint, or a sale (sales.go).
type writeOp struct {
	fn   func(*tx) error
	done chan error
	sale *saleOp
}

// errClosed is returned by writes after Close.
var errClosed = errors.New("database closed")

// update runs fn in the next batch of writes and returns once that batch is committed: all of fn
// commits, durably, or none of it does. Once queued, fn runs even if ctx ends. Every public write
// of the store is one update.
func (d *DB) update(ctx context.Context, fn func(*tx) error) error {
	w := &writeOp{fn: fn, done: make(chan error, 1)}
	if err := d.queue(ctx, w); err != nil {
		return asFault(err)
	}
	return d.noteWrite(<-w.done)
}

// queue hands an operation to the writer.
func (d *DB) queue(ctx context.Context, w *writeOp) error {
	d.writeMu.RLock()
	if d.closed {
		d.writeMu.RUnlock()
		return errClosed
	}
	select {
	case d.ops <- w:
		d.writeMu.RUnlock()
		return nil
	case <-ctx.Done():
		d.writeMu.RUnlock()
		return ctx.Err()
	}
}

// tx is the current write transaction, with the helpers that compose a sale, a payment or a
// move into one atomic step.
type tx struct {
	ctx context.Context
	w   *writer
}

// writer is the writing goroutine's connection and its prepared statements.
type writer struct {
	db    *DB
	conn  *sql.Conn
	stmts map[string]*sql.Stmt
	sales salesState
	// chunkQueries are the texts of multi-row statements, by head and rows (tx.chunks).
	chunkQueries map[chunkKey]string
	// Reused between batches.
	generic []*writeOp
	saleOps []*saleOp
}

func (w *writer) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if s := w.stmts[query]; s != nil {
		return s, nil
	}
	s, err := w.conn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	w.stmts[query] = s
	return s, nil
}

func (t *tx) exec(query string, args ...any) (sql.Result, error) {
	s, err := t.w.stmt(t.ctx, query)
	if err != nil {
		return nil, err
	}
	return s.ExecContext(t.ctx, args...)
}

func (t *tx) queryRow(query string, args ...any) *sql.Row {
	s, err := t.w.stmt(t.ctx, query)
	if err != nil {
		// A statement that does not prepare is a bug; Scan reports it.
		return t.w.conn.QueryRowContext(t.ctx, query, args...)
	}
	return s.QueryRowContext(t.ctx, args...)
}

// writeLoop commits batches until ops is closed.
func (d *DB) writeLoop() {
	defer close(d.writerDone)
	ctx := context.Background()
	w := &writer{db: d, stmts: map[string]*sql.Stmt{}, chunkQueries: map[chunkKey]string{}}
	w.sales.reset()
	conn, err := d.db.Conn(ctx)
	w.conn = conn
	if err == nil {
		// Checking foreign keys costs a fifth of a sale's time in the database (six lookups
		// for the rows that the sale itself just read: its player, account, block and game).
		// The writer's connection does without; `ledger check` checks every reference.
		_, err = conn.ExecContext(ctx, `PRAGMA foreign_keys = OFF`)
	}
	if err == nil {
		// An emission copied in from the back office holds the write lock about 0.5 s a block
		// (CreateEmissionStaged), up to 25 s for the largest: sales wait for it rather than fail.
		_, err = conn.ExecContext(ctx, `PRAGMA busy_timeout = 60000`)
	}
	batch := make([]*writeOp, 0, maxBatch)
	for first := range d.ops {
		batch = append(batch[:0], first)
	more:
		for len(batch) < maxBatch {
			select {
			case op, ok := <-d.ops:
				if !ok {
					break more
				}
				batch = append(batch, op)
			default:
				break more
			}
		}
		if linger := time.Duration(d.linger.Load()); linger > 0 && len(batch) < lingerEnough {
			batch = d.lingerFor(batch, linger)
		}
		if err != nil {
			for _, op := range batch {
				op.fail(err)
			}
			continue
		}
		d.commitBatch(ctx, w, batch)
		if d.checkpointDue.Swap(false) {
			// Between two batches no frame is added while the checkpoint finishes (checkpointLoop).
			w.conn.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`)
		}
	}
	if conn != nil {
		for _, s := range w.stmts {
			s.Close()
		}
		conn.Close()
	}
}

// lingerEnough is a batch large enough not to wait for more (Linger).
const lingerEnough = 64

// Linger makes the writer wait, when a batch is small, up to d for more writes to join it. A
// commit costs about as much for one write as for sixty: when writes come one by one rather than
// in bursts (wallet mode: each sale waits for the wallet between its two writes), waiting a
// little for more saves the machine most of that cost, for a little latency. 0, the default,
// never waits.
func (d *DB) Linger(wait time.Duration) { d.linger.Store(int64(wait)) }

// lingerFor adds to a batch the writes that come within wait, until it is large enough.
func (d *DB) lingerFor(batch []*writeOp, wait time.Duration) []*writeOp {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for len(batch) < lingerEnough {
		select {
		case op, ok := <-d.ops:
			if !ok {
				return batch
			}
			batch = append(batch, op)
		case <-timer.C:
			return batch
		}
	}
	return batch
}

// commitBatch runs a batch in one transaction: first the other writes, each in a savepoint of
// its own, then the sales together (sellBatch), in a savepoint that undoes them all if one of
// their statements fails. Nobody hears of an operation before the commit is durable.
func (d *DB) commitBatch(ctx context.Context, w *writer, batch []*writeOp) {
	w.generic, w.saleOps = w.generic[:0], w.saleOps[:0]
	for _, op := range batch {
		if op.sale != nil {
			op.sale.sale.Err = nil
			w.saleOps = append(w.saleOps, op.sale)
		} else {
			w.generic = append(w.generic, op)
		}
	}
	errs := make([]error, len(w.generic))
	fail := func(err error) {
		w.conn.ExecContext(ctx, `ROLLBACK`)
		w.sales.reset()
		for _, op := range batch {
			op.fail(err)
		}
	}
	start := time.Now()
	if _, err := w.conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		fail(fmt.Errorf("begin: %w", err))
		return
	}
	t := &tx{ctx: ctx, w: w}
	for i, op := range w.generic {
		if _, err := t.exec(`SAVEPOINT op`); err != nil {
			fail(err)
			return
		}
		errs[i] = runOp(t, op.fn)
		if errs[i] != nil {
			// A failure such as a full disk may have ended the whole transaction already: the
			// batch fails, with the operation's error as the cause.
			if _, err := t.exec(`ROLLBACK TO op`); err != nil {
				fail(fmt.Errorf("%w (undoing it: %v)", errs[i], err))
				return
			}
		}
		if _, err := t.exec(`RELEASE op`); err != nil {
			fail(err)
			return
		}
	}
	if len(w.saleOps) > 0 {
		if _, err := t.exec(`SAVEPOINT sales`); err != nil {
			fail(err)
			return
		}
		if err := w.sellBatch(ctx, w.saleOps); err != nil {
			// None of the sales is written; the other writes stay.
			w.sales.reset()
			for _, op := range w.saleOps {
				op.sale.Err = err
			}
			if _, rbErr := t.exec(`ROLLBACK TO sales`); rbErr != nil {
				fail(fmt.Errorf("%w (undoing the sales: %v)", err, rbErr))
				return
			}
		}
		if _, err := t.exec(`RELEASE sales`); err != nil {
			fail(err)
			return
		}
	}
	commit := time.Now()
	d.running.Add(int64(commit.Sub(start)))
	_, err := w.conn.ExecContext(ctx, `COMMIT`)
	d.committing.Add(int64(time.Since(commit)))
	if err != nil {
		fail(fmt.Errorf("commit: %w", err))
		return
	}
	d.batches.Add(1)
	d.batchedOps.Add(int64(len(batch)))
	for i, op := range w.generic {
		op.done <- errs[i]
	}
	for _, op := range w.saleOps {
		if op.sale.Err != nil {
			op.done <- saleResult{err: op.sale.Err}
		} else {
			op.done <- saleResult{game: op.sale.Game}
		}
	}
}

// fail answers an operation with an error.
func (op *writeOp) fail(err error) {
	if op.sale != nil {
		op.sale.done <- saleResult{err: err}
		return
	}
	op.done <- err
}

// runOp runs one operation, turning a panic into an error so that one bad request cannot take
// the whole batch, or the writer, down.
func runOp(t *tx, fn func(*tx) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("write panicked: %v", r)
		}
	}()
	return fn(t)
}

// Hold keeps the writer busy until release is called, so that the writes queued meanwhile all
// join one batch: for tests of what batches do.
func (d *DB) Hold() (release func()) {
	running, done := make(chan struct{}), make(chan struct{})
	go d.update(context.Background(), func(*tx) error {
		close(running)
		<-done
		return nil
	})
	<-running
	return func() { close(done) }
}
