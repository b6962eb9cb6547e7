package journal

import (
	"github.com/transparency-dev/merkle/compact"
	"golang.org/x/mod/sumdb/tlog"
)

// Mark is what a comparison of the journal with the rows proved, for the next one to start from
// (`ledger check --since-last`, lottery.Watermark):
//   - the entries below Size were compared, and the tree of them is Tree;
//   - every game and transfer at or below the watermark is named by one of them, or is in
//     Expected: named by an entry at or after Size, or by one queued.
//
// The entries are append-only (the journal's triggers, in the schema the watermark names), so
// the next comparison reads the entries from Size on, and the rows they name.
type Mark struct {
	Games, Transfers int64 // the watermark
	Changes          int64 // the last of ledger_changes in its snapshot
	Size             int64
	Tree             []tlog.Hash // the compact range of the entries below Size
	Checkpoint       int64       // the latest checkpoint it verified
	Expected         struct{ Games, Transfers []int64 }
}

// TreeOf makes the tree a mark keeps.
func TreeOf(m *Mark) (*Tree, error) {
	hashes := make([][]byte, len(m.Tree))
	for i := range m.Tree {
		hashes[i] = m.Tree[i][:]
	}
	f := &compact.RangeFactory{Hash: nodeHash}
	r, err := f.NewRange(0, uint64(m.Size), hashes)
	if err != nil {
		return nil, err
	}
	return &Tree{r: r}, nil
}

// Hashes are the tree's compact range, as a Mark keeps it.
func (t *Tree) Hashes() []tlog.Hash {
	hs := t.r.Hashes()
	out := make([]tlog.Hash, len(hs))
	for i, h := range hs {
		copy(out[i][:], h)
	}
	return out
}
