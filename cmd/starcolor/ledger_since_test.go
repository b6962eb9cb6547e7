package main

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"starcolor/internal/app"
	filltool "starcolor/internal/fill"
	"starcolor/internal/game"
	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/journal"
	"starcolor/internal/ledgercheck"
	"starcolor/internal/storetest"
)

// ledger check --since-last, on SQLite and on PostgreSQL, on books the fill tool wrote:
//   - without a mark it refuses, and says to run a full check;
//   - after a full check and more sales it passes, reads only the new games and entries, and
//     prints the full check's totals;
//   - after a game below the watermark is rewritten (with its balance, so the books still
//     balance) it fails, naming the game;
//   - after a trigger is dropped it fails: the schema changed.
//
// And the servers run the same check from the same mark, kept in the database:
//   - a server's check at start reads only what came after the command's mark, and the command
//     then starts from the server's;
//   - a mark changed in the database is refused (its MAC), and a server then checks whole;
//   - a server finds a rewritten game too, and then moves no money.
func TestLedgerCheckSinceLast(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { testSinceLast(t, filepath.Join(t.TempDir(), "since.db")) })
	t.Run("postgres", func(t *testing.T) { testSinceLast(t, storetest.PostgresURL(t)) })
}

func testSinceLast(t *testing.T, db string) {
	keyFile, fillN := fillable(t, db)
	fill := func(seed uint64) { t.Helper(); fillN(1500, 20, seed) }
	check := func(args ...string) result {
		return cli(append([]string{"ledger", "check", "--db", db, "--journal-key", keyFile}, args...)...)
	}
	fill(1)
	if r := check("--since-last"); r.code != 1 || !strings.Contains(r.stderr, "run a full `starcolor ledger check` first") {
		t.Fatalf("--since-last without a mark: %+v", r)
	}
	if r := check(); r.code != 0 || !strings.Contains(r.stdout, "mark: games through") {
		t.Fatalf("full check: %+v", r)
	}
	fill(2)
	since := check("--since-last")
	if since.code != 0 || !strings.Contains(since.stdout, "OK: the books balance") {
		t.Fatalf("--since-last after more sales: %+v", since)
	}
	// It compared the second fill's games only, and its totals are the full check's.
	if m := regexp.MustCompile(`compared with (\d+) games`).FindStringSubmatch(since.stdout); m == nil || m[1] != "1500" {
		t.Errorf("--since-last compared %v games with their entries, want the 1500 new:\n%s", m, since.stdout)
	}
	full := check()
	totals := func(out string) string {
		return strings.Join(regexp.MustCompile(`(?m)^(accounts|bank|stakes) .*$`).FindAllString(out, -1), "\n")
	}
	if full.code != 0 || totals(full.stdout) != totals(since.stdout) || !strings.Contains(full.stdout, "games 3000") {
		t.Fatalf("the full check says\n%s\n--since-last said\n%s", full.stdout, since.stdout)
	}

	// A server checks at start since the mark the command recorded, and records its own, which
	// the command then starts from.
	fill(3)
	srv := startServer(t, db, "--journal-key", keyFile)
	logged := waitLog(t, srv, "store checked since the last check")
	if !strings.Contains(logged, `"games_above":3000,"games":1500,`) || !strings.Contains(logged, `"marked":true`) {
		t.Errorf("the server's check since the command's mark: %s", logged)
	}
	srv.kill()
	if r := check("--since-last"); r.code != 0 || !strings.Contains(r.stdout, "compared with 0 games") ||
		!strings.Contains(r.stdout, "since the last check: games above 4500") {
		t.Fatalf("--since-last after the server's check: %+v", r)
	}

	// The mark in the database, a byte of it changed: refused, its MAC is the key's no more.
	raw := storetest.OpenRaw(t, db)
	var changed []byte
	if err := raw.DB.QueryRow(`SELECT mark FROM ledger_mark`).Scan(&changed); err != nil {
		t.Fatal(err)
	}
	changed[len(changed)-1] ^= 1
	setMark := `UPDATE ledger_mark SET mark = ?`
	if app.IsPostgres(db) {
		setMark = `UPDATE ledger_mark SET mark = $1`
	}
	if _, err := raw.DB.Exec(setMark, changed); err != nil {
		t.Fatal(err)
	}
	if r := check("--since-last"); r.code != 1 || !strings.Contains(r.stderr, "MAC") {
		t.Fatalf("--since-last from a changed mark: %+v", r)
	}
	// A server starting on it checks whole, and records its own.
	srv = startServer(t, db, "--journal-key", keyFile)
	if logged := waitLog(t, srv, "store checked whole"); !strings.Contains(logged, `"games":4500,`) || !strings.Contains(logged, `"marked":true`) {
		t.Errorf("the server's check from a changed mark: %s", logged)
	}
	srv.kill()

	// A won game below the watermark, its prize and its player's balance rewritten together.
	var id, account int64
	if err := raw.DB.QueryRow(`SELECT g.id, p.account_id FROM games g JOIN players p ON p.id = g.player_id WHERE g.prize > 0 ORDER BY g.id LIMIT 1`).Scan(&id, &account); err != nil {
		t.Fatal(err)
	}
	for _, q := range []struct {
		sql string
		arg int64
	}{{`UPDATE games SET prize = prize + 500 WHERE id = ?`, id}, {`UPDATE accounts SET balance = balance + 500 WHERE id = ?`, account},
		{`UPDATE accounts SET balance = balance - 500 WHERE id = ?`, 2}} {
		if err := raw.Exec(q.sql, q.arg); err != nil {
			t.Fatal(err)
		}
	}
	if r := check("--since-last"); r.code != 1 || !strings.Contains(r.stdout, "was updated after the last check") {
		t.Fatalf("--since-last after a game was rewritten: %+v", r)
	}
	// A server's check at start finds it too. That check since cannot run: the one above raised
	// the watermark, and recorded no mark. It checks whole, says what it found, and moves no
	// money.
	srv = startServer(t, db, "--journal-key", keyFile)
	waitLog(t, srv, "the store is damaged")
	if !strings.Contains(srv.logs.String(), "checking the store whole: the check since the last cannot run") {
		t.Errorf("the server did not say why it checked whole:\n%s", srv.logs)
	}
	if st, body := get(t, srv.url+"/healthz"); st != 503 || !strings.Contains(body, fmt.Sprintf("game %d paid", id)) {
		t.Errorf("/healthz after the server's check: %d %s", st, body)
	}
	p := newPlayer(t, srv.url, "since")
	if st, raw, _ := p.call("POST", "/api/v1/deposits", `{"amount":1000}`, "after-rewrite"); st != 503 || !strings.Contains(string(raw), "damaged") {
		t.Errorf("a deposit on rewritten books: %d %s", st, raw)
	}
	srv.kill()
	drop := `DROP TRIGGER ledger_games_update`
	if app.IsPostgres(db) {
		drop += ` ON games`
	}
	if err := raw.Exec(drop); err != nil {
		t.Fatal(err)
	}
	if r := check("--since-last"); r.code != 1 || !strings.Contains(r.stdout, "the schema of the games") {
		t.Fatalf("--since-last after a trigger was dropped: %+v", r)
	}
	if r := check(); r.code != 1 || !strings.Contains(r.stdout, "prize") {
		t.Fatalf("the full check after the rewrite: %+v", r)
	}
}

// fillable opens the database db names (the Mini definition) under a journal key file of its
// own, and returns the file and a fill: games more for players, two of them heavy, by the fill
// tool.
func fillable(t *testing.T, db string) (keyFile string, fill func(games, players int, seed uint64)) {
	ctx := context.Background()
	keyFile = filepath.Join(t.TempDir(), "journal.key")
	key, err := journal.OpenKey(keyFile, "", true)
	if err != nil {
		t.Fatal(err)
	}
	store, err := app.OpenStore(ctx, db, &key.AccountKey)
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.New(ctx, store, app.Config{Game: game.DefaultConfig, Definition: gamedeftest.Mini(t), Journal: key})
	if err != nil {
		t.Fatal(err)
	}
	return keyFile, func(games, players int, seed uint64) {
		t.Helper()
		if _, err := filltool.Run(ctx, a, filltool.Config{Games: int64(games), Players: players, Heavy: 2, Seed: seed}); err != nil {
			t.Fatal(err)
		}
	}
}

// waitLog waits, a minute at most, for a server's log to have a line holding text, and returns
// that line.
func waitLog(t *testing.T, srv *server, text string) string {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		for _, line := range strings.Split(srv.logs.String(), "\n") {
			if strings.Contains(line, text) {
				return line
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the server's log after a minute:\n%s", text, srv.logs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A lease of the check written by hand, for longer than any check holds it, is named: the
// command fails at once and the server says so in its log, where both waited in silence.
func TestLedgerCheckLeaseHeldByHand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lease.db")
	keyFile, fill := fillable(t, db)
	fill(200, 5, 1)
	raw := storetest.OpenRaw(t, db)
	if err := raw.Exec(`INSERT INTO leases (name, holder, until_ms) VALUES ('ledger-check', 'dba', ?)`, time.Now().Add(24*time.Hour).UnixMilli()); err != nil {
		t.Fatal(err)
	}
	check := func() result { return cli("ledger", "check", "--db", db, "--journal-key", keyFile) }
	if r := check(); r.code != 1 || !strings.Contains(r.stderr, `"ledger-check" is held by dba until`) || !strings.Contains(r.stderr, "written by hand") ||
		!strings.Contains(r.stderr, ledgercheck.FreeLease) {
		t.Fatalf("ledger check under a lease held by hand: %+v", r)
	}
	srv := startServer(t, db, "--journal-key", keyFile)
	if line := waitLog(t, srv, "held for longer than any check holds it"); !strings.Contains(line, `"holder":"dba"`) {
		t.Errorf("the server's log of the lease held by hand: %s", line)
	}
	srv.kill()
	// The statement the command named frees it.
	if err := raw.Exec(ledgercheck.FreeLease); err != nil {
		t.Fatal(err)
	}
	if r := check(); r.code != 0 {
		t.Fatalf("ledger check once the lease is gone: %+v", r)
	}
}
