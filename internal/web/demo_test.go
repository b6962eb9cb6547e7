package web_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"starcolor/internal/app/apptest"
	"starcolor/internal/audit"
	"starcolor/internal/browsertest"
	"starcolor/internal/game"
	"starcolor/internal/scenario"
)

// newDemoSite is newSite whose demo games are all played on one unit with an Extra stage and a
// prize. The generator makes it as it makes a demo game's unit (game.DemoConfig.Unit, the test's
// hook), so the test knows what each demo game will reveal.
func newDemoSite(t *testing.T) *site {
	t.Helper()
	var unit audit.Record
	a := apptest.Start(t, apptest.Options{Seed: 7, Configure: func(cfg *game.Config) {
		cfg.Demo.Unit = func(int64) (audit.Record, error) { return unit, nil }
	}})
	table, err := a.Def.Table(100)
	if err != nil {
		t.Fatal(err)
	}
	gen, err := scenario.New(a.Def, table)
	if err != nil {
		t.Fatal(err)
	}
	var prize int64 // the smallest prize
	for _, tier := range table.Tiers {
		if tier.Amount > 0 && (prize == 0 || tier.Amount < prize) {
			prize = tier.Amount
		}
	}
	for i := range 10_000 {
		rec := audit.Record{Prize: prize}
		if err := gen.Unit(&rec.Unit, prize, scenario.NewStream([32]byte{byte(i), byte(i >> 8), 'd'})); err != nil {
			t.Fatal(err)
		}
		if rec.Unit.HasB2 {
			unit = rec
			break
		}
	}
	if !unit.Unit.HasB2 || prize == 0 {
		t.Fatalf("no unit with an Extra stage and a prize (prize %d)", prize)
	}
	return &site{url: a.URL, db: a.Store, e: a.Emission}
}

// markShown fails unless the demo mark shows in the header, whole, inside the window, in the
// page's words.
func markShown(t *testing.T, ctx context.Context, where, want string) {
	t.Helper()
	ok := eval[bool](t, ctx, `(() => {
		const m = document.querySelector('#demo-mark'), r = m.getBoundingClientRect();
		return !m.hidden && !!m.closest('header') && getComputedStyle(m).visibility === 'visible' && r.width > 0 && r.height > 0 &&
			r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight;
	})()`)
	if !ok {
		t.Errorf("%s: the demo mark does not show in the header", where)
	}
	if got := text(t, ctx, "#demo-mark"); got != want {
		t.Errorf("%s: the demo mark reads %q, want %q", where, got, want)
	}
}

// small lists the controls of the header smaller than a finger's target (44 × 44 px).
func small(t *testing.T, ctx context.Context) []string {
	return eval[[]string](t, ctx, `Array.from(document.querySelectorAll('header button, header a'))
		.filter(b => b.offsetParent !== null && getComputedStyle(b).visibility === 'visible')
		.filter(b => { const r = b.getBoundingClientRect(); return r.width < 44 || r.height < 44; })
		.map(b => b.id || b.className || b.textContent)`)
}

// TestDemoPage plays demo games from a fresh browser, without an account, on a desktop and on a
// phone. It checks:
//   - « Essayer gratuitement »;
//   - a manual game through its Extra stage;
//   - the mark on every screen, and what needs an account hidden;
//   - the history and its replay;
//   - the offer to open an account, on the result and in the header, which ends the demo and
//     opens the sign-up;
//   - through the store, that the ledger, the reports and the emissions did not change.
func TestDemoPage(t *testing.T) {
	browser := browsertest.New(t, browsertest.Options{})
	for _, mobile := range []bool{false, true} {
		name := "Desktop"
		if mobile {
			name = "Phone"
		}
		t.Run(name, func(t *testing.T) { testDemoPage(t, tab(t, browser, mobile), mobile) })
	}
}

func testDemoPage(t *testing.T, ctx context.Context, mobile bool) {
	s := newDemoSite(t)
	before := apptest.Books(t, s.db)
	open(t, ctx, s, "")
	step(t, ctx, "the welcome", chromedp.WaitVisible("#demo-start"))
	if got := text(t, ctx, "#demo-start"); got != "Essayer gratuitement" {
		t.Errorf("the demo's button reads %q", got)
	}
	browsertest.Axe(t, ctx, "the welcome, with the demo's offer")
	shot(t, ctx, map[bool]string{false: "demo-desktop-0-welcome", true: "demo-phone-0-welcome"}[mobile])
	step(t, ctx, "Essayer gratuitement", chromedp.Click("#demo-start"))
	waitFor(t, ctx, `document.body.classList.contains('in') && document.body.classList.contains('demo') && document.body.dataset.state === 'idle'`)
	const mark = "Mode démo — argent fictif"
	markShown(t, ctx, "the demo's game", mark)
	if got := eval[string](t, ctx, `document.querySelector('#balance').dataset.cents`); got != "5000" {
		t.Errorf("the demo's balance %s, want 5000 cents of play money", got)
	}
	// What needs an account is hidden, and explained.
	if shown := eval[[]string](t, ctx, `['#deposit-form', '#limits-open', '#session-time']
		.filter(s => document.querySelector(s).offsetParent !== null)`); len(shown) > 0 {
		t.Errorf("in a demo, the page shows %v", shown)
	}
	if !eval[bool](t, ctx, `document.querySelector('#demo-info').offsetParent !== null`) {
		t.Error("the demo's explanation of what needs an account does not show")
	}
	if !eval[bool](t, ctx, `document.querySelector('#demo-signup').offsetParent !== null`) {
		t.Error("the header offers no account")
	}
	if got := eval[string](t, ctx, `document.querySelector('#demo-signup').textContent`); got != "Ouvrir un compte" {
		t.Errorf("the header's offer reads %q", got)
	}
	if s := small(t, ctx); len(s) > 0 {
		t.Errorf("header controls under 44 px: %v", s)
	}
	// On a phone, two rows: the brand and the balance with the mark, then the menu and the
	// buttons; on a laptop, one.
	if h, most := eval[float64](t, ctx, `document.querySelector('header').getBoundingClientRect().height`), map[bool]float64{false: 80, true: 125}[mobile]; h > most {
		t.Errorf("the header is %.0f px high, more than %.0f", h, most)
	}
	browsertest.Axe(t, ctx, "the demo's game, idle")
	shot(t, ctx, map[bool]string{false: "demo-desktop-1-idle", true: "demo-phone-1-idle"}[mobile])

	// A manual game to the end of its Extra stage.
	step(t, ctx, "Jouer", chromedp.Click("#play"), chromedp.WaitVisible("#colors .swatch"))
	markShown(t, ctx, "the colour choice", mark)
	step(t, ctx, "choose vert", chromedp.Click(`#colors .swatch[data-color="2"]`))
	waitFor(t, ctx, `document.querySelectorAll('#sky .star.playable').length > 0`)
	markShown(t, ctx, "a demo game in play", mark)
	browsertest.Axe(t, ctx, "a demo game in play")
	clickToEnd(t, ctx)
	if b := eval[string](t, ctx, `document.querySelector('#sky').dataset.board`); b != "2" {
		t.Errorf("the sky shows board %s at the end, want the Extra stage's board 2", b)
	}
	g := eval[map[string]any](t, ctx, `fetch('/api/v1/games').then(r => r.json()).then(l => l.games[0])`)
	boards, _ := g["boards"].([]any)
	if g["demo"] != true || g["unit"] != nil || g["status"] != "finished" || len(boards) != 2 || g["mode"] != "manual" {
		t.Fatalf("the demo game on the server: demo %v, unit %v, status %v, %d boards", g["demo"], g["unit"], g["status"], len(boards))
	}
	prize := int64(g["prize"].(float64))
	if got, want := text(t, ctx, "#result"), "Gagné "+euros(prize); got != want {
		t.Errorf("the result %q, want %q", got, want)
	}
	if got := eval[string](t, ctx, `document.querySelector('#balance').dataset.cents`); got != strconv.FormatInt(5000-100+prize, 10) {
		t.Errorf("the balance after the game %s, want %d", got, 5000-100+prize)
	}
	markShown(t, ctx, "the end of a demo game", mark)
	// The offer is on the result card, whole in its view (not scrolled out of it).
	if !eval[bool](t, ctx, `(() => {
		const e = document.querySelector('#demo-end'), b = e.querySelector('button'), card = document.querySelector('#card .rcard-in');
		const r = b.getBoundingClientRect(), c = card.getBoundingClientRect();
		return !e.hidden && e.offsetParent !== null && !!e.closest('#card') && b.textContent === 'Ouvrir un compte' &&
			r.top >= c.top && r.bottom <= c.bottom && r.left >= c.left && r.right <= c.right && r.height >= 44;
	})()`) {
		t.Error("the result card of a demo game does not offer an account in view")
	}
	browsertest.Axe(t, ctx, "the end of a demo game")
	shot(t, ctx, map[bool]string{false: "demo-desktop-2-extra-stage", true: "demo-phone-2-extra-stage"}[mobile])

	// The history, and its replay.
	step(t, ctx, "history", chromedp.Click(`.nav a[data-view=historique]`))
	waitFor(t, ctx, `document.querySelector('#history').getAttribute('aria-busy') === 'false' && document.querySelectorAll('#history .hrow').length === 1`)
	markShown(t, ctx, "the demo's history", mark)
	if n := eval[int](t, ctx, `Array.from(document.querySelectorAll('#history button.proofbtn')).filter(b => b.offsetParent !== null).length`); n != 0 {
		t.Errorf("the demo's history offers %d proofs", n)
	}
	browsertest.Axe(t, ctx, "the demo's history")
	step(t, ctx, "Revoir", chromedp.Click(`#history .hrow:nth-child(1) button.replay`), chromedp.WaitVisible("#step"))
	step(t, ctx, "Tout revoir", chromedp.Click("#replay-all"))
	waitFor(t, ctx, `document.body.dataset.busy === 'no' && document.querySelector('#step').disabled`)
	if b := eval[string](t, ctx, `document.querySelector('#sky').dataset.board`); b != "2" {
		t.Errorf("the replay ends on board %s, want 2", b)
	}
	markShown(t, ctx, "a demo game's replay", mark)
	step(t, ctx, "close the replay", chromedp.Click("#replay-close"))
	step(t, ctx, "rules", chromedp.Click(`.nav a[data-view=regles]`), chromedp.WaitVisible(".prizes"))
	markShown(t, ctx, "the rules", mark)

	// In English, and back.
	step(t, ctx, "English", chromedp.Click("#lang"))
	markShown(t, ctx, "the rules in English", "Demo mode — play money")
	step(t, ctx, "French", chromedp.Click("#lang"))

	// An « Auto » game, and the offer on its result: the demo ends, the sign-up opens.
	step(t, ctx, "the game", chromedp.Click(`.nav a[data-view=jeu]`), chromedp.WaitVisible("#auto"))
	step(t, ctx, "Auto", chromedp.Click("#auto"))
	waitFor(t, ctx, `document.querySelector('#result').dataset.state === 'done' && !document.querySelector('#demo-end').hidden`)
	if after := apptest.Books(t, s.db); after != before {
		t.Fatalf("demo games changed the books:\nbefore %s\nafter  %s", before, after)
	}
	step(t, ctx, "Ouvrir un compte", chromedp.Click("#demo-end button"))
	waitFor(t, ctx, `!document.body.classList.contains('in') && !document.body.classList.contains('demo') && document.activeElement === document.querySelector('#signup-user')`)
	if got := text(t, ctx, "#auth-msg"); !strings.Contains(got, "La démo est terminée") {
		t.Errorf("the sign-up after the demo says %q", got)
	}
	if !eval[bool](t, ctx, `document.querySelector('#demo-mark').hidden && document.querySelector('#demo-signup').hidden`) {
		t.Error("the demo's mark stays once the demo has ended")
	}
	if st := eval[int](t, ctx, `fetch('/api/v1/me').then(r => r.status)`); st != 401 {
		t.Errorf("the demo session after « Ouvrir un compte »: GET /api/v1/me %d, want 401", st)
	}
	if after := apptest.Books(t, s.db); after != before {
		t.Fatalf("the demo changed the books:\nbefore %s\nafter  %s", before, after)
	}
}
