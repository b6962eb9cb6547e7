package emission

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"starcolor/internal/audit"
	"starcolor/internal/gamedef"
	"starcolor/internal/scenario"
)

// SeedSize is the size of an emission's seed: 256 bits, from crypto/rand unless given.
const SeedSize = 32

// Plan is what an emission is made from.
type Plan struct {
	Definition *gamedef.Definition
	Price      int64
	Blocks     int
	Seed       [SeedSize]byte
	Workers    int // 0: one per core
	// Words, when set, is given the raw ChaCha8 output that drew each block's sale order: every
	// uint64 the shuffle consumed, little-endian, block after block (for NIST SP 800-22 or
	// dieharder). It changes nothing in the emission.
	Words io.Writer
}

// Progress is told how many units are done out of how many.
type Progress func(done, total int)

// Build makes the blocks of an emission, handing each page to put as it is ready (from one
// goroutine, in no particular order), and returns the blocks with their roots.
//
// Every random choice comes from ChaCha8 streams (math/rand/v2's ChaCha8, a cryptographically
// strong generator) keyed by SHA-256 of the seed and the block (for the sale order) or the page
// (for the units' boards and salts). The result depends on the seed alone, never on the number
// of workers or the order they finish in, so a seed held in escrow rebuilds the emission bit for
// bit; without the seed the order and the boards cannot be predicted.
func Build(ctx context.Context, plan Plan, put func(Page) error, progress Progress) ([]Block, error) {
	def := plan.Definition
	table, err := def.Table(plan.Price)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if plan.Blocks <= 0 {
		return nil, fmt.Errorf("%w: %d blocks; an emission has at least one", ErrInvalid, plan.Blocks)
	}
	gen, err := scenario.New(def, table)
	if err != nil {
		return nil, err
	}
	cdc, err := newCodec(table)
	if err != nil {
		return nil, err
	}
	workers := plan.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	units := def.BlockUnits
	total := units * plan.Blocks
	var done atomic.Int64
	blocks := make([]Block, plan.Blocks)
	for k := range blocks {
		order, words := saleOrder(table, units, deriveSeed(plan.Seed, "order", k, 0), plan.Words != nil)
		if plan.Words != nil {
			if _, err := plan.Words.Write(words); err != nil {
				return nil, fmt.Errorf("the generator's output: %w", err)
			}
		}
		b := &blocks[k]
		b.Index, b.Units = k, units
		b.PageHashes = make([]audit.Hash, pagesOf(units))

		g, gctx := errgroup.WithContext(ctx)
		jobs := make(chan int)
		out := make(chan Page, workers)
		g.Go(func() error {
			defer close(jobs)
			for p := range b.PageHashes {
				select {
				case jobs <- p:
				case <-gctx.Done():
					return gctx.Err()
				}
			}
			return nil
		})
		var running atomic.Int32
		running.Store(int32(workers))
		for range workers {
			g.Go(func() error {
				defer func() {
					if running.Add(-1) == 0 {
						close(out)
					}
				}()
				w := pageWorker{gen: gen, cdc: cdc, table: table}
				for p := range jobs {
					page, hash, err := w.build(plan.Seed, k, p, order)
					if err != nil {
						return err
					}
					b.PageHashes[p] = hash
					select {
					case out <- page:
					case <-gctx.Done():
						return gctx.Err()
					}
				}
				return nil
			})
		}
		g.Go(func() error {
			for page := range out {
				if err := put(page); err != nil {
					return err
				}
				if progress != nil {
					progress(int(done.Add(int64(page.Units))), total)
				}
			}
			return gctx.Err()
		})
		if err := g.Wait(); err != nil {
			return nil, err
		}
		b.Root = audit.Root(b.PageHashes)
	}
	return blocks, nil
}

// deriveSeed keys one ChaCha8 stream: SHA-256 of a label, the emission seed and two indexes.
func deriveSeed(seed [SeedSize]byte, label string, block, page int) [32]byte {
	h := sha256.New()
	h.Write([]byte("starcolor/" + label + "\x00"))
	h.Write(seed[:])
	var idx [8]byte
	binary.BigEndian.PutUint32(idx[:4], uint32(block))
	binary.BigEndian.PutUint32(idx[4:], uint32(page))
	h.Write(idx[:])
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// saleOrder lays out a block's tiers, each exactly its count, then shuffles them uniformly
// (Fisher–Yates): the result gives the tier index of each unit in sale order. With keep, it also
// returns the generator's words the shuffle consumed, little-endian: one a swap, and another
// each time IntN rejects one (a chance under 2^-44 a draw in a block of a million).
func saleOrder(t *gamedef.Table, units int, seed [32]byte, keep bool) (order, words []byte) {
	order = make([]byte, 0, units)
	for i, tr := range t.Tiers {
		for range tr.Count {
			order = append(order, byte(i))
		}
	}
	var src rand.Source = rand.NewChaCha8(seed)
	var rec *recorder
	if keep {
		rec = &recorder{src: src, words: make([]byte, 0, 8*len(order))}
		src = rec
	}
	rng := rand.New(src)
	for i := len(order) - 1; i > 0; i-- {
		j := rng.IntN(i + 1)
		order[i], order[j] = order[j], order[i]
	}
	if rec != nil {
		words = rec.words
	}
	return order, words
}

// recorder is a source that keeps every word it hands out. rand.Rand asks its source for
// nothing but Uint64, so the shuffle draws the same numbers through it as without it.
type recorder struct {
	src   rand.Source
	words []byte
}

func (r *recorder) Uint64() uint64 {
	v := r.src.Uint64()
	r.words = binary.LittleEndian.AppendUint64(r.words, v)
	return v
}

// pageWorker builds pages, reusing its buffers from one page to the next.
type pageWorker struct {
	gen    *scenario.Generator
	cdc    *codec
	table  *gamedef.Table
	recs   [PageUnits]audit.Record
	leaves [PageUnits]audit.Hash
	line   []byte
}

// build makes page p of block k: its units, its stored bytes and its subtree root.
func (w *pageWorker) build(seed [SeedSize]byte, k, p int, order []byte) (Page, audit.Hash, error) {
	rng := scenario.NewStream(deriveSeed(seed, "units", k, p))
	first := p * PageUnits
	n := pageUnits(len(order), p)
	for j := range n {
		r := &w.recs[j]
		r.Index = first + j
		r.Prize = w.table.Tiers[order[first+j]].Amount
		if err := w.gen.Unit(&r.Unit, r.Prize, rng); err != nil {
			return Page{}, audit.Hash{}, fmt.Errorf("block %d unit %d: %w", k, r.Index, err)
		}
		binary.LittleEndian.PutUint64(r.Salt[:8], rng.Uint64())
		binary.LittleEndian.PutUint64(r.Salt[8:], rng.Uint64())
		w.line = audit.AppendLine(w.line[:0], r)
		w.leaves[j] = audit.LeafHash(w.line)
	}
	data := w.cdc.encodePage(make([]byte, 0, n*64), w.recs[:n])
	return Page{Block: k, Index: p, Units: n, Data: data}, audit.Root(w.leaves[:n]), nil
}
