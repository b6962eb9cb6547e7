package emission

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"starcolor/internal/audit"
	"starcolor/internal/randomness"
)

// SaleOrder reads block k back from its pages, each checked against the block's commitment, and
// returns the tier of each unit in sale order: the order saleOrder drew, as an index in the
// emission's table.
func (r *Reader) SaleOrder(ctx context.Context, k int) ([]byte, error) {
	b, err := r.e.Block(k)
	if err != nil {
		return nil, err
	}
	tierOf := r.tierOf()
	order := make([]byte, b.Units)
	err = r.eachPage(ctx, k, r.workers(), func(_ int, recs []audit.Record) error {
		for i := range recs {
			tier, ok := tierOf[recs[i].Prize]
			if !ok {
				return fmt.Errorf("block %d unit %d: prize %d is not a tier of the table", k, recs[i].Index, recs[i].Prize)
			}
			order[recs[i].Index] = byte(tier)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return order, nil
}

// Randomness runs the randomness tests on each block's sale order, read back from the stored,
// committed units, and judges them across the blocks. Unlike Report it evaluates no board.
func (r *Reader) Randomness(ctx context.Context) (randomness.Verdict, error) {
	blocks := make([]randomness.Block, len(r.e.Blocks))
	for k, b := range r.e.Blocks {
		order, err := r.SaleOrder(ctx, k)
		if err != nil {
			return randomness.Verdict{}, err
		}
		if blocks[k], err = randomness.Analyse(b.Index, order, r.prizes()); err != nil {
			return randomness.Verdict{}, fmt.Errorf("block %d: %w", b.Index, err)
		}
	}
	return randomness.Judge(blocks), nil
}

// prizes is the prize of each tier of the emission's table, by tier index.
func (r *Reader) prizes() []int64 {
	out := make([]int64, len(r.e.Table.Tiers))
	for i, t := range r.e.Table.Tiers {
		out[i] = t.Amount
	}
	return out
}

// tierOf is the tier index of each prize of the emission's table.
func (r *Reader) tierOf() map[int64]int {
	out := map[int64]int{}
	for i, t := range r.e.Table.Tiers {
		out[t.Amount] = i
	}
	return out
}

// workers is how many goroutines read a block's pages: one a core.
func (r *Reader) workers() int { return max(1, runtime.GOMAXPROCS(0)) }

// eachPage reads every page of block k, each checked against the commitment, on workers
// goroutines, and hands each page's units to f with the number (0 to workers − 1) of the
// goroutine that read it, so that f can keep state per goroutine without locks. Pages come in no
// particular order; the first error stops the others.
func (r *Reader) eachPage(ctx context.Context, k, workers int, f func(w int, recs []audit.Record) error) error {
	b, err := r.e.Block(k)
	if err != nil {
		return err
	}
	pages := pagesOf(b.Units)
	var next atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	for w := range max(1, min(workers, pages)) {
		g.Go(func() error {
			recs := make([]audit.Record, PageUnits)
			for {
				p := int(next.Add(1)) - 1
				if p >= pages {
					return nil
				}
				if err := gctx.Err(); err != nil {
					return err
				}
				n, err := r.Page(gctx, k, p, recs)
				if err != nil {
					return fmt.Errorf("block %d page %d: %w", k, p, err)
				}
				if err := f(w, recs[:n]); err != nil {
					return err
				}
			}
		})
	}
	return g.Wait()
}
