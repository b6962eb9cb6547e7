package sqlite

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"starcolor/internal/emission"
	"starcolor/internal/filelock"
)

// CreateEmissionStaged stores a new emission like CreateEmission, for a database that is being
// sold from. CreateEmission holds the database's only write lock while it generates the units,
// about 2 s a block, and every sale waits meanwhile. Here the pages are built into a staging file
// of their own beside the database, without any lock on it; then one short transaction copies
// them in with the emission's row and its blocks, so sales pause only for the copy. The emission
// still appears whole or not at all: if build fails, the context ends or the process dies, the
// database holds nothing of it, and the staging file is removed (by the next Open once the
// process has died: never while it lives).
func (d *DB) CreateEmissionStaged(ctx context.Context, e *emission.Emission, seed [emission.SeedSize]byte, by string,
	build func(put func(emission.Page) error) ([]emission.Block, error)) error {
	return asFault(d.createStaged(ctx, e, seed, by, build))
}

func (d *DB) createStaged(ctx context.Context, e *emission.Emission, seed [emission.SeedSize]byte, by string,
	build func(put func(emission.Page) error) ([]emission.Block, error)) error {
	var suffix [8]byte
	rand.Read(suffix[:])
	path := d.Path + stagingInfix + hex.EncodeToString(suffix[:])
	// The file is this process's while it holds the lock beside it: an Open meanwhile (another
	// command, a restarted server) leaves it alone, and once the process is gone, it removes it.
	lock, err := filelock.TryLock(path+stagingLock, true)
	if err != nil {
		return fmt.Errorf("staging file: %w", err)
	}
	defer func() {
		os.Remove(path)
		os.Remove(path + stagingLock)
		lock.Unlock()
	}()
	blocks, err := stagePages(ctx, path, build)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		return err
	}

	conn, err := d.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	// ATTACH is refused inside a transaction; it is undone before the connection goes back.
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS staging`, path); err != nil {
		return fmt.Errorf("attach staging file: %w", err)
	}
	defer conn.ExecContext(context.Background(), `DETACH DATABASE staging`)
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := insertEmission(ctx, tx, e, seed); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `PRAGMA defer_foreign_keys = ON`); err != nil {
		return err
	}
	// In key order, so that the pages are appended to the table and its index.
	if _, err := tx.ExecContext(ctx, `INSERT INTO main.unit_pages (emission_id, block, page, data)
		SELECT ?, block, page, data FROM staging.unit_pages ORDER BY block, page`, e.ID); err != nil {
		return fmt.Errorf("copy pages: %w", err)
	}
	return d.commitEmission(ctx, tx, e, by, blocks)
}

// A staging file is the database's path, stagingInfix and a random suffix; the lock its creator
// holds is beside it, with stagingLock after its name.
const (
	stagingInfix = "-staging-"
	stagingLock  = ".lock"
)

// removeAbandonedStaging removes the staging files of the database at path whose creators are
// gone: the lock beside each is free (the system released it when its process ended) or missing
// (a creation takes it before it makes the file). Those still held are left to their creators.
func removeAbandonedStaging(path string) {
	files, err := filepath.Glob(path + stagingInfix + "*")
	if err != nil {
		return
	}
	for _, f := range files {
		staging := strings.TrimSuffix(f, stagingLock)
		if f != staging && slices.Contains(files, staging) {
			continue // the lock of a staging file: seen with it
		}
		lock, err := filelock.TryLock(staging+stagingLock, false)
		switch {
		case err == nil:
			os.Remove(staging)
			os.Remove(staging + stagingLock)
			lock.Unlock()
		case errors.Is(err, os.ErrNotExist):
			os.Remove(staging)
		}
	}
}

// stagePages runs build into a new staging file at path. The file needs no durability: if the
// process dies, the emission is built again from the start.
func stagePages(ctx context.Context, path string, build func(put func(emission.Page) error) ([]emission.Block, error)) ([]emission.Block, error) {
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("staging file %s already exists", path)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, `CREATE TABLE unit_pages (block INTEGER NOT NULL, page INTEGER NOT NULL, data BLOB NOT NULL,
		PRIMARY KEY (block, page))`); err != nil {
		return nil, fmt.Errorf("staging file: %w", err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO unit_pages (block, page, data) VALUES (?, ?, ?)`)
	if err != nil {
		return nil, err
	}
	defer stmt.Close()
	blocks, err := build(func(p emission.Page) error {
		_, err := stmt.ExecContext(ctx, p.Block, p.Index, p.Data)
		return err
	})
	if err != nil {
		return nil, err
	}
	return blocks, tx.Commit()
}
