package emission

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"sync"

	"starcolor/internal/audit"
)

// MemoryPages keeps an emission's pages in memory. Tests build emissions into it; it is also the
// simplest implementation of Pages, against which the stores can be compared.
type MemoryPages struct {
	mu    sync.Mutex
	pages map[[2]int][]byte
}

// Put stores a page, as Build's put function; a page written twice is an error.
func (m *MemoryPages) Put(p Page) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pages == nil {
		m.pages = map[[2]int][]byte{}
	}
	if _, dup := m.pages[[2]int{p.Block, p.Index}]; dup {
		return fmt.Errorf("page %d of block %d written twice", p.Index, p.Block)
	}
	m.pages[[2]int{p.Block, p.Index}] = p.Data
	return nil
}

// Page returns a stored page; the emission id is not looked at, as one MemoryPages holds one
// emission.
func (m *MemoryPages) Page(_ context.Context, _ string, block, page int) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	data, ok := m.pages[[2]int{block, page}]
	if !ok {
		return nil, fmt.Errorf("%w: block %d page %d", ErrNotFound, block, page)
	}
	// A copy, as a store gives: what the reader checked cannot change under it.
	return bytes.Clone(data), nil
}

// Raw gives direct access to a stored page's bytes, for tests that corrupt storage on purpose.
func (m *MemoryPages) Raw(block, page int) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.pages[[2]int{block, page}]
}

// Recommit computes block k's commitment again from its stored pages, as the generator that
// wrote them would have: for tests that change units on purpose and still want them read, to see
// that what comes after the commitment's check (a report against the table) catches them too.
func (m *MemoryPages) Recommit(e *Emission, k int) error {
	cdc, err := newCodec(&e.Table)
	if err != nil {
		return err
	}
	b := &e.Blocks[k]
	recs := make([]audit.Record, PageUnits)
	for p := range pagesOf(b.Units) {
		n := pageUnits(b.Units, p)
		if err := cdc.decodePage(m.Raw(k, p), n, p*PageUnits, recs[:n]); err != nil {
			return err
		}
		leaves := make([]audit.Hash, n)
		for j := range n {
			leaves[j] = audit.LeafHash(audit.AppendLine(nil, &recs[j]))
		}
		b.PageHashes[p] = audit.Root(leaves)
	}
	b.Root = audit.Root(b.PageHashes)
	return nil
}

// Retier changes, in the stored bytes only, the first unit of block k recorded with the prize
// from (cents) into one of the prize to, as a generator that wrote a wrong tier would have: the
// block's commitment no longer matches until Recommit. For tests of what catches such a unit.
func (m *MemoryPages) Retier(e *Emission, k int, from, to int64) error {
	cdc, err := newCodec(&e.Table)
	if err != nil {
		return err
	}
	was, okFrom := cdc.tierOf[from]
	now, okTo := cdc.tierOf[to]
	if !okFrom || !okTo {
		return fmt.Errorf("%w: no tier of %d or of %d cents", ErrInvalid, from, to)
	}
	b, err := e.Block(k)
	if err != nil {
		return err
	}
	for p := range pagesOf(b.Units) {
		data := m.Raw(k, p)
		for j := range pageUnits(b.Units, p) {
			// A page starts with its records' offsets; a record starts with its tier.
			if off := int(binary.LittleEndian.Uint16(data[offsetSize*j:])); data[off] == was {
				data[off] = now
				return nil
			}
		}
	}
	return fmt.Errorf("%w: block %d has no unit of %d cents", ErrNotFound, k, from)
}
