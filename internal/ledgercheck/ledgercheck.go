// Package ledgercheck is the check of the books, the units and the journal: `starcolor ledger
// check` runs it, and every server runs it in the background, at start and daily. Both record
// what they proved in one mark, kept in the database, and start from it (lottery.Watermark):
//
//  1. The mark the last check recorded is read, and its MAC checked (ledgermark).
//  2. The watermark is raised (Store.RaiseLedgerMark): the triggers record, from now on, each
//     game or transfer at or below it inserted late, changed or deleted. A schema changed since
//     the mark (a trigger dropped, a migration, or another check's raise) refuses the check
//     since: only a full check proves what it would skip.
//  3. Four parts read at once, each in its own snapshot: the database file's structure (a full
//     check only), the books, the units, and the journal compared with the rows. Since a mark,
//     each reads only what is new: the games and transfers above its watermark, the entries
//     after its tree, the blocks it had not verified.
//  4. A check that found nothing wrong records its mark in place of the last, if no other check
//     raised the watermark meanwhile (Store.KeepLedgerMark).
//
// One check with a mark runs at a time, among all the servers and commands of a database: it
// holds the lease "ledger-check" while it runs (ErrBusy).
package ledgercheck

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"starcolor/internal/emission"
	"starcolor/internal/fault"
	"starcolor/internal/journal"
	"starcolor/internal/ledgermark"
	"starcolor/internal/lottery"
)

// Store is what the check reads, and where it keeps its mark.
type Store interface {
	emission.Pages
	Emissions(ctx context.Context) ([]*emission.Emission, error)
	SoldUnits(ctx context.Context, below int64, fn func(lottery.Game) error) error
	Beginning(ctx context.Context) (firstGame, firstTransfer int64, err error)
	CheckFile(ctx context.Context) ([]string, error)
	CheckLedger(ctx context.Context) (*lottery.LedgerCheck, error)
	RaiseLedgerMark(ctx context.Context, floor lottery.Watermark) (lottery.Watermark, error)
	CheckBooks(ctx context.Context, old lottery.Watermark, mark *lottery.BooksMark, w lottery.Watermark) (*lottery.LedgerCheck, *lottery.BooksMark, error)
	CompareJournal(ctx context.Context, o journal.CompareOptions) (*journal.Comparison, error)
	LedgerMark(ctx context.Context) ([]byte, error)
	KeepLedgerMark(ctx context.Context, schema string, mark []byte, at time.Time) error
	TryLease(ctx context.Context, name, holder string, now, until time.Time) (bool, error)
	ReleaseLease(ctx context.Context, name, holder string) error
	Lease(ctx context.Context, name string) (holder string, until time.Time, ok bool, err error)
}

// Options are one check's keys and manners.
type Options struct {
	// Compare are the keys the journal is compared with; Run sets its watermark and mark.
	Compare journal.CompareOptions
	// NoJournal, when set, is why the journal is not compared: it is reported as a problem.
	NoJournal error
	// Own is the journal's own key. With it the check reads and records the mark (whose MAC is
	// keyed with it), and holds the lease while it runs. Without it (an auditor's verifier key)
	// the check is a full one, and records nothing.
	Own *journal.Key
	// SinceLast checks only what changed since the recorded mark (ErrNone without one).
	SinceLast bool
	// Holder names who runs the check, in the lease.
	Holder string
	// Workers and Pause are the units' verification's (emission.Reader.Verify): 0 and 0, every
	// core without a rest.
	Workers int
	Pause   time.Duration
	// Reader is the reader of an emission's units (nil: a new one). A server gives its own, so
	// that what the check finds is what its sales refuse.
	Reader func(ctx context.Context, e *emission.Emission) (*emission.Reader, error)
	// OnCorrupt is told each page or block commitment of units found corrupt (nil: nothing).
	OnCorrupt func(*emission.Corrupt)
	// OnDamage is told the database file's damage as soon as it is found, before the other
	// parts end (nil: nothing): a server stops the money at once.
	OnDamage func(problem string)
	// Now is the clock of the lease and the mark (time.Now).
	Now func() time.Time
}

// Report is what a check found.
type Report struct {
	// Since is the mark it started from; nil for a full check.
	Since *ledgermark.Mark
	// Books are the books' totals and problems.
	Books *lottery.LedgerCheck
	// Journal is the comparison of the journal with the rows (empty without one).
	Journal *journal.Comparison
	// Problems is everything found wrong, in order: the file's damage, the books', the units',
	// then the journal's. The first BooksProblems are not the journal's.
	Problems      []string
	BooksProblems int
	// Damage is the problems but the units that do not match their commitment: those are
	// refused at their price (Options.OnCorrupt), and the rest of the books is sound.
	Damage []string
	// Marked is the mark recorded; nil when none was. Unmarked says why not, with the own key.
	Marked   *ledgermark.Mark
	Unmarked string
}

// ErrNone: a check since the last one, and no mark recorded (ledgermark.ErrNone).
var ErrNone = ledgermark.ErrNone

// ErrBadMark: the mark kept in the database is not one a check recorded with this key (its MAC
// is another's: rewritten, or made with another key).
var ErrBadMark = errors.New("the mark kept in the database is not one a check recorded with this journal's key")

// ErrBusy: another check with a mark is running on the database (the lease "ledger-check").
// Run's error is then a *Busy, which names the lease's holder.
var ErrBusy = errors.New("another ledger check is running on this database")

// Busy is ErrBusy with the lease that holds the check back.
type Busy struct {
	Holder string    // the server or command that holds it (app.NewHolder: host, pid, a random part)
	Until  time.Time // when it lapses unless renewed
}

func (b *Busy) Error() string {
	return fmt.Sprintf("%v (the lease %q is held by %s until %s)", ErrBusy, leaseName, b.Holder, b.Until.Format(time.RFC3339))
}

func (b *Busy) Is(target error) bool { return target == ErrBusy }

// Stuck says whether the lease ends later than any check sets it: a check renews it leaseFor
// ahead. Such a lease was written by hand (a database administrator's row), and holds every
// check back until it ends, or for ever.
func (b *Busy) Stuck(now time.Time) bool { return b.Until.After(now.Add(2 * leaseFor)) }

// FreeLease is the statement that frees a stuck lease, to run once no check runs.
const FreeLease = `DELETE FROM leases WHERE name = '` + leaseName + `'`

// The lease a check holds while it runs, renewed each leaseRenew and given back as it ends: a
// check whose process died (kill -9) holds the others back leaseFor at most.
const (
	leaseName  = "ledger-check"
	leaseFor   = 20 * time.Second
	leaseRenew = 5 * time.Second
)

// Run runs one check. Its errors are those of a check that could not run (ErrNone, ErrBadMark,
// ErrBusy, lottery.ErrSchemaChanged since a mark, a store that cannot be read at all); what it
// finds wrong is in the report.
func Run(ctx context.Context, s Store, o Options) (*Report, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Own == nil {
		return run(ctx, s, o, nil)
	}
	now := o.Now()
	got, err := s.TryLease(ctx, leaseName, o.Holder, now, now.Add(leaseFor))
	if err != nil {
		return nil, err
	}
	if !got {
		holder, until, ok, err := s.Lease(ctx, leaseName)
		switch {
		case err != nil:
			return nil, err
		case !ok:
			return nil, ErrBusy // given up meanwhile: the next try takes it
		}
		return nil, &Busy{Holder: holder, Until: until}
	}
	held, stop := context.WithCancel(ctx)
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		tick := time.NewTicker(leaseRenew)
		defer tick.Stop()
		for {
			select {
			case <-held.Done():
				return
			case <-tick.C:
				now := o.Now()
				s.TryLease(held, leaseName, o.Holder, now, now.Add(leaseFor)) // a failure is retried
			}
		}
	}()
	defer func() {
		stop()
		<-renewed
		s.ReleaseLease(context.WithoutCancel(ctx), leaseName, o.Holder)
	}()
	var since *ledgermark.Mark
	if o.SinceLast {
		b, err := s.LedgerMark(ctx)
		switch {
		case err != nil:
			return nil, err
		case b == nil:
			return nil, ErrNone
		}
		if since, err = ledgermark.Parse(b, &o.Own.AccountKey); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadMark, err)
		}
	}
	return run(ctx, s, o, since)
}

// run runs the four parts, since a mark or not, and records the next.
func run(ctx context.Context, s Store, o Options, since *ledgermark.Mark) (*Report, error) {
	r := &Report{Since: since, Journal: &journal.Comparison{}}
	keys := o.Compare
	var old, w lottery.Watermark
	var next ledgermark.Mark
	if since != nil {
		old = since.Watermark
		keys.Since = since.Journal
	}
	marking := o.Own != nil
	if marking {
		var err error
		w, err = s.RaiseLedgerMark(ctx, old)
		switch {
		case errors.Is(err, lottery.ErrSchemaChanged), err != nil && since != nil:
			return nil, err
		case err != nil:
			// A full check proves the books all the same (a damaged file, one it cannot write).
			r.Unmarked = fmt.Sprintf("the triggers of the watermark could not be written: %v", cause(err))
			marking = false
		}
		next.Watermark, keys.Games, keys.Transfers = w, w.Games, w.Transfers
	}
	// A damaged file is a finding like the others: each part that can still run does.
	var (
		wg                sync.WaitGroup
		damage, units     []string
		corrupt           int
		fileErr, unitsErr error
		booksErr          error
		journalErr        error
	)
	if since == nil {
		wg.Go(func() {
			damage, fileErr = s.CheckFile(ctx)
			if fileErr != nil {
				damage = append(damage, fileErr.Error())
			}
			for i, d := range damage {
				damage[i] = "the database file is damaged: " + d
				if o.OnDamage != nil {
					o.OnDamage(damage[i])
				}
			}
		})
	}
	wg.Go(func() {
		if !marking {
			r.Books, booksErr = s.CheckLedger(ctx)
			return
		}
		var mark *lottery.BooksMark
		if since != nil {
			mark = since.Books
		}
		r.Books, next.Books, booksErr = s.CheckBooks(ctx, old, mark, w)
	})
	wg.Go(func() {
		var mark *lottery.UnitsMark
		if since != nil {
			mark = since.Units
		}
		units, corrupt, next.Units, unitsErr = checkUnits(ctx, s, o, mark)
	})
	if o.NoJournal == nil {
		wg.Go(func() { r.Journal, journalErr = s.CompareJournal(ctx, keys) })
	}
	wg.Wait()
	r.Problems = append(r.Problems, damage...)
	if booksErr != nil {
		if !damaged(booksErr) {
			return nil, booksErr
		}
		r.Books = &lottery.LedgerCheck{}
		r.Problems = append(r.Problems, "the books could not be read whole: "+cause(booksErr).Error())
	}
	if unitsErr != nil {
		if !damaged(unitsErr) {
			return nil, unitsErr
		}
		r.Problems = append(r.Problems, "the units and the games could not be read whole: "+cause(unitsErr).Error())
	}
	r.Problems = append(r.Problems, r.Books.Problems...)
	r.Damage = append(slices.Clone(r.Problems), units[corrupt:]...)
	r.Problems = append(r.Problems, units...)
	r.BooksProblems = len(r.Problems)
	switch {
	case o.NoJournal != nil:
		r.Problems = append(r.Problems, "the journal was not compared with the rows: "+o.NoJournal.Error())
	case journalErr != nil:
		if !damaged(journalErr) {
			return nil, journalErr
		}
		r.Journal = &journal.Comparison{}
		r.Problems = append(r.Problems, "the journal could not be compared whole with the rows: "+cause(journalErr).Error())
	}
	for _, p := range r.Journal.Problems {
		r.Problems = append(r.Problems, p.String())
	}
	if r.Journal.Dropped > 0 {
		r.Problems = append(r.Problems, fmt.Sprintf("and %d more differences between the journal and the rows", r.Journal.Dropped))
	}
	r.Damage = append(r.Damage, r.Problems[r.BooksProblems:]...)
	if !marking || len(r.Problems) > 0 {
		return r, nil
	}
	next.Journal = r.Journal.Mark
	if next.Books == nil || next.Units == nil || next.Journal == nil {
		return nil, errors.New("the check found nothing wrong, but made no mark")
	}
	b, err := ledgermark.Encode(&o.Own.AccountKey, &next)
	if err != nil {
		return nil, err
	}
	switch err := s.KeepLedgerMark(ctx, w.Schema, b, o.Now()); {
	case errors.Is(err, lottery.ErrSchemaChanged):
		r.Unmarked = "the schema changed while the check ran (another check, or a migration): the next check is a full one"
	case err != nil:
		return nil, fmt.Errorf("the mark: %w", err)
	default:
		r.Marked = &next
	}
	return r, nil
}

// damaged tells an error of a store that cannot be read (a damaged file, an I/O error).
func damaged(err error) bool { return fault.Is(err, fault.Unavailable) }

// cause is what a store said behind its fault.
func cause(err error) error {
	if c := errors.Unwrap(err); c != nil {
		return c
	}
	return err
}
