package httpapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"starcolor/internal/admin"
	"starcolor/internal/app/apptest"
	"starcolor/internal/game"
	"starcolor/internal/lottery"
	"starcolor/internal/throttle"
)

// The operator API (docs/spec/OPERATOR.md): tokens, roles, and its calls.

// operatorWith makes an operator with roles and an API token for them: the token.
func (s *testServer) operatorWith(t *testing.T, name string, roles lottery.Roles) string {
	t.Helper()
	ctx := t.Context()
	if err := admin.CreateOperator(ctx, s.db, name, "a long enough password", roles, apptest.Fast, s.clock.Now()); err != nil {
		t.Fatal(err)
	}
	token, _, err := admin.MakeToken(ctx, s.db, name, s.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	return token
}

// opCall makes a call of the operator API with a token ("" for none): its status and body.
func opCall(t *testing.T, base, token, method, path, contentType, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, base+"/api/operator/v1"+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// errorCode is the code of an error answer ("" if it is not one).
func errorCode(b []byte) string {
	var e struct{ Error struct{ Code string } }
	json.Unmarshal(b, &e)
	return e.Error.Code
}

// register is a register of excluded persons listing the persons signUp registers.
const register = "Nom;Prénoms;Date de naissance\nMARTIN;jeanne;01/01/1990\n"

// TestOperatorRoles calls every call of the operator API as an operator of each role, and as one
// made before roles existed (every role): each is allowed to its role only, 403 forbidden to
// the others, and a refused call changes nothing.
func TestOperatorRoles(t *testing.T) {
	srv := newTestServer(t, 1)
	today := srv.clock.Now().In(paris(t)).Format(time.DateOnly)
	// The proposal the last calls decide: made by the emissions operator, so that neither the
	// approver nor the operator of every role is its proposer.
	var proposal string
	calls := []struct {
		role                      lottery.Role
		method, path, ctype, body string
		want                      int
	}{
		{lottery.Viewer, "GET", "/emissions", "", "", 200},
		{lottery.Emissions, "POST", "/emissions", "application/json", `{"id":"ROLES","price":200,"blocks":1}`, 202},
		{lottery.Emissions, "POST", "/emissions/" + srv.e.ID + "/suspend", "application/json", `{"reason":"a test"}`, 200},
		{lottery.Emissions, "POST", "/emissions/" + srv.e.ID + "/resume", "", "", 200},
		{lottery.Viewer, "GET", "/log?limit=5", "", "", 200},
		{lottery.Finance, "GET", "/reports/daily?from=" + today + "&to=" + today, "", "", 200},
		{lottery.Compliance, "PUT", "/exclusions", "text/csv", "Nom;Prénoms;Date de naissance\nDURAND;Paul;05/05/1980\n", 200},
		{lottery.Emissions, "POST", "/emissions/" + srv.e.ID + "/withdraw", "application/json", `{"reason":"a test"}`, 202},
		{lottery.Viewer, "GET", "/proposals?status=open", "", "", 200},
		{lottery.Approver, "POST", "/proposals/{p}/reject", "application/json", `{"reason":"not now"}`, 200},
		{lottery.Emissions, "POST", "/emissions/" + srv.e.ID + "/withdraw", "application/json", `{"reason":"a test, again"}`, 202},
		{lottery.Approver, "POST", "/proposals/{p}/approve", "", "", 200},
	}
	roles := []lottery.Role{lottery.Viewer, lottery.Finance, lottery.Emissions, lottery.Compliance, lottery.Approver, lottery.Admin}
	tokens := map[lottery.Role]string{}
	for _, r := range roles {
		tokens[r] = srv.operatorWith(t, "op-"+r.String(), lottery.Roles(r))
	}
	every := srv.operatorWith(t, "op-every", lottery.AllRoles)
	for _, c := range calls {
		c.path = strings.ReplaceAll(c.path, "{p}", proposal)
		for _, r := range roles {
			before, _ := srv.db.OperatorLog(t.Context(), 1, 0)
			st, b := opCall(t, srv.url, tokens[r], c.method, c.path, c.ctype, c.body)
			if r == c.role {
				if st != c.want {
					t.Errorf("%s %s as %s: %d %s, want %d", c.method, c.path, r, st, b, c.want)
				}
				var made struct{ ID int64 }
				if st == 202 && json.Unmarshal(b, &made) == nil {
					proposal = jsonInt(made.ID)
				}
				continue
			}
			if st != 403 || errorCode(b) != "forbidden" {
				t.Errorf("%s %s as %s: %d %s, want 403 forbidden", c.method, c.path, r, st, b)
			}
			if after, _ := srv.db.OperatorLog(t.Context(), 1, 0); len(after) != len(before) || len(after) > 0 && after[0].ID != before[0].ID {
				t.Errorf("%s %s as %s, refused, wrote to the log: %+v", c.method, c.path, r, after)
			}
		}
		// A suspension or resumption made by the emissions operator just before leaves the
		// emission in the status this one asks: its roles let it through to invalid_state.
		if st, b := opCall(t, srv.url, every, c.method, c.path, c.ctype, c.body); st != c.want && !(c.method == "POST" && st == 409 && errorCode(b) == "invalid_state") {
			t.Errorf("%s %s as an operator of every role: %d %s", c.method, c.path, st, b)
		}
	}
	persons, total, err := srv.db.RegisterPersons(t.Context(), "", 10)
	if err != nil || total != 1 || len(persons) != 1 {
		t.Fatalf("the register after the imports: %d persons, %v", total, err)
	}
}

// paris is the daily report's zone.
func paris(t *testing.T) *time.Location {
	l, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestOperatorTokens: a call without a live token is 401 not_logged_in, whatever is wrong with
// it; a revoked token is refused at once; failures from one address are throttled as logins are.
func TestOperatorTokens(t *testing.T) {
	srv := newTestServerWith(t, 1, func(cfg *game.Config, _ *clock) { cfg.AuthRate = throttle.PerMinute(12) })
	ctx := t.Context()
	token := srv.operatorWith(t, "olga", lottery.Roles(lottery.Viewer))
	if st, b := opCall(t, srv.url, token, "GET", "/emissions", "", ""); st != 200 {
		t.Fatalf("a live token: %d %s", st, b)
	}
	id, secret, _ := strings.Cut(strings.TrimPrefix(token, "sco_"), "_")
	otherSecret := strings.Repeat("A", len(secret))
	for _, bad := range []string{"", "garbage", "sco_", "sco_" + id, "sco_" + id + "_" + otherSecret, "sco_99_" + secret,
		"sco_0" + id + "_" + secret, "sco_" + id + "_" + secret + "=", strings.ToUpper(token)} {
		st, b := opCall(t, srv.url, bad, "GET", "/emissions", "", "")
		if st != 401 || errorCode(b) != "not_logged_in" {
			t.Errorf("token %q: %d %s, want 401 not_logged_in", bad, st, b)
		}
	}
	// Another scheme than Bearer, or two Authorization headers, are no token either.
	for _, h := range [][]string{{"Basic " + token}, {"Bearer " + token, "Bearer " + token}} {
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.url+"/api/operator/v1/emissions", nil)
		req.Header["Authorization"] = h
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 401 {
			t.Errorf("Authorization %q: %d, want 401", h, resp.StatusCode)
		}
	}
	n, err := srv.db.OperatorLog(ctx, 100, 0)
	if err != nil {
		t.Fatal(err)
	}
	var tokenID int64
	for _, a := range n {
		if a.Action == "token_created" && a.Name == "olga" {
			var d struct{ Token int64 }
			json.Unmarshal([]byte(a.Detail), &d)
			tokenID = d.Token
		}
	}
	if tokenID == 0 {
		t.Fatal("the token's creation is not in the log with its id")
	}
	if err := admin.RevokeToken(ctx, srv.db, tokenID, srv.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if st, b := opCall(t, srv.url, token, "GET", "/emissions", "", ""); st != 401 || errorCode(b) != "not_logged_in" {
		t.Errorf("a revoked token: %d %s, want 401 not_logged_in", st, b)
	}
	if err := admin.RevokeToken(ctx, srv.db, tokenID, srv.clock.Now()); err == nil {
		t.Error("a token revoked twice")
	}
	// The 12 failures above and the revoked token's have spent the address's burst: the next
	// failure waits, however the token is wrong, and a live token still passes.
	var st int
	for range 3 {
		st, _ = opCall(t, srv.url, "garbage", "GET", "/emissions", "", "")
	}
	if st != 429 {
		t.Errorf("failures past the rate: %d, want 429", st)
	}
	live := srv.operatorWith(t, "pavel", lottery.Roles(lottery.Viewer))
	if st, b := opCall(t, srv.url, live, "GET", "/emissions", "", ""); st != 200 {
		t.Errorf("a live token from a throttled address: %d %s", st, b)
	}
}

// TestOperatorCalls checks the answers of the calls against the games played: the emissions'
// sales, the daily report in Paris days, the log, bad parameters.
func TestOperatorCalls(t *testing.T) {
	skipInWalletMode(t, noProtection)
	srv := newTestServer(t, 1)
	token := srv.operatorWith(t, "olga", lottery.AllRoles)
	c := srv.client(t)
	c.signUp("astrid", 100_00)
	var stakes, prizes, unclaimed int64
	for i := range 12 {
		mode := "auto"
		if i%3 == 0 {
			mode = "manual" // left in play: its prize is unclaimed
		}
		var g gameJSON
		c.must(201, &g, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": mode}, c.key())
		stakes += g.Stake
		prizes += g.Prize
		if mode == "manual" {
			unclaimed += g.Prize
		}
	}
	var list struct {
		Emissions []struct {
			ID, Status                 string
			Price, Sold, Units, Blocks int64
		}
	}
	st, b := opCall(t, srv.url, token, "GET", "/emissions", "", "")
	if err := json.Unmarshal(b, &list); st != 200 || err != nil || len(list.Emissions) != 1 {
		t.Fatalf("GET /emissions: %d %s", st, b)
	}
	if e := list.Emissions[0]; e.ID != srv.e.ID || e.Price != 100 || e.Sold != 12 || e.Units != int64(srv.e.Blocks[0].Units) || e.Blocks != 1 || e.Status != "on_sale" {
		t.Errorf("GET /emissions: %+v", e)
	}

	today := srv.clock.Now().In(paris(t)).Format(time.DateOnly)
	st, b = opCall(t, srv.url, token, "GET", "/reports/daily?from="+today+"&to="+today, "", "")
	var raw struct {
		Days []map[string]any `json:"days"`
	}
	if err := json.Unmarshal(b, &raw); st != 200 || err != nil || len(raw.Days) != 1 {
		t.Fatalf("the daily report: %d %s", st, b)
	}
	d := raw.Days[0]
	want := map[string]any{"date": today, "price": 100.0, "units_sold": 12.0, "stakes": float64(stakes), "prizes": float64(prizes), "prizes_unclaimed": float64(unclaimed)}
	for k, v := range want {
		if d[k] != v {
			t.Errorf("the daily report's %s: %v, want %v (%s)", k, d[k], v, b)
		}
	}
	yesterday := srv.clock.Now().In(paris(t)).AddDate(0, 0, -1).Format(time.DateOnly)
	if st, b := opCall(t, srv.url, token, "GET", "/reports/daily?from="+yesterday+"&to="+yesterday, "", ""); st != 200 || string(b) != `{"days":[]}` {
		t.Errorf("a day without sales: %d %s", st, b)
	}

	for _, bad := range []string{"/reports/daily", "/reports/daily?from=" + today, "/reports/daily?from=2026-13-01&to=2026-12-01",
		"/reports/daily?from=" + today + "&to=" + yesterday, "/reports/daily?from=2024-01-01&to=2026-01-01",
		"/reports/daily?from=" + today + "&to=" + today + "&by=hour", "/log?limit=0", "/log?limit=1001", "/log?before=-1", "/log?limit=x",
		"/emissions?all=1"} {
		if st, b := opCall(t, srv.url, token, "GET", bad, "", ""); st != 400 {
			t.Errorf("GET %s: %d %s, want 400", bad, st, b)
		}
	}

	var log struct {
		Entries []struct {
			ID                       int64
			Time                     time.Time
			Operator, Action, Detail string
		}
	}
	st, b = opCall(t, srv.url, token, "GET", "/log?limit=2", "", "")
	if err := json.Unmarshal(b, &log); st != 200 || err != nil || len(log.Entries) != 2 {
		t.Fatalf("GET /log: %d %s", st, b)
	}
	if e := log.Entries[0]; e.Action != "token_created" || e.Operator != "olga" || e.Time.IsZero() || log.Entries[1].ID >= e.ID {
		t.Errorf("GET /log: %+v", log.Entries)
	}
	st, b = opCall(t, srv.url, token, "GET", "/log?before="+jsonInt(log.Entries[0].ID), "", "")
	var older struct{ Entries []struct{ ID int64 } }
	if json.Unmarshal(b, &older); st != 200 || len(older.Entries) == 0 || older.Entries[0].ID != log.Entries[1].ID {
		t.Errorf("GET /log?before: %d %s", st, b)
	}
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }

// TestOperatorRegister imports the register through the API while players play, on one server
// and, on PostgreSQL, with two: a listed player's sessions end at once on both; a register that
// is not one, or not sent as CSV, changes nothing.
func TestOperatorRegister(t *testing.T) {
	skipInWalletMode(t, noProtection)
	srvs := newTestServers(t, 1, 2)
	a, b := srvs[0], srvs[1]
	token := a.operatorWith(t, "carla", lottery.Roles(lottery.Compliance))
	p := b.client(t)
	p.signUp("astrid", 10_00)
	p.must(201, nil, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, p.key())

	for _, c := range []struct{ ctype, body string }{
		{"text/plain", register},
		{"", register},
		{"text/csv", "Martin;Jeanne;01/01/1990\nDurand;;1980-05-05\n"},
		{"text/csv", ""},
	} {
		if st, body := opCall(t, a.url, token, "PUT", "/exclusions", c.ctype, c.body); st != 400 && st != 415 {
			t.Errorf("PUT /exclusions %q as %q: %d %s, want 400 or 415", c.body, c.ctype, st, body)
		}
	}
	p.must(200, nil, "GET", "/api/v1/me", nil, "") // still logged in: nothing was imported

	st, body := opCall(t, a.url, token, "PUT", "/exclusions", "text/csv; charset=utf-8", register)
	var got struct{ Listed, Added, Gone, Closed int }
	if err := json.Unmarshal(body, &got); st != 200 || err != nil || got.Listed != 1 || got.Added != 1 || got.Closed != 1 {
		t.Fatalf("PUT /exclusions: %d %s", st, body)
	}
	if st, body := p.call("GET", "/api/v1/me", nil, ""); st != 401 {
		t.Errorf("the listed player, on the other server, after the import: %d %s, want 401", st, body)
	}
	if st, body := p.call("POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, p.key()); st != 401 {
		t.Errorf("the listed player buys after the import: %d %s, want 401", st, body)
	}
	lines, err := a.db.OperatorLog(t.Context(), 1, 0)
	if err != nil || len(lines) != 1 || lines[0].Action != "register_imported" || lines[0].Name != "carla" {
		t.Errorf("the import's line in the log: %+v %v", lines, err)
	}
}

// TestOperatorEmergencyStop suspends the emission through the API while a player buys on
// another server: the player's next purchase is refused as not on sale, at once; a resumption
// sells again. Each change its life does not allow is 409 invalid_state and changes nothing, and
// a bad request changes nothing either.
func TestOperatorEmergencyStop(t *testing.T) {
	skipInWalletMode(t, noProtection)
	srvs := newTestServers(t, 1, 2)
	a, b := srvs[0], srvs[1]
	token := a.operatorWith(t, "eric", lottery.Roles(lottery.Emissions)|lottery.Roles(lottery.Viewer))
	p := b.client(t)
	p.signUp("astrid", 10_00)
	buy := func() (int, []byte) {
		return p.call("POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, p.key())
	}
	if st, body := buy(); st != 201 {
		t.Fatalf("a purchase before: %d %s", st, body)
	}
	id := a.e.ID
	for _, bad := range []struct{ ctype, body string }{{"application/json", `{}`}, {"application/json", `{"reason":""}`},
		{"application/json", `{"reason":"x","why":"y"}`}, {"text/plain", `{"reason":"x"}`}, {"application/json", `{"reason":"two\nlines"}`},
		{"application/json", `{"reason":"` + strings.Repeat("x", 501) + `"}`}} {
		if st, body := opCall(t, a.url, token, "POST", "/emissions/"+id+"/suspend", bad.ctype, bad.body); st != 400 && st != 415 {
			t.Errorf("a suspension with %s %s: %d %s, want 400 or 415", bad.ctype, bad.body, st, body)
		}
	}
	if st, body := opCall(t, a.url, token, "POST", "/emissions/NONE/suspend", "application/json", `{"reason":"x"}`); st != 404 {
		t.Errorf("an unknown emission suspended: %d %s", st, body)
	}
	if st, body := opCall(t, a.url, token, "POST", "/emissions/"+id+"/resume", "", ""); st != 409 || errorCode(body) != "invalid_state" {
		t.Errorf("an emission on sale resumed: %d %s, want 409 invalid_state", st, body)
	}
	if st, body := buy(); st != 201 {
		t.Fatalf("a purchase after the refused changes: %d %s", st, body)
	}

	st, body := opCall(t, a.url, token, "POST", "/emissions/"+id+"/suspend", "application/json", `{"reason":"a display fault"}`)
	var e struct{ ID, Status string }
	if json.Unmarshal(body, &e); st != 200 || e.ID != id || e.Status != "suspended" {
		t.Fatalf("the suspension: %d %s", st, body)
	}
	if st, body := buy(); st != 503 || errorCode(body) != "sold_out" {
		t.Errorf("a purchase on the other server after the suspension: %d %s, want 503 sold_out", st, body)
	}
	if st, body := opCall(t, a.url, token, "POST", "/emissions/"+id+"/suspend", "application/json", `{"reason":"again"}`); st != 409 || errorCode(body) != "invalid_state" {
		t.Errorf("a suspension of a suspended emission: %d %s, want 409 invalid_state", st, body)
	}
	_, list := opCall(t, b.url, token, "GET", "/emissions", "", "")
	if !strings.Contains(string(list), `"status":"suspended"`) {
		t.Errorf("the emissions after the suspension: %s", list)
	}
	if _, public := p.call("GET", "/api/v1/emissions", nil, ""); !strings.Contains(string(public), `"status":"suspended"`) {
		t.Errorf("the public emissions after the suspension: %s", public)
	}
	if st, body := opCall(t, b.url, token, "POST", "/emissions/"+id+"/resume", "application/json", `{"reason":"x"}`); st != 400 {
		t.Errorf("a resumption with a reason: %d %s, want 400", st, body)
	}
	if st, body := opCall(t, b.url, token, "POST", "/emissions/"+id+"/resume", "application/json", `{}`); st != 200 || !strings.Contains(string(body), `"status":"on_sale"`) {
		t.Fatalf("the resumption, on the other server: %d %s", st, body)
	}
	if st, body := buy(); st != 201 {
		t.Errorf("a purchase after the resumption: %d %s", st, body)
	}
	lines, err := a.db.OperatorLog(t.Context(), 2, 0)
	if err != nil || len(lines) != 2 || lines[0].Action != "emission_resumed" || lines[1].Action != "emission_suspended" ||
		!strings.Contains(lines[1].Detail, "a display fault") || lines[1].Name != "eric" {
		t.Errorf("the log: %+v %v", lines, err)
	}
	hist, err := a.db.EmissionHistory(t.Context(), id)
	if err != nil || len(hist) != 2 {
		t.Errorf("the emission's history: %+v %v", hist, err)
	}
}

// TestOperatorFourEyes: a withdrawal proposed by one operator is carried out only once another,
// an approver, approves it; its proposer cannot, even holding approver; of two approvals sent at
// once, one carries it out; the emission then never sells again.
func TestOperatorFourEyes(t *testing.T) {
	skipInWalletMode(t, noProtection)
	srvs := newTestServers(t, 1, 2)
	a, b := srvs[0], srvs[1]
	both := lottery.Roles(lottery.Emissions) | lottery.Roles(lottery.Approver) | lottery.Roles(lottery.Viewer)
	eve := a.operatorWith(t, "eve", both)
	ann := a.operatorWith(t, "ann", lottery.Roles(lottery.Approver))
	abe := a.operatorWith(t, "abe", lottery.Roles(lottery.Approver))
	p := b.client(t)
	p.signUp("astrid", 10_00)
	id := a.e.ID
	st, body := opCall(t, a.url, eve, "POST", "/emissions/"+id+"/withdraw", "application/json", `{"reason":"a suspected leak"}`)
	var prop struct {
		ID     int64
		Action string
		Status string
		Detail struct{ Emission, Reason string }
	}
	if json.Unmarshal(body, &prop); st != 202 || prop.Action != "emission_withdraw" || prop.Status != "open" || prop.Detail.Emission != id || prop.Detail.Reason != "a suspected leak" {
		t.Fatalf("the proposal: %d %s", st, body)
	}
	path := "/proposals/" + jsonInt(prop.ID)
	if st, body := opCall(t, a.url, eve, "POST", path+"/approve", "", ""); st != 403 || errorCode(body) != "same_operator" {
		t.Errorf("the proposer approves: %d %s, want 403 same_operator", st, body)
	}
	if st, body := p.call("POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, p.key()); st != 201 {
		t.Fatalf("a purchase while the withdrawal is only proposed: %d %s", st, body)
	}
	// Two approvers at once, on the two servers.
	approveAtOnce(t, path, a.url, ann, b.url, abe)
	_, list := opCall(t, b.url, eve, "GET", "/proposals?status=approved", "", "")
	if !strings.Contains(string(list), `"status":"approved"`) || !strings.Contains(string(list), `"decided_by":"a`) {
		t.Errorf("the approved proposals: %s", list)
	}
	if st, body := p.call("POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, p.key()); st != 503 || errorCode(body) != "sold_out" {
		t.Errorf("a purchase after the withdrawal: %d %s, want 503 sold_out", st, body)
	}
	_, ems := opCall(t, a.url, eve, "GET", "/emissions", "", "")
	if !strings.Contains(string(ems), `"status":"withdrawn"`) {
		t.Errorf("the emissions after the withdrawal: %s", ems)
	}
	if st, body := opCall(t, a.url, eve, "POST", "/emissions/"+id+"/resume", "", ""); st != 409 {
		t.Errorf("a withdrawn emission resumed: %d %s, want 409", st, body)
	}
	if st, body := opCall(t, a.url, ann, "POST", "/proposals/999/approve", "", ""); st != 404 {
		t.Errorf("an unknown proposal approved: %d %s, want 404", st, body)
	}
	if st, body := opCall(t, a.url, ann, "POST", path+"/reject", "application/json", `{}`); st != 400 {
		t.Errorf("a rejection without a reason: %d %s, want 400", st, body)
	}
	if st, body := opCall(t, a.url, eve, "GET", "/proposals?status=pending", "", ""); st != 400 {
		t.Errorf("proposals of an unknown status: %d %s, want 400", st, body)
	}
}

// approveAtOnce sends two approvals of the proposal at path at once, one on each server: one
// carries it out (200), the other finds it decided (409).
func approveAtOnce(t *testing.T, path, baseA, tokenA, baseB, tokenB string) {
	t.Helper()
	var wg sync.WaitGroup
	got := make([]int, 2)
	for i, who := range []struct{ base, token string }{{baseA, tokenA}, {baseB, tokenB}} {
		wg.Go(func() { got[i], _ = opCall(t, who.base, who.token, "POST", path+"/approve", "", "") })
	}
	wg.Wait()
	slices.Sort(got)
	if got[0] != 200 || got[1] != 409 {
		t.Fatalf("two approvals at once: %v, want one 200 and one 409", got)
	}
}
