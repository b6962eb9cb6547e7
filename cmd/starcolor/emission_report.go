package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"starcolor/internal/chart"
	"starcolor/internal/cmdline"
	"starcolor/internal/emission"
	"starcolor/internal/gamedef"
)

func emissionReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("emission report", "ID [--plot FILE.svg]",
		`Reads back every unit of an emission, evaluates it under the rules and reports, for the
emission and for each block: the units of each tier against the prize table (exact; any
difference is marked MISMATCH), the prizes and the return to players, the hit rate, the
presentation features (Extra stages, explosions of each kind, chains, explosions and Extra
stages on losing units), the number of amounts revealed per unit, and the randomness tests of
each block's sale order (as emission randomness). --plot also draws the report as an SVG
picture. The exit status is 1 when the units differ from the prize table or the sale orders
fail the randomness tests.`, stderr)
	db := dbFlag(fs)
	plot := fs.String("plot", "", "also draw the report into this SVG `file`")
	id, err := cmdline.ParseArg(fs, args, "one emission id")
	if err != nil {
		return err
	}
	// Fail before the long part when the picture cannot be written.
	if err := checkFolderOf("--plot", *plot); err != nil {
		return err
	}
	return readEmission(ctx, *db, id, func(e *emission.Emission, r *emission.Reader) error {
		start := time.Now()
		rep, err := r.Report(ctx)
		if err != nil {
			return err
		}
		printReport(stdout, e, rep, time.Since(start))
		if *plot != "" {
			if err := writeAtomically(*plot, func(w io.Writer) error { return chart.WriteReport(w, rep, chart.Words{}) }); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "\nPicture written to %s\n", *plot)
		}
		switch {
		case !rep.OK():
			return fmt.Errorf("emission %s: the units differ from the prize table (see MISMATCH above)", e.ID)
		case !rep.Randomness.Pass:
			return fmt.Errorf("emission %s: the sale orders fail the randomness tests (see FAIL above)", e.ID)
		}
		return nil
	})
}

// checkFolderOf checks that the folder of a file a flag names exists, so that a command fails
// before its long part rather than after it; an empty path is no file.
func checkFolderOf(flag, path string) error {
	if path == "" {
		return nil
	}
	if st, err := os.Stat(filepath.Dir(path)); err != nil {
		return fmt.Errorf("%s: %w", flag, err)
	} else if !st.IsDir() {
		return fmt.Errorf("%s: %s is not a folder", flag, filepath.Dir(path))
	}
	return nil
}

// group writes a count with thin spaces between thousands, as gamedef.FormatEUR does.
func group(v int) string {
	s := strconv.Itoa(v)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "\u202f" + s[i:]
	}
	return s
}

// percent writes a share in percent.
func percent(x float64, decimals int) string {
	return strconv.FormatFloat(100*x, 'f', decimals, 64) + " %"
}

func check(ok bool) string {
	if ok {
		return "OK"
	}
	return "MISMATCH"
}

func printReport(w io.Writer, e *emission.Emission, rep *emission.Report, elapsed time.Duration) {
	t := &rep.Total
	fmt.Fprintf(w, "emission %s — %d block(s) at %s, game definition %s\n", rep.Emission, len(rep.Blocks),
		gamedef.FormatEUR(rep.Price), rep.Definition)
	fmt.Fprintf(w, "%s units read back and evaluated under the rules in %s\n", group(t.Units), elapsed.Round(time.Millisecond))

	fmt.Fprintf(w, "\nOVERALL\n")
	printStats(w, t)

	fmt.Fprintf(w, "\nPER BLOCK\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "block\tunits\twinning\tprizes\tRTP\thit rate\tExtra\texplosion\tchain\ttiers\t")
	for _, b := range rep.Blocks {
		f := b.Features
		tiers := check(b.OK())
		if !b.OK() {
			var bad []string
			for _, tr := range b.Tiers {
				if !tr.OK() {
					bad = append(bad, fmt.Sprintf("%s %s/%s", tierLabel(tr.Amount), group(tr.Count), group(tr.TableCount)))
				}
			}
			if b.Disagreements > 0 {
				bad = append(bad, fmt.Sprintf("%d unit(s) reveal another prize", b.Disagreements))
			}
			tiers += ": " + strings.Join(bad, ", ")
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", b.Block, group(b.Units), group(b.Winners),
			gamedef.FormatEUR(b.Prizes), percent(b.RTP(), 3), percent(b.HitRate(), 3),
			percent(ratio(f.Extra, b.Units), 2), percent(ratio(f.Exploded, b.Units), 2), percent(ratio(f.Chained, b.Units), 2), tiers)
	}
	tw.Flush()

	fmt.Fprintf(w, "\nRANDOMNESS OF THE SALE ORDERS\n")
	printRandomness(w, &rep.Randomness)
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func tierLabel(amount int64) string {
	if amount == 0 {
		return "0 € (losing)"
	}
	return gamedef.FormatEUR(amount)
}

// printStats prints the tier table, the money, the features and the gains of a set of units.
func printStats(w io.Writer, s *emission.Stats) {
	fmt.Fprintf(w, "  Tiers — columns 0 to %d: units of the tier by the number of amounts revealed; ways: distinct\n", len(s.Gains)-1)
	fmt.Fprintf(w, "  combinations of amounts that show the tier's total\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "  tier\t\tunits\ttable\tcheck\tchance\tways\t"
	for k := range s.Gains {
		head += strconv.Itoa(k) + "\t"
	}
	fmt.Fprintln(tw, head)
	for _, tr := range s.Tiers {
		comp := ""
		if tr.Composite {
			comp = "composite"
		}
		ways := ""
		if tr.Amount > 0 {
			ways = strconv.Itoa(len(tr.Combinations))
		}
		line := fmt.Sprintf("  %s\t%s\t%s\t%s\t%s\t%s\t%s\t", tierLabel(tr.Amount), comp, group(tr.Count), group(tr.TableCount),
			check(tr.OK()), odds(s.Units, tr.TableCount), ways)
		for _, v := range tr.Gains {
			if v == 0 {
				line += "·\t"
			} else {
				line += group(v) + "\t"
			}
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	for _, tr := range s.Tiers {
		if len(tr.Combinations) > 1 {
			var shown []string
			for i, c := range tr.Combinations {
				if i == 3 {
					shown = append(shown, "…")
					break
				}
				shown = append(shown, fmt.Sprintf("%s (%s)", c, group(c.Units)))
			}
			fmt.Fprintf(w, "  %s shown as %s\n", gamedef.FormatEUR(tr.Amount), strings.Join(shown, ", "))
		}
	}

	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  prizes\t%s\ttable %s\t%s\n", gamedef.FormatEUR(s.Prizes), gamedef.FormatEUR(s.TablePrizes), check(s.Prizes == s.TablePrizes))
	fmt.Fprintf(tw, "  return to player\t%s\ttable %s\tof %s of sales\n", percent(s.RTP(), 4), percent(s.TableRTP(), 4), gamedef.FormatEUR(s.Sales))
	fmt.Fprintf(tw, "  winning units\t%s\ttable %s\t%s\n", group(s.Winners), group(s.TableWinners), check(s.Winners == s.TableWinners))
	fmt.Fprintf(tw, "  hit rate\t%s\ttable %s\t%s\n", percent(s.HitRate(), 4), percent(s.TableHitRate(), 4), odds(s.Units, s.Winners))
	fmt.Fprintf(tw, "  units revealing another prize\t%d\t\t%s\n", s.Disagreements, check(s.Disagreements == 0))
	tw.Flush()

	fmt.Fprintf(w, "\n  Presentation features\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, f := range s.FeatureList() {
		fmt.Fprintf(tw, "    %s\t%9s\t%10s of %s %s\n", f.Name, percent(f.Share(), 3), group(f.Units), group(f.Of), f.OfWhat)
	}
	tw.Flush()
	f := &s.Features
	fmt.Fprintf(w, "    symbols revealed per unit: %.3f milky way, %.3f supernova, %.3f shooting star\n",
		ratio(f.Symbols[0], s.Units), ratio(f.Symbols[1], s.Units), ratio(f.Symbols[2], s.Units))

	fmt.Fprintf(w, "\n  Amounts revealed per unit\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for k, v := range s.Gains {
		bar := strings.Repeat("█", int(40*ratio(v, s.Units)+0.5))
		if v > 0 && bar == "" {
			bar = "▏"
		}
		fmt.Fprintf(tw, "    %d\t%s\t%s\t %s\n", k, group(v), percent(ratio(v, s.Units), 3), bar)
	}
	tw.Flush()
}

// odds writes "1 in N" for k among units.
func odds(units, k int) string {
	if k == 0 {
		return "never"
	}
	if v := float64(units) / float64(k); v < 100 {
		return fmt.Sprintf("1 in %.2f", v)
	}
	return "1 in " + group(int(float64(units)/float64(k)+0.5))
}
