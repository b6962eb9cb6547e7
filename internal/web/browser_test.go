package web_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"golang.org/x/mod/sumdb/note"

	"starcolor/internal/app"
	"starcolor/internal/app/apptest"
	"starcolor/internal/browsertest"
	"starcolor/internal/emission"
)

// site is the real server as `starcolor serve` composes it (the API under /api/, the page at /)
// over a temporary SQLite file holding one mini block of 1,000 units at 1 €, its journal signed
// in the background as serve does.
type site struct {
	url string
	db  app.Store
	e   *emission.Emission
}

func newSite(t *testing.T) *site {
	t.Helper()
	a := apptest.Start(t, apptest.Options{Seed: 7, Journal: true})
	return &site{url: a.URL, db: a.Store, e: a.Emission}
}

// extraUnit finds the first unit of the block with an Extra stage.
func (s *site) extraUnit(t *testing.T) int {
	t.Helper()
	r, err := emission.NewReader(s.e, s.db)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		rec, err := r.Unit(context.Background(), 0, i)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Unit.HasB2 {
			return i
		}
	}
	t.Fatal("no unit with an Extra stage in the block")
	return -1
}

// player is a player's API client on the Go side, to read the server's state (or to buy units).
type player struct {
	t    *testing.T
	base string
	http *http.Client
	n    int
}

func (s *site) player(t *testing.T, name string, signUp bool) *player {
	p := s.login(t, name, signUp)
	// Limits high enough to stay out of the way (the limits screen's own test sets them itself).
	p.must(200, nil, "PUT", "/api/v1/me/limits", map[string]int64{"deposit_weekly": 100_000_000, "stake_weekly": 100_000_000})
	return p
}

// login is a player's API client, logged in (signed up first if asked), its limits as they are.
func (s *site) login(t *testing.T, name string, signUp bool) *player {
	jar, _ := cookiejar.New(nil)
	p := &player{t: t, base: s.url, http: &http.Client{Jar: jar, Timeout: 20 * time.Second}}
	cred := map[string]string{"username": name, "password": "secret-" + name}
	if signUp {
		p.must(201, nil, "POST", "/api/v1/players", map[string]string{"username": name, "password": "secret-" + name,
			"last_name": "Martin", "first_names": "Jeanne", "birth_date": "1990-01-01"})
	}
	p.must(200, nil, "POST", "/api/v1/session", cred)
	return p
}

func (p *player) must(want int, v any, method, path string, body any) {
	p.t.Helper()
	var r io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		r = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(method, p.base+path, r)
	req.Header.Set("Content-Type", "application/json")
	if method == "POST" {
		p.n++
		req.Header.Set("Idempotency-Key", fmt.Sprintf("go-%d-%d", time.Now().UnixNano(), p.n))
	}
	res, err := p.http.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		p.t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, raw)
	}
	if v != nil {
		if err := json.Unmarshal(raw, v); err != nil {
			p.t.Fatal(err)
		}
	}
}

func (p *player) balance() int64 {
	var me struct{ Balance int64 }
	p.must(200, &me, "GET", "/api/v1/me", nil)
	return me.Balance
}

type gameJSON struct {
	ID     int64  `json:"id"`
	Status string `json:"status"`
	Mode   string `json:"mode"`
	Prize  int64  `json:"prize"`
	Color  *int   `json:"color"`
	Unit   struct {
		Index int `json:"index"`
	} `json:"unit"`
	Boards []struct {
		Colors []int `json:"colors"`
		Cells  []*struct {
			Kind string `json:"kind"`
		} `json:"cells"`
	} `json:"boards"`
	Events []struct {
		Cause string `json:"cause"`
	} `json:"events"`
}

func (p *player) last() gameJSON {
	var list struct{ Games []gameJSON }
	p.must(200, &list, "GET", "/api/v1/games?limit=1", nil)
	if len(list.Games) == 0 {
		p.t.Fatal("no game on the server")
	}
	return list.Games[0]
}

// ---- the page ----

// step runs browser actions with a bound, failing the test on error.
func step(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	c, cancel := browsertest.Timeout(ctx, 15*time.Second)
	defer cancel()
	if err := chromedp.Do(c, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	c, cancel := browsertest.Timeout(ctx, 15*time.Second)
	defer cancel()
	v, err := chromedp.Run(c, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// waitFor waits until a JavaScript condition holds on the page.
func waitFor(t *testing.T, ctx context.Context, cond string) {
	t.Helper()
	step(t, ctx, "wait for "+cond, chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingInterval(20*time.Millisecond)))
}

// open loads the page with its animations 100 times faster.
func open(t *testing.T, ctx context.Context, s *site, hash string) {
	step(t, ctx, "open the page", chromedp.Navigate(s.url+"/?speed=100"+hash), chromedp.WaitReady("body"))
	waitFor(t, ctx, `document.body.dataset.state !== 'loading'`)
}

// shot saves a screenshot once the motions under way have ended: a headless browser draws
// frames only on demand, and would catch them at their first frame.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	eval[bool](t, ctx, `(async () => {
		const finite = document.getAnimations().filter(a => a.effect && a.effect.getComputedTiming().endTime !== Infinity);
		await Promise.all(finite.map(a => a.finished.catch(() => {})));
		await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
		return true;
	})()`)
	browsertest.Screenshot(t, ctx, name)
}

func signUp(t *testing.T, ctx context.Context, s *site, name string) {
	signUpPage(t, ctx, s, name)
	s.player(t, name, false) // sets limits out of the way, from another device
}

// signUpPage signs up through the page alone: the player has no limits yet.
func signUpPage(t *testing.T, ctx context.Context, s *site, name string) {
	open(t, ctx, s, "")
	step(t, ctx, "sign up",
		chromedp.WaitVisible("#signup-user"),
		chromedp.SendKeys("#signup-user", name),
		chromedp.SendKeys("#signup-pass", "secret-"+name),
		chromedp.SendKeys("#signup-last", "Martin"),
		chromedp.SendKeys("#signup-first", "Jeanne"),
		chromedp.SetValue("#signup-birth", "1990-01-01"),
		chromedp.Click("#signup-form button[type=submit]"))
	waitFor(t, ctx, `document.body.classList.contains('in') && document.querySelector('#balance').dataset.cents === '0'`)
}

func deposit(t *testing.T, ctx context.Context, euros int) {
	before := eval[string](t, ctx, `document.querySelector('#balance').dataset.cents`)
	step(t, ctx, "deposit",
		chromedp.SetValue("#deposit-amount", strconv.Itoa(euros)),
		chromedp.Click("#deposit"))
	waitFor(t, ctx, fmt.Sprintf(`document.querySelector('#balance').dataset.cents !== %q`, before))
}

func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	c, cancel := browsertest.Timeout(ctx, 15*time.Second)
	defer cancel()
	v, err := chromedp.Run(c, chromedp.Text(sel))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return strings.Join(strings.Fields(strings.NewReplacer("\u202f", " ", "\u00a0", " ").Replace(v)), " ")
}

func euros(cents int64) string {
	if cents%100 == 0 {
		return fmt.Sprintf("%d €", cents/100)
	}
	return fmt.Sprintf("%d,%02d €", cents/100, cents%100)
}

// clickToEnd clicks the stars that can be clicked, one at a time, until the game's result shows.
func clickToEnd(t *testing.T, ctx context.Context) int {
	t.Helper()
	clicks := 0
	for {
		waitFor(t, ctx, `document.body.dataset.busy === 'no' && (document.querySelector('#result').dataset.state === 'done' || !!document.querySelector('#sky .star.playable'))`)
		if eval[string](t, ctx, `document.querySelector('#result').dataset.state`) == "done" {
			return clicks
		}
		if clicks++; clicks > 7 {
			t.Fatal("more than 7 clicks in a game")
		}
		step(t, ctx, "click a star", chromedp.Click("#sky .star.playable"))
		waitFor(t, ctx, `document.body.dataset.busy === 'no'`)
	}
}

// checkShown compares what the page shows at the end of a game with the server's game: the
// result, the balance, and the stars revealed on the board shown (the last one).
func checkShown(t *testing.T, ctx context.Context, p *player, g gameJSON) {
	t.Helper()
	want := "Perdu"
	if g.Prize > 0 {
		want = "Gagné " + euros(g.Prize)
	}
	if got := text(t, ctx, "#result"); got != want {
		t.Errorf("result %q, want %q (game %d)", got, want, g.ID)
	}
	if got, want := eval[string](t, ctx, `document.querySelector('#balance').dataset.cents`), strconv.FormatInt(p.balance(), 10); got != want {
		t.Errorf("balance shown %s, server %s", got, want)
	}
	if got := eval[int](t, ctx, `+document.querySelector('#total').dataset.cents`); int64(got) != g.Prize {
		t.Errorf("running total %d, prize %d", got, g.Prize)
	}
	b := g.Boards[len(g.Boards)-1]
	shown := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('#sky .star'), s => s.dataset.state === 'revealed' ? s.dataset.kind : '')`)
	colors := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('#sky .star'), s => s.dataset.color)`)
	for i, c := range b.Cells {
		want := ""
		if c != nil {
			want = c.Kind
		}
		if shown[i] != want || colors[i] != strconv.Itoa(b.Colors[i]) {
			t.Errorf("star %d shows %q in colour %s, server %q in colour %d", i, shown[i], colors[i], want, b.Colors[i])
		}
	}
}

// The prize never shows before the reveal ends: the balance shown during a game is the balance
// before the sale less the stake.
func checkHeldBack(t *testing.T, ctx context.Context, before int64) {
	t.Helper()
	if got := eval[string](t, ctx, `document.querySelector('#balance').dataset.cents`); got != strconv.FormatInt(before-100, 10) {
		t.Errorf("balance during the game %s, want %d (the prize held back)", got, before-100)
	}
	if got := eval[string](t, ctx, `document.querySelector('#result').textContent`); got != "" {
		t.Errorf("a result shows during the game: %q", got)
	}
}

// TestPlayerPage plays through the page in one headless Chromium, each flow in a tab of its own
// (a separate browser context: its own cookies) on a server of its own.
func TestPlayerPage(t *testing.T) {
	browser := browsertest.New(t, browsertest.Options{})
	for _, f := range []struct {
		name   string
		mobile bool
		run    func(*testing.T, context.Context)
	}{
		{"SignUpDepositAndPlayByHand", false, testSignUpDepositAndPlayByHand},
		{"ExtraStage", false, testExtraStage},
		{"AutoGameOnAPhone", true, testAutoGameOnAPhone},
		{"ReloadResumes", false, testReloadResumes},
		{"HistoryReplayAndProof", false, testHistoryReplayAndProof},
		{"JournalProof", false, testJournalProof},
		{"AccessibilityDesktop", false, testAccessibility},
		{"AccessibilityPhone", true, testAccessibility},
		{"HistoryDuringAReveal", false, testHistoryDuringAReveal},
		{"InterruptedGameInHistory", false, testInterruptedGameInHistory},
		{"ReloadDuringAuto", false, testReloadDuringAuto},
		{"ExtraStageGains", false, testExtraStageGains},
		{"PlayAgain", false, testPlayAgain},
		{"ResultCardLevels", false, testResultCardLevels},
		{"ResultCardOnAPhone", true, testResultCardOnAPhone},
		{"ResultCardSkipAndReducedMotion", false, testResultCardSkipAndReducedMotion},
		{"ReplayInView", false, testReplayInView},
		{"Withdrawal", false, testWithdrawal},
		{"PasswordChange", false, testPasswordChange},
		{"PhoneHistory", true, testPhoneHistory},
		{"LimitsDialogFits", false, testLimitsDialogFits},
		{"Sound", false, testSound},
		{"TopPrize", false, testTopPrize},
		{"RulesPage", false, testRulesPage},
		{"ControlsInView", false, testControlsInView},
		{"ErrorsInFrench", false, testErrorsInFrench},
		{"LimitsScreen", false, testLimitsScreen},
		{"RealityCheck", false, testRealityCheck},
		{"ExclusionAndClosure", false, testExclusionAndClosure},
		{"ProtectionOnAPhone", true, testProtectionOnAPhone},
	} {
		t.Run(f.name, func(t *testing.T) { f.run(t, tab(t, browser, f.mobile)) })
	}
}

// tab opens a tab in a new browser context, desktop- or phone-sized (as browsertest.Options).
func tab(t *testing.T, browser context.Context, mobile bool) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	view := chromedp.EmulateViewport(1280, 900)
	if mobile {
		view = chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateTouch)
	}
	if err := chromedp.Do(ctx, view); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	return ctx
}

func testSignUpDepositAndPlayByHand(t *testing.T, ctx context.Context) {
	s := newSite(t)
	signUp(t, ctx, s, "alice")
	shot(t, ctx, "desktop-1-signed-up")
	deposit(t, ctx, 20)
	p := s.player(t, "alice", false)
	if got := eval[string](t, ctx, `document.querySelector('#balance').dataset.cents`); got != "2000" || p.balance() != 2000 {
		t.Fatalf("after a deposit of 20 €: page %s, server %d", got, p.balance())
	}
	if got := text(t, ctx, "#balance"); got != "20 €" {
		t.Errorf("balance text %q", got)
	}
	step(t, ctx, "Jouer", chromedp.Click("#play"), chromedp.WaitVisible("#colors .swatch"))
	checkHeldBack(t, ctx, 2000)
	shot(t, ctx, "desktop-2-choose-colour")
	step(t, ctx, "choose vert", chromedp.Click(`#colors .swatch[data-color="2"]`))
	waitFor(t, ctx, `document.querySelectorAll('#sky .star.playable').length > 0`)
	// Only the stars of the colour chosen can be clicked, and each names its colour.
	if n := eval[int](t, ctx, `document.querySelectorAll('#sky .star.playable:not([data-color="2"])').length`); n != 0 {
		t.Errorf("%d stars of another colour can be clicked", n)
	}
	if l := eval[string](t, ctx, `document.querySelector('#sky .star.playable').getAttribute('aria-label')`); !strings.Contains(l, "vert") {
		t.Errorf("a star's label %q does not name its colour", l)
	}
	checkHeldBack(t, ctx, 2000)
	shot(t, ctx, "desktop-3-playing")
	clicks := clickToEnd(t, ctx)
	g := p.last()
	if g.Status != "finished" || g.Mode != "manual" || *g.Color != 2 {
		t.Fatalf("server game %+v", g)
	}
	t.Logf("game %d: %d clicks, prize %d", g.ID, clicks, g.Prize)
	checkShown(t, ctx, p, g)
	shot(t, ctx, "desktop-4-result")

	// The English switch.
	step(t, ctx, "English", chromedp.Click("#lang"))
	want := "Lost"
	if g.Prize > 0 {
		want = "Won €" + strings.TrimSuffix(strings.TrimSuffix(euros(g.Prize), " €"), ",00")
	}
	if got := text(t, ctx, "#result"); got != want {
		t.Errorf("result in English %q, want %q", got, want)
	}
	step(t, ctx, "French", chromedp.Click("#lang"))
}

func testExtraStage(t *testing.T, ctx context.Context) {
	s := newSite(t)
	target := s.extraUnit(t)
	// Another player buys the units before it, so that the page's player gets it.
	if target > 0 {
		other := s.player(t, "filler", true)
		other.must(201, nil, "POST", "/api/v1/deposits", map[string]int64{"amount": int64(target) * 100})
		for range target {
			other.must(201, nil, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"})
		}
	}
	signUp(t, ctx, s, "bob")
	deposit(t, ctx, 10)
	// This game is played with the keyboard alone: the focus goes to the first colour, then to
	// the stars to click, one after another.
	step(t, ctx, "Jouer", chromedp.Click("#play"), chromedp.WaitVisible("#colors .swatch"))
	waitFor(t, ctx, `document.activeElement.matches('#colors .swatch[data-color="0"]')`)
	step(t, ctx, "choose violet with the keyboard", chromedp.KeyEvent("\r"))
	for presses := 0; eval[string](t, ctx, `document.querySelector('#result').dataset.state`) != "done"; presses++ {
		if presses > 7 {
			t.Fatal("more than 7 presses of Enter in a game")
		}
		waitFor(t, ctx, `document.body.dataset.busy === 'no' && (document.querySelector('#result').dataset.state === 'done' || document.activeElement.matches('#sky .star.playable'))`)
		if eval[string](t, ctx, `document.querySelector('#result').dataset.state`) == "done" {
			break
		}
		step(t, ctx, "Enter on a star", chromedp.KeyEvent("\r"))
		waitFor(t, ctx, `document.body.dataset.busy === 'no'`)
	}
	p := s.player(t, "bob", false)
	g := p.last()
	if g.Unit.Index != target || len(g.Boards) != 2 {
		t.Fatalf("game on unit %d with %d boards, want unit %d with an Extra stage", g.Unit.Index, len(g.Boards), target)
	}
	if b := eval[string](t, ctx, `document.querySelector('#sky').dataset.board`); b != "2" {
		t.Errorf("the sky shows board %s at the end, want the Extra stage's board 2", b)
	}
	checkShown(t, ctx, p, g)
	shot(t, ctx, "desktop-5-extra-stage")
}

func testAutoGameOnAPhone(t *testing.T, ctx context.Context) {
	s := newSite(t)
	open(t, ctx, s, "")
	step(t, ctx, "the welcome", chromedp.WaitVisible("#signup-user"))
	shot(t, ctx, "phone-0-welcome")
	signUp(t, ctx, s, "carol")
	shot(t, ctx, "phone-1-signed-up")
	deposit(t, ctx, 5)
	p := s.player(t, "carol", false)
	for n := range 2 {
		step(t, ctx, "Auto", chromedp.Click("#auto"))
		waitFor(t, ctx, `document.querySelector('#result').dataset.state === 'done'`)
		g := p.last()
		if got := eval[string](t, ctx, `document.querySelector('#result').dataset.game`); got != strconv.FormatInt(g.ID, 10) {
			t.Fatalf("the result shown is of game %s, the last game is %d", got, g.ID)
		}
		if g.Mode != "auto" || g.Status != "finished" {
			t.Fatalf("server game %+v", g)
		}
		checkShown(t, ctx, p, g)
		shot(t, ctx, fmt.Sprintf("phone-2-auto-%d", n))
	}
	// The controls to speed up and skip show while an auto game plays (at normal speed here).
	step(t, ctx, "normal speed", chromedp.Navigate(s.url+"/"))
	waitFor(t, ctx, `document.body.dataset.state === 'idle'`)
	step(t, ctx, "Auto", chromedp.Click("#auto"), chromedp.WaitVisible("#skip"))
	waitFor(t, ctx, `document.querySelectorAll('#sky .star[data-state=revealed]').length >= 2`)
	shot(t, ctx, "phone-3-auto-playing")
	step(t, ctx, "skip", chromedp.Click("#skip"))
	waitFor(t, ctx, `document.querySelector('#result').dataset.state === 'done'`)
	checkShown(t, ctx, p, p.last())
	step(t, ctx, "rules", chromedp.Navigate(s.url+"/#regles"), chromedp.WaitVisible(".prizes"))
	shot(t, ctx, "phone-4-rules")
}

func testReloadResumes(t *testing.T, ctx context.Context) {
	s := newSite(t)
	signUp(t, ctx, s, "dave")
	deposit(t, ctx, 10)
	p := s.player(t, "dave", false)
	step(t, ctx, "Jouer", chromedp.Click("#play"), chromedp.WaitVisible("#colors .swatch"))
	// A reload before the colour is chosen takes nothing over [4.1]: the game screen offers the
	// game, and « Reprendre » comes back to the choice.
	step(t, ctx, "reload", chromedp.Reload())
	waitFor(t, ctx, `document.body.dataset.state === 'idle' && !document.querySelector('#unfinished').hidden`)
	step(t, ctx, "Reprendre", chromedp.Click("#unfinished-resume"))
	waitFor(t, ctx, `document.body.dataset.state === 'choose'`)
	step(t, ctx, "choose bleu", chromedp.WaitVisible("#colors .swatch"), chromedp.Click(`#colors .swatch[data-color="1"]`))
	waitFor(t, ctx, `!!document.querySelector('#sky .star.playable')`)
	step(t, ctx, "click a star", chromedp.Click("#sky .star.playable"))
	waitFor(t, ctx, `document.body.dataset.busy === 'no'`)
	g := p.last()
	if g.Status == "finished" {
		t.Skip("the first click finished the game: nothing to resume") // cannot happen with this seed
	}
	step(t, ctx, "reload", chromedp.Reload())
	waitFor(t, ctx, `document.body.dataset.state === 'idle' && !document.querySelector('#unfinished').hidden`)
	step(t, ctx, "Reprendre", chromedp.Click("#unfinished-resume"))
	waitFor(t, ctx, `document.body.dataset.state === 'play'`)
	checkHeldBack(t, ctx, 1000)
	revealed := 0
	for _, c := range g.Boards[0].Cells {
		if c != nil {
			revealed++
		}
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('#sky .star[data-state=revealed]').length`); n != revealed {
		t.Errorf("after a reload the page shows %d stars revealed, the server %d", n, revealed)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('#sky .star.playable:not([data-color="1"])').length`); n != 0 {
		t.Errorf("%d stars of another colour can be clicked after a reload", n)
	}
	shot(t, ctx, "desktop-6-resumed")
	clickToEnd(t, ctx)
	checkShown(t, ctx, p, p.last())
}

func testHistoryReplayAndProof(t *testing.T, ctx context.Context) {
	s := newSite(t)
	signUp(t, ctx, s, "erin")
	deposit(t, ctx, 10)
	step(t, ctx, "Jouer", chromedp.Click("#play"), chromedp.WaitVisible("#colors .swatch"))
	step(t, ctx, "choose jaune", chromedp.Click(`#colors .swatch[data-color="3"]`))
	clickToEnd(t, ctx)
	step(t, ctx, "Auto", chromedp.Click("#auto"))
	waitFor(t, ctx, `document.querySelector('#result').dataset.state === 'done' && document.body.dataset.state === 'idle'`)
	p := s.player(t, "erin", false)
	var list struct{ Games []gameJSON }
	p.must(200, &list, "GET", "/api/v1/games?limit=10", nil)

	step(t, ctx, "history", chromedp.Click(`.nav a[data-view=historique]`))
	waitFor(t, ctx, `document.querySelector('#history').getAttribute('aria-busy') === 'false' && document.querySelectorAll('#history .hrow').length === 2`)
	shot(t, ctx, "desktop-7-history")
	for i, g := range list.Games {
		want := "Perdu"
		if g.Prize > 0 {
			want = "Gagné " + euros(g.Prize)
		}
		if got := text(t, ctx, fmt.Sprintf(`#history .hrow:nth-child(%d) .hres`, i+1)); got != want {
			t.Errorf("history row %d: %q, want %q", i+1, got, want)
		}
	}

	// The replay of the manual game (the older one), step by step: one step a click.
	g := list.Games[1]
	clicks := 0
	for _, e := range g.Events {
		if e.Cause == "click" {
			clicks++
		}
	}
	step(t, ctx, "replay", chromedp.Click(`#history .hrow:nth-child(2) button.replay`), chromedp.WaitVisible("#step"))
	if n := eval[int](t, ctx, `document.querySelectorAll('#sky .star[data-state=revealed]').length`); n != 0 {
		t.Errorf("the replay starts with %d stars revealed", n)
	}
	steps := 0
	for eval[string](t, ctx, `document.querySelector('#result').dataset.state`) != "replayed" {
		if steps++; steps > 8 {
			t.Fatal("the replay does not end")
		}
		step(t, ctx, "next step", chromedp.Click("#step"))
		waitFor(t, ctx, `document.body.dataset.busy === 'no'`)
		if steps == 1 {
			shot(t, ctx, "desktop-8-replay-step")
		}
	}
	if steps != clicks {
		t.Errorf("the replay took %d steps, the game %d clicks", steps, clicks)
	}
	checkShown(t, ctx, p, g)
	step(t, ctx, "close the replay", chromedp.Click("#replay-close"))

	// The proof, checked in the page against the published root.
	step(t, ctx, "history", chromedp.Click(`.nav a[data-view=historique]`))
	waitFor(t, ctx, `document.querySelector('#history').getAttribute('aria-busy') === 'false' && document.querySelectorAll('#history .hrow').length === 2`)
	step(t, ctx, "proof", chromedp.Click(`#history .hrow:nth-child(2) button.proofbtn`))
	waitFor(t, ctx, `document.querySelector('#proof-status').dataset.verified !== ''`)
	if v := eval[string](t, ctx, `document.querySelector('#proof-status').dataset.verified`); v != "true" {
		t.Errorf("proof not verified in the page: %s", text(t, ctx, "#proof-status"))
	}
	if got := text(t, ctx, "#proof-status"); !strings.HasPrefix(got, "Vérifié") {
		t.Errorf("proof status %q", got)
	}
	shot(t, ctx, "desktop-9-proof")
	// The same check refuses a line changed by one byte, or a wrong index.
	got := eval[[]bool](t, ctx, fmt.Sprintf(`(async () => {
		const p = await (await fetch('/api/v1/games/%d/proof')).json();
		const ok = await starcolor.rootFromPath(p.line, p.index, 1000, p.path);
		const bad = await starcolor.rootFromPath(p.line.replace('"prize":', '"prize": '), p.index, 1000, p.path);
		const moved = await starcolor.rootFromPath(p.line, p.index ^ 1, 1000, p.path);
		return [ok === p.root, bad !== p.root, moved !== p.root];
	})()`, g.ID))
	if len(got) != 3 || !got[0] || !got[1] || !got[2] {
		t.Errorf("the page's proof check: %v", got)
	}
}

// tamper is a fetch of the page's that changes one byte of a game's proof in flight, as a
// network or a server that lies would: the journal part's path, its entry or its checkpoint; or
// drops the journal part; "" leaves the proof alone.
const tamper = `(() => {
	const fetched = window.fetch;
	const flip = s => s.slice(0, -1) + (s.slice(-1) === '0' ? '1' : '0');
	window.fetch = async (url, opts) => {
		const r = await fetched(url, opts);
		const what = window.tampered;
		if (!what || !/\/games\/\d+\/proof$/.test(String(url))) return r;
		const p = await r.json();
		if (what === 'path') p.journal.path[0] = flip(p.journal.path[0]);
		if (what === 'entry') p.journal.entry = p.journal.entry.replace(/"account":"([0-9a-f]*)"/, (m, a) => '"account":"' + flip(a) + '"');
		if (what === 'checkpoint') p.journal.checkpoint = p.journal.checkpoint.replace(/\n(\d+)\n/, (m, n) => '\n' + (Number(n) + 1) + '\n');
		if (what === 'drop') delete p.journal;
		return new Response(JSON.stringify(p), { status: r.status, headers: r.headers });
	};
	window.tampered = '';
	return true;
})()`

// The proof dialog checks the sale in the journal in the page, with WebCrypto alone: the entry's
// path to the signed checkpoint's root, what the entry names, the checkpoint's Ed25519
// signature. It says so in French for a real game, says it failed when one byte of the proof
// is changed on its way, waits while no checkpoint covers the sale, and does not claim a
// signature it could not check.
func testJournalProof(t *testing.T, ctx context.Context) {
	s := newSite(t)
	signUp(t, ctx, s, "jules")
	deposit(t, ctx, 10)
	step(t, ctx, "Auto", chromedp.Click("#auto"))
	waitFor(t, ctx, `document.querySelector('#result').dataset.state === 'done' && document.body.dataset.state === 'idle'`)
	eval[bool](t, ctx, tamper)
	step(t, ctx, "history", chromedp.Click(`.nav a[data-view=historique]`))
	waitFor(t, ctx, `document.querySelector('#history').getAttribute('aria-busy') === 'false' && document.querySelectorAll('#history .hrow').length === 1`)
	// proof opens the dialog as the page has it fetch the proof, and waits for a verdict on the
	// journal's part.
	proof := func(what, want string) {
		t.Helper()
		eval[bool](t, ctx, fmt.Sprintf(`(window.tampered = %q, true)`, what))
		step(t, ctx, "proof", chromedp.Click(`#history .hrow:nth-child(1) button.proofbtn`))
		waitFor(t, ctx, fmt.Sprintf(`document.querySelector('#proof-journal').dataset.verified === %q`, want))
		if v := eval[string](t, ctx, `document.querySelector('#proof-status').dataset.verified`); v != "true" {
			t.Errorf("%s: the unit is not verified in its block: %s", what, text(t, ctx, "#proof-status"))
		}
	}
	checks := func() string {
		return eval[string](t, ctx, `Array.from(document.querySelectorAll('#proof-checks li'), li => li.className).join(' ')`)
	}
	closeProof := func() { step(t, ctx, "close the proof", chromedp.Click(`#proof button[value=close]`)) }

	// No checkpoint covers the sale (its journal part dropped): the dialog waits, and asks again.
	proof("drop", "pending")
	if got := text(t, ctx, "#proof-journal"); !strings.Contains(got, "en attente de la prochaine signature, quelques secondes") {
		t.Errorf("a sale no checkpoint covers: %q", got)
	}
	eval[bool](t, ctx, `(window.tampered = '', true)`)
	waitFor(t, ctx, `document.querySelector('#proof-journal').dataset.verified === 'true'`)
	closeProof()

	proof("", "true")
	if got := text(t, ctx, "#proof-journal"); !strings.HasPrefix(got, "Vente inscrite au journal, vérifiée") {
		t.Errorf("the journal's verdict: %q", got)
	}
	if got := checks(); got != "ok ok ok ok" {
		t.Errorf("the checks: %q, want the unit, the inclusion, the entry's names and the signature ok", got)
	}
	for _, fact := range []string{"Entrée de la vente", "Point de contrôle signé", "Clé publique du journal"} {
		if !strings.Contains(text(t, ctx, "#proof-facts"), fact) {
			t.Errorf("the dialog does not show %s", fact)
		}
	}
	shot(t, ctx, "desktop-10-journal-proof")
	browsertest.Axe(t, ctx, "the proof dialog, its journal verified")
	closeProof()

	for _, c := range []struct{ what, checks string }{
		{"path", "ok ko ok ok"},       // the path leads elsewhere
		{"entry", "ok ko ok ok"},      // another entry's leaf: its names are this game's still
		{"checkpoint", "ok ko ok ko"}, // another size: its signature fails, and the path with it
	} {
		proof(c.what, "false")
		if got := text(t, ctx, "#proof-journal"); !strings.HasPrefix(got, "Vente non vérifiée dans le journal") {
			t.Errorf("%s changed by a byte: %q", c.what, got)
		}
		if got := checks(); got != c.checks {
			t.Errorf("%s changed by a byte: the checks %q, want %q", c.what, got, c.checks)
		}
		closeProof()
	}

	// The page's note check against sumdb/note's signatures, whatever the key's base64 holds
	// (a '+', which also ends the key's name and id, in half of the keys): a note signed
	// verifies, a note changed or signed by another key does not.
	const body = "starcolor-journal-test\n7\nq1JmXJ8i2Aq+5Yp5ElTUU0b/cGAlWKC6Od7bMkA0IGE=\n"
	for i := range 200 {
		skey, vkey, err := note.GenerateKey(rand.Reader, "starcolor-journal-test")
		if err != nil {
			t.Fatal(err)
		}
		if i < 199 && strings.Count(vkey, "+") < 3 {
			continue
		}
		signer, _ := note.NewSigner(skey)
		msg, err := note.Sign(&note.Note{Text: body}, signer)
		if err != nil {
			t.Fatal(err)
		}
		_, otherKey, _ := note.GenerateKey(rand.Reader, "starcolor-journal-test")
		got := eval[[]any](t, ctx, fmt.Sprintf(`(async () => [await starcolor.openNote(%q, %q), await starcolor.openNote(%q, %q), await starcolor.openNote(%q, %q)])()`,
			msg, vkey, strings.Replace(string(msg), "\n7\n", "\n8\n", 1), vkey, msg, otherKey))
		if len(got) != 3 || got[0] != body || got[1] != nil || got[2] != nil {
			t.Errorf("the page's note check with the key %s: %v", vkey, got)
		}
		break
	}

	// A browser without Ed25519 in WebCrypto: said so, never claimed verified.
	eval[bool](t, ctx, `(() => {
		const importKey = crypto.subtle.importKey.bind(crypto.subtle);
		crypto.subtle.importKey = (f, k, alg, ...rest) =>
			alg && alg.name === 'Ed25519' ? Promise.reject(new DOMException('no Ed25519', 'NotSupportedError')) : importKey(f, k, alg, ...rest);
		return true;
	})()`)
	proof("", "unsupported")
	if got := text(t, ctx, "#proof-journal"); !strings.Contains(got, "signature non vérifiée") {
		t.Errorf("without Ed25519: %q", got)
	}
	if got := checks(); got != "ok ok ok wait" {
		t.Errorf("without Ed25519: the checks %q", got)
	}
}

// Every screen of the page passes axe-core with no serious or critical violation: the welcome,
// the game idle, the colour choice, a game in play, its end, the history, a replay, the proof
// dialog and the rules; on a desktop and on a phone.
func testAccessibility(t *testing.T, ctx context.Context) {
	s := newSite(t)
	open(t, ctx, s, "")
	step(t, ctx, "the welcome", chromedp.WaitVisible("#signup-user"))
	browsertest.Axe(t, ctx, "the welcome")
	signUp(t, ctx, s, "axel")
	deposit(t, ctx, 10)
	browsertest.Axe(t, ctx, "the game, idle")
	step(t, ctx, "Jouer", chromedp.Click("#play"), chromedp.WaitVisible("#colors .swatch"))
	browsertest.Axe(t, ctx, "the colour choice")
	step(t, ctx, "choose rose", chromedp.Click(`#colors .swatch[data-color="5"]`))
	waitFor(t, ctx, `document.querySelectorAll('#sky .star.playable').length > 0`)
	browsertest.Axe(t, ctx, "a game in play")
	clickToEnd(t, ctx)
	browsertest.Axe(t, ctx, "the end of a game")
	step(t, ctx, "history", chromedp.Click(`.nav a[data-view=historique]`))
	waitFor(t, ctx, `document.querySelector('#history').getAttribute('aria-busy') === 'false' && document.querySelectorAll('#history .hrow').length === 1`)
	browsertest.Axe(t, ctx, "the history")
	step(t, ctx, "proof", chromedp.Click(`#history .hrow:nth-child(1) button.proofbtn`))
	waitFor(t, ctx, `document.querySelector('#proof-status').dataset.verified !== ''`)
	browsertest.Axe(t, ctx, "the proof dialog")
	step(t, ctx, "close the proof", chromedp.Click(`#proof button[value=close]`))
	step(t, ctx, "replay", chromedp.Click(`#history .hrow:nth-child(1) button.replay`), chromedp.WaitVisible("#step"))
	step(t, ctx, "next step", chromedp.Click("#step"))
	waitFor(t, ctx, `document.body.dataset.busy === 'no'`)
	browsertest.Axe(t, ctx, "a replay")
	step(t, ctx, "my limits", chromedp.Click("#limits-open"))
	waitFor(t, ctx, `document.querySelector('#limits').open && document.querySelector('#lim-deposit').textContent !== ''`)
	browsertest.Axe(t, ctx, "the limits screen")
	step(t, ctx, "close my account", chromedp.Click("#closure-open"))
	waitFor(t, ctx, `document.querySelector('#closure').open`)
	browsertest.Axe(t, ctx, "the closure's confirmation")
	step(t, ctx, "cancel", chromedp.Click("#closure [data-close]"))
	step(t, ctx, "rules", chromedp.Navigate(s.url+"/?speed=100#regles"), chromedp.WaitVisible(".prizes"))
	browsertest.Axe(t, ctx, "the rules")
}
