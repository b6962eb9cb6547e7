package storetest

import (
	"testing"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/identity"
	"starcolor/internal/lottery"
)

// The list of excluded persons: an import replaces it, counting who came and went; an open
// account of a listed person is closed, its balance paid out and its sessions ended; a listed
// identity, however written (testLookalikesOfListed), cannot sign up; each import is kept.
func testRegister(t *testing.T, h Harness) {
	f := newFixture(t, h)
	person := func(last, first, birth string) identity.Person {
		p, err := identity.ParsePerson(last, first, birth, f.now)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	helene, marc := person("Lefèvre", "Hélène", "1985-07-14"), person("Durand", "Marc", "1970-01-02")
	p, err := f.s.CreatePlayer(f.ctx, "helene", "x", &helene, f.now)
	if err != nil {
		t.Fatal(err)
	}
	f.limits(t, p, lottery.MaxLimit, lottery.MaxLimit)
	f.pay(t, p, lottery.Deposit, 1234, "")
	other := f.player(t, "other", 500)
	if err := f.s.CreateSession(f.ctx, lottery.Session{Hash: []byte{9}, Kind: lottery.PlayerSession, OwnerID: p.ID,
		CreatedAt: f.now.Unix(), LastSeen: f.now.Unix()}); err != nil {
		t.Fatal(err)
	}
	imp, err := f.s.ImportRegister(f.ctx, []identity.Person{marc, person("LEFEVRE", "helene", "1985-07-14")},
		lottery.RegisterImport{At: f.now, By: "olga", Source: "register.csv"})
	if err != nil {
		t.Fatal(err)
	}
	if imp.ID == 0 || imp.Listed != 2 || imp.Added != 2 || imp.Gone != 0 || imp.Closed != 1 ||
		imp.ClosedPlayers[0].Username != "helene" || imp.ClosedPlayers[0].PaidOut != 1234 {
		t.Fatalf("the first import: %+v", imp)
	}
	got, _ := f.s.PlayerByID(f.ctx, p.ID)
	if got.ClosedAt.IsZero() || got.ClosedBy != lottery.ClosedByRegister || got.Balance != 0 {
		t.Fatalf("the listed player's account: %+v", got)
	}
	if _, err := f.s.Session(f.ctx, []byte{9}); !fault.Is(err, fault.NotLoggedIn) && !fault.Is(err, fault.NotFound) {
		t.Fatalf("the listed player's session: %v", err)
	}
	f.lastPayout(t, p, 1234, lottery.PaidAtRegister)
	if f.balance(t, other) != 500 {
		t.Fatal("another player's account changed")
	}
	// No sign-up under a listed identity, however written.
	again := person("LEFÈVRE", "HELENE", "1985-07-14")
	if _, err := f.s.CreatePlayer(f.ctx, "helene2", "x", &again, f.now); !fault.Is(err, fault.RegistrationRefused) {
		t.Fatalf("a sign-up of a listed person: %v", err)
	}
	// The next list: Marc's ban ended, someone new; nobody else to close.
	imp, err = f.s.ImportRegister(f.ctx, []identity.Person{helene, person("Martin", "Jeanne", "1990-01-01")},
		lottery.RegisterImport{At: f.now.Add(time.Hour), By: "command line", Source: "next.csv"})
	if err != nil || imp.Listed != 2 || imp.Added != 1 || imp.Gone != 1 || imp.Closed != 0 {
		t.Fatalf("the second import: %+v %v", imp, err)
	}
	if _, err := f.s.CreatePlayer(f.ctx, "marc", "x", &marc, f.now); err != nil {
		t.Fatalf("a sign-up of a person no longer listed: %v", err)
	}
	imps, err := f.s.RegisterImports(f.ctx, 10)
	if err != nil || len(imps) != 2 || imps[0].Source != "next.csv" || imps[1].ClosedPlayers[0].PaidOut != 1234 || imps[1].By != "olga" {
		t.Fatalf("the imports kept: %+v %v", imps, err)
	}
	ps, n, err := f.s.RegisterPersons(f.ctx, "lefe", 10)
	if err != nil || n != 2 || len(ps) != 2 || ps[0].LastName != "Lefèvre" || ps[1].LastName != "Martin" {
		t.Fatalf("the list from « lefe »: %+v %d %v", ps, n, err)
	}
	if c := f.ledgerOK(t); c.Players != 500 {
		t.Fatalf("the players hold %d cents", c.Players)
	}
}
