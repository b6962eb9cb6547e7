package main

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"

	"starcolor/internal/cmdline"
	"starcolor/internal/journal"
)

func runJournal(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runSubcommand(ctx, "journal", []command{
		{"export", "write every entry of the journal, one a line", journalExport},
		{"verify", "check an exported journal against its checkpoints and block exports", journalVerify},
		{"account-key", "print the key that links a player's entries, for a regulator", journalAccountKey},
	}, args, stdout, stderr)
}

// files is a flag given once per file.
type files []string

func (f *files) String() string     { return strings.Join(*f, " ") }
func (f *files) Set(s string) error { *f = append(*f, s); return nil }

// maxCheckpoint bounds what is read of a checkpoint file: a checkpoint is under 1 kB, even
// cosigned by a few witnesses.
const maxCheckpoint = 64 << 10

func journalVerify(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("journal verify", "FILE --checkpoint C... --key K [--block EXPORT...]",
		`Checks an exported journal (one entry a line, gzip-compressed or not) on its own, without the
database (docs/spec/API.md 1.2): each line is an entry as the server writes it, its seq its
line; each checkpoint is signed with the key and signs the root of the journal's entries up to
its size, so that a past rewritten since a checkpoint was kept shows; given block exports
(emission export), each sale's unit and prize is the export's, no unit is sold twice, and each
emission's roots are those of its exports. Prints each problem on a line of its own, naming
the entry by its seq, and exits 1; else prints a summary.`, stderr)
	var checkpoints, blocks files
	fs.Var(&checkpoints, "checkpoint", "a checkpoint `file` (GET /api/v1/journal/checkpoint), kept when it was served; once per file")
	key := fs.String("key", "", "the journal's note verifier `key` (GET /api/v1/journal/key), or a file holding it")
	fs.Var(&blocks, "block", "a block's audit `export` (emission export), to check the sales of its units; once per file")
	path, err := cmdline.ParseArg(fs, args, "the journal's FILE")
	if err != nil {
		return err
	}
	switch {
	case len(checkpoints) == 0:
		return cmdline.UsageError(fs, "--checkpoint is required: the journal is checked against checkpoints kept")
	case *key == "":
		return cmdline.UsageError(fs, "--key is required")
	}
	start := time.Now()
	vkey, err := verifierKey(*key)
	if err != nil {
		return err
	}
	var signed []journal.Signed
	for _, name := range checkpoints {
		text, err := readSmall(name, maxCheckpoint)
		if err != nil {
			return err
		}
		signed = append(signed, journal.Signed{Name: name, Note: text})
	}
	var exports []*journal.Block
	for _, name := range blocks {
		b, err := readBlock(name)
		if err != nil {
			return err
		}
		exports = append(exports, b)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	rep, err := journal.Verify(ctx, f, vkey, signed, exports)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if !rep.OK() {
		for _, p := range rep.Problems {
			fmt.Fprintf(stdout, "%s: %s\n", path, p)
		}
		if rep.Dropped > 0 {
			fmt.Fprintf(stdout, "%s: and %d problems more\n", path, rep.Dropped)
		}
		return fmt.Errorf("%s: %d problems in %d entries", path, int64(len(rep.Problems))+rep.Dropped, rep.Entries)
	}
	fmt.Fprintf(stdout, "%s: OK — %d entries, root %x; %d checkpoints verified, the largest of %d entries",
		path, rep.Entries, rep.Root[:], rep.Checkpoints, rep.Size)
	if rep.Size < rep.Entries {
		fmt.Fprintf(stdout, " (entries %d to %d signed by none given)", rep.Size, rep.Entries-1)
	}
	if len(exports) > 0 {
		fmt.Fprintf(stdout, "; %d sales checked against %d block exports", rep.Sales, len(exports))
	}
	fmt.Fprintf(stdout, "; in %s\n", time.Since(start).Round(time.Millisecond))
	return nil
}

// verifierKey is --key: the key itself, or the file that holds it.
func verifierKey(arg string) (string, error) {
	if _, err := note.NewVerifier(arg); err == nil {
		return arg, nil
	}
	text, err := readSmall(arg, maxCheckpoint)
	if err != nil {
		return "", fmt.Errorf("--key %s is neither a verifier key (name+hash+base64) nor a file: %w", arg, err)
	}
	return strings.TrimSpace(string(text)), nil
}

// readSmall reads a file of at most limit bytes.
func readSmall(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, limit)
	}
	return data, nil
}

// readBlock reads a block's audit export, named by its file.
func readBlock(path string) (*journal.Block, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := journal.ReadBlock(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	b.Name = path
	return b, nil
}

func journalAccountKey(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("journal account-key", "--journal-key FILE",
		`Prints, in hex, the account key of the journal whose key file is FILE: the key of the HMAC that
makes each entry's account reference (docs/spec/API.md 1.2). Whoever holds it can tell which
entries are one player's (the reference of account A at seq N is HMAC-SHA256(key, A ‖ N), the
two as 8-byte big-endian numbers, cut to 16 bytes); it cannot sign checkpoints. Give it to a
regulator, not to the public.`, stderr)
	path := fs.String("journal-key", "", "the journal's key `file` (serve --journal-key)")
	if err := cmdline.Parse(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return cmdline.UsageError(fs, "unexpected argument %q", fs.Arg(0))
	case *path == "":
		return cmdline.UsageError(fs, "--journal-key is required")
	}
	k, err := journal.LoadKey(*path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("no key file at %s: the server makes it at its first start", *path)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, hex.EncodeToString(k.AccountKey[:]))
	return nil
}
