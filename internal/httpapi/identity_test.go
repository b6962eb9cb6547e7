package httpapi_test

import (
	"strings"
	"testing"
	"time"

	"starcolor/internal/identity"
)

// A sign-up says who the player is (API.md 1.1): a name missing or an impossible date is a 400,
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
