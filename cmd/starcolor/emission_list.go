package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"starcolor/internal/cmdline"
	"starcolor/internal/emission"
	"starcolor/internal/gamedef"
)

func emissionList(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("emission list", "", "Lists the emissions: id, price, blocks, units sold.", stderr)
	db := dbFlag(fs)
	if err := cmdline.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cmdline.UsageError(fs, "unexpected argument %q", fs.Arg(0))
	}
	store, err := openExisting(ctx, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	es, err := store.Emissions(ctx)
	if err != nil {
		return err
	}
	if len(es) == 0 {
		fmt.Fprintln(stdout, "no emission yet: create one with starcolor emission create")
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPRICE\tBLOCKS\tUNITS\tSOLD\tCREATED\tDEFINITION")
	for _, e := range es {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%s\n", e.ID, gamedef.FormatEUR(e.Price), len(e.Blocks), e.Units(), e.Sold(),
			e.CreatedAt.Format("2006-01-02 15:04:05Z"), e.Definition)
	}
	return tw.Flush()
}

func emissionShow(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("emission show", "ID", "Shows an emission: its price, table, and each block's root and sales.", stderr)
	db := dbFlag(fs)
	if err := cmdline.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return cmdline.UsageError(fs, "want one emission id")
	}
	store, err := openExisting(ctx, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	e, err := store.Emission(ctx, fs.Arg(0))
	if err != nil {
		return err
	}
	printEmission(stdout, e)
	return nil
}

func printEmission(w io.Writer, e *emission.Emission) {
	fmt.Fprintf(w, "emission %s\n  price       %s\n  definition  %s\n  created     %s\n  blocks      %d of %d units\n  sold        %d of %d units\n",
		e.ID, gamedef.FormatEUR(e.Price), e.Definition, e.CreatedAt.Format("2006-01-02 15:04:05Z"),
		len(e.Blocks), e.Blocks[0].Units, e.Sold(), e.Units())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  BLOCK\tUNITS\tSOLD\tREMAINING\tROOT")
	for _, b := range e.Blocks {
		fmt.Fprintf(tw, "  %d\t%d\t%d\t%d\t%x\n", b.Index, b.Units, b.Sold, b.Units-b.Sold, b.Root)
	}
	tw.Flush()
}
