package sqlstore

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"golang.org/x/mod/sumdb/tlog"

	"starcolor/internal/journal"
)

// The comparison of the journal since the last one (journal.Mark): the entries from the mark's
// size on, the rows they name, the rows above the mark's watermark and those recorded inserted
// late below it. The entries before are append-only (their triggers, in the schema the watermark
// names), and were compared.

// start sets a comparison to begin at a mark.
func (c *comparison) start(ctx context.Context, m *journal.Mark) error {
	tree, err := journal.TreeOf(m)
	if err != nil {
		return fmt.Errorf("the last check's mark: %w", err)
	}
	if m.Size > c.size {
		c.add(-1, "", "the journal holds %d entries, but the last check compared %d: entries were removed", c.size, m.Size)
	}
	late, _, err := late(ctx, c.q, m.Changes)
	if err != nil {
		return err
	}
	c.since, c.late, c.tree, c.from = m, late, tree, m.Size
	c.games.base, c.transfers.base = max(c.firstGame, m.Games+1), max(c.firstTransfer, m.Transfers+1)
	return nil
}

// fix fixes the size of the mark being made at seq, the first entry that names a row above its
// watermark: the next comparison reads from there, so that each row it reads as new is named by
// an entry it reads.
func (c *comparison) fix(seq int64) {
	if c.tree.Size() == seq {
		c.next.Size, c.next.Tree = seq, c.tree.Hashes()
	}
	c.nextSize = true
}

// expect keeps, once the mark's size is fixed, the rows at or below its watermark that later
// entries name: the next comparison finds their entries after its start.
func (c *comparison) expect(n journal.Named) {
	if !c.nextSize {
		return
	}
	if n.Game != 0 && n.Game <= c.next.Games {
		c.next.Expected.Games = append(c.next.Expected.Games, n.Game)
	}
	if n.Transfer != 0 && n.Transfer <= c.next.Transfers {
		c.next.Expected.Transfers = append(c.next.Expected.Transfers, n.Transfer)
	}
}

// named adds a row named by an entry to set, and says whether an entry named it before: read
// by this comparison, or, for a row at or below the last mark's watermark that it did not
// expect, one before the mark.
func (c *comparison) named(set *idSet, id int64, game bool) bool {
	had := set.add(id)
	if c.since == nil || id >= set.base {
		return had
	}
	late, expected := c.late.transfers, c.since.Expected.Transfers
	if game {
		late, expected = c.late.games, c.since.Expected.Games
	}
	return had || !(late[id] || slices.Contains(expected, id))
}

// lateIDs is the part of the query of the rows no entry names that reads the rows at or below
// the mark's watermark that a comparison since must find named: those inserted late, and those
// the mark expected. None when there are none.
func (c *comparison) lateIDs(table string, late map[int64]bool, expected []int64) []string {
	ids := slices.AppendSeq(slices.Clone(expected), maps.Keys(late))
	if len(ids) == 0 {
		return nil
	}
	return []string{fmt.Sprintf(`SELECT id FROM %s WHERE id IN (%s)`, table, idList(ids))}
}

// expected notes the rows queued entries name, at or below the watermark of the mark being
// made, and fixes its size at the last entry read if no entry fixed it before.
func (c *comparison) expected() {
	if !c.nextSize {
		c.fix(c.tree.Size())
	}
	c.next.Expected.Games = append(c.next.Expected.Games, queuedAt(c.queuedGames, c.next.Games)...)
	c.next.Expected.Transfers = append(c.next.Expected.Transfers, queuedAt(c.queuedTransfers, c.next.Transfers)...)
}

// queuedAt are the ids of those queued entries name, at or below through.
func queuedAt(ids []int64, through int64) []int64 {
	var out []int64
	for _, id := range ids {
		if id <= through {
			out = append(out, id)
		}
	}
	return out
}

// mark completes the mark of a comparison that found nothing wrong.
func (c *comparison) mark() {
	if c.cp.ok {
		c.next.Checkpoint = c.cp.size
	}
	slices.Sort(c.next.Expected.Games)
	c.next.Expected.Games = slices.Compact(c.next.Expected.Games)
	slices.Sort(c.next.Expected.Transfers)
	c.next.Expected.Transfers = slices.Compact(c.next.Expected.Transfers)
}

// rootSince checks the latest checkpoint against the mark's tree when the checkpoint does not
// reach past the mark: its root must be the mark's, or consistent with it by the tree's stored
// hashes (a proof checked against both roots, which no stored hash can forge).
func (c *comparison) rootSince(ctx context.Context) error {
	m := c.since
	if m == nil || !c.cp.ok || c.cp.size > m.Size {
		return nil
	}
	t, err := journal.TreeOf(m)
	if err != nil {
		return err
	}
	root, err := t.Root()
	if err != nil {
		return err
	}
	c.cp.reached = true
	if c.cp.size == m.Size {
		c.cp.entries = root
		return nil
	}
	if c.hashed < m.Size {
		c.rep.Unhashed = m.Size - c.hashed
		c.cp.entries = c.cp.root
		return nil
	}
	proof, err := tlog.ProveTree(m.Size, c.cp.size, treeHashes(ctx, c.q))
	if err == nil {
		err = tlog.CheckTree(proof, m.Size, root, c.cp.size, c.cp.root)
	}
	if err != nil {
		c.add(-1, "", "the latest checkpoint, of %d entries, is not consistent with the %d entries the last check proved: %v", c.cp.size, m.Size, err)
	}
	c.cp.entries = c.cp.root
	return nil
}
