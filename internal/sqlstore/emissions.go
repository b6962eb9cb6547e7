package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"

	"starcolor/internal/audit"
	"starcolor/internal/emission"
)

// The emissions as the game and the back office read them. Creating one stays each store's:
// PostgreSQL copies the units in with COPY, SQLite builds them in a staging file apart when the
// game sells (CreateEmissionStaged).

// Emissions lists every emission with its blocks, oldest first.
func (s *DB) Emissions(ctx context.Context) ([]*emission.Emission, error) {
	es, err := s.emissions(ctx, "")
	return es, s.fault(err)
}

// Emission returns one emission with its blocks. No emission has an empty id (emissions would
// read every one).
func (s *DB) Emission(ctx context.Context, id string) (*emission.Emission, error) {
	if id == "" {
		return nil, fmt.Errorf("%w: no emission of an empty id", emission.ErrNotFound)
	}
	es, err := s.emissions(ctx, id)
	if err != nil {
		return nil, s.fault(err)
	}
	if len(es) == 0 {
		return nil, fmt.Errorf("%w: no emission %q", emission.ErrNotFound, id)
	}
	return es[0], nil
}

// emissions reads the emissions (all, or the one of an id) and their blocks, in one snapshot.
func (s *DB) emissions(ctx context.Context, id string) ([]*emission.Emission, error) {
	var out []*emission.Emission
	err := s.snapshot(ctx, func(q Querier) error {
		out = out[:0]
		query, args := `SELECT id, price, definition, game_table, created_at, on_sale_at FROM emissions`, []any{}
		if id != "" {
			query, args = query+` WHERE id = $1`, []any{id}
		}
		byID := map[string]*emission.Emission{}
		if err := each(q.Query(ctx, query+` ORDER BY created_at, id`, args...))(func(r Rows) error {
			e := &emission.Emission{}
			var table string
			if err := r.Scan(&e.ID, &e.Price, &e.Definition, &table, ScanTime(&e.CreatedAt), ScanTime(&e.OnSaleAt)); err != nil {
				return err
			}
			if err := json.Unmarshal([]byte(table), &e.Table); err != nil {
				return fmt.Errorf("emission %s: stored table: %w", e.ID, err)
			}
			out = append(out, e)
			byID[e.ID] = e
			return nil
		}); err != nil {
			return err
		}
		query = `SELECT b.emission_id, b.block, b.units, b.root, t.page_hashes, b.sold FROM blocks b
			JOIN block_trees t ON t.emission_id = b.emission_id AND t.block = b.block`
		if id != "" {
			query += ` WHERE b.emission_id = $1`
		}
		return each(q.Query(ctx, query+` ORDER BY b.emission_id, b.block`, args...))(func(r Rows) error {
			var eid string
			var b emission.Block
			var root, hashes []byte
			if err := r.Scan(&eid, &b.Index, &b.Units, &root, &hashes, &b.Sold); err != nil {
				return err
			}
			if len(root) != 32 || len(hashes)%32 != 0 {
				return fmt.Errorf("emission %s block %d: corrupt commitment", eid, b.Index)
			}
			copy(b.Root[:], root)
			b.PageHashes = make([]audit.Hash, len(hashes)/32)
			for i := range b.PageHashes {
				copy(b.PageHashes[i][:], hashes[i*32:])
			}
			if e := byID[eid]; e != nil {
				e.Blocks = append(e.Blocks, b)
			}
			return nil
		})
	})
	return out, err
}
