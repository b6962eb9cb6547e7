package emission

import (
	"context"
	"fmt"

	"starcolor/internal/audit"
)

// Reader reads the units of one emission from its pages.
type Reader struct {
	e     *Emission
	pages Pages
	cdc   *codec
}

// NewReader reads e's units from pages.
func NewReader(e *Emission, pages Pages) (*Reader, error) {
	cdc, err := newCodec(&e.Table)
	if err != nil {
		return nil, err
	}
	return &Reader{e: e, pages: pages, cdc: cdc}, nil
}

func (r *Reader) locate(block, index int) (*Block, error) {
	b, err := r.e.Block(block)
	if err != nil {
		return nil, err
	}
	if index < 0 || index >= b.Units {
		return nil, fmt.Errorf("%w: block %d of emission %s has no unit %d (units 0 to %d)", ErrNotFound, block, r.e.ID, index, b.Units-1)
	}
	return b, nil
}

// Unit reads unit index of a block: one page read and one record decoded, whatever the index.
func (r *Reader) Unit(ctx context.Context, block, index int) (audit.Record, error) {
	var rec audit.Record
	b, err := r.locate(block, index)
	if err != nil {
		return rec, err
	}
	p := index / PageUnits
	data, err := r.pages.Page(ctx, r.e.ID, block, p)
	if err != nil {
		return rec, err
	}
	err = r.cdc.decodeUnit(data, pageUnits(b.Units, p), index%PageUnits, p*PageUnits, &rec)
	return rec, err
}

// Page reads every unit of page p of a block into recs, which must hold PageUnits records, and
// returns how many there are.
func (r *Reader) Page(ctx context.Context, block, p int, recs []audit.Record) (int, error) {
	b, err := r.e.Block(block)
	if err != nil {
		return 0, err
	}
	if p < 0 || p >= pagesOf(b.Units) {
		return 0, fmt.Errorf("%w: block %d has no page %d", ErrNotFound, block, p)
	}
	data, err := r.pages.Page(ctx, r.e.ID, block, p)
	if err != nil {
		return 0, err
	}
	n := pageUnits(b.Units, p)
	return n, r.cdc.decodePage(data, n, p*PageUnits, recs[:n])
}

// Proof is a unit's audit line with its RFC 6962 inclusion proof against its block's root.
type Proof struct {
	Emission string
	Block    int
	Index    int
	Line     []byte
	Root     audit.Hash
	Path     []audit.Hash // nearest sibling first
	Size     int          // leaves in the block's tree
}

// Prove reads a unit's page and returns the unit's line and inclusion proof: the path inside the
// page's subtree, computed from the page, then the path of the page among the block's stored
// page roots. The result is checked against the stored root before it is returned.
func (r *Reader) Prove(ctx context.Context, block, index int) (Proof, error) {
	b, err := r.locate(block, index)
	if err != nil {
		return Proof{}, err
	}
	recs := make([]audit.Record, PageUnits)
	p := index / PageUnits
	n, err := r.Page(ctx, block, p, recs)
	if err != nil {
		return Proof{}, err
	}
	leaves := make([]audit.Hash, n)
	var line, own []byte
	for j := range n {
		line = audit.AppendLine(line[:0], &recs[j])
		leaves[j] = audit.LeafHash(line)
		if j == index%PageUnits {
			own = append([]byte(nil), line...)
		}
	}
	if audit.Root(leaves) != b.PageHashes[p] {
		return Proof{}, fmt.Errorf("page %d of block %d does not match its stored hash: storage is corrupt", p, block)
	}
	path := append(audit.Proof(leaves, index%PageUnits), audit.Proof(b.PageHashes, p)...)
	pr := Proof{Emission: r.e.ID, Block: block, Index: index, Line: own, Root: b.Root, Path: path, Size: b.Units}
	if err := audit.VerifyProof(audit.LeafHash(own), index, b.Units, path, b.Root); err != nil {
		return Proof{}, fmt.Errorf("proof of unit %d of block %d: %w", index, block, err)
	}
	return pr, nil
}
