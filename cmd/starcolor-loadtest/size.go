package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"starcolor/internal/app"
	"starcolor/internal/cmdline"
	"starcolor/internal/fill"
	"starcolor/internal/journal"
)

// runSize is starcolor-loadtest size: where a database's bytes go, a game at a time.
func runSize(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cmdline.NewFlags("starcolor-loadtest size", "--db FILE|URL",
		`Says where a database's bytes go: each table and index, with the table it belongs to, its
bytes and its bytes a game sold; then the parts: what a sale keeps (games, transfers, the
hours' totals, the kept answers, the accounts), the journal, the emissions' units, the rest.
SQLite's bytes are its pages (dbstat); PostgreSQL's are each relation's files, a table with its
TOAST table.`, stderr)
	db := fs.String("db", "", "the database: a SQLite `FILE` or a postgres:// URL")
	if err := cmdline.Parse(fs, args); err != nil {
		return err
	}
	if *db == "" {
		return cmdline.UsageError(fs, "--db is required")
	}
	if !app.IsPostgres(*db) {
		// Opening a SQLite file makes it: a mistyped name would leave an empty database behind.
		if _, err := os.Stat(*db); err != nil {
			return fmt.Errorf("no database at %s: %w", *db, err)
		}
	}
	store, err := app.OpenCommandStore(ctx, *db, &journal.AccountKey{}) // reads only: no entry is made
	if err != nil {
		return err
	}
	defer store.Close()
	s, ok := store.(fill.Sizer)
	if !ok {
		return fmt.Errorf("the store of %s cannot tell its sizes", *db)
	}
	return fill.Report(ctx, s, stdout)
}
