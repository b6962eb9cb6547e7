// Command starcolor-fakewallet runs a reference operator's wallet (seamless wallet mode,
// docs/spec/WALLET.md 1.1) on a SQLite file of its own, for tests and for integrators to read:
// the other side of Star Color's calls, with faults to inject, and its books. It is a command of
// its own, apart from starcolor: its API sets players' balances, which the binary that runs the
// game for real money must not carry.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"text/tabwriter"
	"time"

	"starcolor/internal/cmdline"
	"starcolor/internal/fakewallet"
	"starcolor/internal/wallet"
)

// prog is the command's name, in its messages.
const prog = "starcolor-fakewallet"

func main() { cmdline.Main(run) }

// run executes one command line and returns the process exit code: 0, 1 for a failure, 2 for a
// command line that could not be understood.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return cmdline.ExitCode(prog, runFakewallet(ctx, args, stdout, stderr), stderr)
}

const fakewalletHelp = `Runs a reference operator's wallet (seamless wallet, docs/spec/WALLET.md), for tests and for integrators to
read: the other side of Star Color's calls, keeping docs/spec/WALLET.md's promises in a SQLite file of its
own (--db). Give Star Color its base URL (http://ADDR): Star Color posts to {base}/{call}.

  POST /balance, /debit, /credit, /rollback
        the calls of docs/spec/WALLET.md. A player not yet known is made on first use with
        --initial-balance. A transaction_id is kept with its exact answer, a refusal (402, 403)
        too: the same id and the same JSON body get it again, another body 409
        duplicate_transaction. A debit whose id was rolled back, even by a rollback that came
        first, is 409. A rollback gives a successful debit's amount back once, acknowledges an
        id never seen and remembers it, and answers a second rollback of an id as the first.
        A credit is always accepted, even when its debit is unknown, refused or rolled back
        (the books count those credits apart: a sign of disagreement to settle).
  POST /players {"player", "balance"?, "blocked"?}
        sets a player's balance in cents (counted in the books as an adjustment), or blocks
        them ("blocked": true: debits are 403 player_blocked; credits and rollbacks still pass).
  GET  /books
        the books of "starcolor-fakewallet books", as JSON.
  GET  /transactions?after=SEQ&limit=N
        the listing for reconciliation: {"transactions": [...], "next": SEQ}, every debit,
        credit and rollback after the one numbered SEQ (0: from the first), at most N (at most
        10000), in the order they came; ask again with ?after=next. Each is {"seq",
        "transaction_id", "kind": "debit"|"credit"|"rollback", "player", "round_id", "amount"
        (cents: a debit's stake asked, moved only if status is 200; a credit's prize; what a
        rollback gave back), "ref" (a credit's debit_transaction_id, a rollback's
        rolled_back_transaction_id), "status" (200, or a debit's 402 or 403), "code" (a
        refusal's), "rolled_back", "rolled_back_by" (a debit's first rollback), "at"}.

Every request is signed as docs/spec/WALLET.md 1.1 says, under the secret of --secret-file: X-Timestamp
(Unix seconds) and X-Signature, the hex HMAC-SHA256 of METHOD "\n" PATH "\n" TIMESTAMP "\n" BODY
(the path as sent, with its query; the body empty for a GET). A signature that does not verify,
or a timestamp more than 300 s from the wallet's clock, is 401 bad_signature and changes
nothing. Every answer is signed as the answer to its request ("answer\n" METHOD "\n" PATH "\n"
REQUEST_SIGNATURE "\n" TIMESTAMP "\n" BODY); a debit's, a credit's and a rollback's echo its
transaction_id. Bodies are strict JSON: a field unknown, twice or in another case is 400.

Faults, each a probability from 0 (never) to 1 (always), drawn for each call of the four (not
for /players, /books, /transactions) whose signature is good:
  --fail P     answer 503 unavailable without applying the call
  --slow P     hold the call --slow-delay, then apply it even if the caller has left (a debit's
               rollback may overtake it: the debit then comes to an id rolled back, 409)
  --drop P     apply the call, then close the connection without an answer
  --refuse P   refuse a new debit, 402 insufficient_funds or 403 limit_reached at random,
               without moving anything (kept, final, as a real refusal)

  starcolor-fakewallet books [--db FILE] [--json]
        prints each player's account: the initial balance, adjustments, debits (count and
        sum of the successful ones), rollbacks (count and sum given back), credits, staked (the
        debits that stand: debits − rollbacks), debits refused, balance; and the total. Fails
        if a player's balance is not initial + adjusted − debits + rollbacks + credits.
  starcolor-fakewallet transactions [--db FILE] [--after SEQ] [--limit N]
        prints the listing of GET /transactions, one JSON object a line.`

func runFakewallet(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "books":
			return fakewalletBooks(ctx, args[1:], stdout, stderr)
		case "transactions":
			return fakewalletTransactions(ctx, args[1:], stdout, stderr)
		}
	}
	fs := cmdline.NewFlags(prog, "--secret-file FILE [--addr HOST:PORT] [--db FILE] [faults…] | books | transactions", fakewalletHelp, stderr)
	db := fakewalletDB(fs)
	addr := fs.String("addr", "127.0.0.1:9000", "the `address` to listen on")
	secretFile := fs.String("secret-file", "", "the `file` holding the secret shared with Star Color (its bytes, without a trailing newline)")
	notDurable := fs.Bool("not-durable", false, "do not sync the file at each movement (SQLite synchronous=OFF): a crash of the machine may lose the last movements; for load tests, where the wallet must not be the slowest part")
	initial := fs.Int64("initial-balance", fakewallet.DefaultInitialBalance, "a new player's balance, in `cents`")
	var f fakewallet.Faults
	probability(fs, &f.Fail, "fail", "answer 503 without applying, with this `probability`")
	probability(fs, &f.Slow, "slow", "hold the call --slow-delay before applying it, with this `probability`")
	fs.DurationVar(&f.SlowDelay, "slow-delay", 5*time.Second, "how long --slow holds a call")
	probability(fs, &f.Drop, "drop", "apply the call, then close the connection without an answer, with this `probability`")
	probability(fs, &f.Refuse, "refuse", "refuse a new debit (402 insufficient_funds or 403 limit_reached) with this `probability`")
	fs.Uint64Var(&f.Seed, "seed", 0, "the `seed` of the faults' draws; 0: a random one")
	if err := cmdline.Parse(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return cmdline.UsageError(fs, "unexpected argument %q", fs.Arg(0))
	case *secretFile == "":
		return cmdline.UsageError(fs, "want --secret-file")
	case *initial < 0:
		return cmdline.UsageError(fs, "--initial-balance is 0 or more cents")
	case f.SlowDelay < 0:
		return cmdline.UsageError(fs, "--slow-delay is 0 or more")
	}
	secret, err := wallet.ReadSecret(*secretFile)
	if err != nil {
		return err
	}
	store, err := fakewallet.OpenWith(ctx, *db, !*notDurable)
	if err != nil {
		return err
	}
	defer store.Close()
	store.Initial = *initial
	log := slog.New(slog.NewTextHandler(stderr, nil))
	w := fakewallet.NewServer(store, secret, f)
	w.Log = log
	srv := &http.Server{
		Handler:           w,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      f.SlowDelay + 30*time.Second,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	log.Info("serving", "addr", "http://"+ln.Addr().String(), "db", *db, "fail", f.Fail, "slow", f.Slow, "slow_delay", f.SlowDelay, "drop", f.Drop, "refuse", f.Refuse)
	fmt.Fprintf(stdout, "the fake wallet is served at http://%s\n", ln.Addr())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), f.SlowDelay+10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return err
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// fakewalletDB adds --db, the fake wallet's own SQLite file.
func fakewalletDB(fs *flag.FlagSet) *string {
	return fs.String("db", "fakewallet.db", "the fake wallet's SQLite database `file`")
}

// probability adds a flag of a probability from 0 to 1.
func probability(fs *flag.FlagSet, p *float64, name, usage string) {
	fs.Func(name, usage+" (0 to 1; default 0)", func(s string) error {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !(v >= 0 && v <= 1) {
			return errors.New("want a probability from 0 to 1")
		}
		*p = v
		return nil
	})
}

// openFakewallet opens an existing fake wallet's database: a mistyped --db gets an error, not a
// new, empty database.
func openFakewallet(ctx context.Context, db string) (*fakewallet.Store, error) {
	if _, err := os.Stat(db); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no fake wallet's database at %s", db)
	}
	return fakewallet.Open(ctx, db)
}

func fakewalletBooks(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cmdline.NewFlags(prog+" books", "[--db FILE] [--json]",
		`Prints the fake wallet's books: each player's account and the total, amounts in cents. Fails if
a player's balance is not initial + adjusted − debits + rollbacks + credits.`, stderr)
	db := fakewalletDB(fs)
	asJSON := fs.Bool("json", false, "print the books as JSON (as GET /books)")
	if err := cmdline.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cmdline.UsageError(fs, "unexpected argument %q", fs.Arg(0))
	}
	store, err := openFakewallet(ctx, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	b, err := store.Books(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		e := json.NewEncoder(stdout)
		e.SetIndent("", "  ")
		if err := e.Encode(b); err != nil {
			return err
		}
	} else {
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "player\tinitial\tadjusted\tdebits\tdebited\trollbacks\tgiven back\tcredits\tcredited\tstaked\trefused\tbalance\t\t")
		line := func(p fakewallet.PlayerBooks, name string) {
			check := "ok"
			if !p.Balanced {
				check = "DOES NOT BALANCE"
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t\n", name, p.Initial, p.Adjusted,
				p.Debits.Count, p.Debits.Amount, p.Rollbacks.Count, p.Rollbacks.Amount, p.Credits.Count, p.Credits.Amount,
				p.Staked.Amount, p.Refused, p.Balance, check)
		}
		for _, p := range b.Players {
			line(p, p.Player)
		}
		line(b.Total, "total")
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "credits whose debit is unknown, refused or rolled back: %d\n", b.Unmatched)
	}
	if !b.Total.Balanced {
		return errors.New("the books do not balance")
	}
	return nil
}

func fakewalletTransactions(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cmdline.NewFlags(prog+" transactions", "[--db FILE] [--after SEQ] [--limit N]",
		`Prints the fake wallet's transactions in the order they came, one JSON object a line, as
GET /transactions lists them (see "starcolor-fakewallet -h").`, stderr)
	db := fakewalletDB(fs)
	after := fs.Int64("after", 0, "print the transactions after the one numbered `SEQ`")
	limit := fs.Int("limit", 0, "print at most `N` transactions; 0: all")
	if err := cmdline.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cmdline.UsageError(fs, "unexpected argument %q", fs.Arg(0))
	}
	if *after < 0 || *limit < 0 {
		return cmdline.UsageError(fs, "--after and --limit are 0 or more")
	}
	store, err := openFakewallet(ctx, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	e := json.NewEncoder(stdout)
	for left := *limit; *limit == 0 || left > 0; {
		n := fakewallet.MaxPage
		if *limit > 0 {
			n = min(n, left)
			left -= n
		}
		list, err := store.Transactions(ctx, *after, n)
		if err != nil {
			return err
		}
		for _, t := range list {
			if err := e.Encode(t); err != nil {
				return err
			}
		}
		if len(list) < n {
			break
		}
		*after = list[len(list)-1].Seq
	}
	return nil
}
