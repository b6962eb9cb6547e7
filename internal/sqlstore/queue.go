package sqlstore

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// A write queues its pending entries as one row of journal_queue (migration 0029), whatever
// their number: the sale batch's 30 to 60 entries in one value, which PostgreSQL compresses
// (TOAST) once it passes 2 kB. A row an entry wrote each entry's 300 bytes to the WAL twice
// (queued, then appended) and deleted as many rows: the queue was a quarter of the WAL of a
// sale (docs/PERFORMANCE.md).
//
// The value is the entries one after another, each:
//
//  1. its kind, as a length (uvarint) and its bytes;
//  2. its account, its game and its transfer, as varints (0: none);
//  3. its pending bytes (journal.Pending), as a length (uvarint) and the bytes.
//
// Rows queued before migration 0029 hold one entry in their columns, and no such value.

// maxQueued bounds a length in a queued batch: an entry's kind or bytes is far shorter.
const maxQueued = 1 << 20

// appendQueued appends the pending entries to a queued batch's value.
func appendQueued(b []byte, entries []pending) []byte {
	for _, p := range entries {
		b = binary.AppendUvarint(b, uint64(len(p.kind)))
		b = append(b, p.kind...)
		b = binary.AppendVarint(b, p.account)
		b = binary.AppendVarint(b, idOf(p.game))
		b = binary.AppendVarint(b, idOf(p.transfer))
		b = binary.AppendUvarint(b, uint64(len(p.entry)))
		b = append(b, p.entry...)
	}
	return b
}

// idOf is the id a pending entry names, 0 for none (nil).
func idOf(v any) int64 {
	if id, ok := v.(int64); ok {
		return id
	}
	return 0
}

// orNil is an id as a pending entry holds it: nil (NULL) for 0.
func orNil(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

var errQueued = errors.New("a queued batch of the journal is malformed")

// readQueued reads a queued batch's value, its entries in order, each with the queue row's id.
func readQueued(id int64, b []byte) ([]pending, error) {
	var out []pending
	for len(b) > 0 {
		p := pending{id: id}
		kind, rest, err := readBytes(b)
		if err != nil {
			return nil, fmt.Errorf("%w (row %d, entry %d): %v", errQueued, id, len(out), err)
		}
		var ids [3]int64
		for i := range ids {
			v, n := binary.Varint(rest)
			if n <= 0 {
				return nil, fmt.Errorf("%w (row %d, entry %d): a number is cut", errQueued, id, len(out))
			}
			ids[i], rest = v, rest[n:]
		}
		entry, rest, err := readBytes(rest)
		if err != nil {
			return nil, fmt.Errorf("%w (row %d, entry %d): %v", errQueued, id, len(out), err)
		}
		p.kind, p.account, p.game, p.transfer, p.entry = string(kind), ids[0], orNil(ids[1]), orNil(ids[2]), entry
		out = append(out, p)
		b = rest
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w (row %d): no entry", errQueued, id)
	}
	return out, nil
}

// readBytes reads a length (uvarint) and as many bytes.
func readBytes(b []byte) (v, rest []byte, err error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > maxQueued || n > uint64(len(b)-k) {
		return nil, nil, errors.New("a length is cut or beyond the value")
	}
	return b[k : k+int(n)], b[k+int(n):], nil
}
