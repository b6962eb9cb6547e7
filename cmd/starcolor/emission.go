package main

import (
	"context"
	"fmt"
	"io"

	"starcolor/internal/cmdline"
)

func runEmission(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	subs := []command{
		{"create", "create an emission of blocks of units, committed by their roots", emissionCreate},
		{"list", "list the emissions", emissionList},
		{"show", "show one emission, its blocks, roots and sales", emissionShow},
		{"export", "write a block's audit export (docs/spec/RULES.md §8)", emissionExport},
		{"derive", "rebuild an emission from its seed and export it, to check it before its sale", emissionDerive},
		{"verify", "re-check audit exports on their own, without the database", emissionVerify},
		{"report", "tier counts, return to player and presentation frequencies", emissionReport},
		{"randomness", "statistical tests at 99 % of each block's sale order and across blocks", emissionRandomness},
	}
	printUsage := func(w io.Writer) {
		fmt.Fprintln(w, "Usage: starcolor emission <command> [arguments]\n\nCommands:")
		for _, c := range subs {
			fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
		}
	}
	if len(args) == 0 {
		printUsage(stderr)
		return cmdline.ErrUsage
	}
	if args[0] == "-h" || args[0] == "--help" {
		printUsage(stdout)
		return nil
	}
	for _, c := range subs {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "starcolor emission: unknown command %q\n", args[0])
	printUsage(stderr)
	return cmdline.ErrUsage
}
