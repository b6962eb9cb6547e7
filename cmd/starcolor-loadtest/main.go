// Command starcolor-loadtest plays the player API of running servers (starcolor serve) with many
// concurrent players, as clients would, and measures plays per second, latencies and the CPU a
// play costs; it also checks every answer against the API and the players' balances. It is a
// command of its own, apart from the starcolor binary that runs the game for real money.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"starcolor/internal/cmdline"
	"starcolor/internal/gamedef"
	"starcolor/internal/loadtest"
	"starcolor/internal/wallet"
)

func main() { cmdline.Main(run) }

// run executes one command line and returns the process exit code: 0, 1 for a failure (or an
// answer that contradicts the API), 2 for a command line that could not be understood.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return cmdline.ExitCode("starcolor-loadtest", runLoadtest(ctx, args, stdout, stderr), stderr)
}

func runLoadtest(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "fill":
			return runFill(ctx, args[1:], stdout, stderr)
		case "size":
			return runSize(ctx, args[1:], stdout, stderr)
		}
	}
	fs := cmdline.NewFlags("starcolor-loadtest", "[--addr URL[,URL…]] [--players N] [--duration D] [--plays N] [--stake EUR] [--mode auto|manual] [--deposit EUR]",
		`Plays the player API of a running server (starcolor serve) with many concurrent players, as
a client would: each registers, logs in, deposits play money and plays games one after the
other until the duration or the play budget is spent, depositing again when short of money and
stopping when the emission is sold out. Prints plays per second, latency percentiles per type
of request, errors by status, and every answer that contradicts the API or the player's balance.
Only loopback addresses are accepted. The exit status is 1 if any such contradiction was found.`, stderr)
	addr := fs.String("addr", loadtest.DefaultBaseURL, "the server's base `URL`, or several separated by commas, over which the players are spread (loopback only: 127.0.0.0/8, ::1, localhost)")
	players := fs.Int("players", loadtest.DefaultPlayers, "the `number` of players playing at the same time")
	duration := fs.Duration("duration", loadtest.DefaultDuration, "how long to play, at most "+loadtest.MaxDuration.String())
	plays := fs.Int64("plays", 0, "stop after this `number` of games over all players (0: no limit)")
	stake := fs.String("stake", "1", "the stake of every game in `euros`")
	mode := fs.String("mode", "auto", "auto (one request per game) or manual (colour, then each reveal)")
	deposit := fs.String("deposit", "1000", "the play money each player deposits, at the start and when short, in `euros`")
	keys := fs.String("keys", "uuid7", "idempotency keys: uuid7 (time-ordered UUIDs, RFC 9562) or random (random hex)")
	walletSecret := fs.String("wallet-secret-file", "", "play a server in wallet mode (serve --wallet): the `file` of the secret the operator signs its launch calls with; each player is launched instead of signing up and depositing")
	seed := fs.Uint64("seed", 0, "makes the colours and clicks of manual games reproducible (0: random)")
	metrics := fs.String("metrics", "http://127.0.0.1:9464", "the servers' metrics listeners (serve --metrics-addr), base `URL`s in the order of --addr, for the CPU a play costs them; \"\" for none (default: serve's, with one --addr)")
	if err := cmdline.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cmdline.UsageError(fs, "unexpected argument %q", fs.Arg(0))
	}
	if *players < 1 || *players > loadtest.MaxPlayers {
		return cmdline.UsageError(fs, "--players %d: between 1 and %d", *players, loadtest.MaxPlayers)
	}
	if *duration <= 0 || *duration > loadtest.MaxDuration {
		return cmdline.UsageError(fs, "--duration %s: more than 0 and at most %s", *duration, loadtest.MaxDuration)
	}
	if *plays < 0 {
		return cmdline.UsageError(fs, "--plays %d: 0 (no limit) or more", *plays)
	}
	if *mode != "auto" && *mode != "manual" {
		return cmdline.UsageError(fs, "--mode %q: auto or manual", *mode)
	}
	if *keys != "uuid7" && *keys != "random" {
		return cmdline.UsageError(fs, "--keys %q: uuid7 or random", *keys)
	}
	stakeCents, err := cmdline.ParseEUR(*stake)
	if err != nil {
		return cmdline.UsageError(fs, "--stake: %v", err)
	}
	depositCents, err := cmdline.ParseEUR(*deposit)
	if err != nil {
		return cmdline.UsageError(fs, "--deposit: %v", err)
	}
	if depositCents < stakeCents {
		return cmdline.UsageError(fs, "--deposit %s is less than the stake %s", *deposit, *stake)
	}
	if err := loadtest.CheckBaseURL(ctx, *addr); err != nil {
		return cmdline.UsageError(fs, "--addr: %v", err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["metrics"] && strings.Contains(*addr, ",") {
		*metrics = "" // serve's default address is one server's
	}
	if *metrics != "" {
		if err := loadtest.CheckBaseURL(ctx, *metrics); err != nil {
			return cmdline.UsageError(fs, "--metrics: %v", err)
		}
		if strings.Count(*metrics, ",") != strings.Count(*addr, ",") {
			return cmdline.UsageError(fs, "--metrics: one URL for each --addr")
		}
	}

	cfg := loadtest.Config{
		BaseURL: *addr, Metrics: *metrics, Players: *players, Duration: *duration, MaxPlays: *plays,
		Stake: stakeCents, Mode: *mode, Deposit: depositCents, Seed: *seed, Keys: *keys,
	}
	if *walletSecret != "" {
		if cfg.WalletSecret, err = wallet.ReadSecret(*walletSecret); err != nil {
			return err
		}
	}
	fmt.Fprintf(stderr, "starcolor-loadtest: %d players, %s games at %s, for %s against %s…\n",
		*players, *mode, gamedef.FormatEUR(stakeCents), *duration, *addr)
	res, err := loadtest.Run(ctx, cfg)
	if err != nil {
		return err
	}
	if err := res.Report(stdout); err != nil {
		return err
	}
	switch {
	case res.Violations > 0:
		return fmt.Errorf("%d answers contradict the API or the players' balances: the server has a bug", res.Violations)
	case res.Interrupted && errors.Is(ctx.Err(), context.Canceled):
		return errors.New("interrupted")
	}
	return nil
}
