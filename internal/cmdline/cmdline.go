// Package cmdline is what Star Color's commands share on the command line: starcolor (the server and
// its operations), starcolor-fakewallet (the reference wallet) and starcolor-loadtest (the load
// tool). Each has flag sets with a usage text, the same exit codes (0 done, 1 failed, 2 not
// understood), and reads amounts of euros the same way.
package cmdline

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
)

// ErrUsage marks a command line that could not be understood; its message has been printed.
var ErrUsage = errors.New("usage")

// Main runs a command's run on the process's arguments, with a context cancelled by SIGINT or
// SIGTERM, and exits with the code run returns.
func Main(run func(ctx context.Context, args []string, stdout, stderr io.Writer) int) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// ExitCode is the exit code of a command's error: 0 for none (or help asked for), 2 for a
// command line not understood (its usage printed already), else 1, with the error printed after
// the program's name.
func ExitCode(prog string, err error, stderr io.Writer) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, ErrUsage):
		return 2
	}
	fmt.Fprintf(stderr, "%s: %v\n", prog, err)
	return 1
}

// NewFlags makes a command's flag set. Its name is the command as typed ("starcolor emission
// create", "starcolor-fakewallet books"), and its usage text names it with its arguments, then
// says what it does and lists its flags.
func NewFlags(name, args, help string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: %s %s\n\n%s\n", name, args, help)
		var any bool
		fs.VisitAll(func(*flag.Flag) { any = true })
		if any {
			fmt.Fprintln(stderr, "\nFlags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// Parse parses a flag set, turning a parse failure into ErrUsage (flag has printed why).
func Parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return ErrUsage
	}
	return nil
}

// ParseArg parses the flag set of a command of one argument, which may come before, among or
// after its flags (flag stops at the first argument, so the flags after it are parsed again).
// A missing or second argument is a usage error; want says what the argument is.
func ParseArg(fs *flag.FlagSet, args []string, want string) (string, error) {
	if err := Parse(fs, args); err != nil {
		return "", err
	}
	if fs.NArg() == 0 {
		return "", UsageError(fs, "want %s", want)
	}
	arg := fs.Arg(0)
	if err := Parse(fs, fs.Args()[1:]); err != nil {
		return "", err
	}
	if fs.NArg() > 0 {
		return "", UsageError(fs, "unexpected argument %q", fs.Arg(0))
	}
	return arg, nil
}

// UsageError prints a message and the command's usage, and returns ErrUsage.
func UsageError(fs *flag.FlagSet, format string, args ...any) error {
	fmt.Fprintf(fs.Output(), "%s: %s\n", fs.Name(), fmt.Sprintf(format, args...))
	fs.Usage()
	return ErrUsage
}

// ParseEUR reads a price in euros ("2", "2.50" or "2,50") as cents, without floating point.
func ParseEUR(s string) (int64, error) {
	s = strings.TrimSpace(strings.Replace(s, ",", ".", 1))
	if s == "" {
		return 0, errors.New("a price in euros is required")
	}
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) > 2 {
		return 0, fmt.Errorf("%q has more than two decimals", s)
	}
	w, err := strconv.ParseUint(whole, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("%q is not an amount of euros", s)
	}
	f := uint64(0)
	if frac != "" {
		frac += strings.Repeat("0", 2-len(frac))
		if f, err = strconv.ParseUint(frac, 10, 8); err != nil {
			return 0, fmt.Errorf("%q is not an amount of euros", s)
		}
	}
	cents := int64(w*100 + f)
	if cents <= 0 {
		return 0, fmt.Errorf("%q is not a positive price", s)
	}
	return cents, nil
}
