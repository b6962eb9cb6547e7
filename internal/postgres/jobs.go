package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// CreateJob records a new job and returns its id.
func (d *DB) CreateJob(ctx context.Context, j lottery.Job) (int64, error) {
	var id int64
	err := d.pool.QueryRow(ctx, `INSERT INTO jobs (emission_id, price, blocks, operator, started_at, done, total, state, error, elapsed_ms, beat_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`, j.Emission, j.Price, int32(j.Blocks), j.Operator, j.Started.UnixMilli(),
		int32(j.Done), int32(j.Total), j.State, j.Error, j.Elapsed.Milliseconds(), j.Beat.UnixMilli()).Scan(&id)
	return id, d.noteWrite(err)
}

// UpdateJob writes a job's progress, state and beat.
func (d *DB) UpdateJob(ctx context.Context, j lottery.Job) error {
	_, err := d.pool.Exec(ctx, `UPDATE jobs SET done = $1, total = $2, state = $3, error = $4, elapsed_ms = $5, beat_at = $6 WHERE id = $7`,
		int32(j.Done), int32(j.Total), j.State, j.Error, j.Elapsed.Milliseconds(), j.Beat.UnixMilli(), j.ID)
	return d.noteWrite(err)
}

const jobColumns = `id, emission_id, price, blocks, operator, started_at, done, total, state, error, elapsed_ms, beat_at`

func scanJob(row pgx.Row) (lottery.Job, error) {
	var j lottery.Job
	var blocks, done, total int32
	var started, elapsed, beat int64
	err := row.Scan(&j.ID, &j.Emission, &j.Price, &blocks, &j.Operator, &started, &done, &total, &j.State, &j.Error, &elapsed, &beat)
	if errors.Is(err, pgx.ErrNoRows) {
		return j, fault.Errorf(fault.NotFound, "no such job")
	}
	j.Blocks, j.Done, j.Total = int(blocks), int(done), int(total)
	j.Started, j.Elapsed, j.Beat = time.UnixMilli(started), time.Duration(elapsed)*time.Millisecond, time.UnixMilli(beat)
	return j, asFault(err)
}

// Job reads a job.
func (d *DB) Job(ctx context.Context, id int64) (lottery.Job, error) {
	return scanJob(d.pool.QueryRow(ctx, `SELECT `+jobColumns+` FROM jobs WHERE id = $1`, id))
}

// RunningJob finds the latest job still running, if any.
func (d *DB) RunningJob(ctx context.Context) (lottery.Job, bool, error) {
	j, err := scanJob(d.pool.QueryRow(ctx, `SELECT `+jobColumns+` FROM jobs WHERE state = 'running' ORDER BY id DESC LIMIT 1`))
	if fault.Is(err, fault.NotFound) {
		return j, false, nil
	}
	return j, err == nil, err
}

// TryLease takes the lease called name for holder until a time, if it is free (never taken,
// expired, or held by holder already), and tells whether it did: one statement, which servers
// trying at once pass one after the other.
func (d *DB) TryLease(ctx context.Context, name, holder string, now, until time.Time) (bool, error) {
	tag, err := d.pool.Exec(ctx, `INSERT INTO leases AS l (name, holder, until_ms) VALUES ($1, $2, $3)
		ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until_ms = excluded.until_ms
		WHERE l.holder = excluded.holder OR l.until_ms < $4`, name, holder, until.UnixMilli(), now.UnixMilli())
	return err == nil && tag.RowsAffected() == 1, d.noteWrite(err)
}

// ReleaseLease gives up a lease holder holds.
func (d *DB) ReleaseLease(ctx context.Context, name, holder string) error {
	_, err := d.pool.Exec(ctx, `DELETE FROM leases WHERE name = $1 AND holder = $2`, name, holder)
	return d.noteWrite(err)
}
