package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"starcolor/internal/identity"
	"starcolor/internal/lottery"
)

// The differences between the dialects, all here: each a small method of Dialect that gives the
// SQL, the parameter or the lock of its dialect, so that a statement written once reads the same
// on both and says where it differs by name. Locks are nothing under SQLite's one writer, which
// runs one write at a time; PostgreSQL's servers write at once.

// Dialect is a kind of database the stores run on.
type Dialect int

// The dialects.
const (
	SQLite Dialect = iota + 1
	PostgreSQL
)

// String is the dialect's name, as its migration files end (NNNN_name.sqlite.sql).
func (d Dialect) String() string {
	switch d {
	case SQLite:
		return "sqlite"
	case PostgreSQL:
		return "postgres"
	}
	return fmt.Sprintf("Dialect(%d)", int(d))
}

// Time is a time as a parameter of the dialect: text on SQLite (TextTime), a timestamptz on
// PostgreSQL. The games' and the transfers' times are SaleTime's.
func (d Dialect) Time(t time.Time) any {
	if d == SQLite {
		return TextTime(t)
	}
	return t
}

// SaleTime is a time of the rows that grow with the sales (games, transfers) as a parameter of
// the dialect: unix nanoseconds on SQLite (migration 0041: 8 bytes where text takes 30), a
// timestamptz on PostgreSQL.
func (d Dialect) SaleTime(t time.Time) any {
	if d == SQLite {
		return t.UnixNano()
	}
	return t
}

// NullTime is t as Time writes it, or NULL for the zero time.
func (d Dialect) NullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return d.Time(t)
}

// sealsInWrite says whether a journaled write seals its entries itself, at their seqs, before
// it commits (journal.go). SQLite's one writer runs one write at a time: it is the journal's
// sequencer, and a queue would write each entry twice, for about a fifth fewer sales a second
// (docs/PERFORMANCE.md). PostgreSQL's servers write at once: their writes queue their entries.
func (d Dialect) sealsInWrite() bool { return d == SQLite }

// lock takes a lock of the transaction named name, held until it ends, where the dialect has
// writes at once (PostgreSQL's servers share a database); SQLite's writer runs one write at a
// time already.
func (d Dialect) lock(ctx context.Context, q Querier, name string) error {
	if d == SQLite {
		return nil
	}
	_, err := q.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, name)
	return err
}

// lockShared takes a lock of the transaction named name, shared with the other transactions
// that take it shared, and held until it ends; see lock.
func (d Dialect) lockShared(ctx context.Context, q Querier, name string) error {
	if d == SQLite {
		return nil
	}
	_, err := q.Exec(ctx, `SELECT pg_advisory_xact_lock_shared(hashtextextended($1, 0))`, name)
	return err
}

// lockIdentity takes the lock of the persons of one LookupKey (none: nothing to lock): a sign-up
// and an exclusion of whoever may be the same person (identity.SamePerson) wait for each other.
func (d Dialect) lockIdentity(ctx context.Context, q Querier, lookupKey string) error {
	if lookupKey == "" {
		return nil
	}
	return d.lock(ctx, q, "identity:"+lookupKey)
}

// forShare locks for share the rows of a table read in a transaction, where the dialect has
// writes at once (PostgreSQL: " FOR SHARE OF p").
func (d Dialect) forShare(table string) string {
	if d == SQLite {
		return ""
	}
	return " FOR SHARE OF " + table
}

// forNoKeyUpdate locks rows for an update that changes no key, where the dialect has writes at
// once (PostgreSQL's " FOR NO KEY UPDATE", of a table when one is named).
func (d Dialect) forNoKeyUpdate(table string) string {
	switch {
	case d == SQLite:
		return ""
	case table == "":
		return " FOR NO KEY UPDATE"
	}
	return " FOR NO KEY UPDATE OF " + table
}

// skipLocked skips the rows another transaction has locked, where servers write at once
// (PostgreSQL's " FOR UPDATE SKIP LOCKED"): another server claiming calls is not waited for.
func (d Dialect) skipLocked() string {
	if d == SQLite {
		return ""
	}
	return " FOR UPDATE SKIP LOCKED"
}

// date is a date column as text, YYYY-MM-DD (identity.DateLayout): SQLite keeps it so.
func (d Dialect) date(column string) string {
	if d == SQLite {
		return column
	}
	return "to_char(" + column + ", 'YYYY-MM-DD')"
}

// binary is a text column compared byte by byte, as SQLite compares text and sorts the keys in
// Go (PostgreSQL's COLLATE "C").
func (d Dialect) binary(column string) string {
	if d == SQLite {
		return column
	}
	return column + ` COLLATE "C"`
}

// greatest is the function of the greater of two values.
func (d Dialect) greatest() string {
	if d == SQLite {
		return "max"
	}
	return "greatest"
}

// gameOfRound is the id of the game a round id (text) names, NULL for one that names none.
func (d Dialect) gameOfRound(column string) string {
	if d == SQLite {
		return "CAST(" + column + " AS INTEGER)"
	}
	return "CASE WHEN " + column + " ~ '^[0-9]{1,18}$' THEN " + column + "::bigint END"
}

// cascades tells whether the dialect's writes delete a demo session's games with it (ON DELETE
// CASCADE): SQLite's writer does not enforce foreign keys (sqlite/writer.go), so there they are
// deleted first, in the same write.
func (d Dialect) cascades() bool { return d != SQLite }

// nameStarts is how the dialect finds the players whose name starts with start, as it always
// has: SQLite's LIKE on the name (ASCII case does not matter), PostgreSQL's on the name's key
// (identity.UsernameKey), names sorted byte by byte. It returns the condition and order, and the
// pattern for $1.
func (d Dialect) nameStarts(start string) (where, pattern string) {
	esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	if d == SQLite {
		return `p.username LIKE $1 ESCAPE '\' ORDER BY p.username`, esc.Replace(start) + "%"
	}
	return `p.name_key LIKE $1 ESCAPE '\' ORDER BY p.username COLLATE "C"`, esc.Replace(identity.UsernameKey(start)) + "%"
}

// period is the period of sales_hourly's hour column, and hour a time as that column compares
// it: on SQLite the first characters of the hour's text (a day is its first 10), on PostgreSQL
// date_trunc of the timestamptz.
func (d Dialect) period(p lottery.Period) string {
	if d == SQLite {
		return fmt.Sprintf("substr(hour, 1, %d)", len(d.periodLayout(p)))
	}
	if p == lottery.Day {
		return "date_trunc('day', hour AT TIME ZONE 'UTC')"
	}
	return "date_trunc('hour', hour AT TIME ZONE 'UTC')"
}

// periodLayout is how SQLite writes a period of sales.
func (d Dialect) periodLayout(p lottery.Period) string {
	if p == lottery.Day {
		return "2006-01-02"
	}
	return hourLayout
}

func (d Dialect) hour(t time.Time) any {
	if d == SQLite {
		return t.UTC().Format(hourLayout)
	}
	return t
}

// periodDest is a destination for a period of sales as the dialect reads it (period).
func (d Dialect) periodDest(t *time.Time, p lottery.Period) any {
	if d == SQLite {
		return layoutDest{t, d.periodLayout(p)}
	}
	return ScanTime(t)
}

// byID is a table read by its primary key alone: SQLite's NOT INDEXED keeps its planner from
// an index whose order saves a sort, but reads every row.
func (d Dialect) byID(table string) string {
	if d == SQLite {
		return table + " NOT INDEXED"
	}
	return table
}

// gameHour is the hour of a game's time as the hours since 1970, UTC: a number is cheaper to
// make for every game than its text, which hourText makes once an hour.
func (d Dialect) gameHour(column string) string {
	if d == SQLite {
		return column + " / 3600000000000" // nanoseconds, never before 1970
	}
	return "floor(extract(epoch FROM " + column + ") / 3600)::bigint"
}

// keptHour is an hour of sales_hourly, as text: 2006-01-02T15.
func (d Dialect) keptHour(column string) string {
	if d == SQLite {
		return column
	}
	return "to_char(" + column + ` AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24')`
}

// hourText is the text of an hour since 1970 (gameHour), as keptHour reads it.
func hourText(hour int64) string { return time.Unix(hour*3600, 0).UTC().Format(hourLayout) }

// refChecks are the full check's checks of the references no foreign key checks at each write,
// but those of the games and transfers (the pass proves them) and of the idempotency keys
// (checks). SQLite's writer checks none: pragma_foreign_key_check reads every other table's.
// PostgreSQL's hot tables, the games, transfers and keys, have none; its others are checked at
// each write.
func (d Dialect) refChecks() []check {
	if d != SQLite {
		return nil
	}
	return []check{{What: "rows referring to rows that do not exist (foreign keys)", SQL: `SELECT count(*) FROM sqlite_schema m, pragma_foreign_key_check(m.name) f
		WHERE m.type = 'table' AND m.name NOT IN ('games', 'transfers', 'idempotency')`}}
}
