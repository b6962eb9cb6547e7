package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"starcolor/internal/journal"
	"starcolor/internal/ledgercheck"
	"starcolor/internal/lottery"
)

// The work done in the background: sweeps that finish abandoned games, delete ended sessions and
// forget old idempotency keys and login counts, the check of the whole store, and the journal's
// tree and checkpoints. Any number of servers may share a store, and each runs these loops. A
// sweep is done by one of them each time, the one that takes its lease in the store, so that
// each piece of work is done once; the journal's work, by the one that holds its lock. The
// store check is each server's own, at its start and daily: it learns what is wrong with the
// units it sells. The checks take turns (ledgercheck's lease), and each starts from the mark of
// the one before, so that each reads only what is new.

// How often each sweep runs, and how long the server that takes it keeps its lease (a little
// less than its period, so that the next round is anyone's again).
const (
	sweepEvery    = time.Minute
	keySweepEvery = time.Hour // keys are kept 48 hours (game.KeepKeys) where 24 are promised
)

// windowsSweep is how many players' stake windows a sweep moves forward at most: those of
// players who stopped, each a week after their last sale (Store.MoveStakeWindows).
const windowsSweep = 10_000

// storeCheckEvery is how often the store is checked (checkLedger), beside the checks of every
// page of units as it is read; the first check runs at start.
const storeCheckEvery = 24 * time.Hour

// storePause is the rest after each page of units the background check verifies. It verifies
// about a page a millisecond (a block in about 5 s), and leaves the machine to the sales.
const storePause = time.Millisecond

// Background runs the sweeps and the store check until ctx ends.
func (a *App) Background(ctx context.Context) {
	go a.checkStore(ctx)
	for _, run := range a.loops {
		go run(ctx)
	}
	tick := time.NewTicker(sweepEvery)
	defer tick.Stop()
	for {
		a.sweep(ctx, "abandoned-games", sweepEvery, func() {
			if n, err := a.Game.FinishAbandoned(ctx); err != nil && ctx.Err() == nil {
				a.log.Error("finishing abandoned games", "err", err)
			} else if n > 0 {
				a.log.Info("abandoned games finished", "games", n)
			}
		})
		a.sweep(ctx, "ended-sessions", sweepEvery, func() {
			if err := a.Game.ForgetExpiredSessions(ctx); err != nil && ctx.Err() == nil {
				a.log.Error("deleting ended sessions", "err", err)
			}
			if err := a.Admin.Sweep(ctx); err != nil && ctx.Err() == nil {
				a.log.Error("deleting ended operator sessions", "err", err)
			}
		})
		a.sweep(ctx, "stake-windows", sweepEvery, func() {
			if n, err := a.Store.MoveStakeWindows(ctx, a.now(), windowsSweep); err != nil && ctx.Err() == nil {
				a.log.Error("moving stale stake windows forward", "err", err)
			} else if n > 0 {
				a.log.Info("stale stake windows moved forward", "players", n)
			}
		})
		a.sweep(ctx, "old-keys", keySweepEvery, func() {
			start := time.Now()
			if n, err := a.Game.ForgetOldKeys(ctx); err != nil && ctx.Err() == nil {
				a.log.Error("forgetting old idempotency keys", "err", err)
			} else if n > 0 {
				a.log.Info("old idempotency keys forgotten", "keys", n, "took", time.Since(start).Round(time.Millisecond))
			}
		})
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// sweep runs a sweep if this server takes its lease for the period. The server that takes it
// keeps it a little less than the period, and nobody else runs the sweep meanwhile.
func (a *App) sweep(ctx context.Context, name string, every time.Duration, run func()) {
	now := a.now()
	got, err := a.Store.TryLease(ctx, "sweep:"+name, a.holder, now, now.Add(every-every/6))
	if err != nil {
		if ctx.Err() == nil {
			a.log.Error("taking a sweep's lease", "sweep", name, "err", err)
		}
		return
	}
	if got {
		run()
	}
}

// checkStore checks the store at start, then every storeCheckEvery (checkLedger).
func (a *App) checkStore(ctx context.Context) {
	for {
		a.checkLedger(ctx)
		select {
		case <-ctx.Done():
			return
		case <-time.After(storeCheckEvery):
		}
	}
}

// storeBusyWait is how long a server waits before it tries again to check the store while
// another check holds it (a server's, or `ledger check`).
const storeBusyWait = 10 * time.Second

// checkLedger runs the check of `starcolor ledger check` (ledgercheck): the books, the units
// and the journal, since the mark the last check recorded, and records the next. With no mark,
// or a schema changed since it (a migration, a trigger dropped), the check is a full one, which
// also proves the database file's structure. Its units are verified through this server's
// readers, one page at a time with a rest after each, so that sales keep the machine. A mark
// rewritten (its MAC another's) is a reason for a full check too.
//
// What it finds is logged as an error, counted in the metrics and said by /healthz. Units that
// do not match their commitment are refused at their price; anything else found wrong stops
// the money (game.Service.DamageFound).
func (a *App) checkLedger(ctx context.Context) {
	start := time.Now()
	o := ledgercheck.Options{
		Compare: journal.CompareOptions{Verifier: a.key.Verifier, AccountKey: &a.key.AccountKey},
		Own:     a.key, SinceLast: true, Holder: a.holder,
		Workers: 1, Pause: storePause, Reader: a.Game.UnitReader, OnCorrupt: a.Game.CorruptFound, OnDamage: a.Game.DamageFound,
		Now: a.now,
	}
	var r *ledgercheck.Report
	var err error
	var told time.Time // the end of the stuck lease last told
	for {
		o.Compare.Now = a.now()
		r, err = ledgercheck.Run(ctx, a.Store, o)
		var busy *ledgercheck.Busy
		switch {
		case o.SinceLast && (errors.Is(err, ledgercheck.ErrNone) || errors.Is(err, ledgercheck.ErrBadMark) || errors.Is(err, lottery.ErrSchemaChanged)):
			a.log.Warn("checking the store whole: the check since the last cannot run", "why", err.Error())
			o.SinceLast = false
			continue
		case errors.Is(err, ledgercheck.ErrBusy):
			if errors.As(err, &busy) && busy.Stuck(a.now()) && !busy.Until.Equal(told) {
				// No check holds a lease that long: every check waits, the servers' and
				// `ledger check`'s, until it ends.
				told = busy.Until
				a.log.Error("the store is not checked: its check's lease is held for longer than any check holds it (written by hand?)",
					"lease", "ledger-check", "holder", busy.Holder, "until", busy.Until, "fix", ledgercheck.FreeLease)
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(storeBusyWait):
			}
			continue
		}
		break
	}
	switch {
	case ctx.Err() != nil:
		return
	case err != nil:
		a.log.Error("checking the store", "err", err)
		return
	}
	for i, p := range r.Damage {
		if i == maxDamageTold {
			a.Game.DamageFound(fmt.Sprintf("and %d more problems (see starcolor ledger check)", len(r.Damage)-i))
			break
		}
		a.Game.DamageFound(p)
	}
	took := time.Since(start).Round(time.Millisecond).String()
	switch {
	case len(r.Problems) > 0:
		a.log.Error("the store is damaged", "problems", len(r.Problems), "took", took)
	case r.Since != nil:
		a.log.Info("store checked since the last check: the books balance, are those the journal recorded, and every unit matches its commitment",
			"games_above", r.Since.Watermark.Games, "games", r.Journal.Games, "entries", r.Journal.Entries, "took", took, "marked", r.Marked != nil)
	default:
		a.log.Info("store checked whole: the books balance, are those the journal recorded, every unit matches its commitment, the file is sound",
			"games", r.Books.Games, "entries", r.Journal.Entries, "took", took, "marked", r.Marked != nil)
	}
	if r.Unmarked != "" {
		a.log.Warn("store check: no mark recorded", "why", r.Unmarked)
	}
}

// maxDamageTold is how many of the problems a check found are each recorded (and said by
// /healthz); the rest are counted.
const maxDamageTold = 10

// dropUnusedRollbacks forgets, every second, the rollbacks this server held ahead of sales that
// did not come (game.Service.DropUnusedRollbacks). Each server does its own: only it knows that
// their debits were never sent.
func (a *App) dropUnusedRollbacks(ctx context.Context) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if err := a.Game.DropUnusedRollbacks(ctx); err != nil && ctx.Err() == nil {
			// They stay held: the sweep sends them, rollbacks of debits never sent.
			a.log.Warn("wallet: forgetting the rollbacks held ahead of sales that did not come", "err", err)
		}
	}
}

// walletSweepEvery is how often the calls a crash left held are looked for: a debit whose server
// died is rolled back within heldFor and this.
const walletSweepEvery = 5 * time.Second

// walletSweep releases, every walletSweepEvery, the calls a crash left held:
//
//   - A rollback whose round was never sold, held for longer than any sale waits for its debit.
//     A sale that comes later all the same finds its rollback gone and is refused
//     (lottery.Book.Held).
//   - The credit of a game that finished.
//
// It is done by whichever server takes the sweep's lease.
func (a *App) walletSweep(ctx context.Context) {
	tick := time.NewTicker(walletSweepEvery)
	defer tick.Stop()
	for {
		a.sweep(ctx, "wallet-calls", walletSweepEvery, func() {
			now := a.now()
			if n, err := a.Store.ReleaseStaleWalletCalls(ctx, now.Add(-a.heldFor), now); err != nil && ctx.Err() == nil {
				a.log.Error("releasing the wallet's held calls", "err", err)
			} else if n > 0 {
				a.log.Warn("wallet calls left held by a crash, released", "calls", n)
				a.sender.Wake()
			}
		})
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// journalEvery is how often the journal's tree is extended and, when due, a checkpoint signed
// (journal.Log.Step, which leaves journal.SignEvery between two): a sale is in a signed
// checkpoint 1 to 2 s after it is sold, where docs/spec/API.md 1.2 allows 10.
const journalEvery = 500 * time.Millisecond

// journalLogEvery is how often a journal that keeps failing is logged again after its first
// failure: every 500 ms would bury the rest of the log.
const journalLogEvery = 30 * time.Second

// RunJournal does the journal's work every journalEvery until ctx ends (StepJournal). Every
// server runs it: whichever takes the lock works, so the journal is signed while any server is
// up.
func (a *App) RunJournal(ctx context.Context) {
	tick := time.NewTicker(journalEvery)
	defer tick.Stop()
	var failing, logged time.Time // since when it fails (zero: it does not), when it was logged
	for {
		err := a.StepJournal(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil && failing.IsZero():
			failing, logged = time.Now(), time.Now()
			a.log.Error("the journal: its tree cannot be extended or its checkpoint signed", "err", err)
		case err != nil && time.Since(logged) >= journalLogEvery:
			logged = time.Now()
			a.log.Error("the journal: its tree cannot be extended or its checkpoint signed", "err", err,
				"failing_for", time.Since(failing).Round(time.Second).String())
		case err == nil && !failing.IsZero():
			a.log.Info("the journal is extended and signed again", "failed_for", time.Since(failing).Round(time.Millisecond).String())
			failing = time.Time{}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// StepJournal does one round of the journal's work (journal.Log.Step): the entries appended
// since the last round hashed into the tree, and a checkpoint signed if one is due. It runs
// under the store's lock "journal": of several servers on one database one works at a time, and
// the others then find the work done.
func (a *App) StepJournal(ctx context.Context) error {
	return a.Store.WithLock(ctx, "journal", func() error { return a.Journal.Step(ctx, a.now()) })
}

// lifeEvery is how often a server opens the scheduled emissions whose time has come and starts
// the approved creations not yet made: an emission opens within about a second of its
// on_sale_at.
const lifeEvery = time.Second

// RunLife opens the scheduled emissions as their on_sale_at comes, by the server's clock, and
// starts making the approved creations, every lifeEvery. Every server runs it: the store makes
// each opening happen once, and the creation's lease lets one server make each emission.
func (a *App) RunLife(ctx context.Context) {
	tick := time.NewTicker(lifeEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if opened, err := a.Store.OpenScheduled(ctx, a.now()); err != nil && ctx.Err() == nil {
			a.log.Error("opening the scheduled emissions", "err", err)
		} else if len(opened) > 0 {
			a.log.Info("scheduled emissions on sale", "emissions", opened)
		}
		if err := a.Admin.StartApproved(ctx); err != nil && ctx.Err() == nil {
			a.log.Error("starting an approved creation", "err", err)
		}
	}
}
