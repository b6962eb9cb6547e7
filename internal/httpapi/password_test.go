package httpapi_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"starcolor/internal/passhash"
)

// A password change: a wrong current password is 403 wrong_password and counts as a failed login
// (five lock the name from that address: 429, even with the right one); a weak new one is 400
// weak_password, under the rules of a sign-up; bad bodies are 400. Each refusal changes
// nothing. A change ends every other session of the player at once, keeps the client that asked
// logged in under a fresh token, and the new password logs in where the old one no longer does.
func TestPasswordChange(t *testing.T) {
	skipInWalletMode(t, noAccounts)
	srv := newTestServer(t, 1)
	a := srv.client(t)
	a.signUp("paulette", 0)
	phone := srv.client(t) // another device of the same player
	phone.must(200, nil, "POST", "/api/v1/session", map[string]string{"username": "paulette", "password": "secret-paulette"}, "")
	other := srv.client(t) // another player
	other.signUp("quentin", 0)
	change := func(c *client, current, next string) (int, string) {
		st, raw := c.call("PUT", "/api/v1/me/password", map[string]string{"current": current, "new": next}, "")
		return st, string(raw)
	}
	for _, c := range []struct {
		name, body string
		status     int
		code       string
	}{
		{"no new password", `{"current":"secret-paulette"}`, 400, "invalid_input"},
		{"an unknown field", `{"current":"secret-paulette","new":"a long new password","again":"x"}`, 400, "invalid_request"},
		{"too short", `{"current":"secret-paulette","new":"short"}`, 400, "weak_password"},
		{"a common one", `{"current":"secret-paulette","new":"password"}`, 400, "weak_password"},
		{"the username", `{"current":"secret-paulette","new":"Paulette"}`, 400, "weak_password"},
	} {
		if st, raw := a.call("PUT", "/api/v1/me/password", c.body, ""); st != c.status || !strings.Contains(string(raw), `"code":"`+c.code+`"`) {
			t.Errorf("%s: %d %s, want %d %s", c.name, st, raw, c.status, c.code)
		}
	}
	if st, raw := change(a, "not my password", "a long new password"); st != 403 || !strings.Contains(raw, `"code":"wrong_password"`) {
		t.Errorf("a wrong current password: %d %s, want 403 wrong_password", st, raw)
	}
	// Nothing changed: both devices are still in, the old password still logs in.
	for i, c := range []*client{a, phone} {
		if st, raw := c.call("GET", "/api/v1/me", nil, ""); st != 200 {
			t.Fatalf("device %d after refused changes: %d %s", i, st, raw)
		}
	}
	srv.client(t).must(200, nil, "POST", "/api/v1/session", map[string]string{"username": "paulette", "password": "secret-paulette"}, "")

	before := sessionCookie(t, a)
	if st, raw := change(a, "secret-paulette", "a long new password"); st != 204 {
		t.Fatalf("a change: %d %s", st, raw)
	}
	if after := sessionCookie(t, a); after == "" || after == before {
		t.Errorf("the session cookie after a change: %q (before %q), want a fresh one", after, before)
	}
	if st, raw := a.call("GET", "/api/v1/me", nil, ""); st != 200 {
		t.Errorf("the device that changed the password: %d %s, want still logged in", st, raw)
	}
	if st, raw := phone.call("GET", "/api/v1/me", nil, ""); st != 401 {
		t.Errorf("another device after the change: %d %s, want 401", st, raw)
	}
	// The old token no longer opens anything, even sent again by hand.
	stale := srv.client(t)
	u, _ := url.Parse(srv.url)
	stale.http.Jar.SetCookies(u, []*http.Cookie{{Name: "starcolor_session", Value: before}})
	if st, _ := stale.call("GET", "/api/v1/me", nil, ""); st != 401 {
		t.Errorf("the old session's token after the change: %d, want 401", st)
	}
	if st, _ := other.call("GET", "/api/v1/me", nil, ""); st != 200 {
		t.Errorf("another player's session after the change: %d, want 200", st)
	}
	if st, _ := srv.client(t).call("POST", "/api/v1/session", map[string]string{"username": "paulette", "password": "secret-paulette"}, ""); st != 401 {
		t.Errorf("the old password after the change: %d, want 401", st)
	}
	srv.client(t).must(200, nil, "POST", "/api/v1/session", map[string]string{"username": "paulette", "password": "a long new password"}, "")

	// Failed logins: five wrong current passwords lock the name from this address, for a change
	// and for a login alike.
	codes := []int{}
	for range 6 {
		st, _ := change(a, "a guess", "yet another password")
		codes = append(codes, st)
	}
	if codes[0] != 403 || codes[len(codes)-1] != 429 {
		t.Errorf("wrong current passwords answered %v, want 403s then 429", codes)
	}
	if st, _ := srv.client(t).call("POST", "/api/v1/session", map[string]string{"username": "paulette", "password": "a long new password"}, ""); st != 429 {
		t.Errorf("a login while the name is locked by wrong current passwords: %d, want 429", st)
	}
	p, err := srv.db.PlayerByName(context.Background(), "paulette")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := passhash.Check("a long new password", p.PasswordHash); err != nil || !ok {
		t.Errorf("the stored hash is not of the new password: %v %v", ok, err)
	}
}

// sessionCookie is the session token a client holds.
func sessionCookie(t *testing.T, c *client) string {
	t.Helper()
	u, _ := url.Parse(c.base)
	for _, k := range c.http.Jar.Cookies(u) {
		if k.Name == "starcolor_session" {
			return k.Value
		}
	}
	return ""
}
