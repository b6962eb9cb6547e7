package main

import (
	"bufio"
	"context"
	"fmt"
	"io"

	"starcolor/internal/cmdline"
	"starcolor/internal/journal"
)

// exportChunk is how many entries an export reads at a time: a few hundred kilobytes, whatever
// the journal's length.
const exportChunk = 4096

func journalExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("journal export", "--out FILE [--gzip] [--db FILE|URL]",
		`Writes every entry of the journal (docs/spec/API.md 1.2), from 0 to the last appended: each its
exact bytes on one line, as GET /api/v1/journal/entries serves them, so that starcolor journal
verify, or anyone's own tool, recomputes its tree and checks it against checkpoints kept. The
file appears whole or not at all.`, stderr)
	db := dbFlag(fs)
	out := fs.String("out", "", "the `file` to write")
	gz := fs.Bool("gzip", false, "compress the file with gzip")
	if err := cmdline.Parse(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return cmdline.UsageError(fs, "unexpected argument %q", fs.Arg(0))
	case *out == "":
		return cmdline.UsageError(fs, "--out is required")
	}
	store, err := openExisting(ctx, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	st, err := store.JournalState(ctx)
	if err != nil {
		return err
	}
	if err := writeExport(*out, *gz, func(w io.Writer) error { return exportEntries(ctx, store, st.Size, w) }); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "journal: %d entries (0 to %d) written to %s\n", st.Size, st.Size-1, *out)
	return nil
}

// exportEntries writes entries 0 to size-1, one a line, read exportChunk at a time.
func exportEntries(ctx context.Context, s journal.Store, size int64, w io.Writer) error {
	b := bufio.NewWriterSize(w, 1<<16)
	for start := int64(0); start < size; start += exportChunk {
		entries, err := s.JournalEntries(ctx, start, min(start+exportChunk, size))
		if err != nil {
			return err
		}
		for _, e := range entries {
			b.Write(e)
			b.WriteByte('\n')
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return b.Flush()
}
