package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// The server's writes go through one goroutine that commits them in batches: every operation
// waiting when a transaction starts joins it, each inside a savepoint of its own (so one that
// fails is undone alone), and one commit, one fsync, makes them all durable. A durable commit costs
// about 0.2 ms on this machine's disk, so one transaction per play cannot reach thousands of plays
// per second; batches can, and an operation is still acknowledged only once it is on disk.

// maxBatch bounds the operations of one transaction, to keep each commit's latency short.
const maxBatch = 512

// Op is one write, run inside the batch's transaction.
type Op func(ctx context.Context, tx *sql.Tx) error

type writeOp struct {
	fn   Op
	done chan error
}

// ErrClosed is returned by writes after Close.
var ErrClosed = errors.New("database closed")

// Write runs op in the next batch and returns once that batch is committed (or op failed, in
// which case nothing op did remains). Once queued, an op runs even if ctx ends.
func (d *DB) Write(ctx context.Context, op Op) error {
	w := &writeOp{fn: op, done: make(chan error, 1)}
	d.writeMu.RLock()
	if d.closed {
		d.writeMu.RUnlock()
		return ErrClosed
	}
	select {
	case d.ops <- w:
		d.writeMu.RUnlock()
	case <-ctx.Done():
		d.writeMu.RUnlock()
		return ctx.Err()
	}
	return <-w.done
}

// writeLoop commits batches until ops is closed.
func (d *DB) writeLoop() {
	defer close(d.writerDone)
	batch := make([]*writeOp, 0, maxBatch)
	for first := range d.ops {
		batch = append(batch[:0], first)
	more:
		for len(batch) < maxBatch {
			select {
			case w, ok := <-d.ops:
				if !ok {
					break more
				}
				batch = append(batch, w)
			default:
				break more
			}
		}
		d.commitBatch(batch)
	}
}

func (d *DB) commitBatch(batch []*writeOp) {
	ctx := context.Background()
	errs := make([]error, len(batch))
	fail := func(err error) {
		for _, w := range batch {
			w.done <- err
		}
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		fail(fmt.Errorf("begin: %w", err))
		return
	}
	for i, w := range batch {
		if _, err := tx.ExecContext(ctx, `SAVEPOINT op`); err != nil {
			tx.Rollback()
			fail(err)
			return
		}
		errs[i] = runOp(ctx, tx, w.fn)
		release := `RELEASE op`
		if errs[i] != nil {
			release = `ROLLBACK TO op; RELEASE op`
		}
		if _, err := tx.ExecContext(ctx, release); err != nil {
			tx.Rollback()
			fail(err)
			return
		}
	}
	if err := tx.Commit(); err != nil {
		fail(fmt.Errorf("commit: %w", err))
		return
	}
	d.batches.Add(1)
	d.batchedOps.Add(int64(len(batch)))
	for i, w := range batch {
		w.done <- errs[i]
	}
}

// runOp runs one operation, turning a panic into an error so that one bad request cannot take
// the whole batch, or the writer, down.
func runOp(ctx context.Context, tx *sql.Tx, fn Op) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("write panicked: %v", r)
		}
	}()
	return fn(ctx, tx)
}
