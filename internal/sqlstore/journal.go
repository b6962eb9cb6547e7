package sqlstore

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"starcolor/internal/emission"
	"starcolor/internal/fault"
	"starcolor/internal/journal"
	"starcolor/internal/lottery"
)

// The journal in the store (docs/spec/API.md 1.2, migration 0026). Every write that records an
// event appends its entries in its own transaction, as its last statements (appendJournal):
//
//  1. It takes the entries' seqs from the counter, journal_state.size (TakeSeqs). On PostgreSQL
//     that locks the counter's row, after every other lock of the write, until its commit. So
//     the journaled commits of every server follow each other in the order of their seqs, and a
//     reader that sees size N sees every entry below it. No lock is taken after it, so it joins
//     no cycle of waits.
//  2. It encodes each entry (journal.Encode) once its seq is known: the seq and the account
//     reference, HMAC(key, account ‖ seq), are in its bytes.
//  3. It inserts them.
//
// A write that fails is undone with its entries and their seqs: the seqs stay dense. The sales'
// hot paths (internal/sqlite, internal/postgres) append theirs the same way, with the statements
// here (TakeSeqs, EncodeEntries, SaleEvents). The tree over the entries and its checkpoints are
// written after, by journal.Log, through the journal.Store methods below.

// TakeSeqs takes $1 seqs from the journal's counter and returns the counter after them: the
// entries are seqs size-$1 to size-1.
const TakeSeqs = `UPDATE journal_state SET size = size + $1 RETURNING size`

// errNoKey is a journaled write of a store opened without an account key: a bug of the caller,
// which the stores' Open refuse.
var errNoKey = errors.New("the journal's account key is not set: the store cannot journal a write")

// Dated is an event of the journal and the time of the change it records.
type Dated struct {
	At    time.Time
	Event journal.Event
}

// EncodeEntries makes the bytes of events whose seqs start at first, under the store's account
// key.
func (s *DB) EncodeEntries(first int64, events []Dated) ([][]byte, error) {
	if s.key == nil {
		return nil, errNoKey
	}
	out := make([][]byte, len(events))
	for i, e := range events {
		out[i] = journal.Encode(uint64(first)+uint64(i), e.At, e.Event, s.key)
	}
	return out, nil
}

// AppendJournal appends the entries of a change at a time, in the change's write q, as its last
// statements: see appendJournal.
func (s *DB) AppendJournal(ctx context.Context, q Querier, at time.Time, events ...journal.Event) error {
	dated := make([]Dated, len(events))
	for i, e := range events {
		dated[i] = Dated{At: at, Event: e}
	}
	return s.appendJournal(ctx, q, dated)
}

// appendJournal appends entries in the write q: their seqs taken from the counter, their bytes
// encoded, then inserted. Nothing else may follow it in the write but more of the journal's rows
// (a sale's journal_seq): on PostgreSQL the counter's row stays locked until the commit.
func (s *DB) appendJournal(ctx context.Context, q Querier, events []Dated) error {
	if len(events) == 0 {
		return nil
	}
	if s.key == nil {
		return errNoKey
	}
	var size int64
	if err := q.QueryRow(ctx, TakeSeqs, len(events)).Scan(&size); err != nil {
		return fmt.Errorf("the journal's counter: %w", err)
	}
	first := size - int64(len(events))
	entries, err := s.EncodeEntries(first, events)
	if err != nil {
		return err
	}
	if err := InsertJournal(ctx, q, first, entries); err != nil {
		return err
	}
	return insertAccounts(ctx, q, first, events)
}

// restricts says whether an entry's kind is one of a player's restrictions, whose account
// journal_accounts keeps (migration 0026) for ledger check to compare with the player's rows.
func restricts(kind string) bool {
	return kind == journal.KindLimits || kind == journal.KindExclusion || kind == journal.KindClosure
}

// insertAccounts keeps the account of each of a player's restrictions among events, whose seqs
// start at first. A sale has none: the sales' hot paths never come here.
func insertAccounts(ctx context.Context, q Querier, first int64, events []Dated) error {
	var args []any
	for i, e := range events {
		if restricts(e.Event.Kind()) {
			args = append(args, first+int64(i), e.Event.Account())
		}
	}
	for len(args) > 0 {
		n := min(len(args)/2, journalChunk)
		if _, err := q.Exec(ctx, `INSERT INTO journal_accounts (seq, account) VALUES `+values(n, 2), args[:2*n]...); err != nil {
			return fmt.Errorf("the journal's accounts: %w", err)
		}
		args = args[2*n:]
	}
	return nil
}

// journalChunk bounds the rows of one insert into the journal or its hashes: two parameters a
// row, far below either dialect's bound on parameters.
const journalChunk = 512

// InsertJournal inserts entries whose seqs start at first.
func InsertJournal(ctx context.Context, q Querier, first int64, entries [][]byte) error {
	for len(entries) > 0 {
		n := min(len(entries), journalChunk)
		args := make([]any, 0, 2*n)
		for i, e := range entries[:n] {
			args = append(args, first+int64(i), e)
		}
		if _, err := q.Exec(ctx, `INSERT INTO journal (seq, entry) VALUES `+values(n, 2), args...); err != nil {
			return fmt.Errorf("the journal's entries: %w", err)
		}
		first, entries = first+int64(n), entries[n:]
	}
	return nil
}

// values is a VALUES list of rows of cols parameters, numbered from $1.
func values(rows, cols int) string {
	var b strings.Builder
	for r := range rows {
		if r > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('(')
		for c := range cols {
			if c > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(r*cols + c + 1))
		}
		b.WriteByte(')')
	}
	return b.String()
}

// The events of the journal, as the store makes them from the rows it writes. They are written
// once here, for the writes and for whoever rebuilds an entry from its rows to compare it.

// SaleEvent is the entry of a game sold from account, whose unit's audit line has the leaf hash
// leaf.
func SaleEvent(g *lottery.Game, account int64, leaf [32]byte) journal.Sale {
	return journal.Sale{Game: g.ID, AccountID: account, Stake: g.Stake, Prize: g.Prize, Emission: g.Emission, Block: g.Block,
		Index: g.Unit, Unit: leaf, Mode: g.Mode, Transfer: g.StakeTransfer}
}

// MoneyEvent is the entry of a transfer other than a stake (which its game's sale entry
// records): a deposit, a withdrawal, a prize.
func MoneyEvent(t lottery.Transfer) journal.Event {
	switch t.Kind {
	case lottery.Prize:
		return journal.Prize{AccountID: t.To, Game: t.GameID, Amount: t.Amount, Transfer: t.ID}
	case lottery.Withdrawal:
		return journal.Payment{Withdrawal: true, AccountID: t.From, Amount: t.Amount, Transfer: t.ID, Reason: t.Reason}
	}
	return journal.Payment{AccountID: t.To, Amount: t.Amount, Transfer: t.ID}
}

// LimitsEvent is the entry of a change of a player's limit kept (lottery.LimitChange).
func LimitsEvent(account int64, c lottery.LimitChange) journal.Limits {
	limit := map[string]string{lottery.DepositWeekly: "deposit", lottery.StakeWeekly: "stake"}[c.Limit]
	return journal.Limits{AccountID: account, Limit: limit, Old: c.Old, New: c.New, Effective: c.EffectiveAt, By: c.By}
}

// EmissionEvent is the entry of an emission created of blocks, made by by: its blocks' roots.
func EmissionEvent(e *emission.Emission, blocks []emission.Block, by string) journal.Emission {
	roots := make([]string, len(blocks))
	for i, b := range blocks {
		roots[i] = hex.EncodeToString(b.Root[:])
	}
	return journal.Emission{ID: e.ID, Event: "created", Price: e.Price, Definition: e.Definition, Roots: roots, Operator: by}
}

// RegisterEvent is the entry of an import of the list of excluded persons, with its counts.
func RegisterEvent(imp lottery.RegisterImport) journal.RegisterImport {
	return journal.RegisterImport{Import: imp.ID, Operator: imp.By, Listed: imp.Listed, Added: imp.Added, Gone: imp.Gone, Closed: imp.Closed}
}

// OperatorEvent is the entry of a line of the operators' log: its operator's name, its action
// and its detail, never the address it came from.
func OperatorEvent(a lottery.OperatorAction) journal.Operator {
	return journal.Operator{Operator: a.Name, Action: a.Action, Detail: a.Detail}
}

// SaleEvents are the entries of a batch of sales, in the order of its transfers (each game's
// deposit in wallet mode, its sale, its prize, its withdrawal in wallet mode), each dated by
// its game. sales[i] is the index of the sale entry of rows.Games[i].
func SaleEvents(rows *lottery.Rows) (events []Dated, sales []int) {
	index := make(map[int64]int, len(rows.Games)) // by game id
	for i, g := range rows.Games {
		index[g.ID] = i
	}
	events, sales = make([]Dated, 0, len(rows.Transfers)), make([]int, len(rows.Games))
	for _, t := range rows.Transfers {
		if t.Kind != lottery.Stake {
			events = append(events, Dated{At: t.CreatedAt, Event: MoneyEvent(t)})
			continue
		}
		i := index[t.GameID]
		g := rows.Games[i]
		sales[i] = len(events)
		events = append(events, Dated{At: g.CreatedAt, Event: SaleEvent(g, t.From, rows.Leaves[i])})
	}
	return events, sales
}

// journal.Store, written once for both dialects.

// JournalState reads where the journal stands.
func (s *DB) JournalState(ctx context.Context) (journal.State, error) {
	var st journal.State
	err := s.read.QueryRow(ctx, `SELECT size, hashed, verifier FROM journal_state`).Scan(&st.Size, &st.Hashed, &st.Verifier)
	return st, s.fault(err)
}

// Beginning says where the journal began in the database's rows: the first game and the first
// transfer it covers. The rows before them were written before the journal (migration 0026).
func (s *DB) Beginning(ctx context.Context) (firstGame, firstTransfer int64, err error) {
	err = s.read.QueryRow(ctx, `SELECT first_game, first_transfer FROM journal_state`).Scan(&firstGame, &firstTransfer)
	return firstGame, firstTransfer, s.fault(err)
}

// JournalEntries reads the entries from start to end-1, each its exact bytes. A range beyond the
// entries appended is fault.NotFound.
func (s *DB) JournalEntries(ctx context.Context, start, end int64) ([][]byte, error) {
	if start < 0 || end < start {
		return nil, fault.Errorf(fault.Invalid, "journal: entries %d to %d: no such range", start, end-1)
	}
	out := make([][]byte, 0, end-start)
	err := each(s.read.Query(ctx, `SELECT seq, entry FROM journal WHERE seq >= $1 AND seq < $2 ORDER BY seq`, start, end))(func(r Rows) error {
		var seq int64
		var e []byte
		if err := r.Scan(&seq, &e); err != nil {
			return err
		}
		if want := start + int64(len(out)); seq != want {
			return fmt.Errorf("journal: entry %d is missing (the next is %d)", want, seq)
		}
		out = append(out, e)
		return nil
	})
	if err != nil {
		return nil, s.fault(err)
	}
	if int64(len(out)) != end-start {
		return nil, fault.Errorf(fault.NotFound, "journal: entries %d to %d: only %d appended", start, end-1, start+int64(len(out)))
	}
	return out, nil
}

// JournalHashes reads stored hashes of the tree by their index (tlog.StoredHashIndex), in the
// order asked. One not stored is an error: the tree reads only what it wrote.
func (s *DB) JournalHashes(ctx context.Context, indexes []int64) ([]tlog.Hash, error) {
	out, err := journalHashes(ctx, s.read, indexes)
	return out, s.fault(err)
}

// journalHashes reads stored hashes of the tree by their index, in q.
func journalHashes(ctx context.Context, q Querier, indexes []int64) ([]tlog.Hash, error) {
	found := make(map[int64]tlog.Hash, len(indexes))
	for rest := indexes; len(rest) > 0; {
		n := min(len(rest), journalChunk)
		args := make([]any, n)
		for i, id := range rest[:n] {
			args[i] = id
		}
		err := each(q.Query(ctx, `SELECT id, hash FROM journal_hashes WHERE id IN (`+strings.Trim(values(1, n), "()")+`)`, args...))(func(r Rows) error {
			var id int64
			var h []byte
			if err := r.Scan(&id, &h); err != nil {
				return err
			}
			if len(h) != tlog.HashSize {
				return fmt.Errorf("journal: stored hash %d is %d bytes", id, len(h))
			}
			found[id] = tlog.Hash(h)
			return nil
		})
		if err != nil {
			return nil, err
		}
		rest = rest[n:]
	}
	out := make([]tlog.Hash, len(indexes))
	for i, id := range indexes {
		h, ok := found[id]
		if !ok {
			return nil, fmt.Errorf("journal: no stored hash %d", id)
		}
		out[i] = h
	}
	return out, nil
}

// AddJournalHashes stores the hashes that entries from to to-1 add to the tree, at the indexes
// from tlog.StoredHashIndex(0, from) on, and sets State.Hashed to to. It fails with
// journal.ErrRaced, writing nothing, if State.Hashed is no longer from. The hashes go first and
// the compare-and-set on journal_state last: on PostgreSQL its row is the counter that every
// journaled write takes last, held here only through the commit.
func (s *DB) AddJournalHashes(ctx context.Context, from, to int64, hashes []tlog.Hash) error {
	if from < 0 || to < from {
		return fmt.Errorf("journal: hashes of entries %d to %d: no such range", from, to-1)
	}
	first := tlog.StoredHashIndex(0, from)
	if want := tlog.StoredHashCount(to) - first; int64(len(hashes)) != want {
		return fmt.Errorf("journal: entries %d to %d add %d stored hashes, not %d", from, to-1, want, len(hashes))
	}
	err := s.write(ctx, func(q Querier) error {
		for rest, id := hashes, first; len(rest) > 0; {
			n := min(len(rest), journalChunk)
			args := make([]any, 0, 2*n)
			for i, h := range rest[:n] {
				args = append(args, id+int64(i), h[:])
			}
			// A hash stored already is another server's, which the check below then finds.
			if _, err := q.Exec(ctx, `INSERT INTO journal_hashes (id, hash) VALUES `+values(n, 2)+` ON CONFLICT (id) DO NOTHING`, args...); err != nil {
				return err
			}
			rest, id = rest[n:], id+int64(n)
		}
		changed, err := q.Exec(ctx, `UPDATE journal_state SET hashed = $2 WHERE hashed = $1 AND size >= $2`, from, to)
		if err != nil || changed == 1 {
			return err
		}
		var st journal.State
		if err := q.QueryRow(ctx, `SELECT size, hashed FROM journal_state`).Scan(&st.Size, &st.Hashed); err != nil {
			return err
		}
		if st.Hashed != from {
			return journal.ErrRaced
		}
		return fmt.Errorf("journal: hashes of entries up to %d, but only %d are appended", to-1, st.Size)
	})
	return s.fault(err)
}

// AddCheckpoint keeps a signed checkpoint of c.Size entries, and the verifier key it is signed
// for. State.Verifier is set to it if it was ""; a different one fails with journal.ErrOtherKey,
// writing nothing. A checkpoint of a size kept already is left as it is. A checkpoint of more
// entries than the stored hashes cover is refused: nothing can prove it.
//
// The verifier never changes once set, so it is read without a lock; the counter's row is
// written (and locked) only by the first checkpoint, as its write's last statement.
func (s *DB) AddCheckpoint(ctx context.Context, c journal.Checkpoint, verifier string) error {
	if verifier == "" {
		return fmt.Errorf("journal: a checkpoint without its verifier key")
	}
	err := s.write(ctx, func(q Querier) error {
		var st journal.State
		if err := q.QueryRow(ctx, `SELECT hashed, verifier FROM journal_state`).Scan(&st.Hashed, &st.Verifier); err != nil {
			return err
		}
		switch {
		case st.Verifier != "" && st.Verifier != verifier:
			return journal.ErrOtherKey
		case c.Size < 0 || c.Size > st.Hashed:
			return fmt.Errorf("journal: a checkpoint of %d entries, but the tree holds %d", c.Size, st.Hashed)
		}
		if _, err := q.Exec(ctx, `INSERT INTO journal_checkpoints (size, note, signed_at) VALUES ($1, $2, $3) ON CONFLICT (size) DO NOTHING`,
			c.Size, string(c.Note), s.d.Time(c.SignedAt)); err != nil {
			return err
		}
		if st.Verifier != "" {
			return nil
		}
		set, err := q.Exec(ctx, `UPDATE journal_state SET verifier = $1 WHERE verifier = ''`, verifier)
		if err != nil || set == 1 {
			return err
		}
		// Another server's first checkpoint committed meanwhile: it must be of the same key.
		if err := q.QueryRow(ctx, `SELECT verifier FROM journal_state`).Scan(&st.Verifier); err != nil {
			return err
		}
		if st.Verifier != verifier {
			return journal.ErrOtherKey
		}
		return nil
	})
	return s.fault(err)
}

// LatestCheckpoint reads the checkpoint of the largest size kept (ok false: none yet).
func (s *DB) LatestCheckpoint(ctx context.Context) (journal.Checkpoint, bool, error) {
	var c journal.Checkpoint
	var note string
	err := s.read.QueryRow(ctx, `SELECT size, note, signed_at FROM journal_checkpoints ORDER BY size DESC LIMIT 1`).Scan(&c.Size, &note, ScanTime(&c.SignedAt))
	if errors.Is(err, sql.ErrNoRows) {
		return journal.Checkpoint{}, false, nil
	}
	if err != nil {
		return journal.Checkpoint{}, false, s.fault(err)
	}
	c.Note = []byte(note)
	return c, true, nil
}

// SaleEntry says which entry records a game's sale (ok false: a game sold before the journal
// began). A game that does not exist is ErrNoGame.
func (s *DB) SaleEntry(ctx context.Context, game int64) (int64, bool, error) {
	var seq sql.NullInt64
	err := s.read.QueryRow(ctx, `SELECT journal_seq FROM games WHERE id = $1`, game).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, ErrNoGame
	}
	if err != nil {
		return 0, false, s.fault(err)
	}
	return seq.Int64, seq.Valid, nil
}
