// Command starcolor runs the « Star Color » instant lottery: its emissions of tickets, its game
// definition and (later) its game server. Each subcommand lives in a file of its own.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"syscall"
	_ "time/tzdata" // the back office shows Paris time, on a machine without /usr/share/zoneinfo too

	"starcolor/internal/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

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
		{"loadtest", "play the player API with many concurrent players and measure plays per second", runLoadtest},
		{"admin", "create operators of the back office (/admin)", runAdmin},
		{"exclusions", "import the list of persons excluded from gambling", runExclusions},
		{"wallet", "reconcile Star Color's books with the operator's wallet", runWallet},
		{"fakewallet", "run a reference operator's wallet (docs/spec/WALLET.md) for tests and integrators", runFakewallet},
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
`

// errUsage marks a command line that could not be understood; its message has been printed.
var errUsage = errors.New("usage")

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
			return exitCode(c.run(ctx, args[1:], stdout, stderr), stderr)
		}
	}
	fmt.Fprintf(stderr, "starcolor: unknown command %q\n\n", args[0])
	printUsage(stderr)
	return 2
}

func exitCode(err error, stderr io.Writer) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	}
	fmt.Fprintf(stderr, "starcolor: %v\n", err)
	return 1
}

// newFlags makes a subcommand's flag set; its usage text names the command and its arguments.
func newFlags(name, args, help string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: starcolor %s %s\n\n%s\n", name, args, help)
		var any bool
		fs.VisitAll(func(*flag.Flag) { any = true })
		if any {
			fmt.Fprintln(stderr, "\nFlags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parse parses a flag set, turning a parse failure into errUsage (flag has printed why).
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	return nil
}

// dbFlag adds --db to a flag set, defaulting to $STARCOLOR_DB or starcolor.db.
func dbFlag(fs *flag.FlagSet) *string {
	def := os.Getenv("STARCOLOR_DB")
	if def == "" {
		def = "starcolor.db"
	}
	return fs.String("db", def, "the SQLite database `file`, or a PostgreSQL database's postgres:// URL ($STARCOLOR_DB)")
}

// usageError prints a message and the command's usage, and returns errUsage.
func usageError(fs *flag.FlagSet, format string, args ...any) error {
	fmt.Fprintf(fs.Output(), "starcolor %s: %s\n", fs.Name(), fmt.Sprintf(format, args...))
	fs.Usage()
	return errUsage
}

// openExisting opens the database of a command that only reads: a mistyped --db then gets a
// clear error instead of a new, empty database left behind.
func openExisting(ctx context.Context, db string) (app.Store, error) {
	if !app.IsPostgres(db) {
		if _, err := os.Stat(db); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no database at %s: create an emission first, or name the database with --db or $STARCOLOR_DB", db)
		}
	}
	return app.OpenStore(ctx, db)
}
