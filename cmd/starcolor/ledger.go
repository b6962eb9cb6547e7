package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"runtime/debug"
	"sync"

	"golang.org/x/mod/sumdb/note"

	"starcolor/internal/app"
	"starcolor/internal/cmdline"
	"starcolor/internal/emission"
	"starcolor/internal/fault"
	"starcolor/internal/gamedef"
	"starcolor/internal/journal"
	"starcolor/internal/ledgermark"
	"starcolor/internal/lottery"
)

func runLedger(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	const usage = "[--db FILE|URL] [--journal-key FILE [--since-last] [--mark FILE] | --journal-verifier KEY [--account-key HEX]]"
	if len(args) == 0 || args[0] != "check" {
		fmt.Fprintln(stderr, "Usage: starcolor ledger check "+usage)
		return cmdline.ErrUsage
	}
	fs := newFlags("ledger check", usage,
		`Proves that the books balance: all accounts sum to zero, each balance equals its transfers,
each game has exactly its stake and prize transfers, each prize is its unit's prize in the
emission, and each block's sales are its first units, each sold once. Proves the stored units
too: every page of every block rebuilt and hashed up to the block's published root, and the
database file's structure sound.

Then proves that the rows are those the journal recorded as they were written
(docs/spec/API.md 1.2), which books rewritten to balance are not: each sale entry is what its
game and its unit make of it, and each prize, deposit and withdrawal entry what its transfer
makes of it, byte for byte; each game and transfer since the journal began has its entry, once;
each exclusion still holds in the player's row, never shortened, each closure is still closed,
each limit is the one its last change makes it; and the entries up to the latest checkpoint
hash to the root it signs, signed with the journal's key. A prize changed with its transfers
and balances, a game deleted, a deposit added, an exclusion removed: each is reported, naming
the entry.

It needs the journal's key file (serve's --journal-key). An auditor without it gives the
journal's verifier key (--journal-verifier, GET /api/v1/journal/key) and, for the checks of
the entries' account references and of whose restriction each entry is, the account key
(--account-key, from starcolor journal account-key). Prints each problem on a line of its own
and exits 1 if there is any.

With the key file, a check that finds nothing wrong records what it proved in a mark (--mark),
signed with a key derived from the journal's. --since-last then reads only what came after:
the games and transfers above the mark's watermark, the entries after its tree, the blocks it
had not verified, with the accounts, players, blocks and hours whole. Triggers record each
game or transfer at or below the watermark inserted late, changed or deleted since; a schema
changed since (a trigger dropped, even put back) asks for a full check. The database file's
structure, and bytes changed under SQLite, are for the full check, which should still run
from time to time (docs/OPERATOR_GUIDE.md).`, stderr)
	db := dbFlag(fs)
	keyFile := fs.String("journal-key", "", "the journal's key `file` (default: $"+journalKeyEnv+", else FILE.journal-key beside a SQLite FILE, else starcolor-journal.key)")
	verifier := fs.String("journal-verifier", "", "the journal's note verifier `key`, or a file holding it, instead of the key file")
	accountHex := fs.String("account-key", "", "the journal's account key, in `hex` (starcolor journal account-key), with --journal-verifier")
	sinceLast := fs.Bool("since-last", false, "check only what changed since the last check recorded in the mark")
	markFile := fs.String("mark", "", "the mark's `file` (default: FILE.ledger-mark beside a SQLite FILE, else starcolor-ledger.mark beside the key file)")
	if err := cmdline.Parse(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cmdline.UsageError(fs, "unexpected argument %q", fs.Arg(0))
	}
	// The check reads the whole history, streaming, on four connections at once: a soft limit
	// keeps the collector ahead of it however busy the machine (its memory: docs/PERFORMANCE.md).
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(ledgerHeap))
	keys, own, err := ledgerKeys(fs, *db, *keyFile, *verifier, *accountHex)
	var noKey *noKeyFile
	if errors.As(err, &noKey) {
		// The books are checked all the same; that the journal could not be is a problem.
		err = nil
	}
	if err != nil {
		return err
	}
	if err := existing(*db); err != nil {
		return err
	}
	if *markFile == "" && own != nil {
		*markFile = ledgermark.Path(*db, keyPath(*db, *keyFile), app.IsPostgres(*db))
	}
	var since *ledgermark.Mark
	switch {
	case *sinceLast && own == nil:
		return cmdline.UsageError(fs, "--since-last needs the journal's key file: its mark is signed with it")
	case *sinceLast:
		if since, err = ledgermark.Load(*markFile, &own.AccountKey); err != nil {
			return fmt.Errorf("%s: %w", *markFile, err)
		}
	}
	// The check writes no entry that names an account (opening may journal operator entries,
	// when the keys of names are remade, which name none): without the account key, the store
	// is opened with a zero one.
	open := keys.AccountKey
	if open == nil {
		open = &journal.AccountKey{}
	}
	store, err := app.OpenCommandStore(ctx, *db, open)
	if err != nil {
		return err
	}
	defer store.Close()
	if own != nil && app.CheckJournalKey(ctx, store, own) == nil {
		// The entries queued by the writes (a server stopped before its sequencer ran) are
		// appended first, sealed as the server would, and the tree brought up to them: then
		// they are compared too. Only with the journal's own key file: an auditor's account
		// key, mistyped, would seal them wrong for good. A server running beside does the same
		// under the same lock.
		if err := store.WithLock(ctx, "journal", func() error { return journal.NewLog(store, own).Integrate(ctx) }); err != nil && !damaged(err) {
			return err
		}
	}
	// A damaged file is a finding like the others: each check that can still run does. The four
	// parts read apart (each its own snapshot, as they always did) and run at once, on as many
	// cores.
	// With the key file, the watermark is raised before the parts read: what they prove is
	// recorded in a mark, for the next check since (lottery.Watermark).
	var old, w lottery.Watermark
	var next ledgermark.Mark
	if since != nil {
		old = since.Watermark
		keys.Since = since.Journal
	}
	marking := own != nil
	if marking {
		w, err = store.RaiseLedgerMark(ctx, old)
		switch {
		case errors.Is(err, lottery.ErrSchemaChanged):
			fmt.Fprintln(stdout, "PROBLEM:", err)
			return errors.New("the checks since the last one cannot prove what they would skip")
		case err != nil && since != nil:
			return err
		case err != nil:
			// A full check proves the books all the same (a damaged file, one it cannot write).
			fmt.Fprintf(stdout, "mark: none recorded, the triggers of the watermark could not be written: %v\n", cause(err))
			marking = false
		}
		next.Watermark, keys.Games, keys.Transfers = w, w.Games, w.Transfers
	}
	var (
		wg                sync.WaitGroup
		damage, units     []string
		fileErr, unitsErr error
		c                 *lottery.LedgerCheck
		booksErr          error
		j                 = &journal.Comparison{}
		journalErr        error
	)
	if since == nil {
		wg.Go(func() { damage, fileErr = store.CheckFile(ctx) })
	}
	wg.Go(func() {
		if !marking {
			c, booksErr = store.CheckLedger(ctx)
			return
		}
		var mark *lottery.BooksMark
		if since != nil {
			mark = since.Books
		}
		c, next.Books, booksErr = store.CheckBooks(ctx, old, mark, w)
	})
	wg.Go(func() {
		var mark *lottery.UnitsMark
		if since != nil {
			mark = since.Units
		}
		units, next.Units, unitsErr = checkUnits(ctx, store, mark)
	})
	if noKey == nil {
		wg.Go(func() { j, journalErr = store.CompareJournal(ctx, keys) })
	}
	wg.Wait()
	if fileErr != nil {
		damage = append(damage, fileErr.Error())
	}
	var problems []string
	for _, d := range damage {
		problems = append(problems, "the database file is damaged: "+d)
	}
	if booksErr != nil {
		if !damaged(booksErr) {
			return booksErr
		}
		c = &lottery.LedgerCheck{}
		problems = append(problems, "the books could not be read whole: "+cause(booksErr).Error())
	}
	if unitsErr != nil {
		if !damaged(unitsErr) {
			return unitsErr
		}
		problems = append(problems, "the units and the games could not be read whole: "+cause(unitsErr).Error())
	}
	c.Problems = append(append(problems, c.Problems...), units...)
	books := len(c.Problems)
	switch {
	case noKey != nil:
		c.Problems = append(c.Problems, "the journal was not compared with the rows: "+noKey.Error())
	case journalErr != nil:
		if !damaged(journalErr) {
			return journalErr
		}
		j = &journal.Comparison{}
		c.Problems = append(c.Problems, "the journal could not be compared whole with the rows: "+cause(journalErr).Error())
	}
	for _, p := range j.Problems {
		c.Problems = append(c.Problems, p.String())
	}
	if j.Dropped > 0 {
		c.Problems = append(c.Problems, fmt.Sprintf("and %d more differences between the journal and the rows", j.Dropped))
	}
	if since != nil {
		fmt.Fprintf(stdout, "since the last check: games above %d, transfers above %d, journal entries from %d; the database file's structure is the full check's\n",
			old.Games, old.Transfers, since.Journal.Size)
	}
	fmt.Fprintf(stdout, "accounts %d, transfers %d, games %d\n", c.Accounts, c.Transfers, c.Games)
	fmt.Fprintf(stdout, "bank %s, prize fund %s, players %s\n", gamedef.FormatEUR(c.Bank), gamedef.FormatEUR(c.PrizeFund), gamedef.FormatEUR(c.Players))
	fmt.Fprintf(stdout, "stakes %s, prizes %s\n", gamedef.FormatEUR(c.Stakes), gamedef.FormatEUR(c.Prizes))
	fmt.Fprintf(stdout, "journal: %d entries, compared with %d games, %d transfers and the restrictions of %d accounts; ", j.Entries, j.Games, j.Transfers, j.Accounts)
	if j.Checkpoint > 0 {
		fmt.Fprintf(stdout, "the latest checkpoint signs %d\n", j.Checkpoint)
	} else {
		fmt.Fprintln(stdout, "no checkpoint kept yet")
	}
	if j.Queued > 0 {
		fmt.Fprintf(stdout, "journal: %d entries were queued still, not yet in the journal: the rows they record were not compared\n", j.Queued)
	}
	if j.Unhashed > 0 {
		fmt.Fprintf(stdout, "journal: the tree's tiles do not cover %d of the latest checkpoint's entries yet (a server's journal loop is rebuilding them): its root was compared with the entries', not with the tiles'\n", j.Unhashed)
	}
	if keys.AccountKey == nil && noKey == nil {
		fmt.Fprintln(stdout, "journal: the account references were not compared (--account-key)")
	}
	if len(c.Problems) > 0 {
		for _, p := range c.Problems {
			fmt.Fprintln(stdout, "PROBLEM:", p)
		}
		switch {
		case books == 0 && noKey != nil:
			return errors.New("the books balance, but were not compared with the journal")
		case books == 0:
			return errors.New("the books balance, but are not those the journal recorded")
		}
		return errors.New("the ledger does not balance")
	}
	if marking {
		next.Journal = j.Mark
		if next.Books == nil || next.Units == nil || next.Journal == nil {
			return errors.New("the check found nothing wrong, but made no mark")
		}
		if err := ledgermark.Save(*markFile, &own.AccountKey, &next); err != nil {
			return fmt.Errorf("the mark: %w", err)
		}
		fmt.Fprintf(stdout, "mark: games through %d, transfers through %d, journal entries below %d, in %s\n", w.Games, w.Transfers, next.Journal.Size, *markFile)
	}
	fmt.Fprintln(stdout, "OK: the books balance, and are those the journal recorded")
	return nil
}

// ledgerHeap is the Go heap ledger check keeps under, as a soft limit (runtime/debug). What it
// holds grows with the accounts and blocks, not with the games: 10^8 games' ids take 25 MB.
const ledgerHeap = 192 << 20

// noKeyFile is a journal's key file that is not there. ledger check does not make one: a new key
// would only find every reference and the checkpoint another journal's.
type noKeyFile struct{ path string }

func (e *noKeyFile) Error() string {
	return fmt.Sprintf("no journal key file at %s: name it with --journal-key, or give --journal-verifier KEY (and --account-key HEX)", e.path)
}

// ledgerKeys are the keys ledger check compares the journal with: the key file's (keyFile, else
// the database's, as serve finds it), or the verifier key and the account key an auditor gives;
// and the key file's key itself, when it is one.
func ledgerKeys(flags *flag.FlagSet, db, keyFile, verifier, accountHex string) (journal.CompareOptions, *journal.Key, error) {
	var o journal.CompareOptions
	switch {
	case verifier != "" && keyFile != "":
		return o, nil, cmdline.UsageError(flags, "--journal-key or --journal-verifier, not both")
	case verifier == "" && accountHex != "":
		return o, nil, cmdline.UsageError(flags, "--account-key goes with --journal-verifier: the key file holds it")
	case verifier == "":
		keyFile = keyPath(db, keyFile)
		k, err := journal.LoadKey(keyFile)
		if errors.Is(err, fs.ErrNotExist) {
			return o, nil, &noKeyFile{keyFile}
		}
		if err != nil {
			return o, nil, err
		}
		o.Verifier, o.AccountKey = k.Verifier, &k.AccountKey
		return o, k, nil
	}
	text, err := verifierKey(verifier)
	if err != nil {
		return o, nil, err
	}
	if o.Verifier, err = note.NewVerifier(text); err != nil {
		return o, nil, fmt.Errorf("--journal-verifier: %q is not a note verifier key: %w", text, err)
	}
	if accountHex != "" {
		b, err := hex.DecodeString(accountHex)
		if err != nil || len(b) != len(journal.AccountKey{}) {
			return o, nil, cmdline.UsageError(flags, "--account-key: want %d bytes in hex, as starcolor journal account-key prints them", len(journal.AccountKey{}))
		}
		o.AccountKey = new(journal.AccountKey)
		copy(o.AccountKey[:], b)
	}
	return o, nil, nil
}

// keyPath is the journal's key file a check reads: the one named, else the database's.
func keyPath(db, keyFile string) string {
	if keyFile == "" {
		return journalKeyPath(db)
	}
	return keyFile
}

// checkUnits proves the stored units against their commitments, and the games against their
// units:
//   - every page of every block is rebuilt into its audit lines and hashed up to the block's
//     root, on every core: since a mark, only the blocks it had not verified (the units are
//     immutable, by their triggers, in the schema the mark names);
//   - each game's prize is compared with its unit's. Since a mark, the comparison of the journal
//     does it instead, as it reads each new game's unit for its sale entry.
//
// It returns the mark of what it proved. runLedger checks the database file's structure beside
// it (Store.CheckFile: SQLite's quick_check).
func checkUnits(ctx context.Context, store app.Store, mark *lottery.UnitsMark) ([]string, *lottery.UnitsMark, error) {
	var problems []string
	es, err := store.Emissions(ctx)
	if err != nil {
		return nil, nil, err
	}
	// Every game may be wrong (a rewritten block): the report keeps the first ones, and counts
	// the rest, so that its memory stays bounded too.
	dropped := 0
	report := func(format string, args ...any) {
		if len(problems) >= journal.MaxProblems {
			dropped++
			return
		}
		problems = append(problems, fmt.Sprintf(format, args...))
	}
	verified := map[blockID]bool{}
	if mark != nil {
		for _, b := range mark.Blocks {
			verified[blockID{b.Emission, b.Block}] = true
		}
	}
	next := &lottery.UnitsMark{}
	readers := map[string]*emission.Reader{}
	for _, e := range es {
		r, err := emission.NewReader(e, store)
		if err != nil {
			return nil, nil, err
		}
		readers[e.ID] = r
		again := false
		for _, b := range e.Blocks {
			again = again || !verified[blockID{e.ID, b.Index}]
			next.Blocks = append(next.Blocks, lottery.VerifiedBlock{Emission: e.ID, Block: b.Index, Root: b.Root[:]})
		}
		if !again {
			continue
		}
		corrupt, err := r.Verify(ctx, 0, 0)
		if err != nil {
			return nil, nil, err
		}
		for _, c := range corrupt {
			report("stored units do not match their commitment: %v", c)
		}
	}
	if mark != nil {
		roots := map[blockID][]byte{}
		for _, b := range mark.Blocks {
			roots[blockID{b.Emission, b.Block}] = b.Root
		}
		for _, b := range next.Blocks {
			if root, ok := roots[blockID{b.Emission, b.Block}]; ok && !bytes.Equal(root, b.Root) {
				report("%s block %d: its root is %x, the last check verified its units against %x", b.Emission, b.Block, b.Root, root)
			}
			delete(roots, blockID{b.Emission, b.Block})
		}
		for b := range roots {
			report("%s block %d, whose units the last check verified, is gone", b.emission, b.block)
		}
	}
	if mark == nil {
		err = store.SoldUnits(ctx, func(g lottery.Game) error {
			r := readers[g.Emission]
			if r == nil {
				report("game %d was sold from emission %s, which does not exist", g.ID, g.Emission)
				return nil
			}
			rec, err := r.Unit(ctx, g.Block, g.Unit)
			if errors.Is(err, emission.ErrCorrupt) || errors.Is(err, emission.ErrNotFound) || damaged(err) {
				report("game %d: its unit (%s block %d unit %d) cannot be read: %v", g.ID, g.Emission, g.Block, g.Unit, err)
				return nil
			}
			if err != nil {
				return err
			}
			if rec.Prize != g.Prize {
				report("game %d paid %d cents, its unit (%s block %d unit %d) wins %d", g.ID, g.Prize, g.Emission, g.Block, g.Unit, rec.Prize)
			}
			return nil
		})
	}
	if dropped > 0 {
		problems = append(problems, fmt.Sprintf("and %d more problems of the units and the games", dropped))
	}
	if len(problems) > 0 {
		next = nil
	}
	return problems, next, err
}

// blockID names a block.
type blockID struct {
	emission string
	block    int
}

// damaged tells an error of a store that cannot be read (a damaged file, an I/O error).
func damaged(err error) bool { return fault.CodeOf(err) == fault.Unavailable }

// cause is what a store said behind its fault.
func cause(err error) error {
	if c := errors.Unwrap(err); c != nil {
		return c
	}
	return err
}
