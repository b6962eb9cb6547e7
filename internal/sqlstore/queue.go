package sqlstore

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"starcolor/internal/journal"
)

// A write queues its pending entries as one row of journal_queue (migration 0029), whatever
// their number: the sale batch's 30 to 60 entries in one value, which PostgreSQL compresses
// (TOAST) once it passes 2 kB. A row an entry wrote each entry's 300 bytes to the WAL twice
// (queued, then appended) and deleted as many rows: the queue was a quarter of the WAL of a
// sale (docs/PERFORMANCE.md).
//
// The value is the entries one after another. Since 2026-12-04 it begins with 0, 2 (a value of
// the first form begins with a kind's length, never 0), and each entry is:
//
//  1. a code: 's' a sale, 'p' a prize, 'd' a deposit, 'w' a withdrawal, 'j' any other;
//  2. for the four kinds a sale writes, the event's fields (appendEvents), from which the
//     sequencer makes the pending bytes again (journal.Pending is a function of them): 80 bytes
//     a sale rather than 320. The value is written inside the sale batch's transaction, which
//     holds its blocks' rows locked, so the other servers' batches wait for it: a batch of
//     about 24 sales is now about TOAST's 2 kB, written inline and seldom compressed, where it
//     was 9 kB compressed into the TOAST table;
//  3. for any other kind, the first form's fields below.
//
// In the first form, each entry is:
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

// readQueued reads a queued batch's value, of either form, its entries in order, each with the
// queue row's id.
func readQueued(id int64, b []byte) ([]pending, error) {
	if bytes.HasPrefix(b, queuedV2) {
		return readEvents(id, b[len(queuedV2):])
	}
	var out []pending
	r := &queuedReader{b: b}
	for len(r.b) > 0 && r.err == nil {
		if p := r.one(id); r.err == nil {
			out = append(out, p)
		}
	}
	return r.entries(id, out)
}

// readBytes reads a length (uvarint) and as many bytes.
func readBytes(b []byte) (v, rest []byte, err error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > maxQueued || n > uint64(len(b)-k) {
		return nil, nil, errors.New("a length is cut or beyond the value")
	}
	return b[k : k+int(n)], b[k+int(n):], nil
}

// queuedV2 begins a value of the second form.
var queuedV2 = []byte{0, 2}

// The codes of the second form's entries.
const (
	codeSale       = 's'
	codePrize      = 'p'
	codeDeposit    = 'd'
	codeWithdrawal = 'w'
	codeOther      = 'j'
)

// appendEvents appends a write's events to a queued batch's value, in the second form.
func appendEvents(b []byte, events []Dated) []byte {
	b = append(b, queuedV2...)
	for _, e := range events {
		at := e.At.UnixNano()
		switch ev := e.Event.(type) {
		case journal.Sale:
			b = append(b, codeSale)
			b = appendVarints(b, at, ev.Game, ev.AccountID, ev.Stake, ev.Prize)
			b = appendString(b, ev.Emission)
			b = appendVarints(b, int64(ev.Block), int64(ev.Index))
			b = append(b, ev.Unit[:]...)
			b = appendString(b, ev.Mode)
			b = binary.AppendVarint(b, ev.Transfer)
		case journal.Prize:
			b = append(b, codePrize)
			b = appendVarints(b, at, ev.AccountID, ev.Game, ev.Amount, ev.Transfer)
		case journal.Payment:
			b = append(b, map[bool]byte{false: codeDeposit, true: codeWithdrawal}[ev.Withdrawal])
			b = appendVarints(b, at, ev.AccountID, ev.Amount, ev.Transfer)
			b = appendString(b, ev.Reason)
		default:
			b = append(b, codeOther)
			b = appendQueued(b, []pending{pendingOne(e)})
		}
	}
	return b
}

func appendVarints(b []byte, vs ...int64) []byte {
	for _, v := range vs {
		b = binary.AppendVarint(b, v)
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// queuedReader reads a value of the second form, field by field; its first error sticks.
type queuedReader struct {
	b   []byte
	err error
}

func (r *queuedReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errors.New("a number is cut")
		return 0
	}
	r.b = r.b[n:]
	return v
}

// small reads a varint that must fit an int: a block or a unit's index.
func (r *queuedReader) small() int {
	v := r.varint()
	if v < 0 || v > 1<<31-1 {
		r.err = cmp.Or(r.err, errors.New("a block or an index out of range"))
		return 0
	}
	return int(v)
}

func (r *queuedReader) bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	if len(r.b) < n {
		r.err = errors.New("bytes are cut")
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

// field reads a length (uvarint) and as many bytes.
func (r *queuedReader) field() []byte {
	if r.err != nil {
		return nil
	}
	v, rest, err := readBytes(r.b)
	if err != nil {
		r.err = err
		return nil
	}
	r.b = rest
	return v
}

func (r *queuedReader) string() string { return string(r.field()) }

// entries are the entries read of queue row id, or the reader's error, or that it read none.
func (r *queuedReader) entries(id int64, out []pending) ([]pending, error) {
	if r.err != nil {
		return nil, fmt.Errorf("%w (row %d, entry %d): %v", errQueued, id, len(out), r.err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w (row %d): no entry", errQueued, id)
	}
	return out, nil
}

// one reads one entry of the first form: kind, ids, pending bytes.
func (r *queuedReader) one(id int64) pending {
	kind := r.field()
	if r.err == nil && len(kind) == 0 {
		r.err = errors.New("an entry of no kind")
	}
	account, game, transfer := r.varint(), r.varint(), r.varint()
	return pending{id: id, kind: string(kind), account: account, game: orNil(game), transfer: orNil(transfer), entry: r.field()}
}

// readEvents reads a value of the second form (queuedV2 cut off): each entry pending again, as
// pendingOf made it when the events were queued.
func readEvents(id int64, b []byte) ([]pending, error) {
	var out []pending
	r := &queuedReader{b: b}
	for len(r.b) > 0 && r.err == nil {
		code := r.b[0]
		r.b = r.b[1:]
		if code == codeOther {
			if p := r.one(id); r.err == nil {
				out = append(out, p)
			}
			continue
		}
		var at int64
		var ev journal.Event
		switch code {
		case codeSale:
			var s journal.Sale
			at, s.Game, s.AccountID, s.Stake, s.Prize = r.varint(), r.varint(), r.varint(), r.varint(), r.varint()
			s.Emission = r.string()
			s.Block, s.Index = r.small(), r.small()
			copy(s.Unit[:], r.bytes(len(s.Unit)))
			s.Mode = r.string()
			s.Transfer = r.varint()
			ev = s
		case codePrize:
			var p journal.Prize
			at, p.AccountID, p.Game, p.Amount, p.Transfer = r.varint(), r.varint(), r.varint(), r.varint(), r.varint()
			ev = p
		case codeDeposit, codeWithdrawal:
			p := journal.Payment{Withdrawal: code == codeWithdrawal}
			at, p.AccountID, p.Amount, p.Transfer = r.varint(), r.varint(), r.varint(), r.varint()
			p.Reason = r.string()
			ev = p
		default:
			r.err = fmt.Errorf("an entry of code %q", code)
		}
		if r.err != nil {
			break
		}
		p := pendingOne(Dated{At: time.Unix(0, at), Event: ev})
		p.id = id
		out = append(out, p)
	}
	return r.entries(id, out)
}
