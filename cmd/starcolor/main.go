// Command starcolor runs the « Star Color » instant lottery: its game server, its emissions of
// tickets, its game definition, its books and its back office's operators. Each subcommand lives
// in a file of its own. The tools for tests and integrators are commands of their own
// (starcolor-fakewallet, starcolor-loadtest), so that the regulated binary does not carry them.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	_ "time/tzdata" // the back office shows Paris time, on a machine without /usr/share/zoneinfo too

	"starcolor/internal/app"
	"starcolor/internal/cmdline"
)

func main() { cmdline.Main(run) }

// command is one subcommand: its name, a line of help and what it does.
type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"serve", "run the game server: the player API over HTTP", runServe},
		{"ledger", "check that the books balance", runLedger},
		{"emission", "create, list, show, export, verify and report on emissions of tickets", runEmission},
		{"game", "show the game definition: prize tables, amounts, presentation frequencies", runGame},
		{"admin", "create operators of the back office (/admin)", runAdmin},
		{"exclusions", "import the list of persons excluded from gambling", runExclusions},
		{"wallet", "reconcile Star Color's books with the operator's wallet", runWallet},
		{"journal", "export and verify the journal; the account key for a regulator", runJournal},
	}
}

const usage = `starcolor runs the « Star Color » instant lottery.

Usage:
  starcolor <command> [arguments]

Commands:
%s
Run "starcolor <command> -h" for the arguments of a command.
The database is a SQLite file, or a PostgreSQL database given by its URL (postgres://…):
--db FILE|URL, or $STARCOLOR_DB, or starcolor.db.
The reference wallet and the load tool are commands of their own: starcolor-fakewallet and
starcolor-loadtest.
`

// moved are the commands that left starcolor for commands of their own: the binary that runs the
// game for real money carries no wallet that sets balances, and no load tool.
var moved = map[string]string{"fakewallet": "starcolor-fakewallet", "loadtest": "starcolor-loadtest"}

// run executes one command line and returns the process exit code: 0, 1 for a failure, 2 for
// a command line that could not be understood.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmds := commands()
	printUsage := func(w io.Writer) {
		var list string
		for _, c := range cmds {
			list += fmt.Sprintf("  %-10s %s\n", c.name, c.summary)
		}
		fmt.Fprintf(w, usage, list)
	}
	if len(args) == 0 {
		printUsage(stderr)
		return 2
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(stdout)
		return 0
	}
	for _, c := range cmds {
		if c.name == args[0] {
			return cmdline.ExitCode("starcolor", c.run(ctx, args[1:], stdout, stderr), stderr)
		}
	}
	if to, ok := moved[args[0]]; ok {
		fmt.Fprintf(stderr, "starcolor: %s is a command of its own now: %s (go run ./cmd/%s)\n", args[0], to, to)
		return 2
	}
	fmt.Fprintf(stderr, "starcolor: unknown command %q\n\n", args[0])
	printUsage(stderr)
	return 2
}

// runSubcommand runs the subcommand of a command (starcolor journal verify) that args name, or
// prints the command's usage: its subcommands, each with its line of help.
func runSubcommand(ctx context.Context, name string, subs []command, args []string, stdout, stderr io.Writer) error {
	width := 0
	for _, c := range subs {
		width = max(width, len(c.name))
	}
	printUsage := func(w io.Writer) {
		fmt.Fprintf(w, "Usage: starcolor %s <command> [arguments]\n\nCommands:\n", name)
		for _, c := range subs {
			fmt.Fprintf(w, "  %-*s  %s\n", width, c.name, c.summary)
		}
	}
	if len(args) == 0 {
		printUsage(stderr)
		return cmdline.ErrUsage
	}
	if args[0] == "-h" || args[0] == "--help" {
		printUsage(stdout)
		return nil
	}
	for _, c := range subs {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "starcolor %s: unknown command %q\n", name, args[0])
	printUsage(stderr)
	return cmdline.ErrUsage
}

// newFlags makes a subcommand's flag set (cmdline.NewFlags), its usage named after starcolor.
func newFlags(name, args, help string, stderr io.Writer) *flag.FlagSet {
	return cmdline.NewFlags("starcolor "+name, args, help, stderr)
}

// dbFlag adds --db to a flag set, defaulting to $STARCOLOR_DB or starcolor.db.
func dbFlag(fs *flag.FlagSet) *string {
	def := os.Getenv("STARCOLOR_DB")
	if def == "" {
		def = "starcolor.db"
	}
	return fs.String("db", def, "the SQLite database `file`, or a PostgreSQL database's postgres:// URL ($STARCOLOR_DB)")
}

// openExisting opens the database of a command that only reads: a mistyped --db then gets a
// clear error instead of a new, empty database left behind.
func openExisting(ctx context.Context, db string) (app.Store, error) {
	if err := existing(db); err != nil {
		return nil, err
	}
	return openStore(ctx, db)
}

// existing refuses the --db of a command that only reads when it names no SQLite file.
func existing(db string) error {
	if !app.IsPostgres(db) {
		if _, err := os.Stat(db); errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("no database at %s: create an emission first, or name the database with --db or $STARCOLOR_DB", db)
		}
	}
	return nil
}
