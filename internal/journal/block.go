package journal

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"

	"starcolor/internal/audit"
)

// Block is a block's units as its audit export tells them (docs/spec/RULES.md §8).
type Block struct {
	// Name is what problems call the export (its file); the caller sets it.
	Name string
	// Emission, Block, Price (in cents) and Root are the header's.
	Emission string
	Block    int
	Price    int64
	Root     audit.Hash
	leaves   []audit.Hash // each unit's, in sale order
	prizes   []int64
}

// ReadBlock reads a block's audit export, gzip-compressed or not: each unit's leaf hash and
// prize. It checks that the lines are the block's units in order and hash to the root the header
// commits to; it does not re-check the units under the rules, as `starcolor emission verify`
// does.
func ReadBlock(r io.Reader) (*Block, error) {
	br, closer, err := decompressed(r)
	if err != nil {
		return nil, err
	}
	defer closer()
	head, err := br.ReadSlice('\n')
	if err != nil {
		return nil, fmt.Errorf("no header line: %w", err)
	}
	var h audit.Header
	if err := json.Unmarshal(head, &h); err != nil || h.Format != audit.Format {
		return nil, fmt.Errorf("the first line is not the header of a %s export", audit.Format)
	}
	b := &Block{Emission: h.Emission, Block: h.Block}
	if h.Emission == "" || h.Block < 0 || h.Units <= 0 || h.Units > 1<<24 {
		return nil, fmt.Errorf("header: emission %q, block %d, %d units", h.Emission, h.Block, h.Units)
	}
	if b.Price, err = audit.Cents(h.Price); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	root, err := hex.DecodeString(h.Root)
	if err != nil || len(root) != len(b.Root) {
		return nil, fmt.Errorf("header: the root %q is not 64 hex digits", h.Root)
	}
	copy(b.Root[:], root)
	// A header is not trusted with the memory it asks for: a block is a million units at most.
	b.leaves = make([]audit.Hash, 0, min(h.Units, 1<<20))
	b.prizes = make([]int64, 0, min(h.Units, 1<<20))
	for {
		line, err := br.ReadSlice('\n')
		if err == io.EOF && len(line) == 0 {
			break
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("unit %d: %w", len(b.leaves), err)
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		rec, perr := audit.ParseLine(line)
		if perr != nil || rec.Index != len(b.leaves) {
			return nil, fmt.Errorf("line %d is not the audit line of unit %d", len(b.leaves)+2, len(b.leaves))
		}
		if len(b.leaves) == h.Units {
			return nil, fmt.Errorf("more than the %d units the header announces", h.Units)
		}
		b.leaves = append(b.leaves, audit.LeafHash(line))
		b.prizes = append(b.prizes, rec.Prize)
		if err == io.EOF {
			break
		}
	}
	if len(b.leaves) != h.Units {
		return nil, fmt.Errorf("%d units, the header announces %d", len(b.leaves), h.Units)
	}
	if root := audit.Root(b.leaves); root != b.Root {
		return nil, fmt.Errorf("the units hash to %x, the header commits to %s", root, h.Root)
	}
	return b, nil
}

// blockKey names a block of an emission.
type blockKey struct {
	emission string
	block    int
}

// sold is a block given to Verify, and the seq of each of its units' sale (-1: none yet).
type sold struct {
	*Block
	seq []int64
}

// addBlocks indexes the blocks given by emission and block.
func (v *verifier) addBlocks(blocks []*Block) {
	for _, b := range blocks {
		k := blockKey{b.Emission, b.Block}
		if was, ok := v.blocks[k]; ok {
			if was.Root != b.Root {
				v.rep.add(-1, "exports %s and %s both give block %d of emission %s, with two roots", was.Name, b.Name, b.Block, b.Emission)
			}
			continue
		}
		seq := make([]int64, len(b.leaves))
		for i := range seq {
			seq[i] = -1
		}
		v.blocks[k] = &sold{Block: b, seq: seq}
		v.given = append(v.given, v.blocks[k])
	}
}

// sale checks a sale against the export of its block, when given.
func (v *verifier) sale(n int64, e *saleEntry) {
	b, ok := v.blocks[blockKey{e.Emission, e.Block}]
	if !ok {
		return
	}
	v.rep.Sales++
	if e.Index < 0 || e.Index >= len(b.leaves) {
		v.rep.add(n, "unit %d of block %d of emission %s: the block has %d units (%s)", e.Index, e.Block, e.Emission, len(b.leaves), b.Name)
		return
	}
	var unit audit.Hash
	hex.Decode(unit[:], []byte(e.Unit)) // parseEntry checked it
	if want := b.leaves[e.Index]; unit != want {
		v.rep.add(n, "the unit of emission %s block %d index %d is %s, the export %s has %x", e.Emission, e.Block, e.Index, e.Unit, b.Name, want)
	}
	if want := b.prizes[e.Index]; e.Prize != want {
		v.rep.add(n, "the sale of unit %d of emission %s block %d pays %d cents, the export %s %d", e.Index, e.Emission, e.Block, e.Prize, b.Name, want)
	}
	if first := b.seq[e.Index]; first >= 0 {
		v.rep.add(n, "unit %d of emission %s block %d is sold again: its first sale is seq %d", e.Index, e.Emission, e.Block, first)
	} else {
		b.seq[e.Index] = n
	}
}

// emission checks an emission's roots against the exports of its blocks, when given.
func (v *verifier) emission(n int64, e *emissionEntry) {
	if e.Event != "created" {
		return
	}
	for _, s := range v.given {
		b := s.Block
		if b.Emission != e.Emission {
			continue
		}
		switch {
		case b.Block >= len(e.Roots):
			v.rep.add(n, "emission %s has %d blocks: the export %s gives block %d", e.Emission, len(e.Roots), b.Name, b.Block)
		case e.Roots[b.Block] != hex.EncodeToString(b.Root[:]):
			v.rep.add(n, "emission %s commits block %d to the root %s, the export %s has %x", e.Emission, b.Block, e.Roots[b.Block], b.Name, b.Root)
		case e.Price != b.Price:
			v.rep.add(n, "emission %s sells at %d cents, the export %s of block %d at %d", e.Emission, e.Price, b.Name, b.Block, b.Price)
		}
	}
}
