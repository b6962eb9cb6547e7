package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"starcolor/internal/emission"
	"starcolor/internal/lottery"
	"starcolor/internal/sqlstore"
)

// CreateEmission stores a new emission in one transaction: its row, every page that build hands
// to put (copied in with COPY as they come), then its blocks with their roots. If build fails,
// the context ends or the process dies before the commit, nothing of the emission remains. Sales
// go on meanwhile: the transaction holds no lock that a sale waits for (its entry, made by by, is
// queued).
func (d *DB) CreateEmission(ctx context.Context, e *emission.Emission, seed [emission.SeedSize]byte, by string,
	build func(put func(emission.Page) error) ([]emission.Block, error)) error {
	return asFault(d.createEmission(ctx, e, seed, by, build))
}

// CreateEmissionStaged is CreateEmission: over PostgreSQL a creation does not hold up sales, so
// there is nothing to stage apart.
func (d *DB) CreateEmissionStaged(ctx context.Context, e *emission.Emission, seed [emission.SeedSize]byte, by string,
	build func(put func(emission.Page) error) ([]emission.Block, error)) error {
	return d.CreateEmission(ctx, e, seed, by, build)
}

func (d *DB) createEmission(ctx context.Context, e *emission.Emission, seed [emission.SeedSize]byte, by string,
	build func(put func(emission.Page) error) ([]emission.Block, error)) error {
	tx, err := d.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.Background())
	table, err := json.Marshal(e.Table)
	if err != nil {
		return err
	}
	seedHash := sha256.Sum256(seed[:])
	_, err = tx.Exec(ctx, `INSERT INTO emissions (id, price, definition, game_table, seed_sha256, created_at, on_sale_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		e.ID, e.Price, e.Definition, string(table), hex.EncodeToString(seedHash[:]), e.CreatedAt, e.SalesOpen())
	if isCode(err, "23505", "emissions_pkey") {
		return fmt.Errorf("emission %q: %w", e.ID, lottery.ErrExists)
	}
	if err != nil {
		return err
	}
	blocks, err := copyPages(ctx, tx, e.ID, build)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		return err
	}
	b := &pgx.Batch{}
	for _, bl := range blocks {
		hashes := make([]byte, 0, len(bl.PageHashes)*32)
		for _, h := range bl.PageHashes {
			hashes = append(hashes, h[:]...)
		}
		b.Queue(`INSERT INTO blocks (emission_id, block, units, root) VALUES ($1, $2, $3, $4)`, e.ID, int32(bl.Index), int32(bl.Units), bl.Root[:])
		b.Queue(`INSERT INTO block_trees (emission_id, block, page_hashes) VALUES ($1, $2, $3)`, e.ID, int32(bl.Index), hashes)
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return err
	}
	if err := d.AppendJournal(ctx, pgxQ{tx}, e.CreatedAt, sqlstore.EmissionEvent(e, blocks, by)); err != nil {
		return err
	}
	if err := d.Schedule(ctx, pgxQ{tx}, e, by); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	e.Blocks = blocks
	return nil
}

// copyPages runs build, copying the pages it puts into unit_pages with COPY as they come: build
// pushes pages, COPY pulls rows, and a channel joins the two.
func copyPages(ctx context.Context, tx pgx.Tx, id string, build func(put func(emission.Page) error) ([]emission.Block, error)) ([]emission.Block, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pages := make(chan emission.Page, 64)
	var blocks []emission.Block
	built := make(chan error, 1)
	go func() {
		var err error
		defer func() { close(pages); built <- err }()
		blocks, err = build(func(p emission.Page) error {
			select {
			case pages <- p:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	var p emission.Page
	src := pgx.CopyFromFunc(func() ([]any, error) {
		var ok bool
		if p, ok = <-pages; !ok {
			return nil, nil
		}
		return []any{id, int32(p.Block), int32(p.Index), p.Data}, nil
	})
	_, copyErr := tx.CopyFrom(ctx, pgx.Identifier{"unit_pages"}, []string{"emission_id", "block", "page", "data"}, src)
	cancel() // a failed copy stops the build
	for range pages {
	}
	switch buildErr := <-built; {
	case buildErr != nil && !(errors.Is(buildErr, context.Canceled) && copyErr != nil):
		return nil, buildErr // the build's own failure: the copy ended with the pages it had
	case copyErr != nil:
		return nil, copyErr
	}
	return blocks, nil
}

// Page returns the stored bytes of one page of units.
func (d *DB) Page(ctx context.Context, id string, block, page int) ([]byte, error) {
	var data []byte
	err := d.pages.QueryRow(ctx, `SELECT data FROM unit_pages WHERE emission_id = $1 AND block = $2 AND page = $3`, id, int32(block), int32(page)).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("%w: emission %s block %d page %d", emission.ErrNotFound, id, block, page)
	}
	return data, asFault(err)
}
