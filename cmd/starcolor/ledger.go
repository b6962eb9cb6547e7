package main

import (
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"time"

	"golang.org/x/mod/sumdb/note"

	"starcolor/internal/app"
	"starcolor/internal/cmdline"
	"starcolor/internal/fault"
	"starcolor/internal/gamedef"
	"starcolor/internal/journal"
	"starcolor/internal/ledgercheck"
	"starcolor/internal/lottery"
)

func runLedger(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	const usage = "[--db FILE|URL] [--journal-key FILE [--since-last] | --journal-verifier KEY [--account-key HEX]]"
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

With the key file, a check that finds nothing wrong records what it proved in a mark, kept in
the database and signed with a key derived from the journal's; the servers record theirs there
too, daily (one check runs at a time: this one waits for a server's to end). --since-last
then reads only what came after the last:
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
	if err := cmdline.Parse(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cmdline.UsageError(fs, "unexpected argument %q", fs.Arg(0))
	}
	// The check reads the whole history, streaming, on four connections at once: a soft limit
	// keeps the collector ahead of it however busy the machine (its memory: docs/PERFORMANCE.md).
	// Below it the collector runs when the heap is 5 times what it held after the last
	// collection, not twice: what the check holds is small, and it makes a few short-lived
	// values a row read, which the default pace collected every few megabytes (5-8 % of the
	// check's CPU).
	defer paceGC(ledgerGC, ledgerHeap)()
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
	if *sinceLast && own == nil {
		return cmdline.UsageError(fs, "--since-last needs the journal's key file: its mark is signed with it")
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
		if err := store.WithLock(ctx, "journal", func() error { return journal.NewLog(store, own).Integrate(ctx) }); err != nil && !fault.Is(err, fault.Unavailable) {
			return err
		}
	}
	o := ledgercheck.Options{Compare: keys, Own: own, SinceLast: *sinceLast, Holder: "ledger check " + app.NewHolder()}
	if noKey != nil {
		o.NoJournal = noKey
	}
	r, err := runCheck(ctx, store, o, stderr)
	if errors.Is(err, lottery.ErrSchemaChanged) {
		fmt.Fprintln(stdout, "PROBLEM:", err)
		return errors.New("the checks since the last one cannot prove what they would skip")
	}
	if err != nil {
		return err
	}
	return printCheck(stdout, r, keys.AccountKey == nil && noKey == nil, noKey != nil)
}

// runCheck runs the check, waiting while another holds the database's (a server's daily one).
func runCheck(ctx context.Context, store app.Store, o ledgercheck.Options, stderr io.Writer) (*ledgercheck.Report, error) {
	for told := false; ; told = true {
		r, err := ledgercheck.Run(ctx, store, o)
		if !errors.Is(err, ledgercheck.ErrBusy) {
			return r, err
		}
		var busy *ledgercheck.Busy
		if errors.As(err, &busy) && busy.Stuck(time.Now()) {
			return nil, fmt.Errorf("%w: no check holds its lease that long. Was it written by hand? "+
				"Once no check runs, %s", err, ledgercheck.FreeLease)
		}
		if !told {
			fmt.Fprintf(stderr, "another ledger check is running on this database (a server's daily one?): waiting for it to end (%v)\n", err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
}

// printCheck prints what a check found, and returns the error of a check that found anything.
func printCheck(stdout io.Writer, r *ledgercheck.Report, noAccountKey, noJournal bool) error {
	c, j := r.Books, r.Journal
	if r.Since != nil {
		fmt.Fprintf(stdout, "since the last check: games above %d, transfers above %d, journal entries from %d; the database file's structure is the full check's\n",
			r.Since.Watermark.Games, r.Since.Watermark.Transfers, r.Since.Journal.Size)
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
	if noAccountKey {
		fmt.Fprintln(stdout, "journal: the account references were not compared (--account-key)")
	}
	if j.Unkeyed > 0 {
		fmt.Fprintf(stdout, "journal: %d sales, kept as their entries' leaf hashes, were not compared with their games: the hashes cover the account references (--account-key)\n", j.Unkeyed)
	}
	if len(r.Problems) > 0 {
		for _, p := range r.Problems {
			fmt.Fprintln(stdout, "PROBLEM:", p)
		}
		switch {
		case r.BooksProblems == 0 && noJournal:
			return errors.New("the books balance, but were not compared with the journal")
		case r.BooksProblems == 0:
			return errors.New("the books balance, but are not those the journal recorded")
		}
		return errors.New("the ledger does not balance")
	}
	if r.Unmarked != "" {
		fmt.Fprintln(stdout, "mark: none recorded:", r.Unmarked)
	}
	if m := r.Marked; m != nil {
		fmt.Fprintf(stdout, "mark: games through %d, transfers through %d, journal entries below %d, kept in the database\n", m.Watermark.Games, m.Watermark.Transfers, m.Journal.Size)
	}
	fmt.Fprintln(stdout, "OK: the books balance, and are those the journal recorded")
	return nil
}

// ledgerHeap is the Go heap ledger check keeps under, as a soft limit (runtime/debug). What it
// holds grows with the accounts and blocks, not with the games: 10^8 games' ids take 25 MB.
const ledgerHeap = 192 << 20

// ledgerGC is the collector's pace in ledger check (runtime/debug.SetGCPercent): a collection
// when the heap has grown 400 % since the last one.
const ledgerGC = 400

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
