package main

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"starcolor/internal/cmdline"
	"starcolor/internal/emission"
	"starcolor/internal/gamedef"
	"starcolor/internal/lottery"
	starstore "starcolor/internal/store"
)

func emissionCreate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("emission create", "--id ID --price P --blocks N [--seed HEX] [--seed-out FILE] [--rng-out FILE]",
		`Creates an immutable emission of N blocks at price P (in euros), each block holding the
prize table of the regulation exactly, in an order drawn from a cryptographically secure
generator, and committed by the RFC 6962 root of its audit lines. Creation is atomic: an
interrupted run leaves nothing behind. The units are generated in a staging file beside the
database, then copied in by one transaction, so that a server selling from the database pauses
only for the copy (about 0.5 s a block).`, stderr)
	db := dbFlag(fs)
	id := fs.String("id", "", "the emission's `id` (letters, digits, '.', '_', '-')")
	price := fs.String("price", "", "the price of a unit in `euros`: 1, 2 or 3")
	blocks := fs.Int("blocks", 0, "the `number` of blocks of units")
	seedHex := fs.String("seed", "", "64 hex digits of seed, to rebuild an emission bit for bit (default: from crypto/rand)")
	seedOut := fs.String("seed-out", "", "write the seed to this new `file` (mode 0600), for escrow")
	rngOut := fs.String("rng-out", "", "write the raw ChaCha8 output that drew each block's sale order to this `file` (mode 0600): the\nuint64 words the shuffle consumed, little-endian, block after block (8 MB a block), for NIST SP 800-22\nor dieharder (docs/RANDOMNESS.md); it gives the sale orders, so it is as secret as the seed until the\nblocks are sold out; the emission is the same with or without it")
	version := fs.String("definition", gamedef.Default, "the game definition `version`")
	direct := fs.Bool("direct", false, "generate straight into the database: about 0.3 s a block quicker, but it holds the database's\nonly write lock throughout, so a server selling from it would wait (and fail its sales after 60 s)")
	if err := cmdline.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cmdline.UsageError(fs, "unexpected argument %q", fs.Arg(0))
	}
	if err := emission.CheckID(*id); err != nil {
		return cmdline.UsageError(fs, "%v", err)
	}
	def, err := gamedef.Lookup(*version)
	if err != nil {
		return err
	}
	cents, err := cmdline.ParseEUR(*price)
	if err != nil {
		return cmdline.UsageError(fs, "--price: %v", err)
	}
	if _, err := def.Table(cents); err != nil {
		return err
	}
	if *blocks <= 0 {
		return cmdline.UsageError(fs, "--blocks %d: an emission has at least one block", *blocks)
	}
	seed := emission.NewSeed()
	if *seedHex != "" {
		raw, err := hex.DecodeString(*seedHex)
		if err != nil || len(raw) != emission.SeedSize {
			return cmdline.UsageError(fs, "--seed must be %d hex digits", 2*emission.SeedSize)
		}
		copy(seed[:], raw)
	}
	if err := checkFolderOf("--rng-out", *rngOut); err != nil {
		return err
	}
	if *seedOut != "" {
		if err := writeNew(*seedOut, hex.EncodeToString(seed[:])+"\n"); err != nil {
			return err
		}
	}

	store, err := openStore(ctx, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	bar := newProgressBar(stderr, "emission "+*id)
	start := time.Now()
	write := starstore.EmissionWrite(store, lottery.ByCommandLine, !*direct)
	var e *emission.Emission
	create := func(words io.Writer) (err error) {
		e, err = emission.Create(ctx, write, emission.Order{ID: *id, Definition: def, Price: cents, Blocks: *blocks, Seed: seed,
			CreatedAt: time.Now().UTC(), Progress: bar.Update, Words: words})
		return err
	}
	if *rngOut == "" {
		err = create(nil)
	} else {
		// Written beside its name and renamed once the emission is made: a failed or interrupted
		// creation leaves no file of words for an emission that does not exist. Readable by its
		// owner only: with the public prize table, the words give every block's sale order, so
		// they are as secret as the seed until the blocks are sold out.
		err = writeAtomicallyMode(*rngOut, 0o600, create)
	}
	bar.Done()
	if err != nil {
		if *seedOut != "" {
			os.Remove(*seedOut)
		}
		if errors.Is(err, context.Canceled) || ctx.Err() != nil {
			return errors.New("interrupted: nothing was written")
		}
		return err
	}
	fmt.Fprintf(stdout, "emission %s: %d block(s) of %d units at %s, created in %s\n", e.ID, len(e.Blocks),
		def.BlockUnits, gamedef.FormatEUR(cents), time.Since(start).Round(time.Millisecond))
	for _, b := range e.Blocks {
		fmt.Fprintf(stdout, "  block %d root %x\n", b.Index, b.Root)
	}
	if *rngOut != "" {
		fmt.Fprintf(stdout, "the generator's output that drew the sale orders written to %s (mode 0600): with the prize table\n"+
			"it gives every block's sale order, so keep it as secret as the seed until the blocks are sold out\n", *rngOut)
	}
	return nil
}

// writeNew writes a new file readable by its owner only, refusing to overwrite one.
func writeNew(path, content string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(content); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
