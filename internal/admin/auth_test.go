package admin_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"starcolor/internal/admin"
	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

func TestLogin(t *testing.T) {
	e := newEnv(t, 1)
	t.Run("OK", func(t *testing.T) {
		c := e.client(t)
		resp, _ := c.login(opName, opPassword)
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/admin/" {
			t.Fatalf("login: %d to %q, want 303 to /admin/", resp.StatusCode, resp.Header.Get("Location"))
		}
		var ck *http.Cookie
		for _, k := range resp.Cookies() {
			if k.Name == admin.CookieName {
				ck = k
			}
		}
		if ck == nil || ck.Path != "/admin" || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode {
			t.Fatalf("session cookie %+v, want Path=/admin, HttpOnly, SameSite=Strict", ck)
		}
		resp, body := c.do("GET", "/admin/", nil)
		if resp.StatusCode != 200 || !strings.Contains(body, "Liability") {
			t.Fatalf("sales page: %d", resp.StatusCode)
		}
		// Logged out, the cookie no longer opens anything.
		if resp, _ := c.form("/admin/logout", nil); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("logout: %d", resp.StatusCode)
		}
		c.http.Jar.SetCookies(mustURL(e.url+"/admin/"), []*http.Cookie{ck})
		if resp, _ := c.do("GET", "/admin/", nil); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("after logout: %d, want a redirect to the login", resp.StatusCode)
		}
	})
	t.Run("WrongPassword", func(t *testing.T) {
		c := e.client(t)
		for _, try := range [][2]string{{opName, "wrong password!"}, {"nobody", opPassword}} {
			resp, body := c.login(try[0], try[1])
			if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "Wrong name or password.") {
				t.Fatalf("login %s: %d, want 401 and the message", try[0], resp.StatusCode)
			}
			for _, k := range resp.Cookies() {
				if k.Name == admin.CookieName {
					t.Fatal("a failed login set a session cookie")
				}
			}
		}
	})
	t.Run("CaseOfName", func(t *testing.T) {
		if resp, _ := e.client(t).login("ALICE", opPassword); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("login as ALICE: %d", resp.StatusCode)
		}
	})
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// Failed logins lock a name from the address they come from, a correct password does not get
// through the lock, and a name that does not exist is answered alike; the same name from another
// address, the real operator's, is not locked out.
func TestLoginThrottled(t *testing.T) {
	e := newEnv(t, 1)
	c := e.client(t)
	for _, name := range []string{opName, "nobody"} {
		for i := range 5 {
			if resp, _ := c.login(name, "wrong password!"); resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("%s, attempt %d: %d, want 401", name, i+1, resp.StatusCode)
			}
		}
		resp, body := c.login(name, opPassword)
		if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(body, "try again in") || resp.Header.Get("Retry-After") == "" {
			t.Fatalf("%s after 5 failures: %d, Retry-After %q, want 429 with a wait", name, resp.StatusCode, resp.Header.Get("Retry-After"))
		}
	}
	// From another address, the operator logs in.
	form := url.Values{"name": {opName}, "password": {opPassword}, "next": {"/admin/"}}
	req := httptest.NewRequest("POST", "/admin/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.RemoteAddr = "198.51.100.7:40000"
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, req)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("the operator from another address: %d, want 303", rec.Code)
	}
	e.clock.Advance(time.Minute)
	if resp, _ := c.login(opName, opPassword); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("after the lock: %d, want 303", resp.StatusCode)
	}
}

func TestNoSessionRedirectsToLogin(t *testing.T) {
	e := newEnv(t, 1)
	c := e.client(t)
	for _, path := range []string{"/admin/", "/admin/emissions", "/admin/emissions/MINI", "/admin/emissions/MINI/blocks/0/audit.jsonl.gz",
		"/admin/players?q=a", "/admin/log", "/admin/sales.svg"} {
		resp, _ := c.do("GET", path, nil)
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/admin/login?next="+url.QueryEscape(path) {
			t.Errorf("GET %s: %d to %q, want 303 to the login", path, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	if resp, _ := c.form("/admin/emissions", url.Values{"id": {"X"}, "price": {"100"}, "blocks": {"1"}}); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("POST without a session: %d, want 401", resp.StatusCode)
	}
	if resp, _ := c.do("GET", "/admin", nil); resp.StatusCode/100 != 3 || resp.Header.Get("Location") != "/admin/" {
		t.Errorf("GET /admin: %d to %q, want a redirect to /admin/", resp.StatusCode, resp.Header.Get("Location"))
	}
	// The login page keeps the return address only inside the back office.
	resp, body := c.do("GET", "/admin/login?next=//evil.example/", nil)
	if resp.StatusCode != 200 || strings.Contains(body, "evil.example") {
		t.Errorf("login page with a foreign next: %d, mentions it: %v", resp.StatusCode, strings.Contains(body, "evil.example"))
	}
	if e.clock.Advance(0); len(e.actions(t)) != 1 { // operator_created only
		t.Errorf("log %v, want only the operator's creation", e.actions(t))
	}
}

// A player's session, however it is sent, opens nothing in the back office.
func TestPlayerCookieDoesNotGrantAdmin(t *testing.T) {
	e := newEnv(t, 1)
	p := e.player(t, "bob", 1000, 0)
	var token string
	for _, k := range p.http.Jar.Cookies(mustURL(e.url + "/api/")) {
		token = k.Value
	}
	if token == "" {
		t.Fatal("the player has no session cookie")
	}
	if resp, _ := p.do("GET", "/admin/", nil); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("player's cookies: %d, want a redirect to the login", resp.StatusCode)
	}
	p.http.Jar.SetCookies(mustURL(e.url+"/admin/"), []*http.Cookie{{Name: admin.CookieName, Value: token, Path: "/admin"}})
	if resp, _ := p.do("GET", "/admin/", nil); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("player's token as the operator cookie: %d, want a redirect to the login", resp.StatusCode)
	}
	// Nor do a player's name and password log in.
	if resp, _ := p.login("bob", "secret-bob"); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("player's credentials at the operator login: %d, want 401", resp.StatusCode)
	}
}

func TestCrossOriginPostRefused(t *testing.T) {
	e := newEnv(t, 1)
	c := e.client(t)
	if resp, _ := c.login(opName, opPassword); resp.StatusCode != http.StatusSeeOther {
		t.Fatal("login failed")
	}
	for _, h := range [][]string{{"Sec-Fetch-Site", "cross-site"}, {"Origin", "http://evil.example"}} {
		resp, _ := c.form("/admin/emissions", url.Values{"id": {"EVIL"}, "price": {"100"}, "blocks": {"1"}}, h...)
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("create with %s: %d, want 403", h, resp.StatusCode)
		}
		if resp, _ := c.form("/admin/login", url.Values{"name": {opName}, "password": {opPassword}}, h...); resp.StatusCode != http.StatusForbidden {
			t.Errorf("login with %s: %d, want 403", h, resp.StatusCode)
		}
		if resp, _ := c.form("/admin/logout", nil, h...); resp.StatusCode != http.StatusForbidden {
			t.Errorf("logout with %s: %d, want 403", h, resp.StatusCode)
		}
	}
	if _, err := e.db.Emission(context.Background(), "EVIL"); err == nil {
		t.Fatal("a cross-origin request created an emission")
	}
	// The same request from the page itself goes through.
	resp, _ := c.form("/admin/emissions", url.Values{"id": {"GOOD"}, "price": {"100"}, "blocks": {"1"}}, "Sec-Fetch-Site", "same-origin")
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("same-origin create: %d, want 303", resp.StatusCode)
	}
}

// Every operator action lands in the log, which the database keeps unchanged.
func TestActionsLogged(t *testing.T) {
	e := newEnv(t, 1)
	e.player(t, "carol", 500, 2)
	c := e.client(t)
	c.login(opName, "not the password")
	c.login(opName, opPassword)
	resp, _ := c.do("GET", "/admin/players?q=carol", nil) // one match: straight to the player
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("find carol: %d", resp.StatusCode)
	}
	if resp, _ := c.do("GET", resp.Header.Get("Location"), nil); resp.StatusCode != 200 {
		t.Fatalf("player page: %d", resp.StatusCode)
	}
	if resp, _ := c.do("GET", "/admin/emissions/MINI/blocks/0/audit.jsonl", nil); resp.StatusCode != http.StatusConflict {
		t.Fatalf("export of the block on sale: %d", resp.StatusCode)
	}
	c.form("/admin/logout", nil)
	want := []string{"alice operator_created", "alice login_failed", "alice login", "alice player_viewed", "alice export_refused", "alice logout"}
	if got := e.actions(t); !slices.Equal(got, want) {
		t.Fatalf("log %q, want %q", got, want)
	}
	// That the log cannot be changed afterwards is the stores' contract (storetest).
}

func TestCreateOperatorRefuses(t *testing.T) {
	e := newEnv(t, 1)
	ctx := context.Background()
	for _, tc := range []struct {
		name, password string
		code           fault.Code
	}{
		{"Alice", "another long password", fault.UsernameTaken},
		{"x", "another long password", fault.Invalid},
		{"dave", "short", fault.Invalid},
		{"dave", "qwertyuiop", fault.Invalid},           // ten characters, but among the most common
		{"davedavedave", "DaveDaveDave", fault.Invalid}, // the name
	} {
		if err := admin.CreateOperator(ctx, e.db, tc.name, tc.password, lottery.AllRoles, fast, time.Now()); !fault.Is(err, tc.code) {
			t.Errorf("create %q: %v, want %s", tc.name, err, tc.code)
		}
	}
}

// A form too large is refused as such (413), not read as an empty one; a malformed one is a 400.
func TestFormTooLarge(t *testing.T) {
	e := newEnv(t, 1)
	c := e.client(t)
	big := "name=alice&password=" + strings.Repeat("x", 10<<20)
	resp, _ := c.do("POST", "/admin/login", strings.NewReader(big), "Content-Type", "application/x-www-form-urlencoded")
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a 10 MB login form: %d, want 413", resp.StatusCode)
	}
	resp, _ = c.do("POST", "/admin/login", strings.NewReader("name=%zz"), "Content-Type", "application/x-www-form-urlencoded")
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a malformed login form: %d, want 400", resp.StatusCode)
	}
	c.login(opName, opPassword)
	resp, _ = c.do("POST", "/admin/emissions", strings.NewReader("id=X&price=100&blocks=1&pad="+strings.Repeat("x", 1<<20)), "Content-Type", "application/x-www-form-urlencoded")
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a 1 MB emission form: %d, want 413", resp.StatusCode)
	}
}

// The back office's pages carry the message French law asks of a gambling site, with 18+.
func TestLegalFooter(t *testing.T) {
	e := newEnv(t, 1)
	c := e.client(t)
	_, login := c.do("GET", "/admin/login", nil)
	c.login(opName, opPassword)
	_, sales := c.do("GET", "/admin/", nil)
	for name, body := range map[string]string{"login": login, "sales": sales} {
		if !strings.Contains(body, "Jouer comporte des risques\u00a0: endettement, isolement, dépendance. Pour être aidé, appelez le 09 74 75 13 13 (appel non surtaxé).") ||
			!strings.Contains(body, ">18+</span>") {
			t.Errorf("the %s page has no legal footer", name)
		}
	}
}
