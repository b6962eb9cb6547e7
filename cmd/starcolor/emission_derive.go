package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"starcolor/internal/cmdline"
	"starcolor/internal/emission"
	"starcolor/internal/gamedef"
	"starcolor/internal/lottery"
	"starcolor/internal/store"
)

// emissionDerive is how an auditor checks a block before its sale: the live store never gives
// the units of a block on sale (emission.Exportable), so the auditor rebuilds the emission from
// the seed held in escrow (emission create --seed-out) and checks that it is the one committed.
// The rebuild is bit for bit (emission.Build depends on the seed alone), in a scratch database
// that is deleted afterwards.
func emissionDerive(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("emission derive", "--emission ID --seed-file FILE --out DIR [--price P --blocks N [--definition V]]",
		`Rebuilds an emission from its seed, as emission create made it, and writes each block's audit
export (DIR/ID-block-K.jsonl.gz), for an auditor to check a block before its sale without the
live order, which the database never gives before a block is sold out. The seed file holds the
64 hex digits that emission create --seed-out wrote.

With the database (--db), the emission's price, blocks, definition and creation time are read
from it, and each rebuilt root is compared with the committed one: exit 1 if any differs. With
--price and --blocks instead, no database is read, and the roots printed are to be compared with
the published commitments (GET /api/v1/emissions). Either way, emission verify then checks the
exports on their own.`, stderr)
	db := dbFlag(fs)
	id := fs.String("emission", "", "the emission's `id`")
	seedFile := fs.String("seed-file", "", "the `file` holding the emission's seed (64 hex digits)")
	out := fs.String("out", "", "the `folder` to write the exports to")
	price := fs.String("price", "", "without the database: the price in `euros`")
	blocks := fs.Int("blocks", 0, "without the database: the `number` of blocks")
	version := fs.String("definition", gamedef.Default, "without the database: the game definition `version`")
	if err := cmdline.Parse(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return cmdline.UsageError(fs, "unexpected argument %q", fs.Arg(0))
	case *seedFile == "":
		return cmdline.UsageError(fs, "--seed-file is required")
	case *out == "":
		return cmdline.UsageError(fs, "--out is required")
	case (*price == "") != (*blocks == 0):
		return cmdline.UsageError(fs, "--price and --blocks go together (without them, the database says)")
	}
	if err := emission.CheckID(*id); err != nil {
		return cmdline.UsageError(fs, "%v", err)
	}
	seed, err := readSeed(*seedFile)
	if err != nil {
		return err
	}
	if st, err := os.Stat(*out); err != nil || !st.IsDir() {
		return fmt.Errorf("--out %s: not a folder", *out)
	}

	// What to rebuild: the committed emission, or the parameters given.
	var committed *emission.Emission
	order := emission.Order{ID: *id, Blocks: *blocks, Seed: seed, CreatedAt: time.Now().UTC()}
	if *price == "" {
		store, err := openExisting(ctx, *db)
		if err != nil {
			return err
		}
		committed, err = store.Emission(ctx, *id)
		store.Close()
		if err != nil {
			return err
		}
		order.Price, order.CreatedAt, order.Blocks = committed.Price, committed.CreatedAt, len(committed.Blocks)
		if order.Definition, err = gamedef.Lookup(committed.Definition); err != nil {
			return err
		}
	} else {
		if order.Price, err = cmdline.ParseEUR(*price); err != nil {
			return cmdline.UsageError(fs, "--price: %v", err)
		}
		if order.Definition, err = gamedef.Lookup(*version); err != nil {
			return err
		}
	}
	if _, err := order.Definition.Table(order.Price); err != nil {
		return err
	}

	scratchDir, err := os.MkdirTemp(*out, ".derive-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratchDir)
	scratchDB := filepath.Join(scratchDir, "derive.db")
	scratch, err := openStoreKeyed(ctx, scratchDB, scratchDB+".journal-key")
	if err != nil {
		return err
	}
	defer scratch.Close()
	bar := newProgressBar(stderr, "rebuilding "+*id)
	order.Progress = bar.Update
	e, err := emission.Create(ctx, store.EmissionWrite(scratch, lottery.ByCommandLine, false), order)
	bar.Done()
	if err != nil {
		return err
	}
	r, err := emission.NewReader(e, scratch)
	if err != nil {
		return err
	}
	var differ []int
	for _, b := range e.Blocks {
		name := filepath.Join(*out, fmt.Sprintf("%s-block-%d.jsonl.gz", e.ID, b.Index))
		if err := exportTo(ctx, r, b.Index, name); err != nil {
			return err
		}
		verdict := "to compare with the published commitment"
		if committed != nil {
			verdict = "the committed root"
			if b.Root != committed.Blocks[b.Index].Root {
				verdict = fmt.Sprintf("DIFFERS from the committed root %x", committed.Blocks[b.Index].Root)
				differ = append(differ, b.Index)
			}
		}
		fmt.Fprintf(stdout, "block %d root %x: %s; %s\n", b.Index, b.Root, verdict, name)
	}
	if len(differ) > 0 {
		return fmt.Errorf("emission %s: the seed rebuilds blocks %v with other roots than those committed: it is not this emission's seed, or the emission is not what was committed", e.ID, differ)
	}
	return nil
}

// readSeed reads a seed as emission create --seed-out writes it: 64 hex digits and a newline.
func readSeed(path string) ([emission.SeedSize]byte, error) {
	var seed [emission.SeedSize]byte
	raw, err := os.ReadFile(path)
	if err != nil {
		return seed, err
	}
	b, err := hex.DecodeString(string(bytes.TrimSpace(raw)))
	if err != nil || len(b) != emission.SeedSize {
		return seed, errors.New(path + ": not a seed: want the 64 hex digits that emission create --seed-out writes")
	}
	copy(seed[:], b)
	return seed, nil
}
