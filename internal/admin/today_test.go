package admin_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"starcolor/internal/admin"
	"starcolor/internal/lottery"
)

// TestToday: the first page's « Today » card counts the day's sales (Paris time), compares each
// stake's prizes with its table and the bound they should stay within, and raises the alerts
// the day calls for: a block nearly sold out, a big win, a proposal waiting. A block sold as its table
// says raises no drift, however far it has sold.
func TestToday(t *testing.T) {
	e := newEnv(t, 1)
	c := e.client(t)
	if resp, _ := c.login(opName, opPassword); resp.StatusCode != 303 {
		t.Fatal("login failed")
	}
	_, body := c.do("GET", "/admin/", nil)
	if !strings.Contains(body, `id="today-alerts-none"`) || !strings.Contains(body, `id="today-units">0<`) {
		t.Fatalf("the card before any sale: %s", section(body))
	}
	e.player(t, "tessa", 100_000, 960)
	_, body = c.do("GET", "/admin/", nil)
	card := section(body)
	if !strings.Contains(card, `id="today-units">960<`) || !strings.Contains(card, `data-price="100"`) {
		t.Errorf("the card after 960 sales: %s", card)
	}
	if !strings.Contains(card, "Block 0 of MINI has 40 units left.") || !strings.Contains(card, `class="alert-info"`) {
		t.Errorf("no alert for the block nearly sold out: %s", card)
	}
	if strings.Contains(card, "stray") || strings.Contains(card, `class="beyond"`) {
		t.Errorf("a drift raised for a block sold as its table says: %s", card)
	}
	// The largest prize of the day is shown; a big win is said from the threshold on, not
	// below it.
	tessa, err := e.db.PlayerByName(context.Background(), "tessa")
	if err != nil {
		t.Fatal(err)
	}
	games, err := e.db.Games(context.Background(), tessa.ID, 1000, 0)
	if err != nil || len(games) != 960 {
		t.Fatalf("tessa's games: %d, %v", len(games), err)
	}
	var top int64
	for _, g := range games {
		top = max(top, g.Prize)
	}
	if !strings.Contains(card, fmt.Sprintf(`data-top="%d"`, top)) {
		t.Errorf("the day's largest prize is not %d cents: %s", top, card)
	}
	for _, threshold := range []int64{top, top + 1} {
		restore := admin.SetBigWin(threshold)
		_, body = c.do("GET", "/admin/", nil)
		restore()
		said := strings.Contains(section(body), "A prize of ")
		if said != (threshold == top) {
			t.Errorf("a big win from %d cents, the day's largest %d: said %v", threshold, top, said)
		}
	}
	// A proposal waiting is said too.
	alice, err := e.db.OperatorByName(context.Background(), opName)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.ProposeCreation(context.Background(), e.db, e.def, admin.Creation{ID: "NEXT", Price: 100, Blocks: 1},
		lottery.OperatorAction{OperatorID: alice.ID, Name: alice.Name, CreatedAt: e.clock.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, body = c.do("GET", "/admin/", nil); !strings.Contains(section(body), "1 proposal waits for an approver.") {
		t.Errorf("no word of the proposal waiting: %s", section(body))
	}
}

// section is the « Today » card of the first page.
func section(body string) string {
	return regexp.MustCompile(`(?s)<section class="card" id="today".*?</section>`).FindString(body)
}
