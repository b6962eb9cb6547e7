package admin_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"starcolor/internal/journal"
	"starcolor/internal/lottery"
	"starcolor/internal/storetest"
)

// TestPlayerActions: on a player's page, each role acts within its own.
//
//  1. A viewer, or finance, cannot block play; a refused action changes nothing.
//  2. Compliance blocks play: the player's session ends at once, their login is refused
//     (player_blocked); a second block is refused. Unblocked, they log in again.
//  3. A note is kept and shown. Finance pays the balance out to the bank: the balance is 0,
//     the books balance.
//  4. Compliance closes the account: the player's login says so; the books still balance.
//  5. The public journal names the player by the account's reference alone: no username,
//     person's name or reason typed is in it.
//  5. Every action is in the log, with its reason.
func TestPlayerActions(t *testing.T) {
	e := newEnv(t, 1)
	player := e.player(t, "petra", 5000, 3)
	p, err := e.db.PlayerByName(t.Context(), "petra")
	if err != nil {
		t.Fatal(err)
	}
	path := fmt.Sprintf("/admin/players/%d", p.ID)
	viewer := e.operatorClient(t, "vic", lottery.Roles(lottery.Viewer))
	fina := e.operatorClient(t, "fina", lottery.Roles(lottery.Finance))
	cora := e.operatorClient(t, "cora", lottery.Roles(lottery.Compliance))
	why := url.Values{"reason": {"a dispute under review"}}
	for _, c := range []*client{viewer, fina} {
		if resp, _ := c.form(path+"/block", why); resp.StatusCode != 403 {
			t.Errorf("a block outside compliance: %d, want 403", resp.StatusCode)
		}
	}
	if resp, _ := viewer.form(path+"/payout", why); resp.StatusCode != 403 {
		t.Errorf("a payout by a viewer: %d, want 403", resp.StatusCode)
	}
	if got, _ := e.db.PlayerByID(t.Context(), p.ID); !got.BlockedAt.IsZero() || got.Balance != p.Balance {
		t.Fatalf("refused actions changed the player: %+v", got)
	}
	login := func() int {
		resp, _ := e.client(t).do("POST", "/api/v1/session", strings.NewReader(`{"username":"petra","password":"secret-petra"}`), "Content-Type", "application/json")
		return resp.StatusCode
	}
	if resp, _ := cora.form(path+"/block", url.Values{}); resp.StatusCode != 400 {
		t.Errorf("a block without a reason: %d, want 400", resp.StatusCode)
	}
	if resp, _ := cora.form(path+"/block", why); resp.StatusCode != 303 {
		t.Fatalf("the block: %d", resp.StatusCode)
	}
	if resp, _ := player.do("GET", "/api/v1/me", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the blocked player's session: %d, want 401", resp.StatusCode)
	}
	if st := login(); st != 403 {
		t.Errorf("the blocked player's login: %d, want 403", st)
	}
	if resp, _ := cora.form(path+"/block", why); resp.StatusCode != 409 {
		t.Errorf("a second block: %d, want 409", resp.StatusCode)
	}
	if _, body := cora.do("GET", path, nil); !strings.Contains(body, `id="player-blocked"`) || !strings.Contains(body, `id="unblock-button"`) {
		t.Error("the page does not show the block")
	}
	if resp, _ := cora.form(path+"/unblock", url.Values{}); resp.StatusCode != 303 {
		t.Fatalf("the unblock: %d", resp.StatusCode)
	}
	if st := login(); st != 200 {
		t.Errorf("the unblocked player's login: %d, want 200", st)
	}

	if resp, _ := fina.form(path+"/note", url.Values{"note": {"Called on 3 December:\nasked for a payout."}}); resp.StatusCode != 303 {
		t.Fatalf("the note: %d", resp.StatusCode)
	}
	if _, body := cora.do("GET", path, nil); !strings.Contains(body, "asked for a payout.") || !strings.Contains(body, "fina") {
		t.Error("the page does not show the note")
	}
	if resp, _ := fina.form(path+"/payout", url.Values{"reason": {"asked by phone"}}); resp.StatusCode != 303 {
		t.Fatalf("the payout: %d", resp.StatusCode)
	}
	if got, _ := e.db.PlayerByID(t.Context(), p.ID); got.Balance != 0 || !got.ClosedAt.IsZero() {
		t.Errorf("after the payout: balance %d, closed %v", got.Balance, got.ClosedAt)
	}
	if c, err := e.db.CheckLedger(t.Context()); err != nil || len(c.Problems) != 0 {
		t.Fatalf("the ledger after the payout: %+v %v", c, err)
	}

	if resp, _ := cora.form(path+"/close", url.Values{"reason": {"asked by the player in writing"}}); resp.StatusCode != 303 {
		t.Fatalf("the closure: %d", resp.StatusCode)
	}
	if got, _ := e.db.PlayerByID(t.Context(), p.ID); got.ClosedBy != lottery.ClosedByOperator {
		t.Errorf("closed by %q, want operator", got.ClosedBy)
	}
	if st := login(); st != 403 {
		t.Errorf("the closed player's login: %d, want 403", st)
	}
	if resp, _ := cora.form(path+"/close", why); resp.StatusCode != 409 && resp.StatusCode != 403 {
		t.Errorf("a second closure: %d", resp.StatusCode)
	}
	if c, err := e.db.CheckLedger(t.Context()); err != nil || len(c.Problems) != 0 {
		t.Fatalf("the ledger after the closure: %+v %v", c, err)
	}
	lines, err := e.db.OperatorLog(t.Context(), 50, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range lines {
		if strings.HasPrefix(l.Action, "player_") && l.Action != "player_viewed" {
			got = append([]string{l.Name + " " + l.Action}, got...)
		}
	}
	want := "cora player_blocked,cora player_unblocked,fina player_noted,fina player_paid_out,cora player_closed"
	if strings.Join(got, ",") != want {
		t.Errorf("the log: %s, want %s", strings.Join(got, ","), want)
	}
	checkJournalNamesNoPlayer(t, e, p.AccountID, []string{"petra", "Martin", "Jeanne", "1990", "dispute", "phone", "Called", "in writing"})
}

// checkJournalNamesNoPlayer checks that the public journal holds none of secrets (a username, a
// person's names, what operators typed), and that each operator's entry about a player names
// them by the reference of account alone, under the test stores' account key.
func checkJournalNamesNoPlayer(t *testing.T, e *env, account int64, secrets []string) {
	t.Helper()
	st, err := e.db.JournalState(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var about int
	for from := int64(0); from < st.Size; from += journal.MaxEntries {
		entries, err := e.db.JournalEntries(t.Context(), from, min(from+journal.MaxEntries, st.Size))
		if err != nil {
			t.Fatal(err)
		}
		for i, entry := range entries {
			for _, s := range secrets {
				if strings.Contains(string(entry), s) {
					t.Errorf("the public journal's entry %d holds %q: %s", from+int64(i), s, entry)
				}
			}
			var op struct{ Kind, Action, Account string }
			if err := json.Unmarshal(entry, &op); err != nil {
				t.Fatal(err)
			}
			if op.Kind != journal.KindOperator || !strings.HasPrefix(op.Action, "player_") {
				continue
			}
			about++
			if want := storetest.AccountKey.Ref(account, uint64(from)+uint64(i)); op.Account != want {
				t.Errorf("entry %d, %s: account %q, want the player's reference %s", from+int64(i), op.Action, op.Account, want)
			}
		}
	}
	if about == 0 {
		t.Error("no operator's entry about the player in the journal")
	}
}
