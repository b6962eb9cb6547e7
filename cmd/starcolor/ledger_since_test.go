package main

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"starcolor/internal/app"
	filltool "starcolor/internal/fill"
	"starcolor/internal/game"
	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/journal"
	"starcolor/internal/storetest"
)

// ledger check --since-last, on SQLite and on PostgreSQL, on books the fill tool wrote:
//   - without a mark it refuses, and says to run a full check;
//   - after a full check and more sales it passes, reads only the new games and entries, and
//     prints the full check's totals;
//   - after a game below the watermark is rewritten (with its balance, so the books still
//     balance) it fails, naming the game;
//   - after a trigger is dropped it fails: the schema changed.
func TestLedgerCheckSinceLast(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { testSinceLast(t, filepath.Join(t.TempDir(), "since.db")) })
	t.Run("postgres", func(t *testing.T) { testSinceLast(t, storetest.PostgresURL(t)) })
}

func testSinceLast(t *testing.T, db string) {
	ctx := context.Background()
	keyFile := filepath.Join(t.TempDir(), "journal.key")
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
	fill := func(seed uint64) {
		t.Helper()
		if _, err := filltool.Run(ctx, a, filltool.Config{Games: 1500, Players: 20, Heavy: 2, Seed: seed}); err != nil {
			t.Fatal(err)
		}
	}
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

	// A won game below the watermark, its prize and its player's balance rewritten together.
	raw := storetest.OpenRaw(t, db)
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
