package admin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"starcolor/internal/admin"
	"starcolor/internal/app"
	"starcolor/internal/app/apptest"
	"starcolor/internal/gamedef"
	"starcolor/internal/lottery"
	"starcolor/internal/passhash"
	"starcolor/internal/web"
)

// fast keeps password hashing cheap in tests; stored hashes carry their own parameters.
var fast = passhash.Argon2{Time: 1, Memory: 1024, Threads: 1}

const (
	opName     = "alice"
	opPassword = "correct horse battery"
)

// clock is the server's time, moved by the test.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// env is the site as starcolor serve mounts it (the player API and the back office on one
// listener) over a temporary database holding the emission MINI (blocks of 1,000 units at 1 €),
// with the operator alice.
type env struct {
	url     string
	handler http.Handler // the site, to send requests from other addresses
	db      app.Store
	def     *gamedef.Definition
	clock   *clock
}

func newEnv(t testing.TB, blocks int) *env {
	t.Helper()
	clk := &clock{now: time.Now()}
	a := apptest.Start(t, apptest.Options{Blocks: blocks, Seed: 7, Now: clk.Now, Metrics: true})
	if err := admin.CreateOperator(context.Background(), a.Store, opName, opPassword, lottery.AllRoles, fast, clk.Now()); err != nil {
		t.Fatal(err)
	}
	return &env{url: a.URL, handler: a.App.Handler(), db: a.Store, def: a.Def, clock: clk}
}

// client is a browser-less client with its own cookies; it does not follow redirects.
type client struct {
	t    testing.TB
	base string
	http *http.Client
}

// client is an operator's client that reads the back office in English (the tests' language);
// frenchClient reads it in French, the default.
func (e *env) client(t testing.TB) *client {
	c := e.frenchClient(t)
	c.http.Jar.SetCookies(mustURL(e.url+"/"), []*http.Cookie{{Name: web.LangCookie, Value: "en", Path: "/"}})
	return c
}

func (e *env) frenchClient(t testing.TB) *client {
	jar, _ := cookiejar.New(nil)
	return &client{t: t, base: e.url, http: &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// do sends a request with optional headers (name, value, ...) and returns the answer, body read.
func (c *client) do(method, path string, body io.Reader, headers ...string) (*http.Response, string) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, body)
	if err != nil {
		c.t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, string(raw)
}

func (c *client) form(path string, v url.Values, headers ...string) (*http.Response, string) {
	c.t.Helper()
	return c.do("POST", path, strings.NewReader(v.Encode()), append([]string{"Content-Type", "application/x-www-form-urlencoded"}, headers...)...)
}

func (c *client) login(name, password string) (*http.Response, string) {
	c.t.Helper()
	return c.form("/admin/login", url.Values{"name": {name}, "password": {password}, "next": {"/admin/"}})
}

// api calls the player API with JSON.
func (c *client) api(want int, method, path string, body any) map[string]any {
	c.t.Helper()
	raw, _ := json.Marshal(body)
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(raw)
	}
	resp, text := c.do(method, path, r, "Content-Type", "application/json", "Idempotency-Key", fmt.Sprintf("k-%d", time.Now().UnixNano()))
	if resp.StatusCode != want {
		c.t.Fatalf("%s %s: %d %s, want %d", method, path, resp.StatusCode, text, want)
	}
	var v map[string]any
	json.Unmarshal([]byte(text), &v)
	return v
}

// player registers a player, deposits and plays n auto games at 1 €.
func (e *env) player(t testing.TB, name string, deposit int64, games int) *client {
	t.Helper()
	c := e.client(t)
	c.api(201, "POST", "/api/v1/players", map[string]any{"last_name": "Martin", "first_names": "Jeanne", "birth_date": "1990-01-01", "username": name, "password": "secret-" + name})
	c.api(200, "POST", "/api/v1/session", map[string]any{"username": name, "password": "secret-" + name})
	c.api(200, "PUT", "/api/v1/me/limits", map[string]any{"deposit_weekly": 100_000_000, "stake_weekly": 100_000_000})
	c.api(201, "POST", "/api/v1/deposits", map[string]any{"amount": deposit})
	for range games {
		c.api(201, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"})
	}
	return c
}

// actions lists the operator log's actions, oldest first.
func (e *env) actions(t testing.TB) []string {
	t.Helper()
	lines, err := e.db.OperatorLog(context.Background(), 1000, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := len(lines) - 1; i >= 0; i-- {
		out = append(out, lines[i].Name+" "+lines[i].Action)
	}
	return out
}
