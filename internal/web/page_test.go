package web_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"starcolor/internal/audit"
	"starcolor/internal/browsertest"
	"starcolor/internal/emission"
)

// The flows of issue 10: what a new player, a careful one and the regulation (4.1) expect of the
// page. Each runs in a tab of its own (TestPlayerPage).

// unitWhere finds the first unit of the block at or after from that pred accepts.
func (s *site) unitWhere(t *testing.T, from int, pred func(*audit.Record) bool) int {
	t.Helper()
	r, err := emission.NewReader(s.e, s.db)
	if err != nil {
		t.Fatal(err)
	}
	for i := from; i < s.e.Blocks[0].Units; i++ {
		rec, err := r.Unit(context.Background(), 0, i)
		if err != nil {
			t.Fatal(err)
		}
		if pred(&rec) {
			return i
		}
	}
	t.Fatal("no unit of the block is as the test needs")
	return -1
}

// advanceTo has another player buy units until the next one sold is unit index.
func (s *site) advanceTo(t *testing.T, index int) {
	t.Helper()
	sold := s.sold(t)
	if sold > index {
		t.Fatalf("unit %d is sold already (%d sold)", index, sold)
	}
	if sold == index {
		return
	}
	filler := s.player(t, fmt.Sprintf("filler%d", index), true)
	filler.must(201, nil, "POST", "/api/v1/deposits", map[string]int64{"amount": int64(index-sold) * 100})
	for range index - sold {
		filler.must(201, nil, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"})
	}
}

func (s *site) sold(t *testing.T) int {
	t.Helper()
	e, err := s.db.Emission(context.Background(), s.e.ID)
	if err != nil {
		t.Fatal(err)
	}
	return e.Blocks[0].Sold
}

// openAt loads the page with animations speed times faster (1: as a player sees them).
func openAt(t *testing.T, ctx context.Context, s *site, speed int, hash string) {
	step(t, ctx, "open the page", chromedp.Navigate(fmt.Sprintf("%s/?speed=%d%s", s.url, speed, hash)), chromedp.WaitReady("body"))
	waitFor(t, ctx, `document.body.dataset.state !== 'loading'`)
}

func viewport(t *testing.T, ctx context.Context, w, h int64, mobile bool) {
	t.Helper()
	opts := []chromedp.EmulateViewportOption{}
	if mobile {
		opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch)
	}
	step(t, ctx, "viewport", chromedp.EmulateViewport(w, h, opts...))
}

// historyRows opens the history and returns, for each row, its result and its buttons' texts.
func historyRows(t *testing.T, ctx context.Context, n int) [][]string {
	t.Helper()
	step(t, ctx, "history", chromedp.Click(`.nav a[data-view=historique]`))
	waitFor(t, ctx, fmt.Sprintf(`document.querySelector('#history').getAttribute('aria-busy') === 'false' && document.querySelectorAll('#history .hrow').length === %d`, n))
	return eval[[][]string](t, ctx, `Array.from(document.querySelectorAll('#history .hrow'), r =>
		[r.querySelector('.hres').textContent].concat(Array.from(r.querySelectorAll('.hact button'), b => b.textContent))
		.map(s => s.replace(/[\u00a0\u202f]/g, ' ')))`)
}

// Item 1: while this tab reveals a game, the history shows it the same whether it wins or loses
// (« En cours », no result, no proof), until its reveal ends here.
func testHistoryDuringAReveal(t *testing.T, ctx context.Context) {
	s := newSite(t)
	losing := s.unitWhere(t, 0, func(r *audit.Record) bool { return r.Prize == 0 })
	winning := s.unitWhere(t, losing+1, func(r *audit.Record) bool { return r.Prize > 0 })
	signUp(t, ctx, s, "hugo")
	deposit(t, ctx, 10)
	p := s.player(t, "hugo", false)
	var seen [][]string
	for n, unit := range []int{losing, winning} {
		s.advanceTo(t, unit)
		openAt(t, ctx, s, 1, "#jeu")
		step(t, ctx, "Auto", chromedp.Click("#auto"))
		waitFor(t, ctx, `document.body.dataset.state === 'auto'`)
		rows := historyRows(t, ctx, n+1)
		if g := p.last(); g.Unit.Index != unit {
			t.Fatalf("the game is on unit %d, want %d", g.Unit.Index, unit)
		}
		if eval[string](t, ctx, `document.body.dataset.state`) != "auto" {
			t.Fatal("the reveal ended before the history was read: the test is too slow to tell")
		}
		seen = append(seen, rows[0])
		if n == 0 {
			shot(t, ctx, "desktop-10-history-during-a-reveal")
		}
		step(t, ctx, "back to the game", chromedp.Click(`.nav a[data-view=jeu]`), chromedp.Click("#skip"))
		waitFor(t, ctx, `document.querySelector('#result').dataset.state === 'done'`)
	}
	for i, row := range seen {
		if strings.Join(row, "|") != "En cours|Reprendre" {
			t.Errorf("history of the game being revealed (%s): %q, want « En cours » and « Reprendre » only", []string{"losing", "winning"}[i], row)
		}
	}
	// Once the reveals have ended here, the history shows their results.
	rows := historyRows(t, ctx, 2)
	for i, g := range []string{"Gagné", "Perdu"} {
		if !strings.HasPrefix(rows[i][0], g) || strings.Join(rows[i][1:], "|") != "Revoir|Preuve" {
			t.Errorf("history row %d after the reveals: %q", i+1, rows[i])
		}
	}
}

// Item 2: a game bought elsewhere and left unfinished shows its result in the history [4.1],
// with « Reprendre », which brings it to this tab.
func testInterruptedGameInHistory(t *testing.T, ctx context.Context) {
	s := newSite(t)
	signUp(t, ctx, s, "ines")
	deposit(t, ctx, 10)
	// Another device of the same player buys a « Jouer » game and stops after the colour.
	other := s.player(t, "ines", false)
	var g gameJSON
	other.must(201, &g, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "manual"})
	other.must(200, nil, "POST", fmt.Sprintf("/api/v1/games/%d/color", g.ID), map[string]int{"color": 3})
	rows := historyRows(t, ctx, 1)
	want := "Perdu"
	if g.Prize > 0 {
		want = "Gagné " + euros(g.Prize)
	}
	if strings.Join(rows[0], "|") != want+"|Reprendre" {
		t.Errorf("an unfinished game from another device: %q, want %q and « Reprendre »", rows[0], want)
	}
	shot(t, ctx, "desktop-11-unfinished-elsewhere")
	step(t, ctx, "resume", chromedp.Click(`#history .hrow button.resume`))
	waitFor(t, ctx, `document.body.dataset.state === 'play' && !!document.querySelector('#sky .star.playable')`)
	clickToEnd(t, ctx)
	checkShown(t, ctx, other, other.last())
}

// Item 3: a reload during « Auto » says that the game was played, with its result and a way to
// watch it.
func testReloadDuringAuto(t *testing.T, ctx context.Context) {
	s := newSite(t)
	signUp(t, ctx, s, "jean")
	deposit(t, ctx, 10)
	openAt(t, ctx, s, 1, "#jeu")
	step(t, ctx, "Auto", chromedp.Click("#auto"))
	waitFor(t, ctx, `document.body.dataset.state === 'auto'`)
	step(t, ctx, "reload", chromedp.Reload())
	waitFor(t, ctx, `document.body.dataset.state === 'idle' && !document.querySelector('#played').hidden`)
	g := s.player(t, "jean", false).last()
	want := "Perdu"
	if g.Prize > 0 {
		want = "Gagné " + euros(g.Prize)
	}
	if got := text(t, ctx, "#played-text"); !strings.Contains(got, fmt.Sprintf("partie n° %d a été jouée", g.ID)) || !strings.Contains(got, want) {
		t.Errorf("after a reload: %q, want game %d told played, %q", got, g.ID, want)
	}
	shot(t, ctx, "desktop-12-played-during-a-reload")
	step(t, ctx, "watch it", chromedp.Click("#played-replay"), chromedp.WaitVisible("#replay-all"), chromedp.Click("#replay-all"))
	waitFor(t, ctx, `document.querySelector('#result').dataset.state === 'replayed'`)
	checkShown(t, ctx, s.player(t, "jean", false), g)
	// A later reload, the game seen, says nothing more.
	step(t, ctx, "close the replay", chromedp.Click("#replay-close"), chromedp.Reload())
	waitFor(t, ctx, `document.body.dataset.state === 'idle'`)
	if !eval[bool](t, ctx, `document.querySelector('#played').hidden`) {
		t.Error("a game already told played is told again")
	}
}

// Item 4: at the end of a game with an Extra stage, every gain of both boards shows and adds up
// to the prize; in its replay too.
func testExtraStageGains(t *testing.T, ctx context.Context) {
	s := newSite(t)
	unit := s.extraGainsUnit(t)
	s.advanceTo(t, unit)
	signUp(t, ctx, s, "karl")
	deposit(t, ctx, 10)
	step(t, ctx, "Auto", chromedp.Click("#auto"))
	waitFor(t, ctx, `document.querySelector('#result').dataset.state === 'done'`)
	p := s.player(t, "karl", false)
	g := p.last()
	checkGains := func(when string) {
		t.Helper()
		if got := eval[string](t, ctx, `document.querySelector('#gains').dataset.cents`); got != strconv.FormatInt(g.Prize, 10) {
			t.Errorf("%s: the gains shown add up to %s, the prize is %d", when, got, g.Prize)
		}
		n := 0
		for _, b := range g.Boards {
			for _, c := range b.Cells {
				if c != nil && c.Kind == "amount" {
					n++
				}
			}
		}
		if got := eval[int](t, ctx, `document.querySelectorAll('#gains .g').length`); got != n {
			t.Errorf("%s: %d gains shown, the game has %d amounts on its two boards", when, got, n)
		}
		if eval[int](t, ctx, `document.querySelectorAll('#gains .g.b2').length`) == 0 || eval[int](t, ctx, `document.querySelectorAll('#gains .g:not(.b2)').length`) == 0 {
			t.Errorf("%s: the gains of each board are not both shown: %s", when, text(t, ctx, "#gains"))
		}
	}
	checkGains("end of the game")
	shot(t, ctx, "desktop-13-extra-gains")
	step(t, ctx, "watch it again", chromedp.Click(`.nav a[data-view=historique]`))
	waitFor(t, ctx, `!!document.querySelector('#history .hrow button.replay')`)
	step(t, ctx, "replay", chromedp.Click(`#history .hrow button.replay`), chromedp.WaitVisible("#replay-all"), chromedp.Click("#replay-all"))
	waitFor(t, ctx, `document.querySelector('#result').dataset.state === 'replayed'`)
	checkGains("end of its replay")
}

// Item 5: the history's button to watch a game says « Revoir »; the end of a game offers
// « Rejouer », which buys another at the same stake.
func testPlayAgain(t *testing.T, ctx context.Context) {
	s := newSite(t)
	signUp(t, ctx, s, "lise")
	deposit(t, ctx, 10)
	step(t, ctx, "Auto", chromedp.Click("#auto"))
	waitFor(t, ctx, `document.querySelector('#result').dataset.state === 'done' && !document.querySelector('#again').closest('[hidden]')`)
	if got := text(t, ctx, "#again"); got != "Rejouer" {
		t.Errorf("the end of a game offers %q", got)
	}
	step(t, ctx, "Rejouer", chromedp.Click("#again"))
	waitFor(t, ctx, `document.querySelector('#result').dataset.state === 'done' && document.body.dataset.state === 'idle'`)
	p := s.player(t, "lise", false)
	var list struct{ Games []gameJSON }
	p.must(200, &list, "GET", "/api/v1/games", nil)
	if len(list.Games) != 2 || list.Games[0].Mode != "auto" {
		t.Fatalf("after « Rejouer »: %d games, want 2 auto games", len(list.Games))
	}
	rows := historyRows(t, ctx, 2)
	for _, r := range rows {
		if strings.Join(r[1:], "|") != "Revoir|Preuve" {
			t.Errorf("history buttons %q, want « Revoir » and « Preuve »", r[1:])
		}
	}
}

// Item 7: sound is off on a first visit, and the page says so; turned on, the choice is kept
// across reloads and the game plays its effects; turned off, it plays none.
func testSound(t *testing.T, ctx context.Context) {
	s := newSite(t)
	signUp(t, ctx, s, "nina")
	deposit(t, ctx, 10)
	if got := eval[[]string](t, ctx, `[document.querySelector('#sound').getAttribute('aria-pressed'), document.querySelector('#sound').textContent]`); got[0] != "false" || !strings.Contains(got[1], "Son coupé") {
		t.Errorf("the sound on a first visit: pressed %s, says %q", got[0], got[1])
	}
	step(t, ctx, "sound on", chromedp.Click("#sound"))
	step(t, ctx, "reload", chromedp.Reload())
	waitFor(t, ctx, `document.body.dataset.state === 'idle'`)
	if got := eval[string](t, ctx, `document.querySelector('#sound').getAttribute('aria-pressed')`); got != "true" {
		t.Fatalf("the sound after a reload: pressed %s", got)
	}
	step(t, ctx, "Jouer", chromedp.Click("#play"), chromedp.WaitVisible("#colors .swatch"), chromedp.Click(`#colors .swatch[data-color="1"]`))
	clickToEnd(t, ctx)
	played := eval[[]string](t, ctx, `window.starcolor.sounds`)
	joined := "," + strings.Join(played, ",") + ","
	ended := false // the end of the game: its level's sound (result_test.go)
	for _, end := range []string{",win,", ",goodwin,", ",bigwin,", ",topwin,", ",lose,"} {
		ended = ended || strings.Contains(joined, end)
	}
	if !strings.Contains(joined, ",click,") || !ended {
		t.Errorf("a game with the sound on played %v: want a click and the end of the game", played)
	}
	step(t, ctx, "sound off", chromedp.Click("#sound"))
	before := len(played)
	step(t, ctx, "Auto", chromedp.Click("#auto"))
	waitFor(t, ctx, `document.querySelector('#result').dataset.state === 'done' && document.body.dataset.state === 'idle'`)
	if after := eval[[]string](t, ctx, `window.starcolor.sounds`); len(after) != before {
		t.Errorf("with the sound off, the game played %v", after[before:])
	}
}

// Item 8: the game screen shows the top prize at the stake chosen, from the game definition.
func testTopPrize(t *testing.T, ctx context.Context) {
	s := newSite(t)
	signUp(t, ctx, s, "olaf")
	for _, c := range []struct{ stake, want string }{{"200", "Jusqu'à 40 000 €"}, {"300", "Jusqu'à 60 000 €"}, {"100", "Jusqu'à 20 000 €"}} {
		step(t, ctx, "stake "+c.stake, chromedp.Click(fmt.Sprintf(`input[name=stake][value="%s"] + span`, c.stake)))
		if got := text(t, ctx, "#top-prize"); got != c.want {
			t.Errorf("stake %s: %q, want %q", c.stake, got, c.want)
		}
	}
}

// Item 9: the rules page fits the window, shows the regulation's TOTAL column and each block's
// total, the « Jouer » and « Auto » paragraphs of article 4.1, the Extra stage precisely, and the
// regulation it follows.
func testRulesPage(t *testing.T, ctx context.Context) {
	s := newSite(t)
	for _, v := range []struct {
		w, h   int64
		mobile bool
	}{{1366, 768, false}, {1280, 900, false}, {390, 844, true}} {
		viewport(t, ctx, v.w, v.h, v.mobile)
		openAt(t, ctx, s, 100, "#regles")
		waitFor(t, ctx, `!!document.querySelector('.prizes') && document.querySelector('#view-regles').hidden === false`)
		got := eval[[]int](t, ctx, `[document.documentElement.scrollWidth, innerWidth].concat(Array.from(document.querySelectorAll('.prizes'),
			tb => Math.round(Math.max(tb.getBoundingClientRect().right - tb.parentElement.getBoundingClientRect().right, tb.getBoundingClientRect().right - innerWidth))))`)
		if got[0] > got[1] {
			t.Errorf("%dx%d: the page is %d px wide in a window of %d", v.w, v.h, got[0], got[1])
		}
		for i, over := range got[2:] {
			if over > 1 {
				t.Errorf("%dx%d: prize table %d overflows its place by %d px", v.w, v.h, i+1, over)
			}
		}
		shot(t, ctx, fmt.Sprintf("rules-%dx%d", v.w, v.h))
	}
	page := text(t, ctx, "#view-regles")
	for _, want := range []string{
		"289 200 €", "578 400 €", "867 600 €", // the TOTAL column of the 12 € tier and its doubles
		"formant un total de 700 000 €", "formant un total de 1 400 000 €", "formant un total de 2 100 000 €",
		"dans l'ordre souhaité", "la couleur est tirée au hasard", "42 nouvelles étoiles",
		"JORF n° 0074 du 28 mars 2013",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the rules page lacks %q", want)
		}
	}
	browsertest.Axe(t, ctx, "the rules on a phone")
}

// Item 10: every control of the game is in view without scrolling, at 1366×768 and 390×844; on
// a phone the header keeps two rows whatever the balance; every target a finger can tap is at
// least 44×44 px; the proof's list numbers are not cut off.
func testControlsInView(t *testing.T, ctx context.Context) {
	s := newSite(t)
	signUp(t, ctx, s, "paul")
	p := s.player(t, "paul", false)
	for range 10 { // a large balance: 1 000 000 €
		p.must(201, nil, "POST", "/api/v1/deposits", map[string]int64{"amount": 100_000_00})
	}
	inView := func(what string, sels ...string) {
		t.Helper()
		for _, sel := range sels {
			r := eval[[]float64](t, ctx, fmt.Sprintf(`(() => { const e = document.querySelector(%q); const r = e.getBoundingClientRect();
				return [r.top, r.bottom, r.left, r.right, innerHeight, innerWidth, scrollY, e.offsetParent ? 1 : 0, document.querySelector('header').getBoundingClientRect().bottom]; })()`, sel))
			if r[7] == 0 || r[0] < r[8] || r[1] > r[4] || r[2] < 0 || r[3] > r[5] || r[6] != 0 {
				t.Errorf("%s: %s is not in view without scrolling (top %.0f bottom %.0f of %.0f, header to %.0f, scrolled %.0f)", what, sel, r[0], r[1], r[4], r[8], r[6])
			}
		}
	}
	taps := func(what string) {
		t.Helper()
		small := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('button, a[href], .stake span, input:not([type=radio])'))
			.filter(e => e.offsetParent !== null && getComputedStyle(e).visibility !== 'hidden' && !e.closest('.skip'))
			.filter(e => e.offsetWidth > 0 && (e.offsetWidth < 44 || e.offsetHeight < 44))
			.map(e => (e.id || e.className || e.tagName) + ' ' + e.offsetWidth + 'x' + e.offsetHeight)`)
		if len(small) > 0 {
			t.Errorf("%s: targets under 44×44 px: %v", what, small)
		}
	}
	for _, v := range []struct {
		w, h   int64
		mobile bool
	}{{1366, 768, false}, {390, 844, true}} {
		what := fmt.Sprintf("%dx%d", v.w, v.h)
		viewport(t, ctx, v.w, v.h, v.mobile)
		openAt(t, ctx, s, 1, "#jeu")
		inView(what+", idle", "#play", "#auto", "input[name=stake][value='100'] + span", "#sky .star:last-child")
		taps(what + ", idle")
		if v.mobile {
			// Rows: the header's parts grouped by their vertical middles.
			rows := eval[int](t, ctx, `Array.from(document.querySelectorAll('header > *')).filter(e => e.offsetParent !== null && getComputedStyle(e).visibility !== 'hidden')
				.map(e => { const r = e.getBoundingClientRect(); return (r.top + r.bottom) / 2; }).sort((a, b) => a - b)
				.reduce((n, y, i, ys) => n + (i === 0 || y - ys[i - 1] > 20 ? 1 : 0), 0)`)
			if rows > 2 || eval[float64](t, ctx, `document.querySelector('header').getBoundingClientRect().height`) > 112 {
				t.Errorf("%s: with 1 000 000 € the header takes %d rows", what, rows)
			}
			shot(t, ctx, "phone-5-large-balance")
		}
		step(t, ctx, "Auto", chromedp.Click("#auto"))
		waitFor(t, ctx, `document.body.dataset.state === 'auto' && !document.querySelector('#autoctl').hidden`)
		inView(what+", auto", "#faster", "#skip")
		step(t, ctx, "skip", chromedp.Click("#skip"))
		waitFor(t, ctx, `document.querySelector('#result').dataset.state === 'done' && document.body.dataset.state === 'idle'`)
		inView(what+", the end", "#again", "#result", "#gains")
		taps(what + ", the end")
		shot(t, ctx, "controls-end-"+what)
		historyRows(t, ctx, len(p.games()))
		taps(what + ", the history")
		step(t, ctx, "replay", chromedp.Click(`#history .hrow button.replay`), chromedp.WaitVisible("#step"))
		inView(what+", a replay", "#step", "#replay-all", "#replay-close")
		taps(what + ", a replay")
		step(t, ctx, "close the replay", chromedp.Click("#replay-close"))
	}
	// The proof's path: its numbers inside the dialog.
	historyRows(t, ctx, len(p.games()))
	step(t, ctx, "proof", chromedp.Click(`#history .hrow button.proofbtn`))
	waitFor(t, ctx, `document.querySelector('#proof-status').dataset.verified !== ''`)
	if got := eval[string](t, ctx, `getComputedStyle(document.querySelector('#proof-facts ol')).listStylePosition`); got != "inside" {
		t.Errorf("the proof's path list numbers are drawn outside its box (%s), where they are cut off", got)
	}
	shot(t, ctx, "phone-6-proof")
}

// games lists the player's games, newest first.
func (p *player) games() []gameJSON {
	var list struct{ Games []gameJSON }
	p.must(200, &list, "GET", "/api/v1/games?limit=100", nil)
	return list.Games
}

// Item 11: every error shows in the player's language, from its code; a username may hold
// accented letters; a password is at least 8 characters. Issue 12: the sign-up asks who the
// player is, says why, and refuses a minor.
func testErrorsInFrench(t *testing.T, ctx context.Context) {
	s := newSite(t)
	open(t, ctx, s, "")
	if why := text(t, ctx, "#signup-why"); !strings.Contains(why, "interdit aux mineurs") {
		t.Errorf("the sign-up does not say why it asks who the player is: %q", why)
	}
	if foot := text(t, ctx, "footer.legal"); !strings.Contains(foot, "18+") || !strings.Contains(foot, "Jouer comporte des risques : endettement, isolement, dépendance. Pour être aidé, appelez le 09 74 75 13 13 (appel non surtaxé).") {
		t.Errorf("the footer of the page: %q", foot)
	}
	signUpAs := func(name, password, birth string) string {
		step(t, ctx, "sign up", chromedp.WaitVisible("#signup-user"),
			chromedp.SetValue("#signup-user", name), chromedp.SetValue("#signup-pass", password),
			chromedp.SetValue("#signup-last", "Lænna"), chromedp.SetValue("#signup-first", "Zoé"),
			chromedp.SetValue("#signup-birth", birth),
			chromedp.Click("#signup-form button[type=submit]"))
		waitFor(t, ctx, `document.querySelector('#signup-form .err').textContent !== '' || document.body.classList.contains('in')`)
		return text(t, ctx, "#signup-form .err")
	}
	adult := "1990-01-01"
	minor := time.Now().UTC().AddDate(-17, 0, 0).Format(time.DateOnly)
	for _, c := range []struct{ name, password, birth, want string }{
		{"ab", "a good long password", adult, "Identifiant refusé"},
		{"zoé", "abcd", adult, "Mot de passe refusé"},
		{"zoé", "password", adult, "Mot de passe refusé"},
		{"zoé", "un mot de passe sûr", "", "Indiquez votre nom"},
		{"zoé", "un mot de passe sûr", minor, "Le jeu est interdit aux mineurs"},
	} {
		got := signUpAs(c.name, c.password, c.birth)
		if !strings.HasPrefix(got, c.want) || strings.Contains(got, "characters") || strings.Contains(got, "username") {
			t.Errorf("sign-up %q / %q / %q: %q, want a French sentence starting %q", c.name, c.password, c.birth, got, c.want)
		}
	}
	if got := signUpAs("Zoé-Lænna", "un mot de passe sûr", adult); got != "" || !eval[bool](t, ctx, `document.body.classList.contains('in')`) {
		t.Errorf("an accented username: %q", got)
	}
	if got := text(t, ctx, "#user"); got != "Zoé-Lænna" {
		t.Errorf("signed up as %q", got)
	}
}
