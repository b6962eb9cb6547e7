package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"starcolor/internal/emission"
	"starcolor/internal/gamedef"
	"starcolor/internal/sqlite"
)

func runLedger(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "check" {
		fmt.Fprintln(stderr, "Usage: starcolor ledger check [--db FILE]")
		return errUsage
	}
	fs := newFlags("ledger check", "[--db FILE]",
		`Proves that the books balance: all accounts sum to zero, each balance equals its transfers,
each game has exactly its stake and prize transfers, each prize is its unit's prize in the
emission, and each block's sales are its first units, each sold once. Exits 1 otherwise.`, stderr)
	db := dbFlag(fs)
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	store, err := openExisting(ctx, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	c, err := store.CheckLedger(ctx)
	if err != nil {
		return err
	}
	mismatched, err := checkPrizes(ctx, store)
	if err != nil {
		return err
	}
	c.Problems = append(c.Problems, mismatched...)
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

// checkPrizes compares each game's prize with its unit's prize in the emission.
func checkPrizes(ctx context.Context, store *sqlite.DB) ([]string, error) {
	sold, err := store.SoldUnits(ctx)
	if err != nil {
		return nil, err
	}
	var problems []string
	readers := map[string]*emission.Reader{}
	for _, g := range sold {
		r := readers[g.Emission]
		if r == nil {
			e, err := store.Emission(ctx, g.Emission)
			if err != nil {
				return nil, err
			}
			if r, err = emission.NewReader(e, store); err != nil {
				return nil, err
			}
			readers[g.Emission] = r
		}
		rec, err := r.Unit(ctx, g.Block, g.Unit)
		if err != nil {
			return nil, err
		}
		if rec.Prize != g.Prize {
			problems = append(problems, fmt.Sprintf("game %d paid %d cents, its unit (%s block %d unit %d) wins %d", g.ID, g.Prize, g.Emission, g.Block, g.Unit, rec.Prize))
		}
	}
	return problems, nil
}
