package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"starcolor/internal/cmdline"
	"starcolor/internal/gamedef"
)

func runGame(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "show" {
		fmt.Fprintln(stderr, "Usage: starcolor game show [--version V] [--json]")
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			return nil
		}
		return cmdline.ErrUsage
	}
	fs := newFlags("game show", "[--version V] [--json]",
		"Prints the game definition: the prize table at each price, the amounts that may be shown\nunder a star and the presentation frequencies.", stderr)
	version := fs.String("version", gamedef.Default, "the definition `version` to show")
	asJSON := fs.Bool("json", false, "print the definition file itself")
	if err := cmdline.Parse(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cmdline.UsageError(fs, "unexpected argument %q", fs.Arg(0))
	}
	def, err := gamedef.Lookup(*version)
	if err != nil {
		return err
	}
	if *asJSON {
		raw, err := gamedef.Raw(def.Version)
		if err != nil {
			return err
		}
		_, err = stdout.Write(raw)
		return err
	}
	printDefinition(stdout, def)
	return nil
}

func printDefinition(w io.Writer, def *gamedef.Definition) {
	fmt.Fprintf(w, "%s — game definition %s\n%s\n", def.Name, def.Version, def.Regulation)
	fmt.Fprintf(w, "Blocks of %d units; at most %d gains per unit.\n", def.BlockUnits, def.MaxGains)
	for _, t := range def.Tables {
		fmt.Fprintf(w, "\nPrice %s\n", gamedef.FormatEUR(t.Price))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "amount\tunits per block\tchance (1 in)\tcomposite only\ttotal\t")
		for _, tr := range t.Tiers {
			comp := ""
			if tr.Composite {
				comp = "yes"
			}
			fmt.Fprintf(tw, "%s\t%d\t%.2f\t%s\t%s\t\n", gamedef.FormatEUR(tr.Amount), tr.Count,
				float64(def.BlockUnits)/float64(tr.Count), comp, gamedef.FormatEUR(tr.Amount*int64(tr.Count)))
		}
		tw.Flush()
		sales := t.Price * int64(def.BlockUnits)
		fmt.Fprintf(w, "Winning units %d (1 in %.2f); prizes %s of %s in sales: %.2f %% to players.\n",
			t.Winners(), float64(def.BlockUnits)/float64(t.Winners()), gamedef.FormatEUR(t.Payout()),
			gamedef.FormatEUR(sales), 100*float64(t.Payout())/float64(sales))
		var shown []string
		for _, a := range t.Amounts {
			shown = append(shown, gamedef.FormatEUR(a))
		}
		fmt.Fprintf(w, "Amounts shown under a star: %s\n", strings.Join(shown, ", "))
	}
	p := def.Presentation
	fmt.Fprintf(w, "\nPresentation\n")
	fmt.Fprintf(w, "  Extra stage: %.2f %% of units; each gain of such a unit on board 2 with %.0f %%\n",
		float64(p.ExtraPer10000)/100, float64(p.Board2GainPer10000)/100)
	fmt.Fprintf(w, "  Gains per winning unit (weights, 1 to %d): %v\n", def.MaxGains, p.GainsWeights[1:])
	fmt.Fprintf(w, "  Explosion symbols per board (weights, from 0): %v\n", p.SymbolsWeights)
	fmt.Fprintf(w, "  Symbol kinds (weights): milky way %d, supernova %d, shooting star %d\n",
		p.KindWeights["milky_way"], p.KindWeights["supernova"], p.KindWeights["shooting_star"])
	fmt.Fprintf(w, "  Symbols placed on an exploded star (chains): %.0f %% when one is available\n", float64(p.ChainPer10000)/100)
}
