package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	sqlite3 "modernc.org/sqlite/lib"

	"starcolor/internal/emission"
	"starcolor/internal/lottery"
	"starcolor/internal/sqlstore"
)

// CreateEmission stores a new emission in one transaction: its row, every page that build hands
// to put, then its blocks with their roots, and its entry in the journal, made by by. If build
// fails, the context ends or the process dies before the commit, nothing of the emission
// remains.
func (d *DB) CreateEmission(ctx context.Context, e *emission.Emission, seed [emission.SeedSize]byte, by string,
	build func(put func(emission.Page) error) ([]emission.Block, error)) error {
	return asFault(d.createEmission(ctx, e, seed, by, build))
}

func (d *DB) createEmission(ctx context.Context, e *emission.Emission, seed [emission.SeedSize]byte, by string,
	build func(put func(emission.Page) error) ([]emission.Block, error)) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := insertEmission(ctx, tx, e, seed); err != nil {
		return err
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO unit_pages (emission_id, block, page, data) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	// Pages reference their block row, which only exists once the block's root is known; the
	// foreign key is checked at commit, when both are there.
	if _, err := tx.ExecContext(ctx, `PRAGMA defer_foreign_keys = ON`); err != nil {
		return err
	}
	blocks, err := build(func(p emission.Page) error {
		_, err := stmt.ExecContext(ctx, e.ID, p.Block, p.Index, p.Data)
		return err
	})
	if err != nil {
		// A cancelled context also rolls the transaction back under the build, whose error may
		// then be a closed statement: the cause to report is the cancellation.
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		return err
	}
	return d.commitEmission(ctx, tx, e, by, blocks)
}

// commitEmission writes the blocks' commitments and the emission's entry in the journal, and
// commits the emission, unless ctx has ended. It runs outside the writer, in a transaction of its
// own: SQLite's one write lock keeps it and the writer's batches apart, so its seqs follow theirs.
func (d *DB) commitEmission(ctx context.Context, tx *sql.Tx, e *emission.Emission, by string, blocks []emission.Block) error {
	if err := insertBlocks(ctx, tx, e.ID, blocks); err != nil {
		return err
	}
	if err := d.AppendJournal(ctx, sqlstore.Std(tx), e.CreatedAt, sqlstore.EmissionEvent(e, blocks, by)); err != nil {
		return err
	}
	if err := d.Schedule(ctx, sqlstore.Std(tx), e, by); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	e.Blocks = blocks
	return nil
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// insertEmission writes an emission's row.
func insertEmission(ctx context.Context, tx execer, e *emission.Emission, seed [emission.SeedSize]byte) error {
	table, err := json.Marshal(e.Table)
	if err != nil {
		return err
	}
	seedHash := sha256.Sum256(seed[:])
	_, err = tx.ExecContext(ctx, `INSERT INTO emissions (id, price, definition, game_table, seed_sha256, created_at, on_sale_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		e.ID, e.Price, e.Definition, string(table), hex.EncodeToString(seedHash[:]), e.CreatedAt.UTC().Format(time.RFC3339Nano), sqlstore.SQLite.NullTime(e.SalesOpen()))
	if isConstraint(err, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY) {
		return fmt.Errorf("emission %q: %w", e.ID, lottery.ErrExists)
	}
	return err
}

// insertBlocks writes the blocks' commitments: their roots and the roots of their pages.
func insertBlocks(ctx context.Context, tx execer, id string, blocks []emission.Block) error {
	for _, b := range blocks {
		hashes := make([]byte, 0, len(b.PageHashes)*32)
		for _, h := range b.PageHashes {
			hashes = append(hashes, h[:]...)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO blocks (emission_id, block, units, root) VALUES (?, ?, ?, ?)`,
			id, b.Index, b.Units, b.Root[:]); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO block_trees (emission_id, block, page_hashes) VALUES (?, ?, ?)`,
			id, b.Index, hashes); err != nil {
			return err
		}
	}
	return nil
}

// Page returns the stored bytes of one page of units.
func (d *DB) Page(ctx context.Context, id string, block, page int) ([]byte, error) {
	var data []byte
	err := d.db.QueryRowContext(ctx, `SELECT data FROM unit_pages WHERE emission_id = ? AND block = ? AND page = ?`, id, block, page).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: emission %s block %d page %d", emission.ErrNotFound, id, block, page)
	}
	return data, asFault(err)
}
