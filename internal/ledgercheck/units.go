package ledgercheck

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"starcolor/internal/emission"
	"starcolor/internal/journal"
	"starcolor/internal/lottery"
)

// checkUnits proves the stored units against their commitments, and the games against their
// units:
//   - every page of every block is rebuilt into its audit lines and hashed up to the block's
//     root (on o.Workers cores, with o.Pause after each page): since a mark, only the blocks it had not verified (the units are
//     immutable, by their triggers, in the schema the mark names);
//   - each game's prize is compared with its unit's. The comparison of the journal does it for
//     the games it covers, as it reads each game's unit for its sale entry: here, only the games
//     sold before the journal began are read, in a full check, and all of them when the journal
//     is not compared (Options.NoJournal). Each page of the units was read and hashed three
//     times in a full check, and the pass over the games was 13 % of its CPU.
//
// It returns the problems, of which the first corrupt are pages or blocks of units that do not
// match their commitment, and the mark of what it proved.
func checkUnits(ctx context.Context, store Store, o Options, mark *lottery.UnitsMark) (problems []string, corrupt int, next *lottery.UnitsMark, err error) {
	es, err := store.Emissions(ctx)
	if err != nil {
		return nil, 0, nil, err
	}
	// Open blocks first: their units are the ones about to be sold.
	slices.SortStableFunc(es, func(a, b *emission.Emission) int {
		return cmp.Compare(openOrder(a), openOrder(b))
	})
	// Every game may be wrong (a rewritten block): the report keeps the first ones, and counts
	// the rest, so that its memory stays bounded too.
	dropped := 0
	report := func(format string, args ...any) {
		if len(problems) >= journal.MaxProblems {
			dropped++
			return
		}
		problems = append(problems, fmt.Sprintf(format, args...))
	}
	verified := map[blockID]bool{}
	if mark != nil {
		for _, b := range mark.Blocks {
			verified[blockID{b.Emission, b.Block}] = true
		}
	}
	next = &lottery.UnitsMark{}
	readers := map[string]*emission.Reader{}
	for _, e := range es {
		var r *emission.Reader
		if o.Reader != nil {
			r, err = o.Reader(ctx, e)
		} else {
			r, err = emission.NewReader(e, store)
		}
		if err != nil {
			return nil, 0, nil, err
		}
		readers[e.ID] = r
		again := false
		for _, b := range e.Blocks {
			again = again || !verified[blockID{e.ID, b.Index}]
			next.Blocks = append(next.Blocks, lottery.VerifiedBlock{Emission: e.ID, Block: b.Index, Root: b.Root[:]})
		}
		if !again {
			continue
		}
		corrupt, err := r.Verify(ctx, o.Workers, o.Pause)
		if err != nil {
			return nil, 0, nil, err
		}
		for _, c := range corrupt {
			if o.OnCorrupt != nil {
				o.OnCorrupt(c)
			}
			report("stored units do not match their commitment: %v", c)
		}
	}
	corrupt = len(problems)
	if mark != nil {
		roots := map[blockID][]byte{}
		for _, b := range mark.Blocks {
			roots[blockID{b.Emission, b.Block}] = b.Root
		}
		for _, b := range next.Blocks {
			if root, ok := roots[blockID{b.Emission, b.Block}]; ok && !bytes.Equal(root, b.Root) {
				report("%s block %d: its root is %x, the last check verified its units against %x", b.Emission, b.Block, b.Root, root)
			}
			delete(roots, blockID{b.Emission, b.Block})
		}
		for b := range roots {
			report("%s block %d, whose units the last check verified, is gone", b.emission, b.block)
		}
	}
	if mark == nil {
		below := int64(math.MaxInt64)
		if o.NoJournal == nil {
			if below, _, err = store.Beginning(ctx); err != nil {
				return nil, 0, nil, err
			}
		}
		err = store.SoldUnits(ctx, below, func(g lottery.Game) error {
			r := readers[g.Emission]
			if r == nil {
				report("game %d was sold from emission %s, which does not exist", g.ID, g.Emission)
				return nil
			}
			rec, err := r.Unit(ctx, g.Block, g.Unit)
			if errors.Is(err, emission.ErrCorrupt) || errors.Is(err, emission.ErrNotFound) || damaged(err) {
				report("game %d: its unit (%s block %d unit %d) cannot be read: %v", g.ID, g.Emission, g.Block, g.Unit, err)
				return nil
			}
			if err != nil {
				return err
			}
			if rec.Prize != g.Prize {
				report("game %d paid %d cents, its unit (%s block %d unit %d) wins %d", g.ID, g.Prize, g.Emission, g.Block, g.Unit, rec.Prize)
			}
			return nil
		})
	}
	if dropped > 0 {
		problems = append(problems, fmt.Sprintf("and %d more problems of the units and the games", dropped))
	}
	if len(problems) > 0 {
		next = nil
	}
	return problems, corrupt, next, err
}

// openOrder puts the emissions with units left to sell first.
func openOrder(e *emission.Emission) int {
	if e.Sold() < e.Units() {
		return 0
	}
	return 1
}

// blockID names a block.
type blockID struct {
	emission string
	block    int
}
