package main

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"starcolor/internal/cmdline"
	"starcolor/internal/emission"
)

func emissionExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("emission export", "--emission ID --block K --out FILE",
		`Writes block K of an emission in the audit format of docs/spec/RULES.md §8: a JSON header line, then one
line per unit in sale order. FILE ending in .gz is gzip-compressed. The file appears whole or
not at all. A block exports once sold out: before, its export would show the units still for
sale (docs/spec/RULES.md §6). To check a block before its sale, rebuild it from its seed (emission derive).`, stderr)
	db := dbFlag(fs)
	id := fs.String("emission", "", "the emission `id`")
	block := fs.Int("block", -1, "the block `index`, from 0")
	out := fs.String("out", "", "the `file` to write (.gz to compress)")
	if err := cmdline.Parse(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return cmdline.UsageError(fs, "unexpected argument %q", fs.Arg(0))
	case *id == "":
		return cmdline.UsageError(fs, "--emission is required")
	case *block < 0:
		return cmdline.UsageError(fs, "--block is required: a block index from 0")
	case *out == "":
		return cmdline.UsageError(fs, "--out is required")
	}
	store, err := openExisting(ctx, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	e, err := store.Emission(ctx, *id)
	if err != nil {
		return err
	}
	if err := e.Exportable(*block); err != nil {
		return err
	}
	r, err := emission.NewReader(e, store)
	if err != nil {
		return err
	}
	return exportTo(ctx, r, *block, *out)
}

// exportTo writes block k's audit export to path, gzip-compressed when it ends in .gz, whole or
// not at all.
func exportTo(ctx context.Context, r *emission.Reader, k int, path string) error {
	return writeExport(path, strings.HasSuffix(path, ".gz"), func(w io.Writer) error { return r.Export(ctx, w, k) })
}

// writeExport writes a file whole or not at all (writeAtomically), gzip-compressed when gz.
func writeExport(path string, gz bool, write func(io.Writer) error) error {
	return writeAtomically(path, func(w io.Writer) error {
		if !gz {
			return write(w)
		}
		z, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
		if err != nil {
			return err
		}
		if err := write(z); err != nil {
			return err
		}
		return z.Close()
	})
}

// writeAtomically writes a file readable by all (an audit export is meant to be handed over,
// like any published file) through a temporary file in the same folder, renamed into place only
// once complete, so that a failure or an interruption leaves no partial file.
func writeAtomically(path string, write func(io.Writer) error) error {
	return writeAtomicallyMode(path, 0o644, write)
}

// writeAtomicallyMode is writeAtomically with the file's permissions.
func writeAtomicallyMode(path string, mode os.FileMode, write func(io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		if errors.Is(err, context.Canceled) {
			return fmt.Errorf("interrupted: %s was not written", path)
		}
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
