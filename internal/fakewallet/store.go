// Package fakewallet is a reference operator's wallet (seamless wallet, docs/spec/WALLET.md):
// the other side of internal/wallet, for Star Color's tests and for integrators to read.
//
// It keeps the players' balances and every transaction in a SQLite file of its own. The calls
// that wait are written together in one transaction, each undone alone if it fails. It serves
// the four calls of docs/spec/WALLET.md over HTTP (Server), with faults to inject (Faults). They
// are signed both ways as 1.1 binds them (internal/wallet's Key: the call, the time, the request
// answered). `starcolor-fakewallet` runs it.
//
// What it promises, beside docs/spec/WALLET.md's text:
//
//   - A debit, a credit or a rollback is kept with the exact answer it got (status and body), a
//     refusal (402, 403) too. The same transaction_id with the same body answers those bytes
//     again. With another body, or at another call, it is 409 duplicate_transaction.
//   - A debit whose id was rolled back, before or after it came, is 409, even the same debit
//     again.
//   - A rollback gives a successful debit's amount back once; of a debit refused, nothing; of an
//     id never seen, nothing, and the id is remembered. A rollback of an id already rolled back
//     answers what the first rollback of it answered.
//   - A credit is always accepted (a blocked player, an ended session, its debit unknown, refused
//     or rolled back). A credit is Star Color's debt to the player, and a refusal would only turn
//     it into a dispute settled by hand. The books count the credits whose debit did not stand
//     (Books.Unmatched), for reconciliation to look at.
package fakewallet

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// DefaultInitialBalance is a new player's balance in cents: 1000 €.
const DefaultInitialBalance = 100_000

// Store is the wallet's SQLite file.
type Store struct {
	db *sql.DB
	// The calls waiting for the writer (see write), and whether the store is closed to them.
	mu      sync.Mutex
	queue   []*pending
	closed  bool
	wake    chan struct{} // a call is queued, or the store closed; holds 1
	stopped chan struct{} // closed when the writer has returned
	once    sync.Once
	// batches counts the writer's transactions, batched the calls they held.
	batches, batched atomic.Int64
	// stmts are the calls' statements, prepared once on the database's one connection,
	// stmtsConn, by their text (see txn); the writer's alone.
	stmts     map[string]driver.Stmt
	stmtsConn any
	// Initial is the balance, in cents, a player gets on first use.
	Initial int64
	// Now is the wallet's clock: of the transactions' times, of its answers' timestamps, and the
	// one requests' timestamps are held to (within 300 s: docs/spec/WALLET.md 1.1). Set it before serving.
	Now func() time.Time
}

const schema = `
CREATE TABLE players (
	player   TEXT PRIMARY KEY,
	balance  INTEGER NOT NULL CHECK (balance >= 0),
	initial  INTEGER NOT NULL,           -- the balance it was created with
	adjusted INTEGER NOT NULL DEFAULT 0, -- the sum of the changes made by SetPlayer
	blocked  INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE TABLE transactions (
	seq      INTEGER PRIMARY KEY AUTOINCREMENT, -- the order of arrival, for the listing
	id       TEXT NOT NULL UNIQUE,              -- the transaction_id
	kind     TEXT NOT NULL CHECK (kind IN ('debit', 'credit', 'rollback')),
	player   TEXT NOT NULL REFERENCES players,
	round_id TEXT NOT NULL,
	amount   INTEGER NOT NULL, -- debit: the stake asked; credit: the prize; rollback: the amount given back
	ref      TEXT NOT NULL,    -- credit: debit_transaction_id; rollback: rolled_back_transaction_id
	status   INTEGER NOT NULL, -- the answer's status: 200, or a refusal (402, 403)
	code     TEXT NOT NULL,    -- a refusal's code
	body     BLOB NOT NULL,    -- the request's body, to tell the same call again
	answer   BLOB NOT NULL,    -- the answer's body, to give it again
	at       TEXT NOT NULL
) STRICT;
-- Every id rolled back, a debit's known or not, with the first rollback of it.
CREATE TABLE rolled_back (
	id          TEXT PRIMARY KEY,
	rollback_id TEXT NOT NULL REFERENCES transactions (id)
) STRICT;
PRAGMA user_version = 2;
`

// echoes is the upgrade of a file of version 1 to version 2 (docs/spec/WALLET.md 1.1). Every
// kept answer echoes its transaction_id, as a new one does. So the same call sent again is
// answered what a client of 1.1 checks.
const echoes = `
UPDATE transactions SET answer = CAST(json_set(CAST(answer AS TEXT), '$.transaction_id', id) AS BLOB);
PRAGMA user_version = 2;
`

// Open opens (creating if needed) the wallet's database file: WAL, synchronous=FULL (a movement
// answered survives a crash), and write transactions that take the lock when they begin, so
// that concurrent calls run one after the other.
func Open(ctx context.Context, path string) (*Store, error) {
	return OpenWith(ctx, path, true)
}

// OpenWith is Open, durable or not, for load tests. A wallet that is not (synchronous=OFF) loses
// its last movements in a crash of the machine, and answers far more calls a second.
//
// The store has one connection, as SQLite writes one transaction at a time anyway. The calls
// are written by one goroutine (see write). The books and the listing wait for the connection
// on a Go lock, not in SQLite's busy handler.
func OpenWith(ctx context.Context, path string, durable bool) (*Store, error) {
	if path == "" {
		return nil, errors.New("no database path")
	}
	sync := "synchronous(FULL)"
	if !durable {
		sync = "synchronous(OFF)"
	}
	q := url.Values{}
	for _, p := range []string{"journal_mode(WAL)", sync, "busy_timeout(30000)", "foreign_keys(ON)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	s := &Store{db: db, wake: make(chan struct{}, 1), stopped: make(chan struct{}),
		Initial: DefaultInitialBalance, Now: time.Now}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	go s.writer()
	return s, nil
}

func (s *Store) migrate(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var version int
	if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return err
	}
	switch version {
	case 0:
		if _, err := tx.ExecContext(ctx, schema); err != nil {
			return err
		}
	case 1:
		if _, err := tx.ExecContext(ctx, echoes); err != nil {
			return err
		}
	case 2:
		return nil
	default:
		return fmt.Errorf("schema version %d, newer than this program's", version)
	}
	return tx.Commit()
}

// Close closes the database, once the calls already waiting are written; a call after it
// fails (503).
func (s *Store) Close() error {
	s.once.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		s.signal()
		<-s.stopped
		s.closeStmts()
	})
	return s.db.Close()
}

// maxBatch bounds the calls written in one transaction.
const maxBatch = 256

// writeFunc is a call's work in a write transaction, with the writer's context: an error undoes
// it alone.
type writeFunc func(ctx context.Context, tx *txn) (Answer, error)

// pending is a call waiting for the writer, then its outcome.
type pending struct {
	ctx  context.Context
	fn   writeFunc
	a    Answer
	err  error
	done chan struct{} // closed once the outcome is known (and, if any, committed)
}

// write runs fn in a write transaction and answers once it is committed, unless fn fails. Then
// nothing of fn stays, and its error is answered (an *Error as it is, any other as unavailable).
//
// The calls are written by one goroutine, the writer (group commit), so that a commit is shared.
// Its cost is the same for one call or a hundred. The writer goes:
//
//  1. It takes every call waiting when it starts (at most maxBatch).
//  2. It runs each in a savepoint of one transaction, undone alone if it fails: one refused or
//     failed call does not undo the others.
//  3. It commits once.
//  4. Only then does it answer them all.
//
// If the commit fails, every call of the transaction is answered unavailable. A call whose
// caller has left before its turn is not run. One whose caller leaves while it waits may be run
// all the same: its outcome is unknown to that caller, who was answered unavailable.
func (s *Store) write(ctx context.Context, fn writeFunc) (Answer, error) {
	if err := ctx.Err(); err != nil {
		return Answer{}, unavailable(err)
	}
	p := &pending{ctx: ctx, fn: fn, done: make(chan struct{})}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return Answer{}, unavailable(errClosed)
	}
	s.queue = append(s.queue, p)
	s.mu.Unlock()
	s.signal()
	select {
	case <-p.done:
		return p.a, p.err
	case <-ctx.Done():
		return Answer{}, unavailable(ctx.Err())
	}
}

var errClosed = errors.New("the store is closed")

// signal wakes the writer.
func (s *Store) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// writer writes the calls queued, a batch at a time, until the store is closed and nothing
// waits.
func (s *Store) writer() {
	defer close(s.stopped)
	var spare []*pending
	for {
		s.mu.Lock()
		for len(s.queue) == 0 {
			if s.closed {
				s.mu.Unlock()
				return
			}
			s.mu.Unlock()
			<-s.wake
			// The callers just answered, and those just come, are about to queue their next
			// calls. The writer lets them (the goroutines ready to run, until that brings none
			// more), so that one commit serves them all, instead of writing the first alone.
			for n := -1; ; {
				runtime.Gosched()
				s.mu.Lock()
				m := len(s.queue)
				s.mu.Unlock()
				if m == n || m >= maxBatch {
					break
				}
				n = m
			}
			s.mu.Lock()
		}
		var batch []*pending
		if len(s.queue) <= maxBatch {
			batch, s.queue = s.queue, spare[:0]
		} else {
			batch = append(spare[:0], s.queue[:maxBatch]...)
			s.queue = append(s.queue[:0], s.queue[maxBatch:]...)
		}
		s.mu.Unlock()
		s.batches.Add(1)
		s.batched.Add(int64(len(batch)))
		s.writeBatch(batch)
		clear(batch)
		spare = batch
	}
}

// writeBatch writes a batch of calls in one transaction, each in its own savepoint, commits it
// and answers every call.
func (s *Store) writeBatch(batch []*pending) {
	ctx := context.Background() // never done: see txn
	defer func() {
		for _, p := range batch {
			close(p.done)
		}
	}()
	defer func() {
		// A bug of the writer's own: the batch fails (the connection, its transaction open, was
		// discarded), and the writer goes on.
		if r := recover(); r != nil {
			for _, p := range batch {
				p.a, p.err = Answer{}, fmt.Errorf("%w: panic: %v\n%s", errorf(CodeInternal, "the wallet failed"), r, debug.Stack())
			}
		}
	}()
	conn, err := s.db.Conn(ctx)
	if err == nil {
		defer conn.Close()
		err = conn.Raw(func(dc any) error { return s.writeOn(ctx, dc.(driver.Conn), batch) })
	}
	if err != nil {
		for _, p := range batch {
			p.a, p.err = Answer{}, unavailable(err)
		}
	}
}

// writeOn writes a batch on the database's connection; if it fails, nothing of it stays, and
// if the connection may still be in the transaction, it is discarded (driver.ErrBadConn).
func (s *Store) writeOn(ctx context.Context, conn driver.Conn, batch []*pending) error {
	if conn != s.stmtsConn { // another connection (the first, or the last was discarded)
		s.stmts, s.stmtsConn = map[string]driver.Stmt{}, conn
	}
	tx := &txn{s: s, conn: conn}
	err := s.writeIn(ctx, tx, batch)
	if err != nil && tx.rollback(ctx) != nil {
		return fmt.Errorf("%w (%w)", err, driver.ErrBadConn)
	}
	return err
}

// writeIn runs a batch's calls in one transaction, each in a savepoint, and commits them.
func (s *Store) writeIn(ctx context.Context, tx *txn, batch []*pending) error {
	if err := tx.begin(ctx); err != nil {
		return err
	}
	for _, p := range batch {
		if err := p.ctx.Err(); err != nil {
			p.err = unavailable(err)
			continue
		}
		if err := tx.exec(ctx, `SAVEPOINT call`); err != nil {
			return err
		}
		p.a, p.err = run(ctx, tx, p.fn)
		if p.err != nil {
			// Undone alone; if that fails, the transaction is lost (SQLite undoes it whole after
			// some failures).
			if err := tx.exec(ctx, `ROLLBACK TO call`); err != nil {
				return err
			}
		}
		if err := tx.exec(ctx, `RELEASE call`); err != nil {
			return err
		}
	}
	return tx.commit(ctx)
}

// run runs a call's fn, its panic turned into its error (500).
func run(ctx context.Context, tx *txn, fn writeFunc) (a Answer, err error) {
	defer func() {
		if r := recover(); r != nil {
			a, err = Answer{}, fmt.Errorf("%w: panic: %v\n%s", errorf(CodeInternal, "the wallet failed"), r, debug.Stack())
		}
	}()
	a, err = fn(ctx, tx)
	if e := (*Error)(nil); err != nil && !errors.As(err, &e) {
		err = unavailable(err)
	}
	return a, err
}

// unavailable is a database failure, told as 503: the outcome is unknown to the caller, who
// tries again.
func unavailable(err error) error {
	return fmt.Errorf("%w: %v", errorf(CodeUnavailable, "the wallet's database cannot serve now"), err)
}

// player is a player's account.
type player struct {
	name    string
	balance int64
	blocked bool
}

// player reads a player's account, creating it with the initial balance on first use.
func (s *Store) player(ctx context.Context, tx *txn, name string) (player, error) {
	p := player{name: name}
	err := tx.QueryRowContext(ctx, `SELECT balance, blocked FROM players WHERE player = ?`, name).Scan(&p.balance, &p.blocked)
	if errors.Is(err, sql.ErrNoRows) {
		p.balance = s.Initial
		_, err = tx.ExecContext(ctx, `INSERT INTO players (player, balance, initial) VALUES (?, ?, ?)`, name, s.Initial, s.Initial)
	}
	return p, err
}

func setBalance(ctx context.Context, tx *txn, name string, balance int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE players SET balance = ? WHERE player = ?`, balance, name)
	return err
}
