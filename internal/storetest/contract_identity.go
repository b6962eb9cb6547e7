package storetest

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/identity"
	"starcolor/internal/lottery"
)

// Names compared as a person reads them (issue 19, docs/spec/API.md 1.2): the stores keep the keys of
// internal/identity and refuse what reads like what they hold.

// lookalikes are the identities an outside audit opened accounts under after Bob Durand
// (born 1990-01-01) excluded himself: each reads as his.
var lookalikes = []struct{ last, first string }{
	{"Durаnd", "Bob"},       // a Cyrillic а (U+0430)
	{"Durand", "Bоb"},       // a Cyrillic о (U+043E)
	{"Durandʼ", "Bob"},      // the modifier letter apostrophe (U+02BC)
	{"Durand", "Boʙ"},       // LATIN LETTER SMALL CAPITAL B (U+0299)
	{"Durand", "B-ob"},      // a hyphen inside
	{"D urand", "Bob"},      // a space inside
	{"Durand", "Bob Marie"}, // a first name more
}

// bobDurand is the person the audit's look-alikes read as.
var bobDurand = identity.Person{LastName: "Durand", FirstNames: "Bob", BirthDate: time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC)}

// refusedAlike checks that none of the look-alikes of Bob Durand can open an account, each
// refused with the one refusal that says no reason (fault.RegistrationRefused), as CreatePlayer
// and CheckIdentity; and that another person still can.
func (f *fixture) refusedAlike(t *testing.T, why string) {
	t.Helper()
	for i, l := range lookalikes {
		p := identity.Person{LastName: l.last, FirstNames: l.first, BirthDate: bobDurand.BirthDate}
		if _, err := f.s.CreatePlayer(f.ctx, fmt.Sprintf("alike%d", i), "x", &p, f.now); !fault.Is(err, fault.RegistrationRefused) {
			t.Errorf("%s: %q %q signed up: %v", why, l.first, l.last, err)
		} else if msg := err.Error(); strings.Contains(msg, "register") || strings.Contains(msg, "exclu") || strings.Contains(msg, "20") {
			t.Errorf("%s: the refusal says why or until when: %q", why, msg)
		}
		if err := f.s.CheckIdentity(f.ctx, p, f.now); !fault.Is(err, fault.RegistrationRefused) {
			t.Errorf("%s: %q %q checked: %v", why, l.first, l.last, err)
		}
		if _, err := f.s.PlayerByName(f.ctx, fmt.Sprintf("alike%d", i)); !fault.Is(err, fault.NotFound) {
			t.Errorf("%s: a refused sign-up made an account: %v", why, err)
		}
	}
	jean := identity.Person{LastName: "Durand", FirstNames: "Jean", BirthDate: bobDurand.BirthDate}
	if err := f.s.CheckIdentity(f.ctx, jean, f.now); err != nil {
		t.Errorf("%s: Jean Durand, born the same day, checked: %v", why, err)
	}
}

// The audit's look-alikes of a self-excluded person are refused while the exclusion runs.
func testLookalikesOfExcluded(t *testing.T, h Harness) {
	f := newFixture(t, h)
	bob, err := f.s.CreatePlayer(f.ctx, "bob", "x", &bobDurand, f.now)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.s.ExcludePlayer(f.ctx, bob.ID, nil, f.now.Add(30*24*time.Hour), f.now); err != nil {
		t.Fatal(err)
	}
	f.refusedAlike(t, "after a self-exclusion")
	// It ends: the same person may come back, under any spelling.
	f.now = f.now.Add(31 * 24 * time.Hour)
	p := identity.Person{LastName: "Durаnd", FirstNames: "Bob Marie", BirthDate: bobDurand.BirthDate}
	if _, err := f.s.CreatePlayer(f.ctx, "bob2", "x", &p, f.now); err != nil {
		t.Errorf("once the exclusion ended: %v", err)
	}
}

// The audit's look-alikes of a person on the register are refused, and an import closes the
// open account of one.
func testLookalikesOfListed(t *testing.T, h Harness) {
	f := newFixture(t, h)
	marie := identity.Person{LastName: "Durand", FirstNames: "Bob-Marie", BirthDate: bobDurand.BirthDate}
	open, err := f.s.CreatePlayer(f.ctx, "bobmarie", "x", &marie, f.now)
	if err != nil {
		t.Fatal(err)
	}
	imp, err := f.s.ImportRegister(f.ctx, []identity.Person{bobDurand}, lottery.RegisterImport{At: f.now, By: "olga", Source: "register.csv"})
	if err != nil || imp.Closed != 1 || imp.ClosedPlayers[0].PlayerID != open.ID {
		t.Fatalf("the import: %+v %v; want Bob-Marie Durand's account closed", imp, err)
	}
	f.refusedAlike(t, "on the register")
}

// A username that reads like one taken is refused (docs/spec/API.md 1.2: 409 username_taken), and two
// sign-ups at once of names that read alike open one account.
func testUsernamesReadAlike(t *testing.T, h Harness) {
	f := newFixture(t, h)
	demo := f.player(t, "demo", 0)
	for _, alike := range []string{"ｄｅｍｏ", "dеmo", "DEMO", "de.mo", "démo"} {
		if _, err := f.s.CreatePlayer(f.ctx, alike, "x", nil, f.now); !fault.Is(err, fault.UsernameTaken) {
			t.Errorf("%q beside demo: %v", alike, err)
		}
	}
	for _, n := range []string{"ｄｅｍｏ", "DEMO", "Demo"} {
		if p, err := f.s.PlayerByName(f.ctx, n); err != nil || p.ID != demo.ID {
			t.Errorf("login as %q: %+v %v", n, p, err)
		}
	}
	if _, err := f.s.PlayerByName(f.ctx, "dеmo"); !fault.Is(err, fault.NotFound) {
		t.Errorf("a Cyrillic е at login: %v", err)
	}
	f.player(t, "demos", 0) // another name
	// Race-free: the unique skeleton, not a read before the write.
	for round := range 20 {
		names := []string{fmt.Sprintf("race%d", round), fmt.Sprintf("RACE%d", round), fmt.Sprintf("rаce%d", round), fmt.Sprintf("ｒａｃｅ%d", round), fmt.Sprintf("ra.ce%d", round)}
		var wg sync.WaitGroup
		errs := make([]error, len(names))
		start := make(chan struct{})
		for i, n := range names {
			wg.Go(func() {
				<-start
				_, errs[i] = f.s.CreatePlayer(f.ctx, n, "x", nil, f.now)
			})
		}
		close(start)
		wg.Wait()
		opened := 0
		for i, err := range errs {
			switch {
			case err == nil:
				opened++
			case !fault.Is(err, fault.UsernameTaken):
				t.Fatalf("round %d, %q: %v", round, names[i], err)
			}
		}
		if opened != 1 {
			t.Fatalf("round %d: %d accounts for %q, which read alike", round, opened, names)
		}
	}
}

// A database whose keys were made under the first comparison (case and accents) is brought to
// the new one when it is opened: every key made again, once; accounts that became alike keep
// working and are listed in the operators' log, none closed.
func testKeysRemade(t *testing.T, h Harness) {
	f := newFixture(t, h)
	// As a database before issue 19 holds them: three names that were three keys, now one
	// skeleton (and two of them one login key); their keys written as they were then.
	var ids []int64
	for _, n := range []struct{ made, was, key string }{{"demo", "demo", "demo"}, {"demo2", "ｄｅｍｏ", "ｄｅｍｏ"}, {"demo3", "dеmo", "dеmo"}} {
		p, err := f.s.CreatePlayer(f.ctx, n.made, "hash of "+n.was, nil, f.now)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.raw.Exec(`UPDATE players SET username = ?, name_key = ?, name_skeleton = NULL, name_twin = 0 WHERE id = ?`, n.was, n.key, p.ID); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.ID)
	}
	// Bob Durand excluded himself; Bob Marie Durand, the same person, kept an account that the
	// old keys told apart. Jeanne Claire Martin is Jeanne Martin of the register.
	bob, err := f.s.CreatePlayer(f.ctx, "bob", "x", &bobDurand, f.now)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.s.ExcludePlayer(f.ctx, bob.ID, nil, time.Now().Add(30*24*time.Hour), f.now); err != nil {
		t.Fatal(err)
	}
	jeanne := identity.Person{LastName: "Martin", FirstNames: "Jeanne", BirthDate: bobDurand.BirthDate}
	if _, err := f.s.ImportRegister(f.ctx, []identity.Person{jeanne}, lottery.RegisterImport{At: f.now, By: "olga", Source: "register.csv"}); err != nil {
		t.Fatal(err)
	}
	old := func(who string, as identity.Person, first, key string) int64 {
		p, err := f.s.CreatePlayer(f.ctx, who, "x", &as, f.now)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.raw.Exec(`UPDATE players SET first_names = ?, identity_key = ?, lookup_key = NULL WHERE id = ?`, first, key, p.ID); err != nil {
			t.Fatal(err)
		}
		return p.ID
	}
	bob2 := old("bob2", identity.Person{LastName: "Durand", FirstNames: "Robert", BirthDate: bobDurand.BirthDate}, "Bob Marie", "durand|bob marie|1990-01-01")
	claire := old("claire", identity.Person{LastName: "Martin", FirstNames: "Claire", BirthDate: bobDurand.BirthDate}, "Jeanne Claire", "martin|jeanne claire|1990-01-01")
	if err := f.raw.Exec(`UPDATE players SET identity_key = ?, lookup_key = NULL WHERE id = ?`, "durand|bob|1990-01-01", bob.ID); err != nil {
		t.Fatal(err)
	}
	// The register under its old key, and the same person again under another (a Cyrillic а).
	if err := f.raw.Exec(`UPDATE register SET identity_key = ?, lookup_key = ''`, "martin|jeanne|1990-01-01"); err != nil {
		t.Fatal(err)
	}
	if err := f.raw.Exec(`INSERT INTO register (identity_key, lookup_key, last_name, first_names, birth_date, import_id) SELECT ?, '', ?, first_names, birth_date, import_id FROM register`,
		"mаrtin|jeanne|1990-01-01", "Mаrtin"); err != nil {
		t.Fatal(err)
	}
	if err := f.raw.Exec(`UPDATE key_scheme SET scheme = ?`, "1: case and accents"); err != nil {
		t.Fatal(err)
	}
	logged := f.raw.Int(t, `SELECT count(*) FROM operator_log`)
	if err := f.s.Close(); err != nil {
		t.Fatal(err)
	}

	s := f.raw.Reopen(t)
	if got := f.raw.String(t, `SELECT scheme FROM key_scheme`); got != identity.KeyScheme() {
		t.Fatalf("the keys' scheme after opening: %q, want %q", got, identity.KeyScheme())
	}
	// Each old account logs in with its own name, as before.
	for typed, want := range map[string]int64{"demo": ids[0], "Demo": ids[0], "ｄｅｍｏ": ids[1], "ＤＥＭＯ": ids[1], "dеmo": ids[2], "DЕMO": ids[2]} {
		p, err := s.PlayerByName(f.ctx, typed)
		if err != nil || p.ID != want {
			t.Errorf("login as %q: player %d %v, want %d", typed, p.ID, err, want)
		}
	}
	if n := f.raw.Int(t, `SELECT count(DISTINCT name_twin) FROM players WHERE id IN (?, ?, ?) AND name_skeleton = ?`, ids[0], ids[1], ids[2], identity.UsernameSkeleton("demo")); n != 3 {
		t.Errorf("the three alike names: %d twins of one skeleton, want 3", n)
	}
	if _, err := s.CreatePlayer(f.ctx, "DEMO", "x", nil, f.now); !fault.Is(err, fault.UsernameTaken) {
		t.Errorf("a new name like theirs: %v", err)
	}
	// The keys of identities are the new ones: Bob Durand's look-alikes are refused; the
	// register is one person, Jeanne Martin, found as identities compare.
	p := identity.Person{LastName: "Durаnd", FirstNames: "Boʙ", BirthDate: bobDurand.BirthDate}
	if _, err := s.CreatePlayer(f.ctx, "bob3", "x", &p, f.now); !fault.Is(err, fault.RegistrationRefused) {
		t.Errorf("a look-alike of Bob Durand after the keys were made again: %v", err)
	}
	if ps, n, err := s.RegisterPersons(f.ctx, "MARTÍN", 10); err != nil || n != 1 || len(ps) != 1 {
		t.Errorf("the register after the keys were made again: %+v %d %v, want one person", ps, n, err)
	}
	// Nobody is closed; each collision is listed for the operator.
	for _, id := range []int64{bob2, claire} {
		if got, err := s.PlayerByID(f.ctx, id); err != nil || !got.ClosedAt.IsZero() {
			t.Errorf("player %d: %+v %v, want open", id, got, err)
		}
	}
	actions, err := s.OperatorLog(f.ctx, 100, 0)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, a := range actions {
		if a.Name == "starcolor" {
			listed = append(listed, a.Action+": "+a.Detail)
		}
	}
	want := []string{
		fmt.Sprintf(`usernames_alike: the usernames of accounts %d "demo", %d "ｄｅｍｏ", %d "dеmo" read alike`, ids[0], ids[1], ids[2]),
		fmt.Sprintf(`identity_excluded: the open account %d "bob2" (Bob Marie Durand, born 1990-01-01) matches the self-exclusion of account %d "bob"`, bob2, bob.ID),
		fmt.Sprintf(`identity_listed: the open account %d "claire" (Jeanne Claire Martin, born 1990-01-01) matches a person on the register`, claire),
	}
	if len(listed) != len(want) {
		t.Fatalf("the log lists %q, want %d lines", listed, len(want))
	}
	for _, w := range want {
		found := false
		for _, l := range listed {
			found = found || strings.HasPrefix(l, w)
		}
		if !found {
			t.Errorf("the log lists %q, not %q", listed, w)
		}
	}
	keys := func() string {
		rows, err := f.raw.DB.Query(`SELECT name_key, name_skeleton, name_twin, coalesce(lookup_key, ''), coalesce(identity_key, '') FROM players ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var b strings.Builder
		for rows.Next() {
			var k lottery.Keys
			if err := rows.Scan(&k.NameKey, &k.NameSkeleton, &k.NameTwin, &k.LookupKey, &k.IdentityKey); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%+v\n", k)
		}
		return b.String()
	}
	before := keys()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Opened again under the same comparison: nothing changes, nothing more is listed.
	f.raw.Reopen(t)
	if after := keys(); after != before {
		t.Errorf("the keys changed at the next opening:\n%s\n%s", before, after)
	}
	if n := f.raw.Int(t, `SELECT count(*) FROM operator_log`); n != logged+int64(len(want)) {
		t.Errorf("%d lines in the log after two openings, want %d", n, logged+int64(len(want)))
	}
}
