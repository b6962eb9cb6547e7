package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"starcolor/internal/app"
	"starcolor/internal/cmdline"
	"starcolor/internal/fill"
	"starcolor/internal/game"
)

// runFill is starcolor-loadtest fill: a year of sales made in a database, without a server.
func runFill(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cmdline.NewFlags("starcolor-loadtest fill", "--db FILE|URL --games N [--players P] [--heavy H] [--journal-key FILE]",
		`Fills a database with N real sales, spread over the year before now, for measuring what
grows with the history (docs/PERFORMANCE.md). Each sale goes through the store's own sale path,
in the batched writer's large batches, without HTTP: the rows, the totals and the journal are
those a server writes, and the result passes starcolor ledger check. It creates the emissions
the sales take, at every stake, and P players with a first deposit; H very heavy players play
40 % of the games between them. One game in 50 is « Jouer », finished as the server finishes an
abandoned game. A SQLite file must not be served meanwhile; on PostgreSQL, servers may run.`, stderr)
	db := fs.String("db", "", "the database: a SQLite `FILE` (made if absent) or a postgres:// URL")
	games := fs.Int64("games", 0, "the `number` of sales to make")
	players := fs.Int("players", fill.DefaultPlayers, "the `number` of regular players")
	heavy := fs.Int("heavy", fill.DefaultHeavy, "the `number` of very heavy players")
	keyFile := fs.String("journal-key", "", "the journal's key `file`, made when absent (default: as starcolor serve finds it)")
	seed := fs.Uint64("seed", 1, "chooses who plays each game")
	if err := cmdline.Parse(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return cmdline.UsageError(fs, "unexpected argument %q", fs.Arg(0))
	case *db == "":
		return cmdline.UsageError(fs, "--db is required")
	case *games <= 0:
		return cmdline.UsageError(fs, "--games %d: at least 1", *games)
	case *players < 1 || *heavy < 1:
		return cmdline.UsageError(fs, "--players and --heavy: at least 1")
	}
	if *keyFile == "" {
		*keyFile = app.JournalKeyPath(*db)
	}
	if !app.IsPostgres(*db) {
		release, err := app.LockServed(*db)
		if err != nil {
			return err
		}
		defer release()
	}
	store, key, _, err := app.OpenKeyed(ctx, *db, *keyFile, "", app.OpenStore)
	if err != nil {
		return err
	}
	defer store.Close()
	a, err := app.New(ctx, store, app.Config{Game: game.DefaultConfig, Journal: key})
	if err != nil {
		return err
	}
	last := time.Now()
	res, err := fill.Run(ctx, a, fill.Config{Games: *games, Players: *players, Heavy: *heavy, Seed: *seed,
		Progress: func(done, total int64) {
			if time.Since(last) >= 5*time.Second {
				last = time.Now()
				fmt.Fprintf(stderr, "fill: %d of %d games\n", done, total)
			}
		}})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d games (%d « Jouer ») for %d players, %d deposits, in %d emissions\n", res.Games, res.Manual, res.Players, res.Deposits, len(res.Emissions))
	fmt.Fprintf(stdout, "sales: %.1f s, %.0f games/s; in all %.1f s\n", res.Selling.Seconds(), res.Rate(), res.Elapsed.Seconds())
	fmt.Fprintf(stdout, "heavy players: %s\n", strings.Trim(fmt.Sprint(res.Heavy), "[]"))
	return nil
}
