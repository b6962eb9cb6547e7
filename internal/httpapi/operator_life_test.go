package httpapi_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"starcolor/internal/lottery"
)

// opEmissionNamed reads GET /emissions on base and returns the emission id as listed ("" status
// if it is not).
func opEmissionNamed(t *testing.T, base, token, id string) (status string, onSaleAt *time.Time, units int64) {
	t.Helper()
	st, body := opCall(t, base, token, "GET", "/emissions", "", "")
	var list struct {
		Emissions []struct {
			ID, Status string
			OnSaleAt   *time.Time `json:"on_sale_at"`
			Units      int64
		}
	}
	if st != 200 || json.Unmarshal(body, &list) != nil {
		t.Fatalf("GET /emissions: %d %s", st, body)
	}
	for _, e := range list.Emissions {
		if e.ID == id {
			return e.Status, e.OnSaleAt, e.Units
		}
	}
	return "", nil, 0
}

// waitStatus waits until GET /emissions lists id in status want.
func waitStatus(t *testing.T, base, token, id, want string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		got, _, _ := opEmissionNamed(t, base, token, id)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is %q after %s, want %q", id, got, within, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestOperatorCreation: an emission's whole life through the operator API, on two servers.
//
//  1. A creation refused (a bad body, a price the game does not take, an id taken) makes no
//     proposal.
//  2. One proposed is listed as proposed; it cannot be withdrawn; its proposer cannot approve it.
//  3. Of two approvals at once, one carries it out: the emission is generating, then scheduled,
//     and nothing sells at its price.
//  4. A scheduled emission can be neither suspended nor resumed. When the servers' clock passes
//     its on_sale_at, it opens by itself, once, and sells on the other server.
func TestOperatorCreation(t *testing.T) {
	skipInWalletMode(t, noProtection)
	srvs := newTestServers(t, 1, 2)
	a, b := srvs[0], srvs[1]
	for _, s := range srvs {
		go s.app.RunLife(t.Context())
	}
	eve := a.operatorWith(t, "eve", lottery.Roles(lottery.Emissions)|lottery.Roles(lottery.Approver)|lottery.Roles(lottery.Viewer))
	ann := a.operatorWith(t, "ann", lottery.Roles(lottery.Approver))
	abe := a.operatorWith(t, "abe", lottery.Roles(lottery.Approver))
	p := b.client(t)
	p.signUp("astrid", 20_00)
	buy := func() (int, []byte) {
		return p.call("POST", "/api/v1/games", map[string]any{"stake": 200, "mode": "auto"}, p.key())
	}

	for _, bad := range []struct{ ctype, body, code string }{
		{"application/json", `{}`, "invalid_input"},
		{"application/json", `{"id":"NEXT","price":150,"blocks":1}`, "invalid_input"},
		{"application/json", `{"id":"NEXT","price":200,"blocks":0}`, "invalid_input"},
		{"application/json", `{"id":"NEXT","price":200,"blocks":51}`, "invalid_input"},
		{"application/json", `{"id":"-NEXT","price":200,"blocks":1}`, "invalid_input"},
		{"application/json", `{"id":"NEXT","price":200,"blocks":1,"on_sale_at":"tomorrow"}`, "invalid_input"},
		{"application/json", `{"id":"NEXT","price":200,"blocks":1,"colour":"red"}`, "invalid_request"},
		{"application/json", `{"id":"NEXT","price":"200","blocks":1}`, "invalid_request"},
		{"text/plain", `{"id":"NEXT","price":200,"blocks":1}`, "unsupported_media_type"},
		{"application/json", `{"id":"` + a.e.ID + `","price":100,"blocks":1}`, "invalid_state"},
	} {
		if st, body := opCall(t, a.url, eve, "POST", "/emissions", bad.ctype, bad.body); st < 400 || errorCode(body) != bad.code {
			t.Errorf("a creation of %s %s: %d %s, want %s", bad.ctype, bad.body, st, body, bad.code)
		}
	}
	if _, list := opCall(t, a.url, eve, "GET", "/proposals", "", ""); string(list) != `{"proposals":[]}`+"\n" && string(list) != `{"proposals":[]}` {
		t.Fatalf("the refused creations made proposals: %s", list)
	}

	opens := a.clock.Now().Add(20 * time.Minute).Truncate(time.Second)
	st, body := opCall(t, a.url, eve, "POST", "/emissions", "application/json",
		`{"id":"NEXT","price":200,"blocks":2,"on_sale_at":"`+opens.In(paris(t)).Format(time.RFC3339)+`"}`)
	var prop struct {
		ID             int64
		Action, Status string
		Detail         struct {
			Emission string
			Price    int64
			Blocks   int
			OnSaleAt time.Time `json:"on_sale_at"`
		}
	}
	if json.Unmarshal(body, &prop); st != 202 || prop.Action != "emission_create" || prop.Status != "open" || prop.Detail.Emission != "NEXT" ||
		prop.Detail.Price != 200 || prop.Detail.Blocks != 2 || !prop.Detail.OnSaleAt.Equal(opens) {
		t.Fatalf("the proposal: %d %s", st, body)
	}
	if st, body := opCall(t, b.url, eve, "POST", "/emissions", "application/json", `{"id":"NEXT","price":100,"blocks":1}`); st != 409 || errorCode(body) != "invalid_state" {
		t.Errorf("the same id proposed again: %d %s, want 409 invalid_state", st, body)
	}
	if status, at, units := opEmissionNamed(t, b.url, eve, "NEXT"); status != "proposed" || at == nil || !at.Equal(opens) || units != 2000 {
		t.Errorf("NEXT proposed, listed as %q, on sale at %v, %d units", status, at, units)
	}
	if st, body := opCall(t, a.url, eve, "POST", "/emissions/NEXT/withdraw", "application/json", `{"reason":"x"}`); st != 409 || errorCode(body) != "invalid_state" {
		t.Errorf("a proposed emission withdrawn: %d %s, want 409 invalid_state", st, body)
	}
	path := "/proposals/" + jsonInt(prop.ID)
	if st, body := opCall(t, a.url, eve, "POST", path+"/approve", "", ""); st != 403 || errorCode(body) != "same_operator" {
		t.Errorf("the proposer approves: %d %s, want 403 same_operator", st, body)
	}
	if _, err := a.db.Emission(t.Context(), "NEXT"); err == nil {
		t.Fatal("NEXT made before its approval")
	}

	approveAtOnce(t, path, a.url, ann, b.url, abe)
	waitStatus(t, b.url, eve, "NEXT", lottery.Scheduled, 30*time.Second)
	if st, body := buy(); st != 503 || errorCode(body) != "sold_out" {
		t.Errorf("a purchase at the price of a scheduled emission only: %d %s, want 503 sold_out", st, body)
	}
	if st, body := opCall(t, a.url, eve, "POST", "/emissions/NEXT/suspend", "application/json", `{"reason":"x"}`); st != 409 || errorCode(body) != "invalid_state" {
		t.Errorf("a scheduled emission suspended: %d %s, want 409 invalid_state", st, body)
	}
	if st, body := opCall(t, a.url, eve, "POST", "/emissions/NEXT/resume", "", ""); st != 409 || errorCode(body) != "invalid_state" {
		t.Errorf("a scheduled emission resumed: %d %s, want 409 invalid_state", st, body)
	}
	time.Sleep(1500 * time.Millisecond) // a round of every server's life loop, before its time
	if status, _, _ := opEmissionNamed(t, a.url, eve, "NEXT"); status != lottery.Scheduled {
		t.Fatalf("NEXT is %s before its on_sale_at", status)
	}

	a.clock.Advance(20 * time.Minute)
	waitStatus(t, a.url, eve, "NEXT", lottery.OnSale, 10*time.Second)
	if st, body := buy(); st != 201 {
		t.Fatalf("a purchase once NEXT opened: %d %s", st, body)
	}
	time.Sleep(1500 * time.Millisecond) // every server's loop has seen it due
	hist, err := a.db.EmissionHistory(t.Context(), "NEXT")
	if err != nil || len(hist) != 2 || hist[0].Status != lottery.Scheduled || hist[1].Status != lottery.OnSale || hist[1].By != lottery.BySchedule {
		t.Errorf("NEXT's history: %+v %v", hist, err)
	}
	// The blocks' selling flags agree with the statuses the history says (ledger check).
	if c, err := a.db.CheckLedger(t.Context()); err != nil || len(c.Problems) != 0 {
		t.Errorf("ledger check after the emission's life: %+v %v", c, err)
	}
	lines, err := a.db.OperatorLog(t.Context(), 50, 0)
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, l := range lines {
		actions = append(actions, l.Name+" "+l.Action)
	}
	text := strings.Join(actions, ",")
	for _, want := range []string{"eve proposal_made", "proposal_approved", "emission_create", "emission_created"} {
		if !strings.Contains(text, want) {
			t.Errorf("the log has no %q: %s", want, text)
		}
	}
}
