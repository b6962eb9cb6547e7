package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"starcolor/internal/app"
	"starcolor/internal/identity"
	"starcolor/internal/lottery"
)

// starcolor exclusions import, as a real process: a bad file imports nothing (exit 1, the line
// named); a good one closes the listed person's open account, paying its balance out, and is
// logged with its counts.
func TestExclusionsImport(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "ex.db")
	ctx := context.Background()
	store, err := openStore(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	who, _ := identity.ParsePerson("Lefèvre", "Hélène", "1985-07-14", time.Now())
	p, err := store.CreatePlayer(ctx, "helene", "x", &who, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	high := int64(lottery.MaxLimit)
	store.SetLimits(ctx, p.ID, lottery.LimitsChange{Deposit: &high, Stake: &high}, "player", time.Now())
	if _, err := store.Pay(ctx, lottery.Payment{PlayerID: p.ID, AccountID: p.AccountID, Kind: lottery.Deposit, Amount: 4200},
		time.Now()); err != nil {
		t.Fatal(err)
	}
	store.Close()

	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("LEFEVRE;helene;14/07/1985\nDurand;Paul;1980-02-30\n"), 0o644)
	if r := adminCLI(t, "", "exclusions", "import", "--db", db, bad); r.code != 1 || !strings.Contains(r.stderr, "line 2") {
		t.Fatalf("a bad file: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	good := filepath.Join(dir, "register.csv")
	os.WriteFile(good, []byte("LEFEVRE;helene;14/07/1985\nDurand;Paul;1980-02-28\n"), 0o644)
	r := adminCLI(t, "", "exclusions", "import", "--db", db, good)
	if r.code != 0 || !strings.Contains(r.stdout, "2 persons listed (2 added, 0 gone); 1 accounts closed") || !strings.Contains(r.stdout, "closed helene: 4200 cents paid out") {
		t.Fatalf("import: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	store, err = openStore(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	got, _ := store.PlayerByID(ctx, p.ID)
	log, _ := store.OperatorLog(ctx, 10, 0)
	if got.ClosedBy != lottery.ClosedByRegister || got.Balance != 0 || len(log) != 1 || log[0].Action != "register_imported" {
		t.Fatalf("after the import: %+v, log %+v", got, log)
	}
	// The log keeps the import as fields, which the back office words in French or English.
	if d := log[0].Detail; log[0].Name != "command line" || !strings.HasPrefix(d, `{"file":`) || !strings.Contains(d, `"closed":[{"username":`) {
		t.Errorf("the import's line in the log: %+v", log[0])
	}
	if c, err := store.CheckLedger(ctx); err != nil || len(c.Problems) != 0 {
		t.Fatalf("ledger: %+v %v", c, err)
	}
}

// starcolor exclusions import beside a server of the same SQLite file: the list goes through the
// server's control socket, the listed player's account is closed, and their session, which the
// server keeps in memory, ends at once.
func TestExclusionsImportBesideServer(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "served.db")
	srv := startServer(t, db)
	p := newPlayer(t, srv.url, "jeanne") // Jeanne Martin, born 1990-01-01
	if st, raw, err := p.call("GET", "/api/v1/me", "", ""); err != nil || st != 200 {
		t.Fatalf("the player's session before: %d %s %v", st, raw, err)
	}
	info, err := os.Stat(controlPath(db))
	if err != nil || info.Mode()&os.ModeSocket == 0 || info.Mode().Perm() != 0o600 {
		t.Fatalf("the control socket: %v %v", info, err)
	}
	list := filepath.Join(dir, "register.csv")
	os.WriteFile(list, []byte("Nom;Prénoms;Date de naissance\nMARTIN;jeanne;01/01/1990\n"), 0o644)
	r := adminCLI(t, "", "exclusions", "import", "--db", db, list)
	if r.code != 0 || !strings.Contains(r.stdout, "through the server: 1 persons listed (1 added, 0 gone); 1 accounts closed") || !strings.Contains(r.stdout, "closed jeanne") {
		t.Fatalf("the import beside the server: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	if st, raw, err := p.call("GET", "/api/v1/me", "", ""); err != nil || st != 401 {
		t.Errorf("the closed player's session after the import: %d %s %v, want 401", st, raw, err)
	}
	// A bad file imports nothing, and says why.
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("MARTIN;jeanne;01/01/1990\nDurand;Paul;1980-02-30\n"), 0o644)
	if r := adminCLI(t, "", "exclusions", "import", "--db", db, bad); r.code != 1 || !strings.Contains(r.stderr, "line 2") {
		t.Errorf("a bad file beside the server: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	// Without the socket, the import is refused, saying the file is served.
	srv.kill()
	release, err := app.LockServed(db)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if r := adminCLI(t, "", "exclusions", "import", "--db", db, list); r.code != 1 || !strings.Contains(r.stderr, "already served") {
		t.Fatalf("a served file without its socket: exit %d %q", r.code, r.stderr)
	}
}
