package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"starcolor/internal/emission"
	"starcolor/internal/fault"
	"starcolor/internal/journal"
	"starcolor/internal/lottery"
)

// The journal in the store (docs/spec/API.md 1.2, migrations 0026 and 0027). A journaled write
// records its entries with its change, in its own transaction: the change and its entries are
// written together or not at all. Each entry is made pending first (journal.Pending), then sealed
// at its seq (journal.Seal): the seq and the account reference, HMAC(key, account ‖ seq), are in
// its bytes. Who seals it is the dialect's (Dialect.sealsInWrite):
//
//   - On SQLite, the write itself, as it commits: the file's one writer runs one write at a time,
//     so it takes the seqs from the counter, journal_state.size, and none is taken between the
//     counter and its commit (SealNow).
//   - On PostgreSQL, whose servers write at once, the write queues its entries (journal_queue),
//     taking no seq: no write waits on another's commit for its entries' place. The sequencer
//     (Sequence) then appends them, one transaction at a time.
//
// A round of the sequencer:
//
//  1. It locks the counter's row, which every sequencer writes: two never append at once.
//  2. It takes the oldest queued entries that are committed, and removes them from the queue.
//  3. It seals each at its seq.
//  4. It inserts them, with the accounts of the restrictions, and moves the counter on.
//
// The journal's order is then the sequencer's. A write that committed before another began is
// queued before it (the queue's ids are drawn in order) and seen with it, or before it: so a
// player's entries are in the order of what they did. The tree over the entries and its
// checkpoints are written after, by journal.Log, through the journal.Store methods below.

// errNoKey is a journaled write of a store opened without an account key: a bug of the caller,
// which the stores' Open refuse.
var errNoKey = errors.New("the journal's account key is not set: the store cannot journal a write")

// Dated is an event of the journal and the time of the change it records.
type Dated struct {
	At    time.Time
	Event journal.Event
}

// pending is an entry before its seq, as the queue keeps it.
type pending struct {
	id       int64 // its place in the queue
	kind     string
	account  int64 // 0: none
	game     any   // a sale's game, else nil (NULL)
	transfer any   // the transfer it names, else nil
	entry    []byte
}

// pendingOf makes the pending entries of events.
func pendingOf(events []Dated) []pending {
	out := make([]pending, len(events))
	for i, e := range events {
		out[i] = pendingOne(e)
	}
	return out
}

// pendingOne makes the pending entry of one event.
func pendingOne(e Dated) pending {
	p := pending{kind: e.Event.Kind(), account: e.Event.Account(), entry: journal.Pending(e.At, e.Event)}
	switch ev := e.Event.(type) {
	case journal.Sale:
		p.game, p.transfer = ev.Game, ev.Transfer
	case journal.Prize:
		p.transfer = ev.Transfer
	case journal.Payment:
		p.transfer = ev.Transfer
	}
	return p
}

// QueueInsert queues a write's entries, one row (queue.go): its value is QueueValue's.
const QueueInsert = `INSERT INTO journal_queue (entries) VALUES ($1)`

// QueueValue is the value of the queued row of the entries of events (QueueInsert), in the
// queue's second form: the events' fields, their pending bytes made by the sequencer.
func QueueValue(events []Dated) []byte {
	return appendEvents(make([]byte, 0, 2+72*len(events)), events)
}

// Sealed are entries sealed at their seqs, as the journal's rows.
type Sealed struct {
	// Rows are the entries' rows, four values a row (JournalColumns).
	Rows []any
	// Accounts are the accounts of the restrictions among them, two values a row (seq,
	// account: journal_accounts).
	Accounts []any
}

// journalCols are the columns of an entry's row, in the order of Sealed.Rows.
var journalCols = []string{"seq", "entry", "leaf", "game"}

// JournalColumns is the journal and journalCols, as an INSERT names them.
var JournalColumns = `journal (` + strings.Join(journalCols, ", ") + `)`

// JournalWidth is how many values a row of JournalColumns takes.
var JournalWidth = len(journalCols)

// seal seals entries at the seqs from first on, under the store's account key. A sale's row
// keeps its leaf hash in place of its bytes (migration 0043): they are rebuilt from its game's
// rows when read (journalrebuild.go).
func (s *DB) seal(first int64, entries []pending) (Sealed, error) {
	if s.key == nil {
		return Sealed{}, errNoKey
	}
	out := Sealed{Rows: make([]any, 0, JournalWidth*len(entries))}
	for i, p := range entries {
		seq := first + int64(i)
		e, err := journal.Seal(p.entry, uint64(seq), p.account, s.key)
		if err != nil {
			return Sealed{}, fmt.Errorf("the journal's entry %d (queued as %d): %w", seq, p.id, err)
		}
		if p.kind == journal.KindSale {
			leaf := journal.Leaf(e)
			out.Rows = append(out.Rows, seq, nil, leaf[:], p.game)
		} else {
			out.Rows = append(out.Rows, seq, e, nil, p.game)
		}
		if restricts(p.kind) {
			out.Accounts = append(out.Accounts, seq, p.account)
		}
	}
	return out, nil
}

// SealNow seals the entries of events in the write q, their seqs taken from the counter: for a
// dialect whose writes seal their own (Dialect.sealsInWrite). Its caller inserts them.
func (s *DB) SealNow(ctx context.Context, q Querier, events []Dated) (Sealed, error) {
	var size int64
	if err := q.QueryRow(ctx, `UPDATE journal_state SET size = size + $1 RETURNING size`, len(events)).Scan(&size); err != nil {
		return Sealed{}, fmt.Errorf("the journal's counter: %w", err)
	}
	return s.seal(size-int64(len(events)), pendingOf(events))
}

// AppendJournal records the entries of a change at a time, in the change's write q.
func (s *DB) AppendJournal(ctx context.Context, q Querier, at time.Time, events ...journal.Event) error {
	dated := make([]Dated, len(events))
	for i, e := range events {
		dated[i] = Dated{At: at, Event: e}
	}
	return s.appendJournal(ctx, q, dated)
}

// appendJournal records entries in the write q: sealed, or queued (Dialect.sealsInWrite).
func (s *DB) appendJournal(ctx context.Context, q Querier, events []Dated) error {
	if len(events) == 0 {
		return nil
	}
	if s.d.sealsInWrite() {
		sealed, err := s.SealNow(ctx, q, events)
		if err != nil {
			return err
		}
		return insertSealed(ctx, q, sealed)
	}
	_, err := q.Exec(ctx, QueueInsert, QueueValue(events))
	return err
}

// copier is a write that bulk-loads rows (PostgreSQL's COPY): the sequencer's appends use it
// where the dialect has it, rather than VALUES lists of 1,536 parameters to parse and plan.
type copier interface {
	CopyFrom(ctx context.Context, table string, columns []string, rows [][]any) (int64, error)
}

// insertSealed inserts sealed entries, and the accounts of the restrictions among them.
func insertSealed(ctx context.Context, q Querier, sealed Sealed) error {
	if c, ok := q.(copier); ok {
		for _, t := range []struct {
			table string
			cols  []string
			args  []any
		}{{"journal", journalCols, sealed.Rows}, {"journal_accounts", []string{"seq", "account"}, sealed.Accounts}} {
			rows := make([][]any, 0, len(t.args)/len(t.cols))
			for a := t.args; len(a) > 0; a = a[len(t.cols):] {
				rows = append(rows, a[:len(t.cols)])
			}
			if len(rows) == 0 {
				continue
			}
			if n, err := c.CopyFrom(ctx, t.table, t.cols, rows); err != nil || n != int64(len(rows)) {
				return fmt.Errorf("the journal: %d of %d rows copied into %s: %v", n, len(rows), t.table, err)
			}
		}
		return nil
	}
	if err := insertRows(ctx, q, JournalColumns, JournalWidth, sealed.Rows); err != nil {
		return err
	}
	return insertRows(ctx, q, `journal_accounts (seq, account)`, 2, sealed.Accounts)
}

// insertRows inserts into table the rows of args, cols values a row, journalChunk rows a
// statement.
func insertRows(ctx context.Context, q Querier, table string, cols int, args []any) error {
	for len(args) > 0 {
		n := min(len(args)/cols, journalChunk)
		if _, err := q.Exec(ctx, `INSERT INTO `+table+` VALUES `+values(n, cols), args[:cols*n]...); err != nil {
			return fmt.Errorf("the journal: %w", err)
		}
		args = args[cols*n:]
	}
	return nil
}

// sequenceRows bounds the queue's rows one transaction of the sequencer appends (a write's
// entries a row: a sale batch's are at most a few hundred), and sequenceBatches the
// transactions of one Sequence, so that the tree and its checkpoints keep up.
const (
	sequenceRows    = 256
	sequenceBatches = 32
)

// Sequence appends the entries queued by the writes committed, in the order they were queued,
// and returns how many. It stops once the queue is empty, after sequenceBatches, or when ctx
// ends. On SQLite, whose writes seal their own entries, it finds the queue empty.
func (s *DB) Sequence(ctx context.Context) (int64, error) {
	if s.key == nil {
		return 0, errNoKey
	}
	var total int64
	for range sequenceBatches {
		var n, rows int
		err := s.write(ctx, func(q Querier) error {
			var err error
			n, rows, err = s.sequence(ctx, q)
			return err
		})
		if err != nil {
			return total, s.fault(err)
		}
		total += int64(n)
		if rows < sequenceRows || ctx.Err() != nil {
			return total, ctx.Err()
		}
	}
	return total, nil
}

// sequence appends one batch of the queue's entries in q (see the steps above), and says how
// many entries, and of how many of the queue's rows.
func (s *DB) sequence(ctx context.Context, q Querier) (entries, rows int, err error) {
	var size int64
	if err := q.QueryRow(ctx, `UPDATE journal_state SET size = size RETURNING size`).Scan(&size); err != nil {
		return 0, 0, fmt.Errorf("the journal's counter: %w", err)
	}
	var queued []queuedRow
	err = each(q.Query(ctx, `DELETE FROM journal_queue WHERE id IN (SELECT id FROM journal_queue ORDER BY id LIMIT $1)
		RETURNING `+queuedColumns, sequenceRows))(func(r Rows) error {
		row, err := scanQueued(r)
		queued = append(queued, row)
		return err
	})
	if err != nil || len(queued) == 0 {
		return 0, 0, err
	}
	slices.SortFunc(queued, func(a, b queuedRow) int { return cmp.Compare(a.id, b.id) })
	var batch []pending
	for _, row := range queued {
		ps, err := row.entries()
		if err != nil {
			return 0, 0, err
		}
		batch = append(batch, ps...)
	}
	sealed, err := s.seal(size, batch)
	if err != nil {
		return 0, 0, err
	}
	if err := insertSealed(ctx, q, sealed); err != nil {
		return 0, 0, err
	}
	if _, err := q.Exec(ctx, `UPDATE journal_state SET size = $1`, size+int64(len(batch))); err != nil {
		return 0, 0, fmt.Errorf("the journal's counter: %w", err)
	}
	return len(batch), len(queued), nil
}

// queuedRow is a row of journal_queue: a write's entries (queue.go), or one entry queued before
// migration 0029, in its columns.
type queuedRow struct {
	id    int64
	one   pending // before 0029
	batch []byte  // since
}

// queuedColumns are the columns scanQueued reads.
const queuedColumns = `id, kind, account, game, transfer, pending, entries`

func scanQueued(r Rows) (queuedRow, error) {
	var row queuedRow
	var kind sql.NullString
	var account, game, transfer sql.NullInt64
	err := r.Scan(&row.id, &kind, &account, &game, &transfer, &row.one.entry, &row.batch)
	row.one.id, row.one.kind, row.one.account = row.id, kind.String, account.Int64
	if game.Valid {
		row.one.game = game.Int64
	}
	if transfer.Valid {
		row.one.transfer = transfer.Int64
	}
	return row, err
}

// entries are the row's pending entries, in the order they were queued.
func (r queuedRow) entries() ([]pending, error) {
	if r.batch != nil {
		return readQueued(r.id, r.batch)
	}
	if r.one.entry == nil {
		return nil, fmt.Errorf("%w (row %d): neither entries nor an entry", errQueued, r.id)
	}
	return []pending{r.one}, nil
}

// restricts says whether an entry's kind is one of a player's restrictions, whose account
// journal_accounts keeps (migration 0026) for ledger check to compare with the player's rows.
func restricts(kind string) bool {
	return kind == journal.KindLimits || kind == journal.KindExclusion || kind == journal.KindClosure
}

// journalChunk bounds the rows of one insert into the journal or its tiles, and the tiles of
// one read: four parameters a row at most, far below either dialect's bound on parameters.
const journalChunk = 512

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

// OperatorEvent is the entry of a line of the operators' log: its operator's name, its action,
// what of its detail names no person (journal.PublicDetail), and the player it is about by their
// account's reference; never the address it came from.
func OperatorEvent(a lottery.OperatorAction) journal.Operator {
	return journal.Operator{Operator: a.Name, Action: a.Action, Detail: journal.PublicDetail(a.Detail), AccountID: a.Account}
}

// SaleEvents are the entries of a batch of sales, in the order of its transfers (each game's
// deposit in wallet mode, its sale, its prize, its withdrawal in wallet mode), each dated by
// its game.
func SaleEvents(rows *lottery.Rows) []Dated {
	index := make(map[int64]int, len(rows.Games)) // by game id
	for i, g := range rows.Games {
		index[g.ID] = i
	}
	events := make([]Dated, 0, len(rows.Transfers))
	for _, t := range rows.Transfers {
		if t.Kind != lottery.Stake {
			events = append(events, Dated{At: t.CreatedAt, Event: MoneyEvent(t)})
			continue
		}
		i := index[t.GameID]
		g := rows.Games[i]
		events = append(events, Dated{At: g.CreatedAt, Event: SaleEvent(g, t.From, rows.Leaves[i])})
	}
	return events
}

// journal.Store, written once for both dialects.

// JournalState reads where the journal stands.
func (s *DB) JournalState(ctx context.Context) (journal.State, error) {
	var st journal.State
	err := s.read.QueryRow(ctx, `SELECT size, hashed, verifier, (SELECT count(*) FROM journal_queue) FROM journal_state`).
		Scan(&st.Size, &st.Hashed, &st.Verifier, &st.Queued)
	return st, s.fault(err)
}

// Beginning says where the journal began in the database's rows: the first game and the first
// transfer it covers. The rows before them were written before the journal (migration 0026).
func (s *DB) Beginning(ctx context.Context) (firstGame, firstTransfer int64, err error) {
	err = s.read.QueryRow(ctx, `SELECT first_game, first_transfer FROM journal_state`).Scan(&firstGame, &firstTransfer)
	return firstGame, firstTransfer, s.fault(err)
}

// JournalEntries reads the entries from start to end-1, each its exact bytes: a sale's rebuilt
// from its game's rows (journalrebuild.go), and failing if they no longer hash to the leaf its
// row keeps. A range beyond the entries appended is fault.NotFound.
func (s *DB) JournalEntries(ctx context.Context, start, end int64) ([][]byte, error) {
	var out [][]byte
	err := s.entryRows(ctx, start, end, func(q Querier, rows []journalRow) (err error) {
		out, err = s.rebuild(ctx, q, rows)
		return err
	})
	return out, err
}

// JournalLeaves reads the leaf hashes of the entries from start to end-1: each one's bytes
// hashed, or a sale's leaf as kept. A range beyond the entries appended is fault.NotFound.
func (s *DB) JournalLeaves(ctx context.Context, start, end int64) ([]tlog.Hash, error) {
	var out []tlog.Hash
	err := s.entryRows(ctx, start, end, func(_ Querier, rows []journalRow) error {
		out = make([]tlog.Hash, len(rows))
		for i := range rows {
			h, err := rows[i].hash()
			if err != nil {
				return err
			}
			out[i] = h
		}
		return nil
	})
	return out, err
}

// entryRows reads the rows of entries start to end-1 in one snapshot, and uses them in it.
func (s *DB) entryRows(ctx context.Context, start, end int64, use func(Querier, []journalRow) error) error {
	if start < 0 || end < start {
		return fault.Errorf(fault.Invalid, "journal: entries %d to %d: no such range", start, end-1)
	}
	err := s.snapshot(ctx, func(q Querier) error {
		rows, err := journalRows(ctx, q, start, end)
		if err != nil {
			return err
		}
		return use(q, rows)
	})
	var short errShort
	if errors.As(err, &short) {
		return fault.Errorf(fault.NotFound, "%v", short)
	}
	return s.fault(err)
}

// JournalTiles reads stored tiles of the tree (journal/tiles.go): each, its hashes from the
// first, at least t.W of them.
func (s *DB) JournalTiles(ctx context.Context, tiles []tlog.Tile) ([][]byte, error) {
	out, err := journalTiles(ctx, s.read, tiles)
	return out, s.fault(err)
}

// journalTiles reads stored tiles in q, journalChunk a statement.
func journalTiles(ctx context.Context, q Querier, tiles []tlog.Tile) ([][]byte, error) {
	type coord struct {
		l int
		n int64
	}
	found := make(map[coord][]byte, len(tiles))
	for rest := tiles; len(rest) > 0; {
		n := min(len(rest), journalChunk)
		var where strings.Builder
		args := make([]any, 0, 2*n)
		for i, t := range rest[:n] {
			if i > 0 {
				where.WriteString(" OR ")
			}
			fmt.Fprintf(&where, "(level = $%d AND n = $%d)", 2*i+1, 2*i+2)
			args = append(args, t.L, t.N)
		}
		err := each(q.Query(ctx, `SELECT level, n, hashes FROM journal_tiles WHERE `+where.String(), args...))(func(r Rows) error {
			var c coord
			var h []byte
			err := r.Scan(&c.l, &c.n, &h)
			found[c] = h
			return err
		})
		if err != nil {
			return nil, err
		}
		rest = rest[n:]
	}
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		h := found[coord{t.L, t.N}]
		if len(h) < t.W*tlog.HashSize {
			return nil, fmt.Errorf("journal: the tree's tile %s holds %d of the %d hashes asked", t.Path(), len(h)/tlog.HashSize, t.W)
		}
		out[i] = h
	}
	return out, nil
}

// treeHashes reads the tree's stored hashes in q, through its tiles.
func treeHashes(ctx context.Context, q Querier) tlog.HashReader {
	return journal.TileHashes(func(tiles []tlog.Tile) ([][]byte, error) { return journalTiles(ctx, q, tiles) })
}

// AddJournalTiles stores the tiles that entries from to to-1 complete or extend, whole
// (journal.CheckTiles), and sets State.Hashed to to. It fails with journal.ErrRaced, writing
// nothing, if State.Hashed is no longer from. The tiles go first and the compare-and-set on
// journal_state last: on PostgreSQL its row is the sequencer's counter, held here only through
// the commit. A tile stored wider already is another server's, which the check below then finds.
func (s *DB) AddJournalTiles(ctx context.Context, from, to int64, tiles []tlog.Tile, data [][]byte) error {
	if from < 0 || to < from {
		return fmt.Errorf("journal: tiles of entries %d to %d: no such range", from, to-1)
	}
	if err := journal.CheckTiles(from, to, tiles, data); err != nil {
		return err
	}
	err := s.write(ctx, func(q Querier) error {
		for rest, hashes := tiles, data; len(rest) > 0; {
			n := min(len(rest), journalChunk)
			args := make([]any, 0, 3*n)
			for i, t := range rest[:n] {
				args = append(args, t.L, t.N, hashes[i])
			}
			if _, err := q.Exec(ctx, `INSERT INTO journal_tiles (level, n, hashes) VALUES `+values(n, 3)+`
				ON CONFLICT (level, n) DO UPDATE SET hashes = excluded.hashes WHERE length(excluded.hashes) > length(journal_tiles.hashes)`, args...); err != nil {
				return err
			}
			rest, hashes = rest[n:], hashes[n:]
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
		return fmt.Errorf("journal: tiles of entries up to %d, but only %d are appended", to-1, st.Size)
	})
	return s.fault(err)
}

// AddCheckpoint keeps a signed checkpoint of c.Size entries, and the verifier key it is signed
// for. State.Verifier is set to it if it was ""; a different one fails with journal.ErrOtherKey,
// writing nothing. A checkpoint of a size kept already is left as it is. A checkpoint of more
// entries than the stored hashes cover is refused: nothing can prove it.
//
// The verifier never changes once set, so it is read without a lock; journal_state's row is
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
// began, or whose entry is queued still). A game that does not exist is ErrNoGame.
func (s *DB) SaleEntry(ctx context.Context, game int64) (int64, bool, error) {
	var seq sql.NullInt64
	err := s.read.QueryRow(ctx, `SELECT j.seq FROM games g LEFT JOIN journal j ON j.game = g.id WHERE g.id = $1`, game).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, ErrNoGame
	}
	if err != nil {
		return 0, false, s.fault(err)
	}
	return seq.Int64, seq.Valid, nil
}
