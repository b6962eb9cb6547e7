package main

import (
	"context"
	"io"
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
	return runSubcommand(ctx, "emission", subs, args, stdout, stderr)
}
