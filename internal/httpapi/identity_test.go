package httpapi_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"starcolor/internal/identity"
	"starcolor/internal/lottery"
)

// A sign-up says who the player is (docs/spec/API.md 1.1): a name missing or an impossible date is a 400,
// a player under 18 on the server's date a 403 underage; each refusal makes no account.
func TestRegistrationIdentity(t *testing.T) {
	skipInWalletMode(t, noAccounts+"; "+noProtection)
	srv := newTestServer(t, 1)
	// The server's date: a moment late on 30 November 2026, UTC.
	srv.clock.mu.Lock()
	srv.clock.now = time.Date(2026, 11, 30, 23, 30, 0, 0, time.UTC)
	srv.clock.mu.Unlock()
	c := srv.client(t)
	body := func(name, last, first, birth string) map[string]string {
		return map[string]string{"username": name, "password": "secret-" + name, "last_name": last, "first_names": first, "birth_date": birth}
	}
	for _, r := range []struct {
		why    string
		body   any
		status int
		code   string
	}{
		{"no identity", map[string]string{"username": "nadia", "password": "secret-nadia"}, 400, "invalid_identity"},
		{"no last name", body("nadia", "", "Nadia", "1990-01-01"), 400, "invalid_identity"},
		{"no first names", body("nadia", "Benali", " ", "1990-01-01"), 400, "invalid_identity"},
		{"an impossible date", body("nadia", "Benali", "Nadia", "1990-02-30"), 400, "invalid_identity"},
		{"a date in another form", body("nadia", "Benali", "Nadia", "01/02/1990"), 400, "invalid_identity"},
		{"born tomorrow", body("nadia", "Benali", "Nadia", "2026-12-01"), 400, "invalid_identity"},
		{"18 tomorrow", body("nadia", "Benali", "Nadia", "2008-12-01"), 403, "underage"},
		{"born 29 February 2008: 18 on 1 March 2026", body("nadia", "Benali", "Nadia", "2008-02-29"), 201, ""},
	} {
		st, raw := c.call("POST", "/api/v1/players", r.body, "")
		if st != r.status || (r.code != "" && !strings.Contains(string(raw), `"code":"`+r.code+`"`)) {
			t.Errorf("%s: %d %s, want %d %s", r.why, st, raw, r.status, r.code)
		}
	}
	// The refusals made no account: the name was free until the last one took it.
	if st, raw := c.call("POST", "/api/v1/players", body("nadia", "Benali", "Nadia", "1990-01-01"), ""); st != 409 {
		t.Errorf("the name after its refusals and one sign-up: %d %s, want 409 username_taken", st, raw)
	}
	// 18 today, on the server's date: welcome.
	c.must(201, nil, "POST", "/api/v1/players", body("omar", "El Idrissi", "Omar", "2008-11-30"), "")
	for name, want := range map[string]identity.Person{
		"nadia": {LastName: "Benali", FirstNames: "Nadia", BirthDate: time.Date(2008, 2, 29, 0, 0, 0, 0, time.UTC)},
		"omar":  {LastName: "El Idrissi", FirstNames: "Omar", BirthDate: time.Date(2008, 11, 30, 0, 0, 0, 0, time.UTC)},
	} {
		p, err := srv.db.PlayerByName(t.Context(), name)
		if err != nil || p.Person == nil || *p.Person != want {
			t.Errorf("%s: kept %+v, %v; want %+v", name, p.Person, err, want)
		}
	}
}

// Issue 19: after Bob Durand (born 1990-01-01) excluded himself, or while the register lists
// him, none of the names an outside audit opened accounts under reads otherwise than his: each
// sign-up is 403 registration_refused, one message, no date (docs/spec/API.md 1.2). A name in another
// script is 400; French names with accents, apostrophes and hyphens are welcome and compared
// without them.
func TestLookalikeSignups(t *testing.T) {
	skipInWalletMode(t, noAccounts+"; "+noProtection)
	lookalikes := []struct{ last, first string }{
		{"Durаnd", "Bob"}, {"Durand", "Bоb"}, {"Durandʼ", "Bob"}, {"Durand", "Boʙ"}, {"Durand", "B-ob"}, {"D urand", "Bob"}, {"Durand", "Bob Marie"},
	}
	sign := func(c *client, name, last, first, birth string) (int, []byte) {
		return c.call("POST", "/api/v1/players", map[string]string{"username": name, "password": "secret-" + name,
			"last_name": last, "first_names": first, "birth_date": birth}, "")
	}
	refused := func(srv *testServer, why string) {
		t.Helper()
		c := srv.client(t)
		for i, l := range lookalikes {
			st, raw := sign(c, fmt.Sprintf("alike%d", i), l.last, l.first, "1990-01-01")
			if st != 403 || !strings.Contains(string(raw), `"code":"registration_refused"`) || strings.ContainsAny(string(raw), "0123456789") {
				t.Errorf("%s: %q %q: %d %s, want 403 registration_refused without a date", why, l.first, l.last, st, raw)
			}
		}
		if st, raw := sign(c, "jean", "Durand", "Jean", "1990-01-01"); st != 201 {
			t.Errorf("%s: Jean Durand, born the same day: %d %s", why, st, raw)
		}
	}

	srv := newTestServer(t, 1)
	c := srv.client(t)
	if st, raw := sign(c, "bob", "Durand", "Bob", "1990-01-01"); st != 201 {
		t.Fatalf("sign up: %d %s", st, raw)
	}
	c.must(200, nil, "POST", "/api/v1/session", map[string]string{"username": "bob", "password": "secret-bob"}, "")
	c.must(201, nil, "POST", "/api/v1/me/exclusion", map[string]int{"days": 30}, "")
	refused(srv, "self-excluded")
	// Names in other scripts are 400, French ones welcome and compared as they read.
	if st, raw := sign(c, "dupont", "Дюран", "Боб", "1985-03-04"); st != 400 || !strings.Contains(string(raw), `"code":"invalid_identity"`) {
		t.Errorf("a name in Cyrillic: %d %s", st, raw)
	}
	for i, p := range []struct{ last, first string }{{"Noël", "Éloïse"}, {"D'Artagnan", "Charles"}, {"Le Bris-Müller", "Anne-Sophie"}} {
		name := fmt.Sprintf("french%d", i)
		if st, raw := sign(c, name, p.last, p.first, "1985-03-04"); st != 201 {
			t.Fatalf("%s %s: %d %s", p.first, p.last, st, raw)
		}
		fc := srv.client(t)
		fc.must(200, nil, "POST", "/api/v1/session", map[string]string{"username": name, "password": "secret-" + name}, "")
		fc.must(201, nil, "POST", "/api/v1/me/exclusion", map[string]int{"days": 30}, "")
		if st, raw := sign(c, name+"b", strings.ToUpper(p.last), strings.ToLower(p.first), "1985-03-04"); st != 403 || !strings.Contains(string(raw), `"code":"registration_refused"`) {
			t.Errorf("%s %s in other cases once excluded: %d %s", p.first, p.last, st, raw)
		}
	}
	if st, raw := sign(c, "noel2", "Noel", "Eloise", "1985-03-04"); st != 403 {
		t.Errorf("Éloïse Noël without accents: %d %s", st, raw)
	}
	// Usernames that read like one taken: 409.
	c.must(201, nil, "POST", "/api/v1/players", map[string]string{"username": "demo", "password": "secret-demo", "last_name": "Demo", "first_names": "Dana", "birth_date": "1980-01-01"}, "")
	for _, alike := range []string{"ｄｅｍｏ", "dеmo"} {
		st, raw := c.call("POST", "/api/v1/players", map[string]string{"username": alike, "password": "secret-" + alike, "last_name": "Other", "first_names": "Olga", "birth_date": "1980-01-01"}, "")
		if st != 409 || !strings.Contains(string(raw), `"code":"username_taken"`) {
			t.Errorf("%q beside demo: %d %s", alike, st, raw)
		}
	}

	listed := newTestServer(t, 1)
	if _, err := listed.db.ImportRegister(t.Context(), []identity.Person{{LastName: "Durand", FirstNames: "Bob", BirthDate: time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC)}},
		lottery.RegisterImport{At: listed.clock.Now(), By: "olga", Source: "register.csv"}); err != nil {
		t.Fatal(err)
	}
	refused(listed, "on the register")
}
