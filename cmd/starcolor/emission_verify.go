package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"starcolor/internal/audit"
	"starcolor/internal/cmdline"
	"starcolor/internal/gamedef"
)

func emissionVerify(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("emission verify", "FILE...",
		`Re-checks audit exports on their own, without the database: every unit evaluated under the
rules, the composite tiers, empty stars outside what the rules reveal, the Extra rules, the
same outcome whatever the colour, the exact tier counts, the payout and the block root.
Stops at the first defect with its unit and what is wrong.`, stderr)
	if err := cmdline.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return cmdline.UsageError(fs, "want at least one export file")
	}
	for _, name := range fs.Args() {
		if err := ctx.Err(); err != nil {
			return err
		}
		start := time.Now()
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		s, err := audit.Verify(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		h := s.Header
		fmt.Fprintf(stdout, "%s: OK — emission %s block %d at %s: %d units, %d winning (1 in %.2f), prizes %s (%.2f %% of sales), %d Extra stages; root %s verified in %s\n",
			name, h.Emission, h.Block, gamedef.FormatEUR(s.Price), s.Units, s.Winners, float64(s.Units)/float64(max(s.Winners, 1)),
			gamedef.FormatEUR(s.Payout), 100*float64(s.Payout)/float64(s.Price*int64(s.Units)), s.Extra, h.Root,
			time.Since(start).Round(time.Millisecond))
	}
	return nil
}
