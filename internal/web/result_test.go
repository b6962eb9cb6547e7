package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"starcolor/internal/audit"
	"starcolor/internal/browsertest"
)

// The flows of issue 20, « a result screen worth the wait, and the page's gaps »: the result
// card and its four levels, the replay in view, the withdrawal, the password change, the history
// on a phone, the lit stars and the limits screen at 1366×768. Each runs in a tab of its own
// (TestPlayerPage).

// cardShown waits for the result card of a game that has ended on screen.
const cardShown = `!document.querySelector('#card').hidden && document.body.dataset.state === 'idle' && document.body.dataset.busy === 'no'`

// digits is a text without its spaces, ordinary or not: "Gagné 20 000 €" and "Gagné 20000 €"
// read alike.
func digits(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\u00a0' || r == '\u202f' {
			return -1
		}
		return r
	}, s)
}

// checkCard compares the card with the server's game: its level, its title, its breakdown
// adding up to the prize, one chip an amount found, and the focus on « Rejouer ».
func checkCard(t *testing.T, ctx context.Context, g gameJSON, level string) {
	t.Helper()
	got := eval[[]string](t, ctx, `(() => { const c = document.querySelector('#card');
		return [c.dataset.level, c.className, c.dataset.game, document.querySelector('#card-gains').dataset.cents,
			String(document.querySelectorAll('#card-gains .g:not(.none)').length), document.activeElement.id,
			document.querySelector('#celebrate').dataset.win]; })()`)
	if got[0] != level || !strings.Contains(got[1], "lvl-"+level) {
		t.Errorf("game %d (prize %d): the card's level %q (class %q), want %s", g.ID, g.Prize, got[0], got[1], level)
	}
	if got[2] != strconv.FormatInt(g.ID, 10) {
		t.Errorf("the card is of game %s, the game played is %d", got[2], g.ID)
	}
	want := "Pas de chance"
	if g.Prize > 0 {
		want = "Gagné " + euros(g.Prize)
	}
	if title := text(t, ctx, "#card-title"); digits(title) != digits(want) {
		t.Errorf("the card says %q, want %q", title, want)
	}
	if g.Prize > 0 {
		amounts := 0
		for _, b := range g.Boards {
			for _, c := range b.Cells {
				if c != nil && c.Kind == "amount" {
					amounts++
				}
			}
		}
		if got[3] != strconv.FormatInt(g.Prize, 10) || got[4] != strconv.Itoa(amounts) {
			t.Errorf("the card's breakdown adds up to %s in %s amounts; the prize is %d in %d amounts", got[3], got[4], g.Prize, amounts)
		}
		if got[6] != level {
			t.Errorf("the celebration of a %s win is %q", level, got[6])
		}
	}
	if got[5] != "again" {
		t.Errorf("the focus is on %q at the end of a game, want « Rejouer »", got[5])
	}
}

// Item 1: each of the four levels of a win, and a loss, ends on its card, its celebration and
// its sound, on units of the seeded block; Enter on « Rejouer » plays again at the same stake.
func testResultCardLevels(t *testing.T, ctx context.Context) {
	s := newSite(t)
	viewport(t, ctx, 1366, 768, false)
	type level struct {
		unit         int
		name, sound  string
		says, shotAs string
	}
	levels := []level{
		{s.unitWhere(t, 0, func(r *audit.Record) bool { return r.Prize == 0 }), "lose", "lose", "", "lose"},
		{s.unitWhere(t, 0, func(r *audit.Record) bool { return r.Prize > 0 && r.Prize < 10*100 }), "small", "win", "Bien joué !", "small"},
		{s.unitWhere(t, 0, func(r *audit.Record) bool { return r.Prize >= 10*100 && r.Prize < 100*100 }), "good", "goodwin", "Beau gain !", "good"},
		{s.unitWhere(t, 0, func(r *audit.Record) bool { return r.Prize >= 100*100 && r.Prize < 2_000_000 }), "big", "bigwin", "Gros gain !", "big"},
		{s.unitWhere(t, 0, func(r *audit.Record) bool { return r.Prize == 2_000_000 }), "top", "topwin", "Le gros lot !", "top"},
	}
	slices.SortFunc(levels, func(a, b level) int { return a.unit - b.unit })
	signUp(t, ctx, s, "rita")
	deposit(t, ctx, 10)
	step(t, ctx, "sound on", chromedp.Click("#sound"))
	p := s.player(t, "rita", false)
	for _, c := range levels {
		s.advanceTo(t, c.unit)
		before := len(eval[[]string](t, ctx, `window.starcolor.sounds`))
		step(t, ctx, "Auto", chromedp.Click("#auto"))
		waitFor(t, ctx, cardShown)
		g := p.last()
		if g.Unit.Index != c.unit {
			t.Fatalf("played unit %d, want %d", g.Unit.Index, c.unit)
		}
		checkCard(t, ctx, g, c.name)
		if says := strings.NewReplacer("\u202f", " ", "\u00a0", " ").Replace(eval[string](t, ctx, `document.querySelector('#card-level').textContent`)); says != c.says {
			t.Errorf("the %s card says %q above its amount, want %q", c.name, says, c.says)
		}
		if played := eval[[]string](t, ctx, `window.starcolor.sounds`)[before:]; !slices.Contains(played, c.sound) {
			t.Errorf("the %s card played %v, want its sound %q", c.name, played, c.sound)
		}
		// The card lies over the board.
		if in := eval[bool](t, ctx, `(() => { const c = document.querySelector('#card').getBoundingClientRect(), b = document.querySelector('.skywrap').getBoundingClientRect();
			return c.width > 0 && Math.abs(c.top - b.top) < 2 && Math.abs(c.bottom - b.bottom) < 2 && Math.abs(c.left - b.left) < 2; })()`); !in {
			t.Errorf("the %s card is not over the board", c.name)
		}
		shot(t, ctx, "desktop-20-card-"+c.shotAs)
		if c.name == "lose" || c.name == "top" {
			browsertest.Axe(t, ctx, "the result card, "+c.name)
		}
	}
	// Enter on « Rejouer » buys the next game at the same stake.
	n, last := len(p.games()), p.last().ID
	step(t, ctx, "Enter on « Rejouer »", chromedp.KeyEvent("\r"))
	waitFor(t, ctx, fmt.Sprintf(`%s && document.querySelector('#card').dataset.game !== %q`, cardShown, strconv.FormatInt(last, 10)))
	if games := p.games(); len(games) != n+1 || games[0].Mode != "auto" {
		t.Errorf("after Enter on « Rejouer »: %d games (was %d), the last %+v", len(games), n, games[0])
	}
}

// extraGainsUnit is the first unit of the block with an Extra stage and amounts on both boards.
func (s *site) extraGainsUnit(t *testing.T) int {
	t.Helper()
	return s.unitWhere(t, 0, func(r *audit.Record) bool {
		o := r.Unit.Evaluate(0)
		return r.Unit.HasB2 && o.B1.Gains > 0 && o.B2.Gains > 0
	})
}

// Item 1 on a phone: the card fits the board, keeps the stake and « Jouer » in view and
// uncovered, and closes (Escape, or « Fermer ») with the focus back on « Jouer ».
func testResultCardOnAPhone(t *testing.T, ctx context.Context) {
	s := newSite(t)
	unit := s.extraGainsUnit(t)
	s.advanceTo(t, unit)
	signUp(t, ctx, s, "sven")
	deposit(t, ctx, 10)
	step(t, ctx, "Auto", chromedp.Click("#auto"))
	waitFor(t, ctx, cardShown)
	p := s.player(t, "sven", false)
	checkCard(t, ctx, p.last(), eval[string](t, ctx, `document.querySelector('#card').dataset.level`))
	if rows := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('#card-gains .rrow'), r => r.dataset.board || 'sum')`); strings.Join(rows, ",") != "1,2,sum" {
		t.Errorf("the card of a game with an Extra stage shows rows %v, want board 1, the Extra stage, the total", rows)
	}
	shot(t, ctx, "phone-20-card-extra")
	bad := eval[[]string](t, ctx, `(() => { const out = [], head = document.querySelector('header').getBoundingClientRect().bottom;
		const card = document.querySelector('#card .rcard-in').getBoundingClientRect();
		if (card.top < head - 1 || card.bottom > innerHeight + 1) out.push('the card ' + card.top + '..' + card.bottom + ' of ' + innerHeight + ', header to ' + head);
		for (const sel of ['#again', '#card-close']) { const r = document.querySelector(sel).getBoundingClientRect();
			if (r.top < card.top || r.bottom > card.bottom || r.height < 44) out.push(sel + ' outside the card or small'); }
		for (const sel of ['#play', '#auto', 'input[name=stake][value="100"] + span']) { const e = document.querySelector(sel), r = e.getBoundingClientRect();
			const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
			if (!at || !(at === e || e.contains(at) || at.contains(e) || at.closest('label') === e.closest('label'))) out.push(sel + ' is hidden (by ' + (at ? at.id || at.className : 'nothing') + ')'); }
		return out; })()`)
	for _, b := range bad {
		t.Errorf("390×844: %s", b)
	}
	browsertest.Axe(t, ctx, "the result card on a phone")
	step(t, ctx, "Escape", chromedp.KeyEvent("\u001b"))
	if got := eval[[]string](t, ctx, `[String(document.querySelector('#card').hidden), document.activeElement.id]`); got[0] != "true" || got[1] != "play" {
		t.Errorf("after Escape: card hidden %s, focus on %q", got[0], got[1])
	}
}

// Item 1: « Passer » brings the card at once; with prefers-reduced-motion the card comes with
// no motion at all; the prize shows on nothing before the reveal ends.
func testResultCardSkipAndReducedMotion(t *testing.T, ctx context.Context) {
	s := newSite(t)
	win := s.unitWhere(t, 0, func(r *audit.Record) bool { return r.Prize >= 10*100 })
	s.advanceTo(t, win)
	signUp(t, ctx, s, "tess")
	deposit(t, ctx, 10)
	openAt(t, ctx, s, 1, "#jeu")
	step(t, ctx, "Auto", chromedp.Click("#auto"))
	waitFor(t, ctx, `document.body.dataset.state === 'auto' && document.querySelectorAll('#sky .star[data-state=revealed]').length >= 1`)
	if shown := eval[[]string](t, ctx, `[String(document.querySelector('#card').hidden), document.querySelector('#card-title').textContent, document.querySelector('#result').textContent]`); shown[0] != "true" || shown[1] != "" || shown[2] != "" {
		t.Errorf("during the reveal: card hidden %s, title %q, result %q: the prize shows before the end", shown[0], shown[1], shown[2])
	}
	ms := eval[float64](t, ctx, `new Promise(done => { const t0 = performance.now(); document.querySelector('#skip').click();
		const f = () => (!document.querySelector('#card').hidden ? done(performance.now() - t0) : setTimeout(f, 5)); f(); })`)
	if ms > 800 {
		t.Errorf("« Passer » brought the card after %.0f ms", ms)
	}
	waitFor(t, ctx, cardShown)
	if got := eval[[]string](t, ctx, `[document.querySelector('#card').dataset.motion, String(document.getAnimations().filter(a => a.effect && a.effect.target && a.effect.target.closest && a.effect.target.closest('#card')).length)]`); got[0] != "full" || got[1] == "0" {
		t.Errorf("without reduced motion the card comes with motion %s and %s animations", got[0], got[1])
	}

	// prefers-reduced-motion: the card, with no motion.
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{}) })
	s.advanceTo(t, s.unitWhere(t, s.sold(t), func(r *audit.Record) bool { return r.Prize >= 10*100 }))
	openAt(t, ctx, s, 1, "#jeu")
	step(t, ctx, "Auto", chromedp.Click("#auto"))
	waitFor(t, ctx, cardShown)
	got := eval[[]string](t, ctx, `[document.querySelector('#card').dataset.motion, document.querySelector('#card').dataset.level,
		String(document.getAnimations().filter(a => a.effect && a.effect.target && a.effect.target.closest && (a.effect.target.closest('#card') || a.effect.target.closest('#celebrate'))).length),
		String(document.querySelectorAll('#celebrate .p').length), getComputedStyle(document.querySelector('#card .rcard-in')).animationName]`)
	if got[0] != "none" || got[2] != "0" || got[3] != "0" || got[4] != "none" {
		t.Errorf("reduced motion: the %s card has motion %q, %s animations, %s stars flying, animation %q", got[1], got[0], got[2], got[3], got[4])
	}
	shot(t, ctx, "desktop-21-card-reduced-motion")
}

// Item 2: a replay opened from a scrolled history shows the board whole below the sticky
// header, and its card too; « Revoir » greyed out during a game says why.
func testReplayInView(t *testing.T, ctx context.Context) {
	s := newSite(t)
	viewport(t, ctx, 1366, 768, false)
	signUp(t, ctx, s, "ugo")
	p := s.player(t, "ugo", false)
	p.must(201, nil, "POST", "/api/v1/deposits", map[string]int64{"amount": 2000})
	for range 12 {
		p.must(201, nil, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"})
	}
	historyRows(t, ctx, 12)
	step(t, ctx, "scroll the history", chromedp.Evaluate[chromedp.Void](`scrollTo(0, document.body.scrollHeight)`))
	step(t, ctx, "replay the oldest", chromedp.Click(`#history .hrow:last-child button.replay`), chromedp.WaitVisible("#step"))
	inView := func(what, sel string) {
		t.Helper()
		r := eval[[]float64](t, ctx, fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect();
			return [r.top, r.bottom, document.querySelector('header').getBoundingClientRect().bottom, innerHeight, scrollY]; })()`, sel))
		if r[0] < r[2]-0.5 || r[1] > r[3]+0.5 {
			t.Errorf("%s: %s spans %.0f..%.0f, the header ends at %.0f, the window at %.0f (scrolled %.0f)", what, sel, r[0], r[1], r[2], r[3], r[4])
		}
	}
	inView("a replay opened from a scrolled history", ".skywrap")
	step(t, ctx, "play it all", chromedp.Click("#replay-all"))
	waitFor(t, ctx, `!document.querySelector('#card').hidden && document.querySelector('#result').dataset.state === 'replayed'`)
	inView("the end of the replay", ".skywrap")
	inView("the end of the replay", "#card .rcard-in")
	checkCard(t, ctx, p.games()[11], eval[string](t, ctx, `document.querySelector('#card').dataset.level`))
	shot(t, ctx, "desktop-22-replay-card")
	step(t, ctx, "close the replay", chromedp.Click("#replay-close"))

	// During a game, the history's « Revoir » waits, and says why.
	openAt(t, ctx, s, 1, "#jeu")
	step(t, ctx, "Auto", chromedp.Click("#auto"))
	waitFor(t, ctx, `document.body.dataset.state === 'auto'`)
	historyRows(t, ctx, 13)
	got := eval[[]string](t, ctx, `(() => { const b = document.querySelector('#history .hrow:nth-child(2) button.replay');
		const d = document.getElementById(b.getAttribute('aria-describedby') || 'none');
		return [String(b.disabled), b.title, d ? d.textContent : '', String(!document.querySelector('#history-locked').hidden), document.body.dataset.state]; })()`)
	if got[4] != "auto" {
		t.Fatal("the reveal ended before the history was read: the test is too slow to tell")
	}
	if got[0] != "true" || got[1] != "Disponible à la fin de la partie" || got[2] != "Disponible à la fin de la partie" || got[3] != "true" {
		t.Errorf("« Revoir » during a game: disabled %s, title %q, described by %q, note shown %s", got[0], got[1], got[2], got[3])
	}
	browsertest.Axe(t, ctx, "the history during a game")
	shot(t, ctx, "desktop-23-history-locked")
	step(t, ctx, "back to the game", chromedp.Click(`.nav a[data-view=jeu]`), chromedp.Click("#skip"))
	waitFor(t, ctx, cardShown)
}

// Item 3: a withdrawal in euros from the page: never more than the balance, the server's
// refusals in French, the new balance shown.
func testWithdrawal(t *testing.T, ctx context.Context) {
	s := newSite(t)
	signUp(t, ctx, s, "vera")
	deposit(t, ctx, 20)
	p := s.player(t, "vera", false)
	withdraw := func(amount string) (msg, err string) {
		t.Helper()
		step(t, ctx, "withdraw "+amount,
			chromedp.SetValue("#withdraw-amount", amount),
			chromedp.Evaluate[chromedp.Void](`document.querySelector('#withdraw-msg').textContent = document.querySelector('#withdraw-err').textContent = ''`),
			chromedp.Click("#withdraw"))
		waitFor(t, ctx, `(document.querySelector('#withdraw-msg').textContent !== '' || document.querySelector('#withdraw-err').textContent !== '') && !document.querySelector('#withdraw').disabled`)
		return text(t, ctx, "#withdraw-msg"), text(t, ctx, "#withdraw-err")
	}
	msg, _ := withdraw("12,50")
	if msg != "12,50 € retirés. Nouveau solde : 7,50 €." {
		t.Errorf("after withdrawing 12,50 €: %q", msg)
	}
	if page := eval[string](t, ctx, `document.querySelector('#balance').dataset.cents`); page != "750" || p.balance() != 750 {
		t.Errorf("after withdrawing 12,50 € of 20 €: page %s, server %d", page, p.balance())
	}
	browsertest.Axe(t, ctx, "the withdrawal")
	for _, c := range []struct{ amount, want string }{
		{"8", "Vous ne pouvez pas retirer plus que votre solde (7,50 €)."},
		{"0", "Indiquez un montant en euros, par exemple 20 ou 12,50."},
		{"douze", "Indiquez un montant en euros, par exemple 20 ou 12,50."},
	} {
		if _, err := withdraw(c.amount); err != c.want {
			t.Errorf("withdrawing %q: %q, want %q", c.amount, err, c.want)
		}
	}
	// The balance moved on another device: the server refuses, in French, and the page reads it again.
	p.must(201, nil, "POST", "/api/v1/withdrawals", map[string]int64{"amount": 700})
	if _, err := withdraw("5"); err != "Solde insuffisant : créditez votre compte." {
		t.Errorf("a withdrawal the server refuses: %q", err)
	}
	waitFor(t, ctx, `document.querySelector('#balance').dataset.cents === '50'`)
	if p.balance() != 50 {
		t.Errorf("a refused withdrawal moved money: %d", p.balance())
	}
	shot(t, ctx, "desktop-24-withdrawal")
}

// Item 4: the password changes from « Mes limites »: a wrong current password, a weak new one
// and two new ones that differ are told in French; a change keeps this tab in and ends every
// other session; the new password logs in.
func testPasswordChange(t *testing.T, ctx context.Context) {
	s := newSite(t)
	signUp(t, ctx, s, "wanda")
	other := s.login(t, "wanda", false) // another device
	step(t, ctx, "my limits", chromedp.Click("#limits-open"))
	waitFor(t, ctx, `document.querySelector('#limits').open && document.querySelector('#lim-deposit').textContent !== ''`)
	step(t, ctx, "change my password", chromedp.Click("#password-open"))
	waitFor(t, ctx, `document.querySelector('#password').open && document.activeElement.id === 'password-current'`)
	browsertest.Axe(t, ctx, "the password change")
	change := func(current, next, again string) (msg, err string) {
		t.Helper()
		step(t, ctx, "change the password",
			chromedp.SetValue("#password-current", current), chromedp.SetValue("#password-new", next), chromedp.SetValue("#password-again", again),
			chromedp.Evaluate[chromedp.Void](`document.querySelector('#password-msg').textContent = document.querySelector('#password .err').textContent = ''`),
			chromedp.Click("#password-save"))
		waitFor(t, ctx, `(document.querySelector('#password-msg').textContent !== '' || document.querySelector('#password .err').textContent !== '') && !document.querySelector('#password-save').disabled`)
		return text(t, ctx, "#password-msg"), text(t, ctx, "#password .err")
	}
	for _, c := range []struct{ current, next, again, want string }{
		{"not it", "un nouveau mot de passe", "un nouveau mot de passe", "Mot de passe actuel incorrect : rien n'a changé."},
		{"secret-wanda", "password", "password", "Mot de passe refusé"},
		{"secret-wanda", "un nouveau mot de passe", "un autre", "Les deux nouveaux mots de passe ne sont pas les mêmes."},
	} {
		if _, err := change(c.current, c.next, c.again); !strings.HasPrefix(err, c.want) {
			t.Errorf("change %q → %q / %q: %q, want %q", c.current, c.next, c.again, err, c.want)
		}
	}
	if role := eval[string](t, ctx, `document.querySelector('#password .err').getAttribute('role')`); role != "alert" {
		t.Errorf("the password's errors have role %q", role)
	}
	other.must(200, nil, "GET", "/api/v1/me", nil) // refusals changed nothing
	msg, err := change("secret-wanda", "un nouveau mot de passe", "un nouveau mot de passe")
	if !strings.HasPrefix(msg, "Mot de passe changé.") || err != "" {
		t.Errorf("after a change: %q / %q", msg, err)
	}
	shot(t, ctx, "desktop-25-password-changed")
	other.must(401, nil, "GET", "/api/v1/me", nil)
	step(t, ctx, "reload", chromedp.Reload())
	waitFor(t, ctx, `document.body.dataset.state !== 'loading'`)
	if !eval[bool](t, ctx, `document.body.classList.contains('in')`) {
		t.Error("the tab that changed the password was logged out")
	}
	jar, _ := cookiejar.New(nil)
	fresh := &player{t: t, base: s.url, http: &http.Client{Jar: jar, Timeout: 20 * time.Second}}
	fresh.must(401, nil, "POST", "/api/v1/session", map[string]string{"username": "wanda", "password": "secret-wanda"})
	fresh.must(200, nil, "POST", "/api/v1/session", map[string]string{"username": "wanda", "password": "un nouveau mot de passe"})
}

// Item 5: on a phone the history shows each game's date and mode; the stars revealed are lit,
// at least as bright as hidden ones of their colour.
func testPhoneHistory(t *testing.T, ctx context.Context) {
	s := newSite(t)
	signUp(t, ctx, s, "xena")
	deposit(t, ctx, 10)
	step(t, ctx, "Auto", chromedp.Click("#auto"))
	waitFor(t, ctx, cardShown)
	step(t, ctx, "close the card", chromedp.Click("#card-close"))
	shot(t, ctx, "phone-21-lit-stars") // once the motions have ended: their first frames are dimmed
	dark := eval[[]string](t, ctx, `(() => {
		const lum = css => { const m = css.match(/[\d.]+/g).map(Number); const v = css.startsWith('color(') ? m.slice(0, 3) : m.slice(0, 3).map(x => x / 255);
			const [r, g, b] = v.map(c => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
		const probe = document.createElement('div'); document.body.appendChild(probe);
		const out = [];
		for (const s of document.querySelectorAll('#sky .star[data-state=revealed]')) {
			probe.style.color = 'var(--c' + s.dataset.color + ')';
			const lit = lum(getComputedStyle(s.querySelector('.shape')).fill), hidden = lum(getComputedStyle(probe).color);
			if (lit < hidden || getComputedStyle(s).opacity < 1) out.push(s.dataset.cell + ': ' + lit.toFixed(3) + ' against ' + hidden.toFixed(3) + ', opacity ' + getComputedStyle(s).opacity);
		}
		probe.remove();
		return out.length ? out : (document.querySelectorAll('#sky .star[data-state=revealed]').length ? [] : ['no star revealed']); })()`)
	if len(dark) > 0 {
		t.Errorf("revealed stars darker than hidden ones: %v", dark)
	}
	browsertest.Axe(t, ctx, "the stars revealed, on a phone")
	historyRows(t, ctx, 1)
	got := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('#history .hrow:first-child .hdate, #history .hrow:first-child .hmode'), e => {
		const r = e.getBoundingClientRect();
		return (e.offsetParent !== null && r.width > 0 && r.left >= 0 && r.right <= innerWidth ? 'shown ' : 'hidden ') + e.textContent; })`)
	if len(got) != 2 || !regexp.MustCompile(`^shown \d\d/\d\d/\d{4}`).MatchString(got[0]) || got[1] != "shown Auto" {
		t.Errorf("the history on a phone: %q, want the date and « Auto » shown", got)
	}
	browsertest.Axe(t, ctx, "the history on a phone")
	shot(t, ctx, "phone-22-history")
}

// Item 5: at 1366×768 « Mes limites » opens with « Enregistrer » whole in view and uncovered;
// an error reads as one (role alert, not the green of success).
func testLimitsDialogFits(t *testing.T, ctx context.Context) {
	s := newSite(t)
	viewport(t, ctx, 1366, 768, false)
	signUp(t, ctx, s, "yann")
	step(t, ctx, "my limits", chromedp.Click("#limits-open"))
	waitFor(t, ctx, `document.querySelector('#limits').open && document.querySelector('#lim-deposit').textContent !== ''`)
	save := eval[[]float64](t, ctx, `(() => { const b = document.querySelector('#limits-save'), r = b.getBoundingClientRect(), d = document.querySelector('#limits').getBoundingClientRect();
		const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
		return [r.top, r.bottom, d.top, d.bottom, innerHeight, at && b.contains(at) ? 1 : 0, document.querySelector('#limits').scrollHeight - document.querySelector('#limits').clientHeight]; })()`)
	if save[0] < save[2] || save[1] > save[3] || save[1] > save[4] || save[5] != 1 {
		t.Errorf("« Enregistrer » at %.0f..%.0f in a dialog at %.0f..%.0f of a window of %.0f (uncovered: %.0f)", save[0], save[1], save[2], save[3], save[4], save[5])
	}
	t.Logf("the limits screen scrolls by %.0f px", save[6])
	shot(t, ctx, "desktop-26-limits-1366")
	if got := submitLimits(t, ctx, "12,345", "20"); !strings.HasPrefix(got, "Indiquez un montant en euros") {
		t.Fatalf("an amount of 12,345 €: %q", got)
	}
	look := eval[[]string](t, ctx, `(() => { const m = document.querySelector('#limits-msg'); return [m.getAttribute('role'), m.className, getComputedStyle(m).color]; })()`)
	rgb := regexp.MustCompile(`\d+`).FindAllString(look[2], 3)
	r, _ := strconv.Atoi(rgb[0])
	g, _ := strconv.Atoi(rgb[1])
	if look[0] != "alert" || look[1] != "err" || r <= g {
		t.Errorf("an error of the limits screen: role %q, class %q, colour %s", look[0], look[1], look[2])
	}
	browsertest.Axe(t, ctx, "the limits screen with an error")
	shot(t, ctx, "desktop-27-limits-error")
	if got := submitLimits(t, ctx, "50", "20"); !strings.Contains(got, "appliquée tout de suite") {
		t.Errorf("after saving 50 € and 20 €: %q", got)
	}
	if role := eval[string](t, ctx, `document.querySelector('#limits-msg').getAttribute('role') + ' ' + document.querySelector('#limits-msg').className`); role != "status msg" {
		t.Errorf("a saved limit is told with %q", role)
	}
}
