package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"starcolor/internal/identity"
	"starcolor/internal/lottery"
)

// starcolor exclusions import, as a real process: a bad file imports nothing (exit 1, the line
// named); a good one closes the listed person's open account, paying its balance out, and is
// logged with its counts; a file being served is refused, pointing to the back office.
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
	// A file being served: the back office imports it.
	release, err := lockServed(db)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if r := adminCLI(t, "", "exclusions", "import", "--db", db, good); r.code != 1 || !strings.Contains(r.stderr, "/admin/exclusions") {
		t.Fatalf("a served file: exit %d %q", r.code, r.stderr)
	}
}
