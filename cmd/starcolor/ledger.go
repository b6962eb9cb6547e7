package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"starcolor/internal/app"
	"starcolor/internal/cmdline"
	"starcolor/internal/emission"
	"starcolor/internal/fault"
	"starcolor/internal/gamedef"
	"starcolor/internal/lottery"
)

func runLedger(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "check" {
		fmt.Fprintln(stderr, "Usage: starcolor ledger check [--db FILE|URL]")
		return cmdline.ErrUsage
	}
	fs := newFlags("ledger check", "[--db FILE|URL]",
		`Proves that the books balance: all accounts sum to zero, each balance equals its transfers,
each game has exactly its stake and prize transfers, each prize is its unit's prize in the
emission, and each block's sales are its first units, each sold once. Proves the stored units
too: every page of every block rebuilt and hashed up to the block's published root, and the
database file's structure sound. Exits 1 otherwise, with each problem.`, stderr)
	db := dbFlag(fs)
	if err := cmdline.Parse(fs, args[1:]); err != nil {
		return err
	}
	store, err := openExisting(ctx, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	// A damaged file is a finding like the others: each check that can still run does.
	damage, err := store.CheckFile(ctx)
	if err != nil {
		damage = append(damage, err.Error())
	}
	var problems []string
	for _, d := range damage {
		problems = append(problems, "the database file is damaged: "+d)
	}
	c, err := store.CheckLedger(ctx)
	if err != nil {
		if !damaged(err) {
			return err
		}
		c = &lottery.LedgerCheck{}
		problems = append(problems, "the books could not be read whole: "+cause(err).Error())
	}
	units, err := checkUnits(ctx, store)
	if err != nil {
		if !damaged(err) {
			return err
		}
		problems = append(problems, "the units and the games could not be read whole: "+cause(err).Error())
	}
	c.Problems = append(append(problems, c.Problems...), units...)
	fmt.Fprintf(stdout, "accounts %d, transfers %d, games %d\n", c.Accounts, c.Transfers, c.Games)
	fmt.Fprintf(stdout, "bank %s, prize fund %s, players %s\n", gamedef.FormatEUR(c.Bank), gamedef.FormatEUR(c.PrizeFund), gamedef.FormatEUR(c.Players))
	fmt.Fprintf(stdout, "stakes %s, prizes %s\n", gamedef.FormatEUR(c.Stakes), gamedef.FormatEUR(c.Prizes))
	if len(c.Problems) > 0 {
		for _, p := range c.Problems {
			fmt.Fprintln(stdout, "PROBLEM:", p)
		}
		return errors.New("the ledger does not balance")
	}
	fmt.Fprintln(stdout, "OK: the books balance")
	return nil
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
			problems = append(problems, "stored units do not match their commitment: "+c.Error())
		}
	}
	sold, err := store.SoldUnits(ctx)
	if err != nil {
		return nil, err
	}
	for _, g := range sold {
		r := readers[g.Emission]
		if r == nil {
			problems = append(problems, fmt.Sprintf("game %d was sold from emission %s, which does not exist", g.ID, g.Emission))
			continue
		}
		rec, err := r.Unit(ctx, g.Block, g.Unit)
		if errors.Is(err, emission.ErrCorrupt) || errors.Is(err, emission.ErrNotFound) || damaged(err) {
			problems = append(problems, fmt.Sprintf("game %d: its unit (%s block %d unit %d) cannot be read: %v", g.ID, g.Emission, g.Block, g.Unit, err))
			continue
		}
		if err != nil {
			return nil, err
		}
		if rec.Prize != g.Prize {
			problems = append(problems, fmt.Sprintf("game %d paid %d cents, its unit (%s block %d unit %d) wins %d", g.ID, g.Prize, g.Emission, g.Block, g.Unit, rec.Prize))
		}
	}
	return problems, nil
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
