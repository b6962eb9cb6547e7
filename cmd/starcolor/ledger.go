package main

import (
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
	"starcolor/internal/lottery"
)

func runLedger(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	const usage = "[--db FILE|URL] [--journal-key FILE | --journal-verifier KEY [--account-key HEX]]"
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
and exits 1 if there is any.`, stderr)
	db := dbFlag(fs)
	keyFile := fs.String("journal-key", "", "the journal's key `file` (default: $"+journalKeyEnv+", else FILE.journal-key beside a SQLite FILE, else starcolor-journal.key)")
	verifier := fs.String("journal-verifier", "", "the journal's note verifier `key`, or a file holding it, instead of the key file")
	accountHex := fs.String("account-key", "", "the journal's account key, in `hex` (starcolor journal account-key), with --journal-verifier")
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
	var (
		wg                sync.WaitGroup
		damage, units     []string
		fileErr, unitsErr error
		c                 *lottery.LedgerCheck
		booksErr          error
		j                 = &journal.Comparison{}
		journalErr        error
	)
	wg.Go(func() { damage, fileErr = store.CheckFile(ctx) })
	wg.Go(func() { c, booksErr = store.CheckLedger(ctx) })
	wg.Go(func() { units, unitsErr = checkUnits(ctx, store) })
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
		if keyFile == "" {
			keyFile = journalKeyPath(db)
		}
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

// checkUnits proves the stored units against their commitments, and the games against their
// units:
//   - every page of every block is rebuilt into its audit lines and hashed up to the block's
//     root, on every core;
//   - each game's prize is compared with its unit's.
//
// runLedger checks the database file's structure before it (Store.CheckFile: SQLite's
// quick_check).
func checkUnits(ctx context.Context, store app.Store) ([]string, error) {
	var problems []string
	es, err := store.Emissions(ctx)
	if err != nil {
		return nil, err
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
	readers := map[string]*emission.Reader{}
	for _, e := range es {
		r, err := emission.NewReader(e, store)
		if err != nil {
			return nil, err
		}
		readers[e.ID] = r
		corrupt, err := r.Verify(ctx, 0, 0)
		if err != nil {
			return nil, err
		}
		for _, c := range corrupt {
			report("stored units do not match their commitment: %v", c)
		}
	}
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
	if dropped > 0 {
		problems = append(problems, fmt.Sprintf("and %d more problems of the units and the games", dropped))
	}
	return problems, err
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
