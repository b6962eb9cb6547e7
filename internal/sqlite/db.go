// Package sqlite is the project's embedded store: one SQLite file (pure Go, modernc.org/sqlite) in
// WAL mode with synchronous=FULL, so that a committed transaction survives a crash, served by one
// server at a time. Each public method runs in one transaction, and reads and writes the domain's
// types (internal/lottery); SQLite's errors never leave it but as faults (asFault). Writes go
// through one writer that commits them in batches (writer.go); the sales of a batch are decided by
// the domain (lottery.Decide) and written in a few multi-row statements (sales.go). The schema
// comes from the one history both stores share (internal/sqlstore).
package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite" // registers the "sqlite" driver

	"starcolor/internal/fault"
	"starcolor/internal/journal"
	"starcolor/internal/lottery"
	"starcolor/internal/sqlstore"
	"starcolor/internal/store"
)

// errNoAccountKey is a store opened without the journal's account key.
var errNoAccountKey = errors.New("open the store: no account key for the journal")

// isConstraint reports whether err is SQLite's report of the given constraint failing.
func isConstraint(err error, code int) bool {
	var e *sqlite.Error
	return errors.As(err, &e) && e.Code() == code
}

// DB is the whole store of internal/store.
var _ store.Store = (*DB)(nil)

// DB is an open database file.
type DB struct {
	*sqlstore.DB // the statements written once for both dialects (querier.go)

	db   *sql.DB
	Path string

	// The batched writer (writer.go).
	ops        chan *writeOp
	writerDone chan struct{}

	stopCheckpoints, checkpointerDone chan struct{}
	stopOnce                          sync.Once
	checkpointDue                     atomic.Bool // see checkpointLoop
	writeMu                           sync.RWMutex
	closed                            bool
	batches                           atomic.Int64
	batchedOps                        atomic.Int64
	running                           atomic.Int64 // nanoseconds the writer spent running statements
	committing                        atomic.Int64 // nanoseconds the writer spent in COMMIT (the WAL written and synced)

	stmtMu sync.Mutex
	stmts  map[string]*sql.Stmt

	health fault.WriteHealth // see CheckWrite

	gameIDs gameIDs // see ids.go

	// statuses counts the writes that changed an emission's status: the writer reads its cursors
	// again when it has moved since its last batch of sales (sales.go).
	statuses atomic.Int64

	linger atomic.Int64 // nanoseconds: see Linger
}

// Open opens (creating if needed) the database file at path and brings its schema up to date.
// key makes the account references of the journal's entries (docs/spec/API.md 1.2): every write
// that journals needs it, so a store is never opened without it.
//
// It is the server's form: a map of 1 GB lets reads find pages without a system call, and
// savepoints keep the pages they may undo in memory (temp_store) rather than in a temporary file
// written at each one.
func Open(ctx context.Context, path string, key *journal.AccountKey) (*DB, error) {
	return open(ctx, path, key, "mmap_size(1073741824)", "temp_store(MEMORY)")
}

// OpenCommand is Open for the commands that read or write a whole history or emission at once
// (ledger check, emission create), with their memory bounded whatever the history:
//   - each connection maps 32 MB of the file, not 1 GB: every page of the map a command touches
//     counts in its memory, once per connection, and ledger check reads on four at once;
//   - what a query sorts or groups goes to temporary files past SQLite's cache, not to memory.
func OpenCommand(ctx context.Context, path string, key *journal.AccountKey) (*DB, error) {
	return open(ctx, path, key, "mmap_size(33554432)", "temp_store(FILE)")
}

// open opens the file with the pragmas the store needs and those the caller chooses: how much
// of the file is mapped, and where temporary data goes.
func open(ctx context.Context, path string, key *journal.AccountKey, pragmas ...string) (*DB, error) {
	if path == "" {
		return nil, errors.New("no database path")
	}
	if key == nil {
		return nil, errNoAccountKey
	}
	if err := initFile(ctx, path); err != nil {
		return nil, err
	}
	// Staging files of emissions whose creation died with its process (CreateEmissionStaged).
	removeAbandonedStaging(path)
	q := url.Values{}
	// Checkpoints (copying the WAL into the database) are not made by the commit that fills the
	// WAL, which would then take tens of milliseconds, but mostly by a goroutine of their own
	// beside the writer (checkpointLoop); the last connection to close checkpoints what is left.
	for _, p := range []string{"journal_mode(WAL)", "synchronous(FULL)", "busy_timeout(10000)", "foreign_keys(ON)",
		"wal_autocheckpoint(0)"} {
		q.Add("_pragma", p)
	}
	for _, p := range pragmas {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	// Connections are kept open: opening one runs the pragmas and reads the schema again.
	db.SetMaxIdleConns(64)
	db.SetMaxOpenConns(64)
	d := &DB{db: db, Path: path, ops: make(chan *writeOp, maxBatch), writerDone: make(chan struct{}), stmts: map[string]*sql.Stmt{},
		stopCheckpoints: make(chan struct{}), checkpointerDone: make(chan struct{})}
	d.DB = d.shared(key)
	if err := d.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	go d.writeLoop()
	go d.checkpointLoop(d.stopCheckpoints)
	if err := d.rekey(ctx, time.Now()); err != nil {
		d.Close()
		return nil, fmt.Errorf("open %s: the keys of names: %w", path, err)
	}
	return d, nil
}

// checkpointEvery is how often the WAL is copied into the database. A page written by many
// commits in that time is copied once. (Variables for the tests.)
var checkpointEvery = time.Second

// restartFrames is the WAL's length, in frames, from which the writer finishes the checkpoint
// itself, so that the WAL starts again from its beginning instead of growing.
var restartFrames = 4096

// checkpointLoop copies the WAL into the database every checkpointEvery until the database is
// closed. It copies without blocking the writer (PASSIVE), but under a steady load it never
// catches up: by the time it is done, the writer has appended more, and SQLite only starts the
// WAL again from its beginning once all of it is copied. So when the WAL grows long, it asks the
// writer to copy the last frames between two batches (finishCheckpoint), which is quick, since
// most are copied already.
func (d *DB) checkpointLoop(stop <-chan struct{}) {
	defer close(d.checkpointerDone)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			var busy, frames, copied int
			// An error is retried next time.
			if d.db.QueryRowContext(context.Background(), `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &copied) == nil && frames >= restartFrames {
				d.checkpointDue.Store(true)
			}
		}
	}
}

// Close finishes the writes already queued, then closes the database.
func (d *DB) Close() error {
	d.writeMu.Lock()
	if !d.closed {
		d.closed = true
		close(d.ops)
	}
	d.writeMu.Unlock()
	<-d.writerDone
	d.stopOnce.Do(func() { close(d.stopCheckpoints) })
	<-d.checkpointerDone
	d.stmtMu.Lock()
	for _, s := range d.stmts {
		s.Close()
	}
	d.stmtMu.Unlock()
	return d.db.Close()
}

// WriteStats tells what the writer has done since the database was opened.
func (d *DB) WriteStats() lottery.WriteStats {
	return lottery.WriteStats{Batches: d.batches.Load(), Ops: d.batchedOps.Load(),
		Running: time.Duration(d.running.Load()), Committing: time.Duration(d.committing.Load())}
}

// migrate brings the schema up to date with the history (sqlstore.History), each step in a
// transaction of its own, before the writer starts. The steps run on one connection with foreign
// keys unchecked, as SQLite asks of a step that makes a table again (0041): its rows are copied as
// they are, as the writer wrote them (it checks no reference either), and `ledger check` reports
// a reference that was broken already.
func (d *DB) migrate(ctx context.Context) error {
	conn, err := d.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
		return err
	}
	err = sqlstore.Migrate(ctx, sqlstore.SQLite, sqlstore.History, func(ctx context.Context, fn func(sqlstore.Querier) error) error {
		return sqlstore.InStdTx(ctx, conn, fn)
	})
	if _, on := conn.ExecContext(context.Background(), `PRAGMA foreign_keys = ON`); on != nil {
		// The pool's other connections check them: this one is not given back to it.
		conn.Raw(func(any) error { return driver.ErrBadConn })
		err = cmp.Or(err, on)
	}
	return err
}

// queryRow runs a hot read through a statement prepared once (per connection, by database/sql):
// the reads of every request (the session, the player) would otherwise be parsed each time.
func (d *DB) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	d.stmtMu.Lock()
	s := d.stmts[query]
	if s == nil {
		var err error
		if s, err = d.db.PrepareContext(ctx, query); err != nil {
			d.stmtMu.Unlock()
			return d.db.QueryRowContext(ctx, query, args...)
		}
		d.stmts[query] = s
	}
	d.stmtMu.Unlock()
	return s.QueryRowContext(ctx, args...)
}

// pageSize is the size of the database's pages, chosen when its file is made. The sales write
// about two pages of their own each (the tail of the player's history and of their idempotency
// keys), and every page a commit touches is written whole to the WAL and synced: smaller pages
// make the same sales cost fewer bytes.
var pageSize = 1024

// initFile makes a new database file with pageSize pages; an existing one is left as it is (the
// page size of a file in WAL mode cannot change).
func initFile(ctx context.Context, path string) error {
	if st, err := os.Stat(path); err == nil && st.Size() > 0 {
		return nil
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	for _, q := range []string{fmt.Sprintf("PRAGMA page_size = %d", pageSize), "PRAGMA journal_mode = WAL"} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("init %s: %w", path, err)
		}
	}
	return nil
}
