package admin_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"starcolor/internal/admin"
	"starcolor/internal/lottery"
)

// TestGameReplay: a game is replayed for a dispute from its committed unit and its moves: every
// star revealed, in order, adds up to the prize recorded, and the page gives the proofs the
// player holds. Replaying it is in the log; an unknown game is 404.
func TestGameReplay(t *testing.T) {
	e := newEnv(t, 1)
	e.player(t, "rita", 5000, 20)
	p, err := e.db.PlayerByName(t.Context(), "rita")
	if err != nil {
		t.Fatal(err)
	}
	games, err := e.db.Games(t.Context(), p.ID, 20, 0)
	if err != nil || len(games) != 20 {
		t.Fatalf("rita's games: %d %v", len(games), err)
	}
	var won lottery.Game
	for _, g := range games {
		if g.Prize > 0 {
			won = g
		}
	}
	if won.ID == 0 {
		t.Skip("no winning game among 20: the test's seed gives one")
	}
	c := e.operatorClient(t, "dora", lottery.Roles(lottery.Compliance))
	resp, body := c.do("GET", fmt.Sprintf("/admin/games/%d/replay", won.ID), nil)
	if resp.StatusCode != 200 {
		t.Fatalf("the replay: %d", resp.StatusCode)
	}
	if !strings.Contains(body, `id="replay-won">`+admin.Money("en", won.Prize)) || !strings.Contains(body, "the same") {
		t.Errorf("the replay's total is not the prize %d: %s", won.Prize, regexp.MustCompile(`(?s)id="replay-won">.*?</dd>`).FindString(body))
	}
	steps := regexp.MustCompile(`(?s)<table id="replay-steps">.*?</table>`).FindString(body)
	if n := strings.Count(steps, "<tr>") - 1; n < 1 || !strings.Contains(steps, "the automatic play") {
		t.Errorf("the steps (%d): %s", n, steps)
	}
	if !strings.Contains(body, `id="proof-line">`) || !strings.Contains(body, `id="proof-entry">`) && !strings.Contains(body, "Block root") {
		t.Error("the replay gives no proof")
	}
	if resp, _ := c.do("GET", "/admin/games/999999/replay", nil); resp.StatusCode != 404 {
		t.Errorf("an unknown game replayed: %d, want 404", resp.StatusCode)
	}
	lines, _ := e.db.OperatorLog(t.Context(), 5, 0)
	found := false
	for _, l := range lines {
		found = found || l.Action == "game_replayed" && strings.Contains(l.Detail, fmt.Sprint(won.ID))
	}
	if !found {
		t.Errorf("the replay is not in the log: %+v", lines)
	}
}
