package postgres

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"starcolor/internal/fault"
)

// retryStore is the wait a client is told when the store cannot serve: long enough for a
// database that restarts, short enough not to lose a player.
const retryStore = 5 * time.Second

// asFault turns an error that says the database cannot serve now (it cannot be reached, it is
// shutting down or starting, it is full, read-only or damaged, it gave up on a transaction for a
// conflict too many times) into fault.Unavailable: 503 with Retry-After, the cause kept for the
// logs. Any other error is returned as it is. The pool connects again by itself once the
// database is back, so the store recovers by itself.
func asFault(err error) error {
	if err == nil || fault.CodeOf(err) != fault.Internal || errors.Is(err, context.Canceled) {
		return err // no error, one told already, or a request given up
	}
	msg := ""
	var pe *pgconn.PgError
	var ne net.Error
	switch {
	case errors.As(err, &pe):
		switch {
		case pe.Code == "53100":
			msg = "the store is full: nothing was written; try again shortly"
		case pe.Code == "25006":
			msg = "the store is read-only: nothing was written; try again shortly"
		case pe.Code == "40001", pe.Code == "40P01", pe.Code == "55P03", strings.HasPrefix(pe.Code, "53"):
			msg = "the store is busy: try again shortly"
		case strings.HasPrefix(pe.Code, "08"), strings.HasPrefix(pe.Code, "57P"):
			msg = "the store cannot be reached right now: try again shortly"
		case pe.Code == "XX001", pe.Code == "XX002":
			msg = "the store is damaged: the operator has been told; try again later"
		default:
			return err
		}
	case errors.As(err, &ne), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), pgconn.SafeToRetry(err),
		errors.Is(err, context.DeadlineExceeded), strings.Contains(err.Error(), "failed to connect"),
		strings.Contains(err.Error(), "conn closed"), strings.Contains(err.Error(), "unexpected EOF"):
		msg = "the store cannot be reached right now: try again shortly"
	default:
		return err
	}
	return &fault.Error{Code: fault.Unavailable, Message: msg, RetryAfter: retryStore, Cause: err}
}

// noteWrite keeps the error of a write if the store caused it (fault.WriteHealth), and returns
// it as asFault does.
func (d *DB) noteWrite(err error) error { return d.health.Note(asFault(err)) }

// CheckFile reports damage to the database's files: PostgreSQL checks its pages itself as it
// reads them (and fails those reads, as XX001), so there is nothing more to read here. Every page
// of units is still checked against its commitment as it is read (emission.Reader).
func (d *DB) CheckFile(ctx context.Context) ([]string, error) {
	var one int
	return nil, asFault(d.pool.QueryRow(ctx, `SELECT 1`).Scan(&one))
}
