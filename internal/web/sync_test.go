package web_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"starcolor/internal/audit"
	"starcolor/internal/browsertest"
)

// Issue 20, the player's side:
//   - regulation 4.1 as docs/spec/RULES.md §7 says it: every game in the history shows its
//     result, but the one this very tab is revealing;
//   - tabs and devices that follow the game;
//   - the reality check of the server's play session.
//
// Tabs of one browser share its cookies (chromedp.NewContext on a tab: the same browser context).
// Another device is a browser context of its own, with its own cookie jar, logged in as the same
// player.
func TestTabsAndDevices(t *testing.T) {
	browser := browsertest.New(t, browsertest.Options{})
	for _, f := range []struct {
		name string
		run  func(t *testing.T, browser, ctx context.Context)
	}{
		{"GamesLeftOpenedAfresh", testGamesLeftOpenedAfresh},
		{"RevealHereResultThere", testRevealHereResultThere},
		{"TwoTabsOneGame", testTwoTabsOneGame},
		{"RealityCheckAcrossTabs", testRealityCheckAcrossTabs},
	} {
		t.Run(f.name, func(t *testing.T) { f.run(t, browser, tab(t, browser, false)) })
	}
}

// sibling opens another tab in the browser context of ctx: the same cookies, the same origin.
func sibling(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	c, cancel := chromedp.NewContext(ctx)
	t.Cleanup(cancel)
	if err := chromedp.Do(c, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	return c
}

// loginPage logs in through the page's form.
func loginPage(t *testing.T, ctx context.Context, s *site, speed int, name string) {
	t.Helper()
	openAt(t, ctx, s, speed, "")
	step(t, ctx, "log in",
		chromedp.WaitVisible("#login-user"),
		chromedp.SendKeys("#login-user", name),
		chromedp.SendKeys("#login-pass", "secret-"+name),
		chromedp.Click("#login-form button[type=submit]"))
	waitFor(t, ctx, `document.body.classList.contains('in') && document.body.dataset.state === 'idle'`)
}

// resultText is how the history says a game's result.
func resultText(g gameJSON) string {
	if g.Prize > 0 {
		return "Gagné " + euros(g.Prize)
	}
	return "Perdu"
}

// leave has a device of the player (its API client) buy a « Jouer » game and choose violet. The
// device clicks violet stars in the order of the board until stop holds, and leaves the game
// unfinished. leave returns false if the game finished first.
func (p *player) leave(stop func(g gameJSON) bool) (gameJSON, bool) {
	var g gameJSON
	p.must(201, &g, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "manual"})
	p.must(200, &g, "POST", fmt.Sprintf("/api/v1/games/%d/color", g.ID), map[string]int{"color": 0})
	for g.Status == "playing" && !stop(g) {
		next := -1
		for i, c := range g.Boards[0].Cells {
			if c == nil && g.Boards[0].Colors[i] == 0 {
				next = i
				break
			}
		}
		p.must(200, &g, "POST", fmt.Sprintf("/api/v1/games/%d/reveal", g.ID), map[string]int{"cell": next})
	}
	return g, g.Status == "playing"
}

// revealedOf counts the stars revealed on board 1, and those of the colour chosen.
func revealedOf(g gameJSON) (all, own, ownTotal int) {
	for i, c := range g.Boards[0].Cells {
		mine := g.Boards[0].Colors[i] == *g.Color
		if mine {
			ownTotal++
		}
		if c != nil {
			all++
			if mine {
				own++
			}
		}
	}
	return
}

// checkBoard compares the board a tab shows with board 1 of the server's game, star by star.
func checkBoard(t *testing.T, ctx context.Context, g gameJSON, where string) {
	t.Helper()
	shown := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('#sky .star'), s => s.dataset.state === 'revealed' ? s.dataset.kind : '')`)
	colors := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('#sky .star'), s => s.dataset.color)`)
	for i, c := range g.Boards[0].Cells {
		want := ""
		if c != nil {
			want = c.Kind
		}
		if shown[i] != want || colors[i] != strconv.Itoa(g.Boards[0].Colors[i]) {
			t.Errorf("%s: star %d shows %q in colour %s, the server %q in colour %d", where, i, shown[i], colors[i], want, g.Boards[0].Colors[i])
		}
	}
}

// 4.1: a game left by one device at each step: its colour chosen, half its stars clicked, its
// Extra found. It shows its result and « Reprendre » in the history of a tab opened afresh and of
// a second device, and the game screen offers it plainly. Neither page takes it over.
// « Reprendre » brings it back exactly where it stopped.
func testGamesLeftOpenedAfresh(t *testing.T, browser, ctx context.Context) {
	s := newSite(t)
	signUp(t, ctx, s, "lena")
	deposit(t, ctx, 20)
	dev := s.player(t, "lena", false)
	second := tab(t, browser, false)
	loginPage(t, second, s, 100, "lena")

	steps := []struct {
		name string
		stop func(g gameJSON) bool
	}{
		{"colour chosen", func(gameJSON) bool { return true }},
		{"half clicked", func(g gameJSON) bool { _, own, total := revealedOf(g); return own > 0 && 2*own >= total }},
		{"Extra begun", func(g gameJSON) bool {
			for _, c := range g.Boards[0].Cells {
				if c != nil && c.Kind == "extra" {
					return true
				}
			}
			return false
		}},
	}
	for n, st := range steps {
		var g gameJSON
		for tries := 0; ; tries++ {
			if st.name == "Extra begun" {
				// The next unit with an Extra stage, sold to the device.
				s.advanceTo(t, s.unitWhere(t, s.sold(t), func(r *audit.Record) bool { return r.Unit.HasB2 }))
			}
			var ok bool
			if g, ok = dev.leave(st.stop); ok {
				break
			}
			if tries > 20 {
				t.Fatalf("%s: every game tried finished before it could be left so", st.name)
			}
		}
		rows := len(dev.games())
		want := resultText(g) + "|Reprendre"
		fresh := sibling(t, ctx)
		openAt(t, fresh, s, 100, "")
		for _, v := range []struct {
			name string
			ctx  context.Context
		}{{"a tab opened afresh", fresh}, {"a second device", second}} {
			if v.ctx == second {
				step(t, second, "reload", chromedp.Reload())
				waitFor(t, second, `document.body.dataset.state !== 'loading'`)
			}
			waitFor(t, v.ctx, fmt.Sprintf(`!document.querySelector('#unfinished').hidden && document.querySelector('#unfinished').dataset.game === '%d'`, g.ID))
			if state := eval[string](t, v.ctx, `document.body.dataset.state`); state != "idle" {
				t.Errorf("%s, %s: the page opened in state %q: it took the game over", st.name, v.name, state)
			}
			if got := text(t, v.ctx, "#unfinished-text"); !strings.Contains(got, fmt.Sprintf("Une partie n'est pas finie (n° %d)", g.ID)) {
				t.Errorf("%s, %s: the game screen says %q", st.name, v.name, got)
			}
			if n == 0 && v.ctx == second {
				shot(t, v.ctx, "desktop-30-unfinished-offered")
				browsertest.Axe(t, v.ctx, "an unfinished game offered")
			}
			r := historyRows(t, v.ctx, rows)
			if got := strings.Join(r[0], "|"); got != want {
				t.Errorf("%s, %s: the history shows game %d as %q, want %q", st.name, v.name, g.ID, got, want)
			}
			step(t, v.ctx, "back to the game", chromedp.Click(`.nav a[data-view=jeu]`))
		}
		// « Reprendre » in the history of the tab opened afresh: the game exactly as it stopped.
		historyRows(t, fresh, rows)
		step(t, fresh, "Reprendre", chromedp.Click(`#history .hrow:first-child button.resume`))
		waitFor(t, fresh, `document.body.dataset.state === 'play' && !!document.querySelector('#sky .star.playable')`)
		if g.Unit.Index != dev.last().Unit.Index {
			t.Fatal("the game resumed is not the one left")
		}
		checkBoard(t, fresh, g, st.name+", resumed")
		if k := eval[int](t, fresh, `document.querySelectorAll('#sky .star.playable:not([data-color="0"])').length`); k != 0 {
			t.Errorf("%s: %d stars of another colour can be clicked once resumed", st.name, k)
		}
		if got := eval[string](t, fresh, `document.querySelector('#result').textContent`); got != "" {
			t.Errorf("%s: a result shows in the game resumed: %q", st.name, got)
		}
		if n == 2 {
			shot(t, fresh, "desktop-31-extra-begun-resumed")
		}
		clickToEnd(t, fresh)
		checkShown(t, fresh, dev, dev.last())
	}
}

// While tab A reveals a game, A's history says « En cours » for it, and tab B's, like any other
// page's, shows its result.
func testRevealHereResultThere(t *testing.T, browser, ctx context.Context) {
	s := newSite(t)
	winning := s.unitWhere(t, 0, func(r *audit.Record) bool { return r.Prize > 0 })
	s.advanceTo(t, winning)
	signUp(t, ctx, s, "marc")
	deposit(t, ctx, 10)
	b := sibling(t, ctx)
	openAt(t, b, s, 100, "#historique")
	waitFor(t, b, `document.body.dataset.state === 'idle' && document.querySelector('#history').getAttribute('aria-busy') === 'false'`)
	openAt(t, ctx, s, 1, "#jeu")
	step(t, ctx, "Auto", chromedp.Click("#auto"))
	waitFor(t, ctx, `document.body.dataset.state === 'auto'`)
	g := s.player(t, "marc", false).last()
	// B's history follows at once (the tabs tell each other), with the result.
	waitFor(t, b, fmt.Sprintf(`!!document.querySelector('#history .hrow[data-id="%d"]')`, g.ID))
	if got := text(t, b, fmt.Sprintf(`#history .hrow[data-id="%d"] .hres`, g.ID)); got != resultText(g) {
		t.Errorf("tab B's history during A's reveal: %q, want %q", got, resultText(g))
	}
	rows := historyRows(t, ctx, 1)
	if eval[string](t, ctx, `document.body.dataset.state`) != "auto" {
		t.Fatal("the reveal ended before the history was read: the test is too slow to tell")
	}
	if got := strings.Join(rows[0], "|"); got != "En cours|Reprendre" {
		t.Errorf("tab A's history during its own reveal: %q, want « En cours »", got)
	}
	shot(t, b, "desktop-32-result-in-the-other-tab")
	step(t, ctx, "back to the game", chromedp.Click(`.nav a[data-view=jeu]`), chromedp.Click("#skip"))
	waitFor(t, ctx, `document.querySelector('#result').dataset.state === 'done'`)
}

// Two tabs on one game. B follows A's clicks. A move B makes on a board another device changed
// meanwhile (409) shows the game as it stands, and no error. Once A finishes, B shows the end and
// the result, and no error.
func testTwoTabsOneGame(t *testing.T, browser, ctx context.Context) {
	s := newSite(t)
	signUp(t, ctx, s, "nora")
	deposit(t, ctx, 10)
	dev := s.player(t, "nora", false)
	step(t, ctx, "Jouer", chromedp.Click("#play"), chromedp.WaitVisible("#colors .swatch"))
	b := sibling(t, ctx)
	openAt(t, b, s, 100, "")
	step(t, ctx, "choose vert", chromedp.Click(`#colors .swatch[data-color="2"]`))
	waitFor(t, ctx, `!!document.querySelector('#sky .star.playable')`)
	waitFor(t, b, `!document.querySelector('#unfinished').hidden`)
	step(t, b, "Reprendre", chromedp.Click("#unfinished-resume"))
	waitFor(t, b, `document.body.dataset.state === 'play' && !!document.querySelector('#sky .star.playable')`)

	// Another device clicks a star; B, not yet told, clicks the same one.
	g := dev.last()
	cell := -1
	for i, c := range g.Boards[0].Cells {
		if c == nil && g.Boards[0].Colors[i] == 2 {
			cell = i
			break
		}
	}
	dev.must(200, &g, "POST", fmt.Sprintf("/api/v1/games/%d/reveal", g.ID), map[string]int{"cell": cell})
	eval[bool](t, b, fmt.Sprintf(`(document.querySelector('#sky .star[data-cell="%d"]').click(), true)`, cell))
	waitFor(t, b, fmt.Sprintf(`document.body.dataset.busy === 'no' && document.querySelector('#sky .star[data-cell="%d"]').dataset.state === 'revealed'`, cell))
	if msg := text(t, b, "#play-err"); msg != "" {
		t.Errorf("tab B after a move another device made first: %q", msg)
	}
	if g.Status == "playing" {
		checkBoard(t, b, g, "tab B after the 409")
	}

	// A plays on; after A's first click, B shows the same board.
	if g.Status == "playing" {
		waitFor(t, ctx, `document.body.dataset.busy === 'no' && !!document.querySelector('#sky .star.playable')`)
		step(t, ctx, "A clicks a star", chromedp.Click("#sky .star.playable"))
		waitFor(t, ctx, `document.body.dataset.busy === 'no'`)
		if g = dev.last(); g.Status == "playing" {
			all, _, _ := revealedOf(g)
			waitFor(t, b, fmt.Sprintf(`document.querySelectorAll('#sky .star[data-state=revealed]').length === %d`, all))
			checkBoard(t, b, g, "tab B following A")
		}
		clickToEnd(t, ctx)
	}
	waitFor(t, b, `document.querySelector('#result').dataset.state === 'done' && document.body.dataset.state === 'idle'`)
	if msg := text(t, b, "#play-err"); msg != "" {
		t.Errorf("tab B once A finished: %q", msg)
	}
	checkShown(t, b, dev, dev.last())
	shot(t, b, "desktop-33-followed-to-the-end")
}

// The reality check is the play session's: two tabs and a second device show the same time and
// the same result after games played in one tab; Escape does not close it; « Continuer » in one
// tab closes it in the other, and the server keeps it; « Arrêter » logs every tab out.
func testRealityCheckAcrossTabs(t *testing.T, browser, ctx context.Context) {
	s := newSite(t)
	signUp(t, ctx, s, "olga") // the play session begins at this login
	deposit(t, ctx, 10)
	p := s.player(t, "olga", false)
	p.must(200, nil, "PUT", "/api/v1/me/limits", map[string]int{"reality_check_minutes": 15})
	// At speed 40 the session's clock runs 40 times faster: 15 minutes in 22.5 seconds.
	openAt(t, ctx, s, 40, "")
	b := sibling(t, ctx)
	openAt(t, b, s, 40, "")
	other := tab(t, browser, false)
	loginPage(t, other, s, 40, "olga")
	// Games in tab A alone.
	for range 2 {
		if eval[bool](t, ctx, `document.querySelector('#reality-check').open`) {
			t.Fatal("the reality check opened before the games: this machine is too slow for the test's speed")
		}
		step(t, ctx, "Auto", chromedp.Click("#auto"))
		waitFor(t, ctx, `document.querySelector('#result').dataset.state === 'done' && document.body.dataset.state === 'idle'`)
	}
	times := func() [3]int {
		var out [3]int
		for i, c := range []context.Context{ctx, b, other} {
			out[i] = eval[int](t, c, `parseInt(document.querySelector('#session-time').textContent, 10)`)
		}
		return out
	}
	if tm := times(); tm[0] < tm[2]-1 || tm[2] > tm[0]+1 || tm[1] < tm[0]-1 || tm[1] > tm[0]+1 {
		t.Errorf("the time played shown in tab A, tab B and the second device: %v min, want the same", tm)
	}
	var me struct {
		Session struct {
			Net     int64 `json:"net"`
			Checked int   `json:"checked_minutes"`
		} `json:"session"`
	}
	for _, c := range []context.Context{ctx, b, other} {
		waitLong(t, c, `document.querySelector('#reality-check').open`, 40*time.Second)
	}
	p.must(200, &me, "GET", "/api/v1/me", nil)
	for i, c := range []context.Context{ctx, b, other} {
		if net := eval[string](t, c, `document.querySelector('#reality-check').dataset.net`); net != strconv.FormatInt(me.Session.Net, 10) {
			t.Errorf("page %d shows a session's result of %s, the server %d", i, net, me.Session.Net)
		}
	}
	// Escape, twice, and a click beside it: the check stays.
	step(t, ctx, "Escape", chromedp.KeyEvent(kb.Escape))
	step(t, ctx, "Escape", chromedp.KeyEvent(kb.Escape))
	step(t, ctx, "a click beside", chromedp.MouseClickXY(5, 890))
	time.Sleep(300 * time.Millisecond)
	if !eval[bool](t, ctx, `document.querySelector('#reality-check').open`) {
		t.Fatal("Escape or a click beside closed the reality check")
	}
	mark := eval[string](t, ctx, `document.querySelector('#reality-check').dataset.minutes`)
	step(t, ctx, "Continuer", chromedp.Click("#reality-continue"))
	waitFor(t, ctx, `!document.querySelector('#reality-check').open`)
	waitFor(t, b, `!document.querySelector('#reality-check').open`)
	waitLong(t, other, `!document.querySelector('#reality-check').open`, 10*time.Second) // by its poll
	p.must(200, &me, "GET", "/api/v1/me", nil)
	if strconv.Itoa(me.Session.Checked) != mark {
		t.Errorf("the server keeps the check answered at %d minutes, want %s", me.Session.Checked, mark)
	}
	// The next check: « Arrêter » in B logs out tab A too.
	waitLong(t, b, `document.querySelector('#reality-check').open`, 40*time.Second)
	step(t, b, "Arrêter", chromedp.Click("#reality-stop"))
	for _, c := range []context.Context{b, ctx} {
		waitFor(t, c, `document.body.dataset.state === 'auth' && !document.querySelector('#auth-msg').hidden`)
		if got := text(t, c, "#auth-msg"); !strings.HasPrefix(got, "Session terminée après ") {
			t.Errorf("after « Arrêter »: %q", got)
		}
	}
}

// waitLong is waitFor with a bound of its own, for a clock the page runs.
func waitLong(t *testing.T, ctx context.Context, cond string, d time.Duration) {
	t.Helper()
	c, cancel := browsertest.Timeout(ctx, d)
	defer cancel()
	if err := chromedp.Do(c, chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		t.Fatalf("wait for %s: %v", cond, err)
	}
}
