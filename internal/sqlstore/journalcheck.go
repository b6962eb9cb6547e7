package sqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"starcolor/internal/emission"
	"starcolor/internal/journal"
	"starcolor/internal/lottery"
)

// The comparison of the journal with the database's rows (ledger check, docs/spec/API.md 1.2).
// A database administrator can rewrite rows so that the books still balance: a prize changed
// with its transfers and balances, a game deleted, a deposit added, an exclusion removed. The
// journal was written with the rows, and its checkpoints were signed and served: the rows must
// still be what it says. So:
//
//   - each entry is read in order, and its seq is its row's;
//   - each sale, prize, deposit and withdrawal entry is rebuilt from its rows with journal.Encode
//     (the events of journal.go) and compared byte for byte; a sale kept as its leaf hash
//     (migration 0043) is rebuilt the same, and its hash compared with the leaf;
//   - each game and transfer since the journal began has its entry, once;
//   - each player's limits, exclusion and closure are what their entries make them, the
//     entries' accounts known from journal_accounts and checked against their references;
//   - the entries up to the latest checkpoint hash to the root it signs, with the journal's key.
//
// It streams: compareChunk entries at a time with the rows they name, then the games, the
// transfers and the players in order, with a bit for each id named (10^8 games: 12.5 MB).
// Nothing grows with the journal but those bits.

// compareChunk is how many entries the comparison reads at a time: 4,096 entries of about 300
// bytes (1.2 MB), and as many games and transfers.
const compareChunk = 4096

// accountsPage is how many players' accounts the comparison of the restrictions reads at a
// time, each with its entries and rows.
const accountsPage = 512

// rangeGap is the widest gap between two ids read in one range: the ids a chunk of entries names
// are nearly consecutive, and a range reads them in one statement, where a list of 4,096
// parameters would be parsed each time.
const rangeGap = 64

// CompareJournal compares the database with its journal, and the journal with its latest
// checkpoint, in one snapshot of the database, and reports each difference naming the entry
// (journal.Difference). Its error is for what stops it: the database unreadable, ctx done.
func (s *DB) CompareJournal(ctx context.Context, o journal.CompareOptions) (*journal.Comparison, error) {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	var rep *journal.Comparison
	err := s.snapshot(ctx, func(q Querier) error {
		c := &comparison{s: s, q: q, o: o, key: o.AccountKey, refs: o.AccountKey != nil, rep: &journal.Comparison{},
			tree: journal.NewTree(), units: units{s: s}}
		if c.key == nil {
			// The entries are rebuilt all the same, and compared but for their references.
			c.key = &journal.AccountKey{}
		}
		rep = c.rep
		return c.run(ctx)
	})
	if err != nil {
		return nil, s.fault(err)
	}
	return rep, nil
}

// comparison is the state of one CompareJournal.
type comparison struct {
	s    *DB
	q    Querier
	o    journal.CompareOptions
	key  *journal.AccountKey
	refs bool // the account references are compared
	rep  *journal.Comparison

	size, hashed, firstGame, firstTransfer, firstAccount int64

	games, transfers idSet // named by an entry, or by one queued
	queuedAccounts   idSet // whose restriction has an entry queued
	queuedGames      []int64
	queuedNew        []int64 // the queued games at or above games.base that no entry named
	gamesFound       int64   // the games at or above games.base sale entries named, each once
	queuedTransfers  []int64
	units            units
	gr               gameReader // readChunk's, then queued's: one reads at a time

	tree *journal.Tree // of entries 0 on (or the mark's), up to the first missing

	// A comparison since a mark (CompareOptions.Since) starts at from, with the mark's tree;
	// late are the rows at or below the mark's watermark recorded inserted since.
	from  int64
	late  *lateRows
	since *journal.Mark
	// next is the mark being made: its size is fixed at the first entry that names a row above
	// its watermark, or at the last entry read.
	next     *journal.Mark
	nextSize bool
	cp       struct {
		size    int64
		root    tlog.Hash
		ok      bool      // signed with the key, its root read
		reached bool      // the tree reached its size
		entries tlog.Hash // the root of the entries up to its size, once reached
	}
}

// add reports a difference: of entry seq, which records entry (-1, "": of no entry).
func (c *comparison) add(seq int64, entry, format string, args ...any) {
	c.rep.Add(journal.Difference{Seq: seq, Entry: entry, Msg: fmt.Sprintf(format, args...)})
}

// addOf reports a difference of an entry that names its rows. Its label is made only then: a
// label for each sale compared was 1 % of a check's CPU.
func (c *comparison) addOf(l *line, format string, args ...any) {
	c.add(l.seq, label(l.named), format, args...)
}

// run compares, in order: the checkpoint's signature, the entries a chunk at a time with their
// rows, the checkpoint's root, the games and transfers no entry names, the restrictions.
func (c *comparison) run(ctx context.Context) error {
	var verifier string
	if err := c.q.QueryRow(ctx, `SELECT size, hashed, verifier, first_game, first_transfer, first_account FROM journal_state`).
		Scan(&c.size, &c.hashed, &verifier, &c.firstGame, &c.firstTransfer, &c.firstAccount); err != nil {
		return err
	}
	c.games.base, c.transfers.base = c.firstGame, c.firstTransfer
	c.next = &journal.Mark{Games: c.o.Games, Transfers: c.o.Transfers}
	if err := c.q.QueryRow(ctx, `SELECT coalesce(max(id), 0) FROM ledger_changes`).Scan(&c.next.Changes); err != nil {
		return err
	}
	if m := c.o.Since; m != nil {
		if err := c.start(ctx, m); err != nil {
			return err
		}
	}
	if err := c.checkpoint(ctx, verifier); err != nil {
		return err
	}
	if err := c.chunks(ctx); err != nil {
		return err
	}
	for _, t := range []struct{ table, what string }{{"journal", "entries"}, {"journal_accounts", "accounts of entries"}} {
		var beyond int64
		if err := c.q.QueryRow(ctx, `SELECT count(*) FROM `+t.table+` WHERE seq >= $1 OR seq < 0`, c.size).Scan(&beyond); err != nil {
			return err
		}
		if beyond > 0 {
			c.add(-1, "", "the journal holds %d %s beyond the %d its counter says (journal_state.size): rows were added behind its back", beyond, t.what, c.size)
		}
	}
	if err := c.root(ctx); err != nil {
		return err
	}
	if err := c.queued(ctx); err != nil {
		return err
	}
	if err := c.unnamedGames(ctx); err != nil {
		return err
	}
	if err := c.unnamedTransfers(ctx); err != nil {
		return err
	}
	if err := c.restrictions(ctx); err != nil {
		return err
	}
	c.expected()
	if c.rep.OK() {
		c.mark()
		c.rep.Mark = c.next
	}
	return nil
}

// checkpoint reads the latest checkpoint and checks its signature: with the key given, else
// with the one the journal says it is signed with.
func (c *comparison) checkpoint(ctx context.Context, verifier string) error {
	v := c.o.Verifier
	if verifier != "" {
		own, err := note.NewVerifier(verifier)
		switch {
		case err != nil:
			c.add(-1, "", "the journal's verifier key (journal_state.verifier) %q is not a note verifier key", verifier)
		case v == nil:
			v = own
		case own.Name() != v.Name() || own.KeyHash() != v.KeyHash():
			c.add(-1, "", "the journal says its checkpoints are signed with the key %s (journal_state.verifier), not with %s+%08x, the key given", verifier, v.Name(), v.KeyHash())
		}
	}
	var size int64
	var text string
	err := c.q.QueryRow(ctx, `SELECT size, note FROM journal_checkpoints ORDER BY size DESC LIMIT 1`).Scan(&size, &text)
	if errors.Is(err, sql.ErrNoRows) {
		if verifier != "" {
			// The verifier is set by the first checkpoint kept (AddCheckpoint).
			c.add(-1, "", "the journal keeps no checkpoint, though it names the key it signed one with: its checkpoints were deleted")
		}
		return c.reach()
	}
	if err != nil {
		return err
	}
	c.rep.Checkpoint = size
	if v == nil {
		c.add(-1, "", "the latest checkpoint, of %d entries, cannot be checked: the journal names no key, and none was given", size)
		return nil
	}
	signed, root, err := journal.OpenCheckpoint([]byte(text), v)
	switch {
	case err != nil:
		c.add(-1, "", "the latest checkpoint, of %d entries: %v", size, err)
	case signed != size:
		c.add(-1, "", "the latest checkpoint is kept as one of %d entries, but signs %d", size, signed)
	default:
		c.cp.size, c.cp.root, c.cp.ok = size, root, true
	}
	if m := c.since; m != nil && size < m.Checkpoint {
		c.add(-1, "", "the latest checkpoint signs %d entries, but the last check verified one of %d: checkpoints were removed", size, m.Checkpoint)
	}
	return c.reach()
}

// line is an entry's row as read (its game is the one its row names, for the game's proof:
// journal.game), and what names its rows.
type line struct {
	journalRow
	named journal.Named
	ok    bool // named: an entry's head, its seq its row's; or a sale's leaf and game
	bad   bool // not an entry, reported already
}

// treeLeaf is what the line adds to the tree: its leaf hash, or for a row of neither form, its
// bytes' (the tree then differs from the checkpoint's, and the row is reported).
func (l *line) treeLeaf() tlog.Hash {
	h, err := l.hash()
	if err != nil {
		return journal.Leaf(l.entry)
	}
	return h
}

// kept says whether the line is a sale kept as its leaf, its bytes rebuilt from its game.
func (l *line) kept() bool { return l.entry == nil }

// queued counts the entries queued and not yet in the journal (sqlstore.Sequence), and takes
// the rows they name as named: their entries are compared once they are appended.
func (c *comparison) queued(ctx context.Context) error {
	var rows []queuedRow
	err := each(c.q.Query(ctx, `SELECT `+queuedColumns+` FROM journal_queue`))(func(r Rows) error {
		row, err := scanQueued(r)
		rows = append(rows, row)
		return err
	})
	if err != nil {
		return err
	}
	for _, row := range rows {
		entries, err := row.entries()
		if err != nil {
			c.add(-1, "", "the journal's queue: %v", err)
			continue
		}
		for _, p := range entries {
			c.rep.Queued++
			if id := idOf(p.game); id != 0 {
				if !c.games.add(id) && id >= c.games.base {
					c.queuedNew = append(c.queuedNew, id)
				}
				c.queuedGames = append(c.queuedGames, id)
			}
			if id := idOf(p.transfer); id != 0 {
				c.transfers.add(id)
				c.queuedTransfers = append(c.queuedTransfers, id)
			}
			if restricts(p.kind) {
				c.queuedAccounts.add(p.account)
			}
		}
	}
	// Their games are compared with their units now, as their sale entries will be once
	// appended: the units' check leaves each game's prize to this comparison.
	games, err := c.gr.in(ctx, c.q, c.queuedGames)
	if err != nil {
		return err
	}
	for _, id := range slices.Sorted(maps.Keys(games)) {
		if _, _, err := c.unitOf(ctx, nil, games[id]); err != nil {
			return err
		}
	}
	// A queued entry is committed with its rows: one whose row is not in this snapshot was
	// written, or its row deleted, behind the store's back.
	transfers := map[int64]*lottery.Transfer{}
	if err := c.transfersOf(ctx, c.queuedTransfers, "", transfers); err != nil {
		return err
	}
	for _, missing := range []struct {
		what  string
		ids   []int64
		found func(int64) bool
	}{
		{"game", c.queuedGames, func(id int64) bool { return games[id] != nil }},
		{"transfer", c.queuedTransfers, func(id int64) bool { return transfers[id] != nil }},
	} {
		for _, id := range slices.Compact(slices.Sorted(slices.Values(missing.ids))) {
			if !missing.found(id) {
				c.add(-1, "", "the journal's queue holds an entry of %s %d, which the database does not have", missing.what, id)
			}
		}
	}
	return nil
}

// chunkRows are a chunk's entries and the rows they name: read (readChunk) while
// the chunk before is compared (compareRows), on the core the books' check leaves. Only the
// reading uses the snapshot's connection.
type chunkRows struct {
	lines     []line
	gaps      [][2]int64 // the entries missing, first and last
	games     map[int64]*gameRow
	transfers map[int64]*lottery.Transfer
	accounts  map[int64]int64 // seq → account, of journal_accounts
}

// readChunk reads entries a to b-1, what names their rows, and the rows.
func (c *comparison) readChunk(ctx context.Context, a, b int64) (*chunkRows, error) {
	r := &chunkRows{lines: make([]line, 0, b-a), accounts: map[int64]int64{}}
	next := a
	err := each(c.q.Query(ctx, selectJournalRows, a, b))(func(rows Rows) error {
		row, err := scanJournalRow(rows)
		if err != nil {
			return err
		}
		l := line{journalRow: row}
		if l.seq > next {
			r.gaps = append(r.gaps, [2]int64{next, l.seq - 1})
		}
		next = l.seq + 1
		r.lines = append(r.lines, l)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if next < b {
		r.gaps = append(r.gaps, [2]int64{next, b - 1})
	}
	// The stakes named by sales kept whole, and the other transfers named: read apart, so that
	// the stakes between the others are not read (comparison.sale).
	var games, stakes, money []int64
	var kept []*line
	for i := range r.lines {
		l := &r.lines[i]
		if !l.wellFormed() {
			continue // not ok
		}
		if l.kept() {
			// A sale kept as its leaf names its game by its row, and its stake by the game's.
			l.ok = l.game != nil
			if l.ok {
				l.named = journal.Named{Seq: l.seq, Kind: journal.KindSale, Game: *l.game}
				games = append(games, *l.game)
				kept = append(kept, l)
			}
			continue
		}
		n, err := journal.ReadNamed(l.entry)
		if l.ok = err == nil && n.Seq == l.seq; !l.ok {
			continue
		}
		l.named = n
		switch n.Kind {
		case journal.KindSale:
			games = append(games, n.Game)
			stakes = append(stakes, n.Transfer)
		case journal.KindPrize, journal.KindDeposit, journal.KindWithdrawal:
			money = append(money, n.Transfer)
		}
	}
	if r.games, err = c.gr.in(ctx, c.q, games); err != nil {
		return nil, err
	}
	// A sale kept as its leaf names its stake by its game's row; that transfer is not read again
	// (comparison.sale says why).
	for _, l := range kept {
		if g, ok := r.games[l.named.Game]; ok {
			l.named.Transfer = g.g.StakeTransfer
		}
	}
	r.transfers = make(map[int64]*lottery.Transfer, len(stakes)+len(money))
	if err := c.transfersOf(ctx, stakes, "", r.transfers); err != nil {
		return nil, err
	}
	if err := c.transfersOf(ctx, money, ` AND kind <> 'stake'`, r.transfers); err != nil {
		return nil, err
	}
	// One named as money that is a stake, or is gone, is looked up alone: comparison.money
	// names what it is.
	var missing []int64
	for _, id := range money {
		if _, ok := r.transfers[id]; !ok {
			missing = append(missing, id)
		}
	}
	if err := c.transfersOf(ctx, missing, "", r.transfers); err != nil {
		return nil, err
	}
	err = each(c.q.Query(ctx, `SELECT seq, account FROM journal_accounts WHERE seq >= $1 AND seq < $2`, a, b))(func(rows Rows) error {
		var seq, account int64
		err := rows.Scan(&seq, &account)
		r.accounts[seq] = account
		return err
	})
	return r, err
}

// compareRows compares a chunk's entries with their rows, and adds them to the tree.
func (c *comparison) compareRows(ctx context.Context, r *chunkRows) error {
	for _, g := range r.gaps {
		c.missing(g[0], g[1])
	}
	c.rep.Entries += int64(len(r.lines))
	for i := range r.lines {
		l := &r.lines[i]
		n := l.named
		if l.ok && !c.nextSize && ((n.Game != 0 && n.Game > c.next.Games) || (n.Transfer != 0 && n.Transfer > c.next.Transfers)) {
			c.fix(l.seq)
		}
		if l.seq == c.tree.Size() {
			if err := c.tree.Append(l.treeLeaf()); err != nil {
				return err
			}
			if err := c.reach(); err != nil {
				return err
			}
		}
		if !l.ok {
			c.invalid(l)
			continue
		}
		c.expect(n)
	}
	accounts := r.accounts
	for i := range r.lines {
		l := &r.lines[i]
		if l.bad {
			continue
		}
		switch l.named.Kind {
		case journal.KindSale:
			if err := c.sale(ctx, l, r.games, r.transfers); err != nil {
				return err
			}
		case journal.KindPrize, journal.KindDeposit, journal.KindWithdrawal:
			c.money(l, r.transfers)
		case journal.KindLimits, journal.KindExclusion, journal.KindClosure:
			c.accountOf(l, accounts)
		case journal.KindEmission:
			if err := c.emission(ctx, l); err != nil {
				return err
			}
		default:
			if _, err := journal.Parse(l.entry); err != nil {
				c.add(l.seq, label(l.named), "%v", err)
			}
		}
		if restricts(l.named.Kind) {
			delete(accounts, l.seq)
		}
		if l.game != nil && l.named.Kind != journal.KindSale {
			c.add(l.seq, label(l.named), "its row names game %d for the game's proof (journal.game), but it records no sale", *l.game)
		}
	}
	for _, l := range r.lines {
		if account, ok := accounts[l.seq]; ok && !l.bad {
			c.add(l.seq, label(l.named), "journal_accounts names account %d for it, but keeps only the accounts of limits, exclusions and closures", account)
		}
	}
	return nil
}

// chunks compares the entries from the comparison's start to its size, a chunk at a time, each
// read while the one before is compared.
func (c *comparison) chunks(ctx context.Context) error {
	type read struct {
		r   *chunkRows
		err error
	}
	ahead := func(a int64) <-chan read {
		ch := make(chan read, 1)
		go func() {
			r, err := c.readChunk(ctx, a, min(a+compareChunk, c.size))
			ch <- read{r, err}
		}()
		return ch
	}
	if c.from >= c.size {
		return nil
	}
	next := ahead(c.from)
	for a := c.from; a < c.size; a += compareChunk {
		got := <-next
		if got.err != nil {
			return got.err
		}
		if a+compareChunk < c.size {
			next = ahead(a + compareChunk)
		}
		if err := c.compareRows(ctx, got.r); err != nil {
			if a+compareChunk < c.size {
				<-next // the reading ends before the snapshot's transaction does
			}
			return err
		}
	}
	return nil
}

// missing reports entries a to b, not in the journal though its counter is past them.
func (c *comparison) missing(a, b int64) {
	if a == b {
		c.add(a, "missing", "the journal has no entry %d, though its counter is past it: it was deleted", a)
		return
	}
	c.add(a, "missing", "the journal has no entries %d to %d, though its counter is past them: they were deleted", a, b)
}

// invalid reports an entry that is not one: not an entry's bytes, or its seq not its row's.
func (c *comparison) invalid(l *line) {
	l.bad = true
	if !l.wellFormed() || l.kept() {
		c.add(l.seq, "unreadable", "its row holds %s: an entry's row holds its bytes, or a sale's leaf hash of 32 bytes and its game", l.form())
		return
	}
	p, err := journal.Parse(l.entry)
	if err != nil {
		c.add(l.seq, "unreadable", "%v", err)
		return
	}
	c.add(l.seq, p.Kind, "its bytes say it is entry %d: entries were moved", p.Seq)
}

// label is what an entry records, as a difference names it: "sale of game 977".
func label(n journal.Named) string {
	switch n.Kind {
	case journal.KindSale, journal.KindPrize:
		return fmt.Sprintf("%s of game %d", n.Kind, n.Game)
	case journal.KindDeposit, journal.KindWithdrawal:
		return fmt.Sprintf("%s of transfer %d", n.Kind, n.Transfer)
	}
	return n.Kind
}

// transfersOf reads into out the transfers of ids that also match and (SQL: "" for all), by id.
func (c *comparison) transfersOf(ctx context.Context, ids []int64, and string, out map[int64]*lottery.Transfer) error {
	return inRanges(ctx, c.q, ids, `SELECT id, from_account, to_account, amount, kind, coalesce(game_id, 0), coalesce(reason, ''), created_at
		FROM transfers WHERE id >= $1 AND id <= $2`+and, func(r Rows) error {
		var t lottery.Transfer
		err := r.Scan(&t.ID, &t.From, &t.To, &t.Amount, &t.Kind, &t.GameID, &t.Reason, ScanTime(&t.CreatedAt))
		out[t.ID] = &t
		return err
	})
}

// sale compares a sale entry with its game and its unit, and its stake transfer.
func (c *comparison) sale(ctx context.Context, l *line, games map[int64]*gameRow, transfers map[int64]*lottery.Transfer) error {
	n := l.named
	g, ok := games[n.Game]
	if !ok {
		c.addOf(l, "the database has no game %d: it was deleted", n.Game)
	} else {
		c.rep.Games++
		if c.named(&c.games, n.Game, true) {
			c.addOf(l, "game %d has a sale entry before this one", n.Game)
		} else if n.Game >= c.games.base {
			c.gamesFound++ // named once, and read in this snapshot (allGamesNamed)
		}
		if l.game == nil || *l.game != n.Game {
			c.addOf(l, "its row names game %s for the game's proof (journal.game), not game %d: the game's proof names another entry", nullSeq(l.game), n.Game)
		}
		unit, read, err := c.unitOf(ctx, l, g)
		if err != nil {
			return err
		}
		if read {
			c.rebuilt(l, g, saleBytes(l.seq, g, unit, c.key))
		}
	}
	if l.kept() {
		// Its stake is named by its game's row, whose stake_transfer the leaf binds (SaleEvent).
		// The transfer itself is not read again here: the books' pass proves it the game's
		// (its kind, game, amount and accounts) when the game is new, and a transfer never
		// changes after (its triggers, watched by the mark). It is only counted as named.
		if ok && c.named(&c.transfers, n.Transfer, false) {
			c.addOf(l, "transfer %d is named by an entry before this one", n.Transfer)
		}
		return nil
	}
	t, ok := transfers[n.Transfer]
	switch {
	case !ok:
		c.addOf(l, "the database has no transfer %d, the game's stake it names", n.Transfer)
		return nil
	case t.Kind != lottery.Stake || t.GameID != n.Game:
		c.addOf(l, "transfer %d, which it names as the game's stake, is %s", n.Transfer, describe(t))
	}
	if c.named(&c.transfers, n.Transfer, false) {
		c.addOf(l, "transfer %d is named by an entry before this one", n.Transfer)
	}
	return nil
}

// unitOf reads the leaf hash of a game's unit, and compares its prize with the game's: the
// units' check leaves each game the journal covers to this comparison (ledgercheck.checkUnits).
// It reports a prize that differs, or a unit that cannot be read (read false), as a difference of
// the entry l, or of no entry when l is nil (a queued entry's game).
func (c *comparison) unitOf(ctx context.Context, l *line, g *gameRow) (unit [32]byte, read bool, err error) {
	say := func(format string, args ...any) {
		if l == nil {
			c.add(-1, "", format, args...)
			return
		}
		c.addOf(l, format, args...)
	}
	unit, prize, err := c.units.leaf(ctx, &g.g)
	if err != nil {
		var corrupt *emission.Corrupt
		if !errors.Is(err, emission.ErrNotFound) && !errors.As(err, &corrupt) && !errors.Is(err, errNoEmission) {
			return unit, false, err
		}
		say("the game's unit (%s block %d unit %d) cannot be read: %v", g.g.Emission, g.g.Block, g.g.Unit, err)
		return unit, false, nil
	}
	if prize != g.g.Prize {
		say("game %d paid %d cents, its unit (%s block %d unit %d) wins %d", g.g.ID, g.g.Prize, g.g.Emission, g.g.Block, g.g.Unit, prize)
	}
	return unit, true, nil
}

func nullSeq(s *int64) string {
	if s == nil {
		return "none"
	}
	return fmt.Sprint(*s)
}

// rebuilt compares a sale's entry as its game's rows rebuild it, want, with the entry as kept:
// its bytes, or its leaf hash. Without the account key, a leaf cannot be compared: the entry's
// reference to the account is in the bytes it hashes.
func (c *comparison) rebuilt(l *line, g *gameRow, want []byte) {
	switch {
	case !l.kept():
		c.differs(l, "game", want)
	case !c.refs:
		c.rep.Unkeyed++
	default:
		if got := journal.Leaf(want); got != tlog.Hash(l.leaf) {
			c.addOf(l, "game %d as its rows say it (account %d, stake %d, prize %d, %s block %d unit %d, mode %s, sold at %s) rebuilds an entry whose leaf hash is %x, not the %x its row keeps: the game, its player's account, its block or its unit was changed since the sale",
				g.g.ID, g.account, g.g.Stake, g.g.Prize, g.g.Emission, g.g.Block, g.g.Unit, g.g.Mode, g.g.CreatedAt.Format(journal.TimeFormat), got[:], l.leaf)
		}
	}
}

// form says what a row that is not an entry's holds.
func (l *line) form() string {
	switch {
	case l.entry == nil && l.leaf == nil:
		return "neither an entry's bytes nor a leaf hash"
	case l.entry != nil && l.leaf != nil:
		return "both an entry's bytes and a leaf hash"
	case l.entry == nil && len(l.leaf) != len(tlog.Hash{}):
		return fmt.Sprintf("a leaf hash of %d bytes", len(l.leaf))
	}
	return "a leaf hash and no game"
}

// money compares a prize, a deposit or a withdrawal entry with its transfer.
func (c *comparison) money(l *line, transfers map[int64]*lottery.Transfer) {
	n := l.named
	t, ok := transfers[n.Transfer]
	if !ok {
		c.addOf(l, "the database has no transfer %d: it was deleted", n.Transfer)
		return
	}
	c.rep.Transfers++
	if c.named(&c.transfers, n.Transfer, false) {
		c.addOf(l, "transfer %d is named by an entry before this one", n.Transfer)
	}
	if t.Kind == lottery.Stake {
		c.addOf(l, "transfer %d is %s", n.Transfer, describe(t))
		return
	}
	c.differs(l, "transfer", journal.Encode(uint64(l.seq), t.CreatedAt, MoneyEvent(*t), c.key))
}

// compare reports how an entry differs from want, the bytes Encode makes of its rows; subject
// names the rows ("game": "the game's prize is 5000, the entry says 200").
func (c *comparison) compare(l *line, what, subject string, want []byte) {
	if msg := c.differ(l.entry, want, subject); msg != "" {
		c.add(l.seq, what, "%s", msg)
	}
}

// differs is compare for an entry that names its rows (label).
func (c *comparison) differs(l *line, subject string, want []byte) {
	if msg := c.differ(l.entry, want, subject); msg != "" {
		c.addOf(l, "%s", msg)
	}
}

// differ says how entry differs from want ("" for not at all). Without the account key, the
// references are left out, and the rest of the entry must be an entry as Encode writes it.
func (c *comparison) differ(entry, want []byte, subject string) string {
	if bytes.Equal(entry, want) {
		return ""
	}
	fields, err := journal.Diff(entry, want)
	if err != nil {
		return err.Error()
	}
	var parts []string
	for _, f := range fields {
		switch {
		case f.Name != "account":
			verb := "is"
			if strings.HasPrefix(f.Row, "[") {
				verb = "are" // a list: an emission's roots
			}
			parts = append(parts, fmt.Sprintf("the %s's %s %s %s, the entry says %s", subject, f.Name, verb, f.Row, f.Entry))
		case c.refs:
			parts = append(parts, fmt.Sprintf("the %s's account has the reference %s at this seq, the entry says %s: another account's", subject, f.Row, f.Entry))
		}
	}
	if len(parts) == 0 {
		if _, err := journal.Parse(entry); err != nil {
			return err.Error()
		}
		if c.refs {
			return "its bytes differ from those of its rows, though its fields are theirs"
		}
	}
	return strings.Join(parts, "; ")
}

// emission compares the entry of an emission created with the emission and its blocks' roots,
// the commitments every unit is checked against. Its operator is not kept with the emission: it
// is the entry's own.
func (c *comparison) emission(ctx context.Context, l *line) error {
	p, err := journal.Parse(l.entry)
	if err != nil {
		c.add(l.seq, label(l.named), "%v", err)
		return nil
	}
	if p.Event != "created" {
		return nil
	}
	what := fmt.Sprintf("emission %s created", p.Emission)
	e, err := c.s.Emission(ctx, p.Emission)
	if errors.Is(err, emission.ErrNotFound) {
		c.add(l.seq, what, "the database has no emission %s", p.Emission)
		return nil
	}
	if err != nil {
		return err
	}
	c.compare(l, what, "emission", journal.Encode(uint64(l.seq), e.CreatedAt, EmissionEvent(e, e.Blocks, p.Operator), c.key))
	return nil
}

// accountOf checks the account journal_accounts keeps for a restriction's entry against the
// entry's reference.
func (c *comparison) accountOf(l *line, accounts map[int64]int64) {
	p, err := journal.Parse(l.entry)
	if err != nil {
		l.bad = true
		c.add(l.seq, label(l.named), "%v", err)
		return
	}
	account, ok := accounts[l.seq]
	switch {
	case !ok:
		c.add(l.seq, p.Kind, "journal_accounts keeps no account for it: whose %s it records cannot be compared with their rows", p.Kind)
	case c.refs && c.key.Ref(account, uint64(l.seq)) != p.Account:
		c.add(l.seq, restriction(p, account), "journal_accounts says it is account %d's, whose reference at this seq is %s, the entry's is %s: the map was rewritten",
			account, c.key.Ref(account, uint64(l.seq)), p.Account)
	}
}

// restriction is what a restriction's entry records, as a difference names it: "exclusion of
// account 4", "deposit limit of account 4".
func restriction(p journal.Parsed, account int64) string {
	if p.Kind == journal.KindLimits {
		return fmt.Sprintf("%s limit of account %d", p.Limit, account)
	}
	return fmt.Sprintf("%s of account %d", p.Kind, account)
}

// describe says what a transfer is, for a person.
func describe(t *lottery.Transfer) string {
	switch t.Kind {
	case lottery.Stake:
		return fmt.Sprintf("the stake of game %d, %d cents from account %d", t.GameID, t.Amount, t.From)
	case lottery.Prize:
		return fmt.Sprintf("the prize of game %d, %d cents to account %d", t.GameID, t.Amount, t.To)
	case lottery.Deposit:
		return fmt.Sprintf("a deposit of %d cents to account %d", t.Amount, t.To)
	}
	return fmt.Sprintf("a withdrawal of %d cents from account %d", t.Amount, t.From)
}

// root checks the entries against the latest checkpoint: the root of the entries up to its size
// (taken as the tree passed it), and the root of the tree's stored hashes, which every proof the
// API serves is made from. When the entries' root is not the signed one but the stored hashes'
// is, the stored leaves name the entries rewritten.
func (c *comparison) root(ctx context.Context) error {
	if !c.cp.ok {
		return nil
	}
	if err := c.rootSince(ctx); err != nil {
		return err
	}
	if c.cp.size > c.size {
		c.add(-1, "", "the latest checkpoint signs %d entries, but the journal's counter says %d: entries were removed", c.cp.size, c.size)
	}
	// The tiles hold the leaves as they were signed only if they cover the checkpoint and
	// give its root; then they name the entries rewritten since (locate).
	tilesSigned := false
	if c.hashed < c.cp.size {
		c.rep.Unhashed = c.cp.size - c.hashed // not compared: the tree is being rebuilt
	} else if stored, err := tlog.TreeHash(c.cp.size, treeHashes(ctx, c.q)); err != nil {
		c.add(-1, "", "the tree's stored tiles (journal_tiles) cannot give the root of the latest checkpoint's %d entries: %v", c.cp.size, err)
	} else if stored != c.cp.root {
		c.add(-1, "", "the tree's stored tiles (journal_tiles) give the root %x for the latest checkpoint's %d entries, which signs %x: the proofs made from them fail",
			stored[:], c.cp.size, c.cp.root[:])
	} else {
		tilesSigned = true
	}
	if !c.cp.reached || c.cp.entries == c.cp.root {
		// Not reached: an entry below the checkpoint's size is missing, reported as such.
		return nil
	}
	c.add(-1, "", "entries 0 to %d hash to the root %x, but the latest checkpoint signs %x for them: the journal was rewritten since it was signed",
		c.cp.size-1, c.cp.entries[:], c.cp.root[:])
	if tilesSigned {
		return c.locate(ctx)
	}
	return nil
}

// reach notes the root of the entries when the tree reaches the checkpoint's size.
func (c *comparison) reach() error {
	if !c.cp.ok || c.cp.reached || c.tree.Size() != c.cp.size {
		return nil
	}
	root, err := c.tree.Root()
	c.cp.entries, c.cp.reached = root, true
	return err
}

// locate names the entries rewritten since the latest checkpoint: those whose leaf hash is not
// the one the tree's stored hashes kept when it was built.
func (c *comparison) locate(ctx context.Context) error {
	for a := c.from; a < c.cp.size; a += compareChunk {
		b := min(a+compareChunk, c.cp.size)
		var lines []line
		if err := each(c.q.Query(ctx, selectJournalRows, a, b))(func(r Rows) error {
			row, err := scanJournalRow(r)
			lines = append(lines, line{journalRow: row})
			return err
		}); err != nil {
			return err
		}
		indexes := make([]int64, len(lines))
		for i := range lines {
			indexes[i] = tlog.StoredHashIndex(0, lines[i].seq)
		}
		leaves, err := treeHashes(ctx, c.q).ReadHashes(indexes)
		if err != nil {
			return err
		}
		for i := range lines {
			l := &lines[i]
			if leaf := l.treeLeaf(); leaf != leaves[i] {
				n := journal.Named{Kind: journal.KindSale}
				if l.kept() && l.game != nil {
					n.Game = *l.game
				} else {
					n, _ = journal.ReadNamed(l.entry)
				}
				what := "bytes are not those"
				if l.kept() {
					what = "leaf hash is not the one"
				}
				c.add(l.seq, label(n), "its %s the signed tree holds: it was rewritten after it was appended (its leaf hash is %x, the tree's %x)", what, leaf[:], leaves[i][:])
			}
		}
	}
	return nil
}

// unnamedGames reports the games since the journal began that no sale entry names. It counts
// them first (allGamesNamed); when some are not named, it reads their ids alone (the primary
// key's order, no other table), and the rows of those it reports.
//
// A game below them that an entry's row names (journal.game) is not read again here: the
// comparison of each entry read finds a row that names a game its entry does not sell. Read here,
// they were a scan of the index of every game's entry, the whole history, at each check since
// the last.
func (c *comparison) unnamedGames(ctx context.Context) error {
	var parts []string
	all, err := c.allGamesNamed(ctx)
	if err != nil {
		return err
	}
	if !all {
		parts = append(parts, fmt.Sprintf(`SELECT id FROM games WHERE id >= %d`, c.games.base))
	}
	if c.late != nil {
		parts = append(parts, c.lateIDs("games", c.late.games, c.since.Expected.Games)...)
	}
	ids, err := c.unnamed(ctx, &c.games, parts)
	if err != nil {
		return err
	}
	for _, id := range ids {
		var g gameRow
		var seq sql.NullInt64 // the entry whose row names it (journal.game)
		if err := c.q.QueryRow(ctx, `SELECT g.id, g.stake, g.prize, g.created_at, coalesce(p.account_id, 0), j.seq
			FROM games g LEFT JOIN players p ON p.id = g.player_id LEFT JOIN journal j ON j.game = g.id WHERE g.id = $1`, id).
			Scan(&g.g.ID, &g.g.Stake, &g.g.Prize, ScanTime(&g.g.CreatedAt), &g.account, &seq); err != nil {
			return err
		}
		why := ""
		if seq.Valid {
			why = fmt.Sprintf(": the row of entry %d names it (journal.game), but that entry records something else", seq.Int64)
		}
		c.add(-1, "", "game %d (account %d, stake %d, prize %d, sold at %s) has no sale entry%s", g.g.ID, g.account, g.g.Stake, g.g.Prize,
			g.g.CreatedAt.Format(journal.TimeFormat), why)
	}
	return nil
}

// unnamedTransfers reports the transfers since the journal began that no entry names.
func (c *comparison) unnamedTransfers(ctx context.Context) error {
	parts := []string{fmt.Sprintf(`SELECT id FROM transfers WHERE id >= %d`, c.transfers.base)}
	if c.late != nil {
		parts = append(parts, c.lateIDs("transfers", c.late.transfers, c.since.Expected.Transfers)...)
	}
	ids, err := c.unnamed(ctx, &c.transfers, parts)
	if err != nil {
		return err
	}
	for _, id := range ids {
		var t lottery.Transfer
		if err := c.q.QueryRow(ctx, `SELECT id, from_account, to_account, amount, kind, coalesce(game_id, 0), created_at FROM transfers WHERE id = $1`, id).
			Scan(&t.ID, &t.From, &t.To, &t.Amount, &t.Kind, &t.GameID, ScanTime(&t.CreatedAt)); err != nil {
			return err
		}
		c.add(-1, "", "transfer %d (%s, at %s) has no entry", t.ID, describe(&t), t.CreatedAt.Format(journal.TimeFormat))
	}
	return nil
}

// allGamesNamed says whether every game at or above the named set's base is named, from their
// count rather than from each id: reading each was 0.57 s of CPU for 10^6 games, the count 0.19.
// The games named there are those the sale entries found in this snapshot (gamesFound), and
// the queued entries' games not named before that exist: when they are as many as the games,
// they are all of them.
func (c *comparison) allGamesNamed(ctx context.Context) (bool, error) {
	named := c.gamesFound
	if len(c.queuedNew) > 0 {
		var n int64
		if err := c.q.QueryRow(ctx, `SELECT count(*) FROM games WHERE id IN (`+idList(c.queuedNew)+`)`).Scan(&n); err != nil {
			return false, err
		}
		named += n
	}
	var all int64
	if err := c.q.QueryRow(ctx, `SELECT count(*) FROM games WHERE id >= $1`, c.games.base).Scan(&all); err != nil {
		return false, err
	}
	return all == named, nil
}

// unnamed lists, in order, the ids the queries of parts read that no entry named (named), up to
// those the report keeps; the others it counts as dropped.
func (c *comparison) unnamed(ctx context.Context, named *idSet, parts []string) ([]int64, error) {
	if len(parts) == 0 {
		return nil, nil
	}
	var ids []int64
	err := each(c.q.Query(ctx, strings.Join(parts, " UNION ")))(func(r Rows) error {
		var id int64
		if err := r.Scan(&id); err != nil || named.has(id) {
			return err
		}
		if len(ids) < journal.MaxProblems {
			ids = append(ids, id)
		} else {
			c.rep.Dropped++
		}
		return nil
	})
	slices.Sort(ids)
	return ids, err
}

// restricted is a player's restrictions as their rows keep them.
type restricted struct {
	player         int64
	deposit, stake limitColumns
	excludedUntil  time.Time // zero: none
	closedAt       time.Time // zero: open
	closedBy       string
}

// restrictedColumns are the columns scanRestricted reads, of players p and accounts a.
const restrictedColumns = `p.id, p.account_id, a.deposit_limit, a.deposit_raise, a.deposit_raise_at, a.stake_limit, a.stake_raise, a.stake_raise_at,
	p.excluded_until, p.closed_at, coalesce(p.closed_by, '')`

func scanRestricted(r Rows) (int64, *restricted, error) {
	var p restricted
	var account int64
	err := r.Scan(&p.player, &account, &p.deposit.amount, &p.deposit.raise, ScanTime(&p.deposit.raiseAt), &p.stake.amount, &p.stake.raise,
		ScanTime(&p.stake.raiseAt), ScanTime(&p.excludedUntil), ScanTime(&p.closedAt), &p.closedBy)
	return account, &p, err
}

// restrictions compares the players' limits, exclusions and closures with their entries, a page
// of accounts at a time, then reports the accounts the journal covers whose rows hold a
// restriction no entry records.
func (c *comparison) restrictions(ctx context.Context) error {
	var seen idSet
	for after := int64(-1); ; {
		var accounts []int64
		if err := each(c.q.Query(ctx, `SELECT DISTINCT account FROM journal_accounts WHERE account > $1 ORDER BY account LIMIT $2`, after, accountsPage))(func(r Rows) error {
			var a int64
			err := r.Scan(&a)
			accounts = append(accounts, a)
			return err
		}); err != nil {
			return err
		}
		if len(accounts) == 0 {
			break
		}
		lo, hi := accounts[0], accounts[len(accounts)-1]
		after = hi
		page, err := c.accountsPage(ctx, lo, hi)
		if err != nil {
			return err
		}
		for _, a := range accounts {
			seen.add(a)
			c.rep.Accounts++
			if !c.queuedAccounts.has(a) {
				c.account(a, page.entries[a], page.players[a], page.changes[a])
			}
		}
	}
	return each(c.q.Query(ctx, `SELECT `+restrictedColumns+` FROM players p JOIN accounts a ON a.id = p.account_id
		WHERE p.account_id >= $1 AND (a.deposit_limit IS NOT NULL OR a.deposit_raise IS NOT NULL OR a.stake_limit IS NOT NULL OR a.stake_raise IS NOT NULL
		  OR p.excluded_until IS NOT NULL OR p.closed_at IS NOT NULL)
		ORDER BY p.account_id`, c.firstAccount))(func(r Rows) error {
		account, p, err := scanRestricted(r)
		if err != nil || seen.has(account) || c.queuedAccounts.has(account) {
			return err
		}
		c.account(account, nil, p, nil)
		return nil
	})
}

// restrictionPage is the entries and rows of a page of accounts.
type restrictionPage struct {
	entries map[int64][]dated // by account, in the order of their seqs
	players map[int64]*restricted
	changes map[int64][]lottery.LimitChange // in the order they were kept
}

// dated is an entry of a restriction, read back.
type dated struct {
	seq   int64
	entry []byte
	p     journal.Parsed
}

// accountsPage reads the entries and rows of the accounts lo to hi.
func (c *comparison) accountsPage(ctx context.Context, lo, hi int64) (*restrictionPage, error) {
	page := &restrictionPage{entries: map[int64][]dated{}, players: map[int64]*restricted{}, changes: map[int64][]lottery.LimitChange{}}
	owner := map[int64]int64{} // seq → account
	var seqs []int64
	if err := each(c.q.Query(ctx, `SELECT seq, account FROM journal_accounts WHERE account >= $1 AND account <= $2 ORDER BY account, seq`, lo, hi))(func(r Rows) error {
		var seq, a int64
		err := r.Scan(&seq, &a)
		owner[seq] = a
		seqs = append(seqs, seq)
		return err
	}); err != nil {
		return nil, err
	}
	found := map[int64][]byte{}
	for rest := seqs; len(rest) > 0; {
		n := min(len(rest), journalChunk)
		args := make([]any, n)
		for i, s := range rest[:n] {
			args[i] = s
		}
		if err := each(c.q.Query(ctx, `SELECT seq, entry FROM journal WHERE seq IN (`+strings.Trim(values(1, n), "()")+`)`, args...))(func(r Rows) error {
			var seq int64
			var e []byte
			err := r.Scan(&seq, &e)
			found[seq] = e
			return err
		}); err != nil {
			return nil, err
		}
		rest = rest[n:]
	}
	for _, seq := range seqs {
		e, ok := found[seq]
		if !ok {
			continue // missing: reported with the entries
		}
		p, err := journal.Parse(e)
		a := owner[seq]
		// An entry that is not one, or not a restriction, or not the account's by its reference,
		// was reported with the entries; it says nothing of the account's rows.
		if err != nil || !restricts(p.Kind) || c.refs && c.key.Ref(a, uint64(seq)) != p.Account {
			continue
		}
		page.entries[a] = append(page.entries[a], dated{seq: seq, entry: e, p: p})
	}
	if err := each(c.q.Query(ctx, `SELECT `+restrictedColumns+` FROM players p JOIN accounts a ON a.id = p.account_id
		WHERE p.account_id >= $1 AND p.account_id <= $2`, lo, hi))(func(r Rows) error {
		account, p, err := scanRestricted(r)
		page.players[account] = p
		return err
	}); err != nil {
		return nil, err
	}
	err := each(c.q.Query(ctx, `SELECT p.account_id, l.kind, l.old, l.new, l.requested_at, l.effective_at, l.by
		FROM limit_changes l JOIN players p ON p.id = l.player_id WHERE p.account_id >= $1 AND p.account_id <= $2 ORDER BY l.id`, lo, hi))(func(r Rows) error {
		var a int64
		var ch lottery.LimitChange
		err := r.Scan(&a, &ch.Limit, &ch.Old, &ch.New, ScanTime(&ch.RequestedAt), ScanTime(&ch.EffectiveAt), &ch.By)
		page.changes[a] = append(page.changes[a], ch)
		return err
	})
	return page, err
}

// account compares an account's restrictions with the entries of its limits, exclusions and
// closures (none: an account no entry names). The rows of an account the journal covers from
// its opening (first_account) hold no restriction that no entry records.
func (c *comparison) account(a int64, entries []dated, p *restricted, changes []lottery.LimitChange) {
	if p == nil {
		if len(entries) > 0 {
			c.add(entries[0].seq, restriction(entries[0].p, a), "no player has account %d", a)
		}
		return
	}
	var limits, exclusions, closures []dated
	for _, e := range entries {
		switch e.p.Kind {
		case journal.KindLimits:
			limits = append(limits, e)
		case journal.KindExclusion:
			exclusions = append(exclusions, e)
		case journal.KindClosure:
			closures = append(closures, e)
		}
	}
	covered := a >= c.firstAccount
	c.exclusions(a, exclusions, p, covered)
	c.closures(a, closures, p, covered)
	c.limits(a, limits, p, changes, covered)
}

// exclusions: each exclusion entry's end still holds in the player's row, never shortened, and
// the row's end is the last one's (an exclusion keeps the later of two ends: ExcludePlayer).
func (c *comparison) exclusions(a int64, entries []dated, p *restricted, covered bool) {
	row := p.excludedUntil
	for _, e := range entries {
		switch what := restriction(e.p, a); {
		case row.IsZero():
			c.add(e.seq, what, "the player's exclusion is removed, the entry says until %s", e.p.Until.Format(journal.TimeFormat))
		case row.UnixMilli() < e.p.Until.UnixMilli():
			c.add(e.seq, what, "the player is excluded until %s, the entry says until %s: the exclusion was shortened",
				row.Format(journal.TimeFormat), e.p.Until.Format(journal.TimeFormat))
		}
	}
	if n := len(entries); n > 0 && !row.IsZero() && row.UnixMilli() > entries[n-1].p.Until.UnixMilli() {
		last := entries[n-1]
		c.add(last.seq, restriction(last.p, a), "the player is excluded until %s, later than the entry, the last exclusion, says (until %s): the exclusion was changed without an entry",
			row.Format(journal.TimeFormat), last.p.Until.Format(journal.TimeFormat))
	}
	if len(entries) == 0 && covered && !row.IsZero() {
		c.add(-1, "", "account %d (player %d) is excluded until %s, and no exclusion entry says so", a, p.player, row.Format(journal.TimeFormat))
	}
}

// closures: the account a closure entry records is still closed, by whom and when it says.
func (c *comparison) closures(a int64, entries []dated, p *restricted, covered bool) {
	for i, e := range entries {
		what := restriction(e.p, a)
		switch {
		case i > 0:
			c.add(e.seq, what, "the account's closure is entry %d already", entries[0].seq)
		case p.closedAt.IsZero():
			c.add(e.seq, what, "the account is open, the entry says it was closed (by %s)", e.p.By)
		case p.closedBy != e.p.By:
			c.add(e.seq, what, "the account was closed by %s, the entry says by %s", p.closedBy, e.p.By)
		case p.closedAt.Format(journal.TimeFormat) != e.p.Time.Format(journal.TimeFormat):
			c.add(e.seq, what, "the account was closed at %s, the entry says at %s", p.closedAt.Format(journal.TimeFormat), e.p.Time.Format(journal.TimeFormat))
		}
	}
	if len(entries) == 0 && covered && !p.closedAt.IsZero() {
		c.add(-1, "", "account %d (player %d) is closed (by %s, at %s), and no closure entry says so", a, p.player, p.closedBy, p.closedAt.Format(journal.TimeFormat))
	}
}

// limitKinds are the limits as the entries name them, and as the rows do.
var limitKinds = []struct{ entry, row string }{{"deposit", lottery.DepositWeekly}, {"stake", lottery.StakeWeekly}}

// limits: each limits entry is a change kept in limit_changes, byte for byte once rebuilt, and
// each limit in the account's row is the one its last change makes it, at Now.
func (c *comparison) limits(a int64, entries []dated, p *restricted, changes []lottery.LimitChange, covered bool) {
	used := make([]bool, len(changes))
	last := map[string]dated{}
	for _, e := range entries {
		last[e.p.Limit] = e
		c.limitKept(a, e, changes, used)
	}
	for _, k := range limitKinds {
		row := p.deposit.limit()
		if k.entry == "stake" {
			row = p.stake.limit()
		}
		e, ok := last[k.entry]
		if !ok {
			if covered && (row.Set || row.Pending != nil) {
				c.add(-1, "", "account %d (player %d): its %s limit is %s, and no limits entry says so", a, p.player, k.entry, describeLimit(row))
			}
			continue
		}
		want := lottery.Limit{Set: e.p.Old != nil}
		if e.p.Old != nil {
			want.Amount = *e.p.Old
		}
		if e.p.Effective.After(e.p.Time) {
			want.Pending = &lottery.Pending{Amount: e.p.New, EffectiveAt: e.p.Effective}
		} else {
			want = lottery.Limit{Set: true, Amount: e.p.New}
		}
		if got, w := row.At(c.o.Now), want.At(c.o.Now); !sameLimit(got, w) {
			c.add(e.seq, restriction(e.p, a), "the account's %s limit is %s, the entry, its last change, makes it %s", k.entry, describeLimit(got), describeLimit(w))
		}
	}
	if !covered {
		return
	}
	for i, ch := range changes {
		if !used[i] {
			c.add(-1, "", "account %d (player %d): the change of its %s kept at %s (to %d, by %s) has no limits entry", a, p.player, ch.Limit,
				ch.RequestedAt.Format(journal.TimeFormat), ch.New, ch.By)
		}
	}
}

// limitKept finds the change kept that a limits entry records: the one it is byte for byte once
// rebuilt, else the one of its time, compared field by field.
func (c *comparison) limitKept(a int64, e dated, changes []lottery.LimitChange, used []bool) {
	what := restriction(e.p, a)
	closest := -1
	for i, ch := range changes {
		if used[i] || LimitsEvent(a, ch).Limit != e.p.Limit {
			continue
		}
		want := journal.Encode(uint64(e.seq), ch.RequestedAt, LimitsEvent(a, ch), c.key)
		if c.differ(e.entry, want, "") == "" {
			used[i] = true
			return
		}
		if closest < 0 && ch.RequestedAt.UnixMilli() == e.p.Time.UnixMilli() {
			closest = i
		}
	}
	if closest >= 0 {
		used[closest] = true
		ch := changes[closest]
		c.add(e.seq, what, "%s", c.differ(e.entry, journal.Encode(uint64(e.seq), ch.RequestedAt, LimitsEvent(a, ch), c.key), "limit_changes row"))
		return
	}
	old := "none"
	if e.p.Old != nil {
		old = fmt.Sprint(*e.p.Old)
	}
	c.add(e.seq, what, "limit_changes keeps no change of the limit at %s; the entry says from %s to %d, effective %s, by %s",
		e.p.Time.Format(journal.TimeFormat), old, e.p.New, e.p.Effective.Format(journal.TimeFormat), e.p.By)
}

// sameLimit says whether two limits are one, to the millisecond the entries keep.
func sameLimit(a, b lottery.Limit) bool {
	if a.Set != b.Set || a.Set && a.Amount != b.Amount || (a.Pending == nil) != (b.Pending == nil) {
		return false
	}
	return a.Pending == nil || a.Pending.Amount == b.Pending.Amount && a.Pending.EffectiveAt.UnixMilli() == b.Pending.EffectiveAt.UnixMilli()
}

// describeLimit says a limit for a person: "5000", "5000, raised to 9000 from …", "not set".
func describeLimit(l lottery.Limit) string {
	s := "not set"
	if l.Set {
		s = fmt.Sprint(l.Amount)
	}
	if l.Pending != nil {
		s += fmt.Sprintf(", raised to %d from %s", l.Pending.Amount, l.Pending.EffectiveAt.Format(journal.TimeFormat))
	}
	return s
}

// idSet is a set of ids from a base on, a bit each (10^8 ids: 12.5 MB); the few ids below the
// base, or far beyond what a bit each can hold, are kept in a map.
type idSet struct {
	base  int64
	bits  []uint64
	other map[int64]bool
}

// maxBits bounds the bits of an idSet: 2^33 ids, 1 GB. An id beyond is an id a database
// administrator made up, kept in the map.
const maxBits = 1 << 33

// add adds an id, and says whether it was there already.
func (s *idSet) add(id int64) bool {
	i := id - s.base
	if id < s.base || i >= maxBits {
		if s.other == nil {
			s.other = map[int64]bool{}
		}
		had := s.other[id]
		s.other[id] = true
		return had
	}
	w := int(i >> 6)
	if w >= len(s.bits) {
		s.bits = append(s.bits, make([]uint64, max(w+1, 2*len(s.bits))-len(s.bits))...)
	}
	m := uint64(1) << (i & 63)
	had := s.bits[w]&m != 0
	s.bits[w] |= m
	return had
}

// has says whether an id is in the set.
func (s *idSet) has(id int64) bool {
	i := id - s.base
	if id < s.base || i >= maxBits {
		return s.other[id]
	}
	w := int(i >> 6)
	return w < len(s.bits) && s.bits[w]&(1<<(i&63)) != 0
}
