package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"starcolor/internal/cmdline"
	"starcolor/internal/emission"
	"starcolor/internal/gamedef"
	"starcolor/internal/randomness"
)

func emissionRandomness(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("emission randomness", "ID",
		`Reads back each block's sale order from the stored units (each page checked against its
block's root) and tests it at 99 %: the winning units of each segment of the block, the runs of
wins and losses, the serial correlation of prizes at lags 1, 2, 5 and 10, and the positions of
each tier (the rarest together). Each statistic is printed with its p-value; a block passes a
test when its p-value is at least 0.01. Then each test is judged across the blocks, as NIST SP
800-22 §4.2 judges many sequences: the proportion of blocks that pass it, its smallest p-value,
and, from 55 blocks, the uniformity of its p-values, at levels set by the number of tests so
that a fair emission fails with probability at most 1 %, however many blocks it has
(docs/RANDOMNESS.md). The exit status is 1 when the emission fails.`, stderr)
	db := dbFlag(fs)
	id, err := cmdline.ParseArg(fs, args, "one emission id")
	if err != nil {
		return err
	}
	return readEmission(ctx, *db, id, func(e *emission.Emission, r *emission.Reader) error {
		start := time.Now()
		v, err := r.Randomness(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "emission %s — %d block(s) of %s units at %s, game definition %s\n", e.ID, len(e.Blocks),
			group(e.Blocks[0].Units), gamedef.FormatEUR(e.Price), e.Definition)
		fmt.Fprintf(stdout, "the sale order of %s units read back from the stored units, checked against their roots, and tested in %s\n\n",
			group(e.Units()), time.Since(start).Round(time.Millisecond))
		printRandomness(stdout, &v)
		if !v.Pass {
			return fmt.Errorf("emission %s: the sale orders fail the randomness tests (see FAIL above)", e.ID)
		}
		return nil
	})
}

// readEmission opens the database of a command that reads an emission's units, and hands read
// the emission and a reader of its units, each page checked against the commitment. An
// interruption is said as such.
func readEmission(ctx context.Context, db, id string, read func(*emission.Emission, *emission.Reader) error) error {
	store, err := openExisting(ctx, db)
	if err != nil {
		return err
	}
	defer store.Close()
	e, err := store.Emission(ctx, id)
	if err != nil {
		return err
	}
	r, err := emission.NewReader(e, store)
	if err != nil {
		return err
	}
	if err := read(e, r); err != nil {
		if errors.Is(err, context.Canceled) {
			return errors.New("interrupted")
		}
		return err
	}
	return nil
}

// printRandomness prints the randomness tests of an emission's blocks and their verdict: each
// block's statistics, then each test across the blocks, then the verdict.
func printRandomness(w io.Writer, v *randomness.Verdict) {
	fmt.Fprintf(w, "Each test is at 99 %%: a block passes it when its p-value is at least %g.\n", randomness.Alpha)
	if len(v.Blocks) > 0 && len(v.Blocks[0].Grouped) > 0 {
		fmt.Fprintf(w, "Tiers of fewer than %d units (%s) are too few to test alone: their positions are tested\ntogether with the next rarest.\n",
			randomness.MinPositions, randomness.TierNames(v.Blocks[0].Grouped))
	}
	for _, b := range v.Blocks {
		fmt.Fprintf(w, "\nBLOCK %d — %s units, %s winning\n", b.Index, group(b.Units), group(b.Winners))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  test\tstatistic\tp-value\tat 99 %")
		for _, r := range b.Results {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", r.Test, statistic(r), pValue(r.P), passWord(r.Pass(), "pass", "fail"))
		}
		tw.Flush()
		for _, s := range b.Skipped {
			fmt.Fprintf(w, "  not run: %s\n", s)
		}
	}
	if len(v.Tests) == 0 {
		fmt.Fprintln(w, "\nVERDICT: FAIL — no test could run")
		return
	}
	m := v.Tests[0].Blocks
	fmt.Fprintf(w, "\nACROSS THE %d BLOCK(S) — %d tests, each judged at %.2g = 0.01 / (4 × %d), so that a fair emission\n",
		m, len(v.Tests), v.Tests[0].Level, len(v.Tests))
	fmt.Fprintf(w, "fails with probability at most 1 %%; the uniformity of p-values at %.2g, from %d blocks\n",
		v.Tests[0].UniformityLevel, randomness.UniformityBlocks)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  test\tblocks passing\tfailures allowed\tNIST interval\tsmallest p\tTippett\tuniformity\tverdict")
	for i := range v.Tests {
		s := &v.Tests[i]
		uniformity := "from " + strconv.Itoa(randomness.UniformityBlocks) + " blocks"
		if s.UniformityJudged() {
			uniformity = pValue(s.Uniformity) + " " + passWord(s.Uniform, "ok", "FAIL")
		}
		fmt.Fprintf(tw, "  %s\t%d/%d %s\t%d to %d\t%.4f to %.4f\t%s\t%s %s\t%s\t%s\n", s.Test,
			s.Blocks-s.Failed, s.Blocks, passWord(s.Proportion, "ok", "FAIL"), s.MinFailed, s.MaxFailed,
			s.NISTLow, s.NISTHigh, pValue(s.MinP), pValue(s.Tippett), passWord(s.Extreme, "ok", "FAIL"),
			uniformity, passWord(s.Pass, "pass", "FAIL"))
	}
	tw.Flush()
	if v.Pass {
		fmt.Fprintf(w, "\nVERDICT: PASS — the sale orders are what uniform random shuffles of the prize table give, at 99 %%\n")
		return
	}
	var failed []string
	for _, s := range v.Tests {
		if !s.Pass {
			failed = append(failed, s.Test.String())
		}
	}
	fmt.Fprintf(w, "\nVERDICT: FAIL — %s\n", strings.Join(failed, "; "))
}

// statistic writes a test's statistic: "χ²(99) = 97.31, 100 segments", "z = −0.41",
// "r = 0.00031, z = 0.30", "D = 0.0123, 28 000 units".
func statistic(r randomness.Result) string {
	switch r.Test.Kind {
	case randomness.Segments:
		return fmt.Sprintf("χ²(%d) = %.2f, %d segments", r.DF, r.Value, r.Segments)
	case randomness.Serial:
		return fmt.Sprintf("r = %.2g, z = %.2f", r.R, r.Value)
	case randomness.Positions:
		return fmt.Sprintf("D = %.4f, %s units", r.Value, group(r.Units))
	}
	return fmt.Sprintf("%s = %.2f", r.Symbol, r.Value)
}

// pValue writes a probability with four decimals, or its order when smaller.
func pValue(p float64) string {
	if p >= 0.0001 || p == 0 {
		return strconv.FormatFloat(p, 'f', 4, 64)
	}
	return strconv.FormatFloat(p, 'e', 1, 64)
}

func passWord(ok bool, yes, no string) string {
	if ok {
		return yes
	}
	return no
}
