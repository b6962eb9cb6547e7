// Package postgres is the store for several servers of one game: a PostgreSQL database (through
// github.com/jackc/pgx/v5) that any number of `starcolor serve` processes share. It keeps
// nothing of the game in memory but what never changes.
//
// It keeps the same contract as the SQLite store (internal/storetest runs on both) with
// PostgreSQL's means:
//
//   - Sales are decided by the domain (lottery.Decide) in batches, each one transaction of a few
//     multi-row statements, with the rows they depend on locked (sales.go).
//   - Every other write is a short transaction of its own, retried when PostgreSQL gives up on
//     it for a conflict (40001, 40P01).
//   - The emissions' units are copied in with COPY.
//
// Its errors never leave it but as faults (asFault). A database that cannot be reached is a 503
// with Retry-After, and the pool connects again by itself when it is back. The schema comes from
// the one history both stores share (internal/sqlstore).
package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"starcolor/internal/fault"
	"starcolor/internal/journal"
	"starcolor/internal/lottery"
	"starcolor/internal/sqlstore"
	"starcolor/internal/store"
)

// DB is the whole store of internal/store.
var _ store.Store = (*DB)(nil)

// DB is an open PostgreSQL store.
type DB struct {
	*sqlstore.DB // the statements written once for both dialects (querier.go)

	pool *pgxpool.Pool
	// pages reads the emissions' units, apart. A batch of sales reads the prizes of the units it
	// sells while it holds its locks. It must never wait for a connection that a transaction
	// waiting for those locks holds.
	pages *pgxpool.Pool

	// The batches of sales (sales.go).
	sales      chan *saleOp
	salesDone  chan struct{}
	closeOnce  sync.Once
	closeMu    sync.RWMutex
	closed     bool
	batches    atomic.Int64
	batchedOps atomic.Int64
	running    atomic.Int64 // nanoseconds the batches spent before their commit
	lastReads  atomic.Int64 // nanoseconds the last batch's reads took: more when it waited for a block
	committing atomic.Int64 // nanoseconds spent in their commits

	health fault.WriteHealth // see CheckWrite
}

// Open connects to the database of a postgres:// URL and brings its schema up to date (once,
// whatever the number of servers starting together). key makes the account references of the
// journal's entries (docs/spec/API.md 1.2): every write that journals needs it, so a store is
// never opened without it. The servers of one database must share it.
func Open(ctx context.Context, url string, key *journal.AccountKey) (*DB, error) {
	if key == nil {
		return nil, errors.New("postgres: no account key for the journal")
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if cfg.MaxConns < 16 {
		// Requests read beside the batches of sales; each holds a connection a short while.
		cfg.MaxConns = 16
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	pagesCfg := cfg.Copy()
	pagesCfg.MaxConns = 4
	pages, err := pgxpool.NewWithConfig(ctx, pagesCfg)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	d := &DB{pool: pool, pages: pages, sales: make(chan *saleOp, maxBatch), salesDone: make(chan struct{})}
	d.DB = d.shared(key)
	if err := d.migrate(ctx); err != nil {
		pool.Close()
		pages.Close()
		return nil, fmt.Errorf("postgres: %w", asFault(err))
	}
	go d.sellLoop()
	return d, nil
}

// Close finishes the sales already queued, then closes the connections.
func (d *DB) Close() error {
	d.closeOnce.Do(func() {
		d.closeMu.Lock()
		d.closed = true
		close(d.sales)
		d.closeMu.Unlock()
		<-d.salesDone
		d.pool.Close()
		d.pages.Close()
	})
	return nil
}

// OneServer is false: any number of servers may share the database, so none may keep a copy of
// what changes (sessions) in memory.
func (d *DB) OneServer() bool { return false }

// WriteStats tells what the batches of sales have done since the store was opened.
func (d *DB) WriteStats() lottery.WriteStats {
	return lottery.WriteStats{Batches: d.batches.Load(), Ops: d.batchedOps.Load(),
		Running: time.Duration(d.running.Load()), Committing: time.Duration(d.committing.Load())}
}

// migrationLock is the advisory lock the processes starting at once take in turn to bring the
// schema up to date.
const migrationLock = 0x5374_6172_436f_6c // "StarCol"

// migrate brings the schema up to date under an advisory lock: of the servers starting
// together, one does it and the others find it done. It goes in two steps:
//
//  1. It applies the history (sqlstore.History), each step in a transaction of its own.
//  2. It makes the keys of names again if their comparison has changed (rekey).
func (d *DB) migrate(ctx context.Context) error {
	conn, err := d.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, int64(migrationLock)); err != nil {
		return err
	}
	defer conn.Exec(context.Background(), `SELECT pg_advisory_unlock($1)`, int64(migrationLock))
	err = sqlstore.Migrate(ctx, sqlstore.PostgreSQL, sqlstore.History, func(ctx context.Context, fn func(sqlstore.Querier) error) error {
		return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error { return fn(pgxQ{tx}) })
	})
	if err != nil {
		return err
	}
	if err := d.rekey(ctx, conn.Conn(), time.Now()); err != nil {
		return fmt.Errorf("the keys of names: %w", err)
	}
	return nil
}

// retries is how many times a transaction PostgreSQL gave up on for a conflict is run again.
const retries = 10

// inTx runs fn in a transaction, committed if fn returns nil. It runs it again when PostgreSQL
// gives up on it for a conflict with another (a serialization failure, a deadlock). Its error
// comes out as a fault.
func (d *DB) inTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	var err error
	for attempt := 0; attempt < retries; attempt++ {
		err = pgx.BeginFunc(ctx, d.pool, fn)
		if !retryable(err) {
			break
		}
		time.Sleep(time.Duration(attempt+1) * time.Millisecond)
	}
	return d.noteWrite(err)
}

// retryable tells a transaction that PostgreSQL gave up on for a conflict with another, and that
// may simply run again.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

// isCode tells a PostgreSQL error of a given code (on a given constraint, when one is named).
func isCode(err error, code, constraint string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == code && (constraint == "" || pe.ConstraintName == constraint)
}

// WithLock runs fn while no other section of the same name runs, on any server of the database.
// It holds a session-level advisory lock on a connection of its own meanwhile.
func (d *DB) WithLock(ctx context.Context, name string, fn func() error) error {
	conn, err := d.pool.Acquire(ctx)
	if err != nil {
		return asFault(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(hashtextextended($1, 0))`, "starcolor:"+name); err != nil {
		return asFault(err)
	}
	defer conn.Exec(context.Background(), `SELECT pg_advisory_unlock(hashtextextended($1, 0))`, "starcolor:"+name)
	return fn()
}
