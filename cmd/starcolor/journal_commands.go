package main

import (
	"context"
	"io"
)

// runJournal runs a journal subcommand. A stand-in until the journal's commands (verify,
// account-key) come with theirs: export is one line of that list.
func runJournal(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	subs := []command{
		{"export", "write every entry of the journal, one a line", journalExport},
	}
	return runSubcommand(ctx, "journal", subs, args, stdout, stderr)
}
