package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"starcolor/internal/emission"
	"starcolor/internal/fault"
	"starcolor/internal/journal"
)

// DB is the part of a store written once for both dialects. Its methods run the statements the
// dialects agree on, through the store's own ways of reading and writing (Config). sqlite.DB and
// postgres.DB embed it, and keep for themselves what earns its place per dialect: opening, the
// SQLite writer, the sales, locks, COPY, error mapping.
type DB struct {
	d        Dialect
	read     Querier
	snapshot func(ctx context.Context, fn func(Querier) error) error
	once     Querier
	write    func(ctx context.Context, fn func(Querier) error) error
	fault    func(error) error
	unique   func(error) bool
	health   *fault.WriteHealth
	key      *journal.AccountKey
	pages    emission.Pages
	// statusChanged is Config.StatusChanged.
	statusChanged func()
}

// Config is how a store reads and writes, for the statements written once.
type Config struct {
	Dialect Dialect
	// Read runs the reads made outside a write.
	Read Querier
	// Snapshot runs fn in a read-only transaction, whose reads all see one state of the
	// database (an emission and its blocks read together).
	Snapshot func(ctx context.Context, fn func(Querier) error) error
	// Once runs a write of one statement, committed on its own: through SQLite's writer, in its
	// next batch; on PostgreSQL's pool, without a transaction around it. Its errors are faults,
	// noted by the store's health (fault.WriteHealth).
	Once Querier
	// Write runs fn as one write of the store, committed if fn returns nil, its error a fault.
	// On SQLite it runs in the writer's next batch, in a savepoint of its own. On PostgreSQL it
	// runs in a transaction, run again when PostgreSQL gives it up for a conflict (40001, 40P01).
	Write func(ctx context.Context, fn func(Querier) error) error
	// Fault turns the database's errors into faults (a full disk, a server down: Unavailable).
	Fault func(error) error
	// Unique tells an error for a unique constraint broken.
	Unique func(error) bool
	// Health keeps the store's failed writes, for CheckWrite.
	Health *fault.WriteHealth
	// AccountKey makes the account references of the journal's entries (journal.AccountKey.Ref).
	// A journaled write without it fails.
	AccountKey *journal.AccountKey
	// Pages reads the stored units, for the comparison of the journal's sales with their units
	// (CompareJournal): each store reads them its own way.
	Pages emission.Pages
	// StatusChanged, if set, is called inside a write that changes an emission's status: SQLite's
	// writer then reads its cursors again, which it otherwise keeps from batch to batch.
	StatusChanged func()
}

// New makes the shared part of a store.
func New(c Config) *DB {
	return &DB{d: c.Dialect, read: c.Read, snapshot: c.Snapshot, once: c.Once, write: c.Write, fault: c.Fault, unique: c.Unique, health: c.Health,
		key: c.AccountKey, pages: c.Pages, statusChanged: c.StatusChanged}
}

// TextLayout is how SQLite keeps a time a person reads: RFC 3339 in UTC, to the nanosecond, at
// a fixed width, so that times sort as text in the order of time (time.RFC3339Nano reads it
// back). The games' and the transfers' times are integers instead (Dialect.SaleTime).
const TextLayout = "2006-01-02T15:04:05.000000000Z07:00"

// TextTime is a time as SQLite keeps it (TextLayout).
func TextTime(t time.Time) string { return t.UTC().Format(TextLayout) }

// ScanTime is a destination for a time of either dialect (SQLite's text, or unix nanoseconds
// for the games and transfers (SaleTime); PostgreSQL's timestamptz), read in UTC; NULL is the
// zero time.
func ScanTime(t *time.Time) sql.Scanner { return timeDest{t} }

type timeDest struct{ t *time.Time }

func (d timeDest) Scan(src any) (err error) {
	switch v := src.(type) {
	case nil:
		*d.t = time.Time{}
	case time.Time:
		*d.t = v.UTC()
	case int64:
		*d.t = time.Unix(0, v).UTC()
	case string:
		*d.t, err = time.Parse(time.RFC3339Nano, v)
	case []byte:
		*d.t, err = time.Parse(time.RFC3339Nano, string(v))
	default:
		err = fmt.Errorf("a time stored as %T", src)
	}
	return err
}

// each runs a function on every row of a query's result, then closes it: each(q.Query(…))(fn).
func each(rows Rows, err error) func(fn func(Rows) error) error {
	return func(fn func(Rows) error) error {
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
}

// idList writes ids as the list of an SQL IN: ids are numbers, written in the statement rather
// than as its parameters, which are many and would be bound one by one.
func idList(ids []int64) string {
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(id, 10))
	}
	return b.String()
}

// registerLock orders imports of the list of excluded persons and sign-ups. An import holds it
// alone (lock), each sign-up shared (lockShared). So no account opens unseen while a list is
// imported, where the import would not find it to close it.
const registerLock = "starcolor:register"

// CheckWrite says whether the store can write now. It fails if a write has failed for the
// store's sake in the last few seconds, or if a write of its own fails (fault.WriteHealth). It
// makes that write at most once a second, as its row costs a page of the WAL. On SQLite the
// write goes through the writer, as every write does.
func (s *DB) CheckWrite(ctx context.Context) error {
	return s.health.Check(ctx, func(ctx context.Context) error {
		_, err := s.once.Exec(ctx, `INSERT INTO health (id, checked_at) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at`, time.Now().Unix())
		return err
	})
}
