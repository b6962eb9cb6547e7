package main

import (
	"context"
	"io"
)

func emissionReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errUsage
}
