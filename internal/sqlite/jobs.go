package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// The back office's jobs (emissions being created) and the leases that let one server of several
// do a piece of work (a sweep) are kept in the store, as the PostgreSQL store must keep them for
// servers that share it. Over SQLite one server sells from a file, so they are simply rows.

// CreateJob records a new job and returns its id.
func (d *DB) CreateJob(ctx context.Context, j lottery.Job) (int64, error) {
	var id int64
	err := d.update(ctx, func(t *tx) error {
		res, err := t.exec(`INSERT INTO jobs (emission_id, price, blocks, operator, started_at, done, total, state, error, elapsed_ms, beat_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, j.Emission, j.Price, j.Blocks, j.Operator, j.Started.UnixMilli(), j.Done, j.Total,
			j.State, j.Error, j.Elapsed.Milliseconds(), j.Beat.UnixMilli())
		if err == nil {
			id, err = res.LastInsertId()
		}
		return err
	})
	return id, err
}

// UpdateJob writes a job's progress, state and beat.
func (d *DB) UpdateJob(ctx context.Context, j lottery.Job) error {
	return d.update(ctx, func(t *tx) error {
		_, err := t.exec(`UPDATE jobs SET done = ?, total = ?, state = ?, error = ?, elapsed_ms = ?, beat_at = ? WHERE id = ?`,
			j.Done, j.Total, j.State, j.Error, j.Elapsed.Milliseconds(), j.Beat.UnixMilli(), j.ID)
		return err
	})
}

const jobColumns = `id, emission_id, price, blocks, operator, started_at, done, total, state, error, elapsed_ms, beat_at`

func scanJob(row scanner) (lottery.Job, error) {
	var j lottery.Job
	var started, elapsed, beat int64
	err := row.Scan(&j.ID, &j.Emission, &j.Price, &j.Blocks, &j.Operator, &started, &j.Done, &j.Total, &j.State, &j.Error, &elapsed, &beat)
	if errors.Is(err, sql.ErrNoRows) {
		return j, fault.Errorf(fault.NotFound, "no such job")
	}
	j.Started, j.Elapsed, j.Beat = time.UnixMilli(started), time.Duration(elapsed)*time.Millisecond, time.UnixMilli(beat)
	return j, asFault(err)
}

// Job reads a job.
func (d *DB) Job(ctx context.Context, id int64) (lottery.Job, error) {
	return scanJob(d.db.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM jobs WHERE id = ?`, id))
}

// RunningJob finds the latest job still running, if any.
func (d *DB) RunningJob(ctx context.Context) (lottery.Job, bool, error) {
	j, err := scanJob(d.db.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM jobs WHERE state = 'running' ORDER BY id DESC LIMIT 1`))
	if fault.Is(err, fault.NotFound) {
		return j, false, nil
	}
	return j, err == nil, err
}

// TryLease takes the lease called name for holder until a time, if it is free (never taken,
// expired, or held by holder already), and tells whether it did.
func (d *DB) TryLease(ctx context.Context, name, holder string, now, until time.Time) (bool, error) {
	var got bool
	err := d.update(ctx, func(t *tx) error {
		res, err := t.exec(`INSERT INTO leases (name, holder, until_ms) VALUES (?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until_ms = excluded.until_ms
			WHERE leases.holder = excluded.holder OR leases.until_ms < ?`, name, holder, until.UnixMilli(), now.UnixMilli())
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		got = n == 1
		return err
	})
	return got, err
}

// ReleaseLease gives up a lease holder holds.
func (d *DB) ReleaseLease(ctx context.Context, name, holder string) error {
	return d.update(ctx, func(t *tx) error {
		_, err := t.exec(`DELETE FROM leases WHERE name = ? AND holder = ?`, name, holder)
		return err
	})
}

// locks serialises the WithLock sections of this process: one server sells from a file.
var locks sync.Map // path and name → *sync.Mutex

// WithLock runs fn while no other WithLock section of the same name runs on this store.
func (d *DB) WithLock(ctx context.Context, name string, fn func() error) error {
	m, _ := locks.LoadOrStore(d.Path+"\x00"+name, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	defer mu.Unlock()
	return fn()
}

// OneServer tells that one server at most sells from this store (serve holds a lock beside the
// file): what that server keeps in memory of it, such as its sessions, stays exact.
func (d *DB) OneServer() bool { return true }
