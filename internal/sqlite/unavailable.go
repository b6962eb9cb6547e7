package sqlite

import (
	"context"
	"errors"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"starcolor/internal/fault"
)

// retryStore is the wait a client is told when the store cannot serve: long enough for an
// operator's alert to be seen, short enough not to lose a player.
const retryStore = 5 * time.Second

// asFault turns an error of the store that says it cannot write or read now (a full disk, a
// read-only or unreadable file, a lock held too long, a damaged file) into fault.Unavailable:
// 503 with Retry-After, the cause kept for the logs. Any other error is returned as it is.
// Writes fail this way until the cause goes (room on the disk): the writer starts each batch
// afresh, so it recovers by itself.
func asFault(err error) error {
	var e *sqlite.Error
	if err == nil || fault.CodeOf(err) != fault.Internal || !errors.As(err, &e) {
		return err // no error, one told already, or not the store's
	}
	var msg string
	switch e.Code() & 0xff {
	case sqlite3.SQLITE_FULL:
		msg = "the store is full: nothing was written; try again shortly"
	case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM:
		msg = "the store is read-only: nothing was written; try again shortly"
	case sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_NOLFS:
		msg = "the store cannot be read or written right now: try again shortly"
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		msg = "the store is busy: try again shortly"
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		msg = "the store is damaged: the operator has been told; try again later"
	default:
		return err
	}
	return &fault.Error{Code: fault.Unavailable, Message: msg, RetryAfter: retryStore, Cause: err}
}

// noteWrite keeps the error of a write if the store caused it (fault.WriteHealth), and returns
// it as asFault does.
func (d *DB) noteWrite(err error) error { return d.health.Note(asFault(err)) }

// CheckFile runs SQLite's check of the database file's structure (PRAGMA quick_check: every
// page and record well formed, without the indexes' contents) and returns what it finds wrong,
// at most 20 lines; nothing when the file is sound. It reads the whole file, beside the writer.
func (d *DB) CheckFile(ctx context.Context) ([]string, error) {
	rows, err := d.db.QueryContext(ctx, `PRAGMA quick_check(20)`)
	if err != nil {
		return nil, asFault(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return nil, asFault(err)
		}
		if line != "ok" {
			out = append(out, line)
		}
	}
	return out, asFault(rows.Err())
}
