package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"starcolor/internal/emission"
	"starcolor/internal/fault"
	"starcolor/internal/journal"
	"starcolor/internal/lottery"
)

// ChangeEmissionStatus suspends or resumes an emission, in one write with its line in the
// operators' log and its entry in the journal:
//
//  1. the emission's changes are taken one at a time (a lock of the transaction on PostgreSQL;
//     SQLite's writer runs one write at a time);
//  2. its status now is read: its latest change's, or sold out once every unit is sold;
//  3. a change its life does not allow is fault.InvalidState, and nothing is written;
//  4. its blocks' selling flag is set. On PostgreSQL this waits for the batches of sales that
//     hold those rows, and every batch after the commit sees them closed: the suspension is
//     at once on every server;
//  5. the change is kept in the emission's history.
func (s *DB) ChangeEmissionStatus(ctx context.Context, c lottery.EmissionChange, log lottery.OperatorAction) (lottery.EmissionChange, error) {
	err := s.write(ctx, func(q Querier) error {
		if err := s.changeStatus(ctx, q, &c, false); err != nil {
			return err
		}
		return s.logAction(ctx, q, log)
	})
	return c, s.fault(err)
}

// changeStatus makes a change of status in the write q, steps 1 to 5 of ChangeEmissionStatus,
// with its journal entry: c's ID is its history row's. An opening is a scheduled emission's
// going on sale (lottery.CheckOpening), which only its schedule does.
func (s *DB) changeStatus(ctx context.Context, q Querier, c *lottery.EmissionChange, opening bool) error {
	if err := s.d.lock(ctx, q, "starcolor:emission:"+c.Emission); err != nil {
		return err
	}
	current, err := emissionStatus(ctx, q, c.Emission)
	if err != nil {
		return err
	}
	check := lottery.CheckChange(current, c.Status)
	if opening {
		check = lottery.CheckOpening(current)
	}
	if check != nil {
		return check
	}
	if _, err := q.Exec(ctx, `UPDATE blocks SET selling = $1 WHERE emission_id = $2`, c.Status == lottery.OnSale, c.Emission); err != nil {
		return err
	}
	if err := q.QueryRow(ctx, `INSERT INTO emission_history (emission_id, status, reason, by_name, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
		c.Emission, c.Status, c.Reason, c.By, s.d.Time(c.At)).Scan(&c.ID); err != nil {
		return err
	}
	// The entry names the emission's price and table, as its creation's does; its roots are the
	// creation's, never restated.
	var price int64
	var definition string
	if err := q.QueryRow(ctx, `SELECT price, definition FROM emissions WHERE id = $1`, c.Emission).Scan(&price, &definition); err != nil {
		return err
	}
	if err := s.AppendJournal(ctx, q, c.At, journal.Emission{ID: c.Emission, Event: c.Status, Price: price, Definition: definition, Operator: c.By}); err != nil {
		return err
	}
	if s.statusChanged != nil {
		s.statusChanged()
	}
	return nil
}

// OpenScheduled puts on sale each scheduled emission whose on_sale_at has come by now, each in
// a write of its own with its history row and its journal entry, made by lottery.BySchedule.
// Every server runs it: the emission's lock and its status make each opening happen once.
func (s *DB) OpenScheduled(ctx context.Context, now time.Time) ([]string, error) {
	var due []string
	err := each(s.read.Query(ctx, `SELECT e.id FROM emissions e JOIN emission_history h ON h.emission_id = e.id
		WHERE e.on_sale_at IS NOT NULL AND e.on_sale_at <= $1 AND h.status = 'scheduled'
		AND h.id = (SELECT max(id) FROM emission_history l WHERE l.emission_id = e.id) ORDER BY e.on_sale_at, e.id`, s.d.Time(now)))(func(r Rows) error {
		var id string
		err := r.Scan(&id)
		due = append(due, id)
		return err
	})
	if err != nil {
		return nil, s.fault(err)
	}
	var opened []string
	for _, id := range due {
		err := s.write(ctx, func(q Querier) error {
			c := lottery.EmissionChange{Emission: id, Status: lottery.OnSale, By: lottery.BySchedule, At: now}
			return s.changeStatus(ctx, q, &c, true)
		})
		switch {
		case fault.Is(err, fault.InvalidState): // opened by another server, or withdrawn meanwhile
		case err != nil:
			return opened, s.fault(err)
		default:
			opened = append(opened, id)
		}
	}
	return opened, nil
}

// Schedule keeps, in the write q that makes the emission e, that it opens at e.OnSaleAt: its
// blocks not selling, its history's first row, its journal entry. An emission on sale once made
// needs nothing of it.
func (s *DB) Schedule(ctx context.Context, q Querier, e *emission.Emission, by string) error {
	if !e.Scheduled() {
		return nil
	}
	if _, err := q.Exec(ctx, `UPDATE blocks SET selling = $1 WHERE emission_id = $2`, false, e.ID); err != nil {
		return err
	}
	if _, err := q.Exec(ctx, `INSERT INTO emission_history (emission_id, status, reason, by_name, created_at) VALUES ($1, $2, $3, $4, $5)`,
		e.ID, lottery.Scheduled, "", by, s.d.Time(e.CreatedAt)); err != nil {
		return err
	}
	return s.AppendJournal(ctx, q, e.CreatedAt, journal.Emission{ID: e.ID, Event: lottery.Scheduled, Price: e.Price, Definition: e.Definition,
		OnSaleAt: e.OnSaleAt, Operator: by})
}

// emissionStatus is an emission's status now, as a write reads it: fault.NotFound if there is
// no such emission.
func emissionStatus(ctx context.Context, q Querier, id string) (string, error) {
	var blocks, open int64
	if err := q.QueryRow(ctx, `SELECT count(*), CAST(coalesce(sum(CASE WHEN sold < units THEN 1 ELSE 0 END), 0) AS BIGINT) FROM blocks WHERE emission_id = $1`,
		id).Scan(&blocks, &open); err != nil {
		return "", err
	}
	if blocks == 0 {
		return "", fault.Errorf(fault.NotFound, "no emission %s", id)
	}
	var status string
	err := q.QueryRow(ctx, `SELECT status FROM emission_history WHERE emission_id = $1 ORDER BY id DESC LIMIT 1`, id).Scan(&status)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		status, err = lottery.OnSale, nil
	case err != nil:
		return "", err
	}
	if open == 0 && status != lottery.Withdrawn {
		return lottery.SoldOut, nil
	}
	return status, nil
}

// EmissionHistory lists an emission's changes of status, oldest first.
func (s *DB) EmissionHistory(ctx context.Context, id string) ([]lottery.EmissionChange, error) {
	var out []lottery.EmissionChange
	err := each(s.read.Query(ctx, `SELECT id, emission_id, status, reason, by_name, created_at FROM emission_history WHERE emission_id = $1 ORDER BY id`, id))(func(r Rows) error {
		var c lottery.EmissionChange
		err := r.Scan(&c.ID, &c.Emission, &c.Status, &c.Reason, &c.By, ScanTime(&c.At))
		out = append(out, c)
		return err
	})
	return out, s.fault(err)
}

// EmissionStatuses are the status of each emission that has changed status, by its latest
// change (sold out is not among them: its blocks say it).
func (s *DB) EmissionStatuses(ctx context.Context) (map[string]string, error) {
	out := map[string]string{}
	err := each(s.read.Query(ctx, `SELECT h.emission_id, h.status FROM emission_history h
		WHERE h.id = (SELECT max(id) FROM emission_history l WHERE l.emission_id = h.emission_id)`))(func(r Rows) error {
		var id, status string
		err := r.Scan(&id, &status)
		out[id] = status
		return err
	})
	return out, s.fault(err)
}
