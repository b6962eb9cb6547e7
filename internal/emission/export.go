package emission

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"

	"starcolor/internal/audit"
)

// Header is the first line of a block's audit export (docs/spec/RULES.md §8).
func (e *Emission) Header(block *Block) audit.Header {
	h := audit.Header{
		Format:     audit.Format,
		Emission:   e.ID,
		Price:      audit.EUR(e.Price),
		Block:      block.Index,
		Units:      block.Units,
		Root:       hex.EncodeToString(block.Root[:]),
		Definition: e.Definition,
		PriceCents: e.Price,
		Amounts:    e.Table.Amounts,
		CreatedAt:  e.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"),
	}
	for _, t := range e.Table.Tiers {
		h.Tiers = append(h.Tiers, audit.Tier{Amount: t.Amount, Count: t.Count, Composite: t.Composite})
	}
	return h
}

// Export writes block k as an audit export: the header line, then one line per unit in sale order.
func (r *Reader) Export(ctx context.Context, w io.Writer, k int) error {
	b, err := r.e.Block(k)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	head, err := json.Marshal(r.e.Header(b))
	if err != nil {
		return err
	}
	bw.Write(append(head, '\n'))
	recs := make([]audit.Record, PageUnits)
	var line []byte
	for p := range pagesOf(b.Units) {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := r.Page(ctx, k, p, recs)
		if err != nil {
			return err
		}
		for j := range n {
			line = audit.AppendLine(line[:0], &recs[j])
			line = append(line, '\n')
			if _, err := bw.Write(line); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}
