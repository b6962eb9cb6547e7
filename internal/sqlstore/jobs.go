package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// The back office's jobs (emissions being created) and the leases that let one server of several
// do a piece of work (a sweep) are kept in the store, for the servers that share it.

// CreateJob records a new job and returns its id.
func (s *DB) CreateJob(ctx context.Context, j lottery.Job) (int64, error) {
	var id int64
	err := s.once.QueryRow(ctx, `INSERT INTO jobs (emission_id, price, blocks, operator, started_at, done, total, state, error, elapsed_ms, beat_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`, j.Emission, j.Price, j.Blocks, j.Operator, j.Started.UnixMilli(),
		j.Done, j.Total, j.State, j.Error, j.Elapsed.Milliseconds(), j.Beat.UnixMilli()).Scan(&id)
	return id, err
}

// UpdateJob writes a job's progress, state and beat.
func (s *DB) UpdateJob(ctx context.Context, j lottery.Job) error {
	_, err := s.once.Exec(ctx, `UPDATE jobs SET done = $1, total = $2, state = $3, error = $4, elapsed_ms = $5, beat_at = $6 WHERE id = $7`,
		j.Done, j.Total, j.State, j.Error, j.Elapsed.Milliseconds(), j.Beat.UnixMilli(), j.ID)
	return err
}

const jobColumns = `id, emission_id, price, blocks, operator, started_at, done, total, state, error, elapsed_ms, beat_at`

func (s *DB) scanJob(row Row) (lottery.Job, error) {
	var j lottery.Job
	var started, elapsed, beat int64
	err := row.Scan(&j.ID, &j.Emission, &j.Price, &j.Blocks, &j.Operator, &started, &j.Done, &j.Total, &j.State, &j.Error, &elapsed, &beat)
	if errors.Is(err, sql.ErrNoRows) {
		return j, fault.Errorf(fault.NotFound, "no such job")
	}
	j.Started, j.Elapsed, j.Beat = time.UnixMilli(started), time.Duration(elapsed)*time.Millisecond, time.UnixMilli(beat)
	return j, s.fault(err)
}

// Job reads a job.
func (s *DB) Job(ctx context.Context, id int64) (lottery.Job, error) {
	return s.scanJob(s.read.QueryRow(ctx, `SELECT `+jobColumns+` FROM jobs WHERE id = $1`, id))
}

// RunningJob finds the latest job still running, if any.
func (s *DB) RunningJob(ctx context.Context) (lottery.Job, bool, error) {
	j, err := s.scanJob(s.read.QueryRow(ctx, `SELECT `+jobColumns+` FROM jobs WHERE state = 'running' ORDER BY id DESC LIMIT 1`))
	if fault.Is(err, fault.NotFound) {
		return j, false, nil
	}
	return j, err == nil, err
}

// TryLease takes the lease called name for holder until a time, if it is free (never taken,
// expired, or held by holder already), and tells whether it did: one statement, which servers
// trying at once pass one after the other.
func (s *DB) TryLease(ctx context.Context, name, holder string, now, until time.Time) (bool, error) {
	n, err := s.once.Exec(ctx, `INSERT INTO leases (name, holder, until_ms) VALUES ($1, $2, $3)
		ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until_ms = excluded.until_ms
		WHERE leases.holder = excluded.holder OR leases.until_ms < $4`, name, holder, until.UnixMilli(), now.UnixMilli())
	return err == nil && n == 1, err
}

// Lease reads who holds the lease called name, and until when; ok is false if nobody ever took
// it, or the last holder gave it up.
func (s *DB) Lease(ctx context.Context, name string) (holder string, until time.Time, ok bool, err error) {
	var ms int64
	err = s.read.QueryRow(ctx, `SELECT holder, until_ms FROM leases WHERE name = $1`, name).Scan(&holder, &ms)
	if errors.Is(err, sql.ErrNoRows) {
		return "", time.Time{}, false, nil
	}
	if err != nil {
		return "", time.Time{}, false, s.fault(err)
	}
	return holder, time.UnixMilli(ms).UTC(), true, nil
}

// ReleaseLease gives up a lease holder holds.
func (s *DB) ReleaseLease(ctx context.Context, name, holder string) error {
	_, err := s.once.Exec(ctx, `DELETE FROM leases WHERE name = $1 AND holder = $2`, name, holder)
	return err
}
