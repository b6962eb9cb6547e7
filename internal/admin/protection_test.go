package admin_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"starcolor/internal/lottery"
)

// upload sends a list of excluded persons to the import form, as a browser's file upload.
func (c *client) upload(name, content string) (*http.Response, string) {
	c.t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	f, _ := w.CreateFormFile("file", name)
	f.Write([]byte(content))
	w.Close()
	return c.do("POST", "/admin/exclusions", &body, "Content-Type", w.FormDataContentType())
}

// A player's page shows who they are, their limits with the week's sums, a raise pending and
// every change of a limit.
func TestPlayerProtectionShown(t *testing.T) {
	e := newEnv(t, 1)
	p := e.player(t, "margot", 5000, 2)
	p.api(200, "PUT", "/api/v1/me/limits", map[string]any{"stake_weekly": 1000, "reality_check_minutes": 45})
	p.api(200, "PUT", "/api/v1/me/limits", map[string]any{"stake_weekly": 3000})
	op := e.client(t)
	op.login(opName, opPassword)
	id := e.playerID(t, "margot")
	resp, page := op.do("GET", "/admin/players/"+id, nil)
	for _, want := range []string{"Jeanne Martin", "1990-01-01", "years old", "open", "10 €", "30 €", "Reality checks every 45 minutes",
		`id="limit-changes"`, "1\u202f000\u202f000 €"} {
		if resp.StatusCode != 200 || !strings.Contains(page, want) {
			t.Errorf("the player's page lacks %q", want)
		}
	}
	if strings.Count(page, "<tr><td class=\"nowrap\">") < 4 { // 2 changes at sign-up, 2 here
		t.Errorf("the changes of limits: %s", page)
	}
}

// An import of the list of excluded persons: all or nothing; it closes the open account of a
// listed person at once (their session ends, the balance is paid out), refuses their sign-up and
// their login, and is kept with its counts and in the operators' log.
func TestRegisterImport(t *testing.T) {
	e := newEnv(t, 1)
	listed := e.player(t, "gaston", 2500, 1) // Jeanne Martin, born 1990-01-01
	op := e.client(t)
	op.login(opName, opPassword)
	resp, page := op.upload("bad.csv", "Martin;Jeanne;01/01/1990\nDurand;;1980-05-05\n")
	if resp.StatusCode != 400 || !strings.Contains(page, "line 2") || !strings.Contains(page, "Nothing was imported") {
		t.Fatalf("a file with a bad line: %d %s", resp.StatusCode, page)
	}
	listed.api(200, "GET", "/api/v1/me", nil) // nothing changed
	resp, page = op.upload("register-2026-11.csv", "Nom;Prénoms;Date de naissance\nMARTIN;jeanne;01/01/1990\nDurand;Paul;1980-05-05\n")
	if resp.StatusCode != 200 || !strings.Contains(page, "2 persons listed, 2 added, 0 gone; 1 accounts closed") || !strings.Contains(page, ">gaston</a>") {
		t.Fatalf("the import: %d %s", resp.StatusCode, page)
	}
	listed.api(401, "GET", "/api/v1/me", nil)
	login, _ := listed.do("POST", "/api/v1/session", strings.NewReader(`{"username":"gaston","password":"secret-gaston"}`), "Content-Type", "application/json")
	if login.StatusCode != 403 {
		t.Fatalf("a listed person's login: %d", login.StatusCode)
	}
	again := e.client(t)
	if r, body := again.do("POST", "/api/v1/players", strings.NewReader(`{"username":"gaston2","password":"secret-gaston2","last_name":"Martin","first_names":"Jeanne","birth_date":"1990-01-01"}`),
		"Content-Type", "application/json"); r.StatusCode != 403 || !strings.Contains(body, `"excluded"`) {
		t.Fatalf("a listed person's sign-up: %d %s", r.StatusCode, body)
	}
	if c, err := e.db.CheckLedger(t.Context()); err != nil || len(c.Problems) != 0 {
		t.Fatalf("ledger: %+v %v", c, err)
	}
	_, page = op.do("GET", "/admin/exclusions?q=mart", nil)
	if !strings.Contains(page, "The list: 2 persons") || !strings.Contains(page, "<td>MARTIN</td>") || strings.Contains(page, "<td>Durand</td>") {
		t.Errorf("the list from « mart »: %s", page)
	}
	_, page = op.do("GET", "/admin/log", nil)
	if !strings.Contains(page, "register_imported") || !strings.Contains(page, "register_refused") || !strings.Contains(page, "gaston (") {
		t.Errorf("the imports are not in the log")
	}
	_, page = op.do("GET", "/admin/players/"+e.playerID(t, "gaston"), nil)
	if !strings.Contains(page, "on the list of excluded persons") {
		t.Errorf("the closed account's page does not say why")
	}
}

// playerID is a player's id, as the back office's address of their page says it.
func (e *env) playerID(t *testing.T, name string) string {
	t.Helper()
	p, err := e.db.PlayerByName(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	return strconv.FormatInt(p.ID, 10)
}

// The sales page shows the calls owed to the operator's wallet when there are any: how many, how
// long the oldest has waited, the disputed ones.
func TestOutboxShown(t *testing.T) {
	e := newEnv(t, 1)
	op := e.client(t)
	op.login(opName, opPassword)
	if _, page := op.do("GET", "/admin/", nil); strings.Contains(page, `id="wallet-outbox"`) {
		t.Fatal("the wallet's card shown with nothing owed")
	}
	if err := e.db.AddWalletCalls(t.Context(), []lottery.WalletCall{{Call: "credit", TransactionID: "c1", Player: "p", RoundID: "1", Body: []byte("{}")},
		{Call: "rollback", TransactionID: "r1", Player: "p", RoundID: "2", Body: []byte("{}")}}, e.clock.Now().Add(-90*time.Second)); err != nil {
		t.Fatal(err)
	}
	_, page := op.do("GET", "/admin/", nil)
	if !strings.Contains(page, `id="wallet-outbox"`) || !strings.Contains(page, "2 credits and rollbacks not yet acknowledged") || !strings.Contains(page, "1m30s") {
		t.Fatalf("the wallet's card: %s", page)
	}
}
