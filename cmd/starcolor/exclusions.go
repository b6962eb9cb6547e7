package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"starcolor/internal/admin"
	"starcolor/internal/app"
	"starcolor/internal/cmdline"
	"starcolor/internal/identity"
	"starcolor/internal/lottery"
)

func runExclusions(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "import" {
		fs := newFlags("exclusions", "import FILE", "Manages the list of persons excluded from gambling (the national register of gaming bans).", stderr)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fs.Usage()
			return nil
		}
		return cmdline.UsageError(fs, "want: exclusions import FILE")
	}
	return exclusionsImport(ctx, args[1:], stdout, stderr)
}

func exclusionsImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("exclusions import", "[--db FILE|URL] FILE",
		`Imports the list of persons excluded from gambling (the national register of gaming bans): a CSV
file of last name, first names and birth date (YYYY-MM-DD or DD/MM/YYYY), separated by ',' or ';',
with or without a header line. The list replaces the one before. A listed person cannot open an
account; the open account of a listed person is closed (its balance paid out, its sessions
ended). A file with any line that is not a person imports nothing. The import is kept with its
counts (back office, /admin/exclusions) and in the operators' log.

A SQLite file that starcolor serve is serving is imported through that server, over its control
socket beside the file (FILE-control.sock, open to the file's owner only): the server keeps its
sessions in memory, and only it can end them at once. The operator API does the same from
elsewhere (PUT /api/operator/v1/exclusions, docs/OPERATOR_GUIDE.md).`, stderr)
	db := dbFlag(fs)
	if err := cmdline.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return cmdline.UsageError(fs, "want the list's FILE")
	}
	path := fs.Arg(0)
	if !app.IsPostgres(*db) {
		release, err := app.LockServed(*db)
		if errors.Is(err, app.ErrServed) {
			if cerr := importThroughServer(ctx, *db, path, stdout); cerr != nil {
				return fmt.Errorf("%w, and the import through it failed: %w", err, cerr)
			}
			return nil
		}
		if err != nil {
			return err
		}
		defer release()
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	persons, err := identity.ParseRegister(f, time.Now())
	if err != nil {
		return err
	}
	store, err := openStore(ctx, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	imp, err := store.ImportRegister(ctx, persons, lottery.RegisterImport{At: time.Now(), By: "command line", Source: filepath.Base(path)})
	if err != nil {
		return err
	}
	if err := store.LogOperatorAction(ctx, admin.RegisterImported("command line", imp)); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "imported %s: %d persons listed (%d added, %d gone); %d accounts closed\n", imp.Source, imp.Listed, imp.Added, imp.Gone, imp.Closed)
	for _, c := range imp.ClosedPlayers {
		fmt.Fprintf(stdout, "  closed %s: %d cents paid out\n", c.Username, c.PaidOut)
	}
	return nil
}
