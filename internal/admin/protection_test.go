package admin_test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"starcolor/internal/admin"
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
	for _, want := range []string{"Jeanne Martin", "1 January 1990", "years old", "open", "€10.00", "€30.00", "Reality checks every 45 minutes",
		`id="limit-changes"`, "€1,000,000.00"} {
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
	if resp.StatusCode != 200 || !strings.Contains(page, "2 persons listed, 2 persons added, 0 persons gone; 1 account closed") || !strings.Contains(page, ">gaston</a>") {
		t.Fatalf("the import: %d %s", resp.StatusCode, page)
	}
	listed.api(401, "GET", "/api/v1/me", nil)
	login, _ := listed.do("POST", "/api/v1/session", strings.NewReader(`{"username":"gaston","password":"secret-gaston"}`), "Content-Type", "application/json")
	if login.StatusCode != 403 {
		t.Fatalf("a listed person's login: %d", login.StatusCode)
	}
	again := e.client(t)
	if r, body := again.do("POST", "/api/v1/players", strings.NewReader(`{"username":"gaston2","password":"secret-gaston2","last_name":"Martin","first_names":"Jeanne","birth_date":"1990-01-01"}`),
		"Content-Type", "application/json"); r.StatusCode != 403 || !strings.Contains(body, `"registration_refused"`) {
		t.Fatalf("a listed person's sign-up: %d %s", r.StatusCode, body)
	}
	if c, err := e.db.CheckLedger(t.Context()); err != nil || len(c.Problems) != 0 {
		t.Fatalf("ledger: %+v %v", c, err)
	}
	// Found as identities compare (docs/spec/API.md 1.2): "Mаrt" with a Cyrillic а, "M-ART" are "mart".
	for _, q := range []string{"mart", "M%D0%B0rt", "M-ART"} {
		_, page = op.do("GET", "/admin/exclusions?q="+q, nil)
		if !strings.Contains(page, "The list: 2 persons") || !strings.Contains(page, "<td>MARTIN</td>") || strings.Contains(page, "<td>Durand</td>") {
			t.Errorf("the list from « %s »: %s", q, page)
		}
	}
	_, page = op.do("GET", "/admin/log", nil)
	if !strings.Contains(page, "register_imported") || !strings.Contains(page, "register_refused") || !strings.Contains(page, "gaston (") {
		t.Errorf("the imports are not in the log")
	}
	_, page = op.do("GET", "/admin/players/"+e.playerID(t, "gaston"), nil)
	if !strings.Contains(page, "on the list of excluded persons") {
		t.Errorf("the closed account's page does not say why")
	}
	if row := payoutRow(page); !strings.Contains(row, "Payout at closure (list of excluded persons)") {
		t.Errorf("the closed account's payout: %q", row)
	}
}

// A player's page tells the payout of the whole balance at a self-exclusion, or at a closure,
// from a withdrawal the player asked for, in English and in French.
func TestPayoutsShown(t *testing.T) {
	e := newEnv(t, 1)
	excluded := e.player(t, "eliane", 200_00, 0)
	closed := e.player(t, "claude", 50_00, 2) // the same person: signed up before the other's exclusion
	closed.api(201, "POST", "/api/v1/withdrawals", map[string]any{"amount": 10_00})
	if got := excluded.api(201, "POST", "/api/v1/me/exclusion", map[string]any{"days": 7}); got["paid_out"] != float64(200_00) {
		t.Fatalf("the exclusion's answer: %v", got)
	}
	closed.api(204, "DELETE", "/api/v1/me", nil)
	p, err := e.db.PlayerByName(t.Context(), "claude")
	if err != nil {
		t.Fatal(err)
	}
	rest, err := e.db.PlayerTransfers(t.Context(), p, 1, 0) // what two games left of 40 €
	if err != nil || len(rest) != 1 {
		t.Fatalf("claude's payout: %+v %v", rest, err)
	}
	op, fr := e.client(t), e.frenchClient(t)
	op.login(opName, opPassword)
	fr.login(opName, opPassword)
	for _, c := range []struct {
		client      *client
		name        string
		label, sum  string
		withdrawals int
	}{
		{op, "eliane", "Payout at self-exclusion", "-€200.00", 0},
		{fr, "eliane", "Versement à l&#39;auto-exclusion", "-200,00\u202f€", 0},
		{op, "claude", "Payout at closure", admin.Money("en", -rest[0].Amount), 1},
		{fr, "claude", "Versement à la clôture", admin.Money("fr", -rest[0].Amount), 1},
	} {
		_, page := c.client.do("GET", "/admin/players/"+e.playerID(t, c.name), nil)
		if row := payoutRow(page); !strings.Contains(row, c.label) || !strings.Contains(row, c.sum) {
			t.Errorf("%s's payout on their page: %q; want %q and %q", c.name, row, c.label, c.sum)
		}
		if n := strings.Count(page, `<tr class="withdrawal" `); n != c.withdrawals {
			t.Errorf("%s's page lists %d ordinary withdrawals, want %d", c.name, n, c.withdrawals)
		}
	}
}

// payoutRow is the row of the payout at a self-exclusion or a closure in a player's page's
// transfers ("" if none).
func payoutRow(page string) string {
	_, row, _ := strings.Cut(page, `<tr class="withdrawal payout"`)
	row, _, _ = strings.Cut(row, "</tr>")
	return row
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
	if !strings.Contains(page, `id="wallet-outbox"`) || !strings.Contains(page, "2 credits and rollbacks not yet acknowledged") || !strings.Contains(page, "1\u00a0min 30\u00a0s") {
		t.Fatalf("the wallet's card: %s", page)
	}
	if strings.Contains(page, `id="wallet-disputed"`) || !strings.Contains(page, `id="wallet-pending"`) {
		t.Fatalf("the lists of calls with two pending and none disputed: %s", page)
	}
	if strings.Contains(page, `id="wallet-open"`) {
		t.Fatalf("rounds open shown with none: %s", page)
	}
	// A game in play: its credit held until it finishes, its round open.
	if err := e.db.AddWalletCalls(t.Context(), []lottery.WalletCall{{Call: "credit", TransactionID: "c3", Player: "p", RoundID: "3", Body: []byte("{}"),
		Status: lottery.CallHeld}}, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if _, page := op.do("GET", "/admin/", nil); !strings.Contains(page, "1 round open: a game in play") {
		t.Fatalf("the round open: %s", page)
	}
}

// The wallet's card lists the disputed calls and the pending ones that have waited longest, each
// with its transaction id, its player (linked to their page when they have an account here), its
// round (linked to its game when it was sold), its amount, attempts, last error and age.
func TestOutboxCallsListed(t *testing.T) {
	e := newEnv(t, 1)
	e.player(t, "wanda", 1000, 1)
	games, err := e.db.Games(t.Context(), mustInt(t, e.playerID(t, "wanda")), 1, 0)
	if err != nil || len(games) != 1 {
		t.Fatalf("the player's game: %v %v", games, err)
	}
	launched, err := e.db.LaunchPlayer(t.Context(), lottery.Launch{WalletPlayer: "op-9", OperatorSession: "s", Nonce: "nonce-of-op-9-0000",
		TokenHash: []byte("token"), Expires: e.clock.Now().Add(time.Minute)}, e.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	now := e.clock.Now()
	round := strconv.FormatInt(games[0].ID, 10)
	for _, c := range []struct {
		call lottery.WalletCall
		ago  time.Duration
	}{
		{lottery.WalletCall{Call: "rollback", TransactionID: "rollback-lost", Player: "op-9", RoundID: "999999", Amount: 200, Body: []byte(`{"r":1}`)}, 3 * time.Hour},
		{lottery.WalletCall{Call: "credit", TransactionID: "credit-refused", Player: "op-gone", RoundID: round, Amount: 1500, Body: []byte(`{"c":1}`)}, 2 * time.Hour},
		{lottery.WalletCall{Call: "credit", TransactionID: "credit-late", Player: "op-9", RoundID: round, Amount: 700, Body: []byte(`{"c":2}`)}, time.Hour},
	} {
		if err := e.db.AddWalletCalls(t.Context(), []lottery.WalletCall{c.call}, now.Add(-c.ago)); err != nil {
			t.Fatal(err)
		}
	}
	claimed, err := e.db.ClaimWalletCalls(t.Context(), now, time.Second, 10)
	if err != nil || len(claimed) != 3 {
		t.Fatalf("claimed %d: %v", len(claimed), err)
	}
	outcomes := map[string]lottery.CallOutcome{}
	for _, c := range claimed {
		outcomes[c.TransactionID] = lottery.CallOutcome{Retry: now.Add(time.Minute), Error: "503 Service Unavailable"}
		if c.TransactionID == "credit-refused" {
			outcomes[c.TransactionID] = lottery.CallOutcome{Disputed: true, Error: "404 unknown_player"}
		}
	}
	if err := e.db.SettleWalletCalls(t.Context(), outcomes, now); err != nil {
		t.Fatal(err)
	}
	op := e.client(t)
	op.login(opName, opPassword)
	_, page := op.do("GET", "/admin/", nil)
	section := func(id string) string {
		i := strings.Index(page, `id="`+id+`"`)
		if i < 0 {
			t.Fatalf("no %s on the page: %s", id, page)
		}
		end := strings.Index(page[i:], "</table>")
		return page[i : i+end]
	}
	disputed, pending := section("wallet-disputed"), section("wallet-pending")
	for _, want := range []string{`data-transaction="credit-refused"`, "<td>op-gone</td>", `<a href="/admin/games?id=` + round + `">` + round + `</a>`,
		"€15.00", "<td>disputed</td>", `<td class="n">1</td>`, "status 404 unknown_player", "2\u00a0h 00\u00a0min"} {
		if !strings.Contains(disputed, want) {
			t.Errorf("the disputed calls lack %q: %s", want, disputed)
		}
	}
	if strings.Contains(disputed, "rollback-lost") || strings.Contains(pending, "credit-refused") {
		t.Errorf("a call in the wrong list:\n%s\n%s", disputed, pending)
	}
	lost, late := strings.Index(pending, "rollback-lost"), strings.Index(pending, "credit-late")
	if lost < 0 || late < lost {
		t.Fatalf("the pending calls, the longest waiting first: %s", pending)
	}
	player := fmt.Sprintf(`<a href="/admin/players/%d">op-9</a>`, launched.ID)
	for _, want := range []string{player, "999999 <small class=\"muted\">not sold</small>", "€2.00", "<td>pending</td>", "status 503 Service Unavailable", "3\u00a0h 00\u00a0min",
		`<a href="/admin/games?id=` + round + `">`, "€7.00"} {
		if !strings.Contains(pending, want) {
			t.Errorf("the pending calls lack %q: %s", want, pending)
		}
	}
	fr := e.frenchClient(t)
	fr.login(opName, opPassword)
	if _, page := fr.do("GET", "/admin/", nil); !strings.Contains(page, "Appels en litige") || !strings.Contains(page, "<td>en litige</td>") || !strings.Contains(page, "non vendu") {
		t.Errorf("the lists in French: %s", page)
	}
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
