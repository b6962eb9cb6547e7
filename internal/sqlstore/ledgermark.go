package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"starcolor/internal/lottery"
)

// The watermark of `ledger check --since-last` (lottery.Watermark, migration 0038).

// RaiseLedgerMark writes the triggers that record, in ledger_changes, the games and transfers at
// or below the largest ids now (never below floor's) inserted from now on, and the games among
// them changed or deleted; and returns that watermark, with the schema as it stands after.
// A check raises it before it takes its snapshots: every row it proves, at or below the
// watermark, is then either in them or recorded.
//
// A floor with a schema is a check since that mark: the schema must still be the mark's
// (lottery.ErrSchemaChanged), read in the write that changes it.
func (s *DB) RaiseLedgerMark(ctx context.Context, floor lottery.Watermark) (lottery.Watermark, error) {
	var w lottery.Watermark
	err := s.write(ctx, func(q Querier) error {
		if floor.Schema != "" {
			var stamp string
			if err := q.QueryRow(ctx, s.d.schemaStamp()).Scan(&stamp); err != nil {
				return err
			}
			if stamp != floor.Schema {
				return lottery.ErrSchemaChanged
			}
		}
		if err := q.QueryRow(ctx, `SELECT (SELECT coalesce(max(id), 0) FROM games), (SELECT coalesce(max(id), 0) FROM transfers),
			(SELECT coalesce(max(id), 0) FROM ledger_changes)`).Scan(&w.Games, &w.Transfers, &w.Changes); err != nil {
			return err
		}
		w.Games, w.Transfers = max(w.Games, floor.Games), max(w.Transfers, floor.Transfers)
		for _, stmt := range s.d.markTriggers(w) {
			if _, err := q.Exec(ctx, stmt); err != nil {
				return fmt.Errorf("the ledger's watermark: %w", err)
			}
		}
		return nil
	})
	if errors.Is(err, lottery.ErrSchemaChanged) {
		return w, err
	}
	if err != nil {
		return w, s.fault(err)
	}
	w.Schema, err = s.LedgerSchema(ctx)
	return w, err
}

// LedgerSchema is the schema of the tables a check since the last one does not read again, as
// it stands: it changes when a trigger or an index of theirs is dropped, disabled or written
// again.
func (s *DB) LedgerSchema(ctx context.Context) (string, error) {
	var stamp string
	err := s.read.QueryRow(ctx, s.d.schemaStamp()).Scan(&stamp)
	return stamp, s.fault(err)
}

// LedgerMark is the mark the last check recorded (migration 0040), as it was signed; nil when
// none was.
func (s *DB) LedgerMark(ctx context.Context) ([]byte, error) {
	var mark []byte
	err := s.read.QueryRow(ctx, `SELECT mark FROM ledger_mark WHERE id = 1`).Scan(&mark)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return mark, s.fault(err)
}

// KeepLedgerMark records a check's mark in place of the last one, in the write that reads the
// schema's stamp: a check that raised the watermark since (and so wrote the triggers again)
// has made this one's stale, and it is not kept (lottery.ErrSchemaChanged).
func (s *DB) KeepLedgerMark(ctx context.Context, schema string, mark []byte, at time.Time) error {
	err := s.write(ctx, func(q Querier) error {
		var stamp string
		if err := q.QueryRow(ctx, s.d.schemaStamp()).Scan(&stamp); err != nil {
			return err
		}
		if stamp != schema {
			return lottery.ErrSchemaChanged
		}
		_, err := q.Exec(ctx, `INSERT INTO ledger_mark (id, mark, made_ms) VALUES (1, $1, $2)
			ON CONFLICT (id) DO UPDATE SET mark = excluded.mark, made_ms = excluded.made_ms`, mark, at.UnixMilli())
		return err
	})
	if errors.Is(err, lottery.ErrSchemaChanged) {
		return err
	}
	return s.fault(err)
}

// ledgerChange is a row of ledger_changes.
type ledgerChange struct {
	id        int64
	table, op string
	row       int64
}

// ledgerChanges reads the changes recorded after the one of id after, in a snapshot, and the
// last one.
func ledgerChanges(ctx context.Context, q Querier, after int64) ([]ledgerChange, int64, error) {
	var out []ledgerChange
	last := after
	err := each(q.Query(ctx, `SELECT id, tbl, op, row_id FROM ledger_changes WHERE id > $1 ORDER BY id`, after))(func(r Rows) error {
		var c ledgerChange
		err := r.Scan(&c.id, &c.table, &c.op, &c.row)
		out = append(out, c)
		last = c.id
		return err
	})
	return out, last, err
}

// lateRows is what ledger_changes recorded of the rows at or below a watermark: those inserted
// late, which a check since reads as new, and those changed or deleted, each a problem.
type lateRows struct {
	games, transfers map[int64]bool // inserted
	changed          []string       // as the report says them
}

// late sorts the changes recorded after the one of id after.
func late(ctx context.Context, q Querier, after int64) (*lateRows, int64, error) {
	cs, last, err := ledgerChanges(ctx, q, after)
	if err != nil {
		return nil, 0, err
	}
	l := &lateRows{games: map[int64]bool{}, transfers: map[int64]bool{}}
	for _, c := range cs {
		switch {
		case c.op == "insert" && c.table == "games":
			l.games[c.row] = true
		case c.op == "insert":
			l.transfers[c.row] = true
		default:
			l.changed = append(l.changed, fmt.Sprintf("%s %d was %sd after the last check had proved it (ledger_changes %d)",
				strings.TrimSuffix(c.table, "s"), c.row, c.op, c.id))
		}
	}
	return l, last, nil
}

// markTriggers are the statements that write the triggers of a watermark. A game's columns
// that a play changes (color, clicks, status, updated_at) are not watched: the rest never change.
func (d Dialect) markTriggers(w lottery.Watermark) []string {
	const fixed = `id, player_id, block_number, unit, stake, mode, prize, balance_after, created_at, stake_transfer`
	triggers := []struct {
		name, event, table, row, op string
		through                     int64
	}{
		{"ledger_games_insert", "INSERT", "games", "NEW", "insert", w.Games},
		{"ledger_games_update", "UPDATE OF " + fixed, "games", "OLD", "update", w.Games},
		{"ledger_games_delete", "DELETE", "games", "OLD", "delete", w.Games},
		{"ledger_transfers_insert", "INSERT", "transfers", "NEW", "insert", w.Transfers},
	}
	var out []string
	for _, t := range triggers {
		on := fmt.Sprintf("AFTER %s ON %s", t.event, t.table)
		if d == SQLite {
			out = append(out, `DROP TRIGGER IF EXISTS `+t.name,
				fmt.Sprintf(`CREATE TRIGGER %s %s WHEN %s.id <= %d BEGIN INSERT INTO ledger_changes (tbl, row_id, op) VALUES ('%s', %s.id, '%s'); END`,
					t.name, on, t.row, t.through, t.table, t.row, t.op))
			continue
		}
		out = append(out, `DROP TRIGGER IF EXISTS `+t.name+` ON `+t.table,
			fmt.Sprintf(`CREATE TRIGGER %s %s FOR EACH ROW WHEN (%s.id <= %d) EXECUTE FUNCTION ledger_change()`, t.name, on, t.row, t.through))
	}
	return out
}

// ledgerTables are the tables whose rows a check since the last one does not read again, and so
// whose triggers, indexes and constraints its schema stamp covers (PostgreSQL; SQLite's
// schema_version covers the whole schema).
const ledgerTables = `'{games,transfers,journal,journal_accounts,journal_checkpoints,journal_tiles,ledger_changes,emissions,blocks,block_trees,unit_pages}'`

// schemaStamp is the query of the schema's stamp. SQLite's schema_version counts every change
// of the schema. PostgreSQL's catalogue rows of the tables' triggers, indexes and constraints,
// and of the functions the triggers call, are each written anew (a new xmin, a new oid) when
// one is dropped, disabled or made again.
func (d Dialect) schemaStamp() string {
	if d == SQLite {
		return `SELECT CAST(schema_version AS TEXT) FROM pragma_schema_version`
	}
	return `SELECT coalesce(string_agg(x, ';' ORDER BY x), '') FROM (
		SELECT 't' || t.oid || '.' || t.xmin::text || '.' || t.tgenabled::text AS x FROM pg_trigger t WHERE t.tgrelid = ANY(` + ledgerTables + `::regclass[])
		UNION ALL SELECT 'i' || i.indexrelid || '.' || i.xmin::text FROM pg_index i WHERE i.indrelid = ANY(` + ledgerTables + `::regclass[])
		UNION ALL SELECT 'k' || k.oid || '.' || k.xmin::text FROM pg_constraint k WHERE k.conrelid = ANY(` + ledgerTables + `::regclass[])
		UNION ALL SELECT 'f' || p.oid || '.' || p.xmin::text FROM pg_proc p WHERE p.oid IN ('ledger_change'::regproc, 'refuse'::regproc)) s`
}
