package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"starcolor/internal/cmdline"
	"starcolor/internal/wallet"
)

func runWallet(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "reconcile" {
		fs := newFlags("wallet", "reconcile --wallet URL", "Checks Star Color's books against the operator's wallet (seamless wallet mode, docs/WALLET_MODE.md).", stderr)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fs.Usage()
			return nil
		}
		return cmdline.UsageError(fs, "want: wallet reconcile --wallet URL")
	}
	fs := newFlags("wallet reconcile", "[--db FILE|URL] --wallet URL [--wallet-secret-file F] [--wallet-insecure-http]",
		`Compares, round by round, what Star Color holds (each game of the operator's players: its stake, its
prize, whether its credit is acknowledged) with the wallet's listing of its transactions (GET
URL/transactions, signed: docs/WALLET_MODE.md): each game's debit must stand at the wallet with its
stake and its credit with its prize, and no debit or credit may be there for a round Star Color
has no game of. Prints each difference and exits 1 if there is any (a credit not yet acknowledged
is one: run it again once the outbox has drained). The URL is https://, or http:// on a loopback
address, as for serve --wallet.`, stderr)
	db := dbFlag(fs)
	url := fs.String("wallet", "", "the operator's wallet `URL`")
	secretFile := fs.String("wallet-secret-file", "", "the `file` holding the shared secret (else $STARCOLOR_WALLET_SECRET)")
	insecure := fs.Bool("wallet-insecure-http", false, "accept a plain http:// --wallet URL to a host that is not a loopback address (a test bench only)")
	if err := cmdline.Parse(fs, args[1:]); err != nil {
		return err
	}
	if *url == "" || fs.NArg() > 0 {
		return cmdline.UsageError(fs, "want --wallet URL and nothing else")
	}
	if err := wallet.CheckURL(*url, *insecure); err != nil {
		return cmdline.UsageError(fs, "--wallet: %v", err)
	}
	secret, err := walletSecret(*secretFile)
	if err != nil {
		return err
	}
	if len(secret) == 0 {
		return cmdline.UsageError(fs, "the wallet's secret: --wallet-secret-file FILE or $STARCOLOR_WALLET_SECRET")
	}
	store, err := openStore(ctx, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	ours, err := store.WalletRounds(ctx)
	if err != nil {
		return err
	}
	theirs, err := wallet.NewClient(*url, wallet.NewKey(secret), time.Minute).Transactions(ctx)
	if err != nil {
		return err
	}
	diffs := wallet.Reconcile(ours, theirs)
	for _, d := range diffs {
		fmt.Fprintln(stdout, d)
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%d differences over %d rounds and %d wallet transactions", len(diffs), len(ours), len(theirs))
	}
	fmt.Fprintf(stdout, "OK: %d rounds agree with the wallet's %d transactions\n", len(ours), len(theirs))
	return nil
}

// walletSecret is the secret Star Color and the operator's wallet sign with: the bytes of file,
// or else $STARCOLOR_WALLET_SECRET (empty: none given).
func walletSecret(file string) ([]byte, error) {
	if file != "" {
		return wallet.ReadSecret(file)
	}
	return []byte(os.Getenv("STARCOLOR_WALLET_SECRET")), nil
}
