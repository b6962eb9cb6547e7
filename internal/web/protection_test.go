package web_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"starcolor/internal/browsertest"
)

// The flows of issue 12, items 5 and 6: the player's own protection on the page (docs/spec/API.md 1.1,
// « Player protection »). Each runs in a tab of its own (TestPlayerPage).

type limitsJSON struct {
	DepositWeekly *int64 `json:"deposit_weekly"`
	StakeWeekly   *int64 `json:"stake_weekly"`
	Deposited7d   int64  `json:"deposited_7d"`
	Staked7d      int64  `json:"staked_7d"`
	Pending       []struct {
		Limit       string `json:"limit"`
		Amount      int64  `json:"amount"`
		EffectiveAt string `json:"effective_at"`
	} `json:"pending"`
	RealityCheck *int `json:"reality_check_minutes"`
}

func (p *player) limits() limitsJSON {
	var l limitsJSON
	p.must(200, &l, "GET", "/api/v1/me/limits", nil)
	return l
}

// frenchDate is a date and time as the page writes them in French (Intl, dateStyle long,
// timeStyle short), in the local time zone, which the browser shares with the tests.
func frenchDate(t *testing.T, rfc3339 string) string {
	t.Helper()
	at, err := time.Parse(time.RFC3339, rfc3339)
	if err != nil {
		t.Fatal(err)
	}
	at = at.Local()
	months := []string{"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"}
	return fmt.Sprintf("%d %s %d à %02d:%02d", at.Day(), months[at.Month()-1], at.Year(), at.Hour(), at.Minute())
}

// focused waits a moment for the focus to reach the element of that id (a dialog gives it back
// on its close event, which comes after the dialog has closed), and returns where it is.
func focused(t *testing.T, ctx context.Context, id string) string {
	t.Helper()
	return eval[string](t, ctx, fmt.Sprintf(`new Promise(done => { let n = 0;
		const f = () => (document.activeElement.id === %q || ++n > 40 ? done(document.activeElement.id) : setTimeout(f, 25)); f(); })`, id))
}

// submitLimits types into the limits form and saves it, returning what the screen says then.
func submitLimits(t *testing.T, ctx context.Context, deposit, stake string) string {
	t.Helper()
	// The form is disabled until the screen has read the limits it fills it with.
	waitFor(t, ctx, `!document.querySelector('#limits-form button[type=submit]').disabled`)
	step(t, ctx, "set the limits",
		chromedp.SetValue("#limit-deposit", deposit), chromedp.SetValue("#limit-stake", stake),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('#limits-msg').textContent = ''`),
		chromedp.Click("#limits-form button[type=submit]"))
	waitFor(t, ctx, `document.querySelector('#limits-msg').textContent !== '' && !document.querySelector('#limits-form button[type=submit]').disabled`)
	return text(t, ctx, "#limits-msg")
}

// Item 5: the limits are asked before the first deposit, in plain words; then they bound the
// deposits, the screen shows what is left, a raise waits 48 hours and a lowering holds at once.
func testLimitsScreen(t *testing.T, ctx context.Context) {
	s := newSite(t)
	signUpPage(t, ctx, s, "lena")
	// Both languages say the same things: the same message keys.
	if diff := eval[[]string](t, ctx, `(() => {
		const T = window.starcolor.T, out = [];
		const cmp = (a, b, at) => { for (const k of Object.keys(a)) { if (!(k in b)) out.push(at + k); else if (typeof a[k] === 'object') cmp(a[k], b[k], at + k + '.'); } };
		cmp(T.fr, T.en, 'en lacks '); cmp(T.en, T.fr, 'fr lacks ');
		return out; })()`); len(diff) > 0 {
		t.Errorf("the French and English messages differ: %v", diff)
	}
	p := s.login(t, "lena", false)

	// A deposit before any limit opens the limits screen, which says why.
	step(t, ctx, "deposit", chromedp.SetValue("#deposit-amount", "30"), chromedp.Click("#deposit"))
	waitFor(t, ctx, `document.querySelector('#limits').open && !document.querySelector('#limits-why').hidden && document.querySelector('#lim-deposit').textContent !== ''`)
	if why := text(t, ctx, "#limits-why"); !strings.Contains(why, "Avant votre premier dépôt, la loi demande de fixer votre limite de dépôts par semaine") {
		t.Errorf("the limits screen opened by a deposit says %q", why)
	}
	if intro := text(t, ctx, "#limits-intro"); !strings.Contains(intro, "Baisser une limite s'applique tout de suite") || !strings.Contains(intro, "après 48 heures") {
		t.Errorf("the limits screen does not explain them: %q", intro)
	}
	if got := text(t, ctx, "#lim-deposit") + "|" + text(t, ctx, "#lim-stake"); got != "non fixée|non fixée" {
		t.Errorf("limits shown before any is set: %q", got)
	}
	if id := focused(t, ctx, "limit-deposit"); id != "limit-deposit" {
		t.Errorf("the focus is on %q, not in the limits screen's deposit field", id)
	}
	if p.balance() != 0 {
		t.Fatal("a deposit went through without a limit")
	}
	shot(t, ctx, "desktop-15-limits-required")

	// A bad amount is refused in the page; 50 € and 20 € are saved, at once.
	if got := submitLimits(t, ctx, "12,345", "20"); !strings.HasPrefix(got, "Indiquez un montant en euros") {
		t.Errorf("an amount of 12,345 €: %q", got)
	}
	got := submitLimits(t, ctx, "50", "20")
	if !strings.Contains(got, "Limite de dépôts : 50 €, appliquée tout de suite.") || !strings.Contains(got, "Limite de mises : 20 €, appliquée tout de suite.") {
		t.Errorf("after saving 50 € and 20 €: %q", got)
	}
	if l := p.limits(); l.DepositWeekly == nil || *l.DepositWeekly != 5000 || l.StakeWeekly == nil || *l.StakeWeekly != 2000 {
		t.Fatalf("the server's limits after saving: %+v", l)
	}
	step(t, ctx, "close the limits", chromedp.Click("#limits [data-close]"))
	waitFor(t, ctx, `!document.querySelector('#limits').open`)
	if id := focused(t, ctx, "deposit"); id != "deposit" {
		t.Errorf("after the limits screen closed, the focus is on %q, not back on the deposit button", id)
	}

	// 30 € goes through; 30 € more would pass the limit, and the page says what is left.
	deposit(t, ctx, 30)
	step(t, ctx, "deposit 30 € more", chromedp.SetValue("#deposit-amount", "30"), chromedp.Click("#deposit"))
	waitFor(t, ctx, `document.querySelector('#deposit-msg').textContent.includes('Il vous reste')`)
	if got := text(t, ctx, "#deposit-msg"); got != "Limite de dépôts atteinte : votre limite est de 50 € par semaine (7 jours glissants) et vous en êtes à 30 €. Il vous reste 20 € cette semaine." {
		t.Errorf("a deposit past the limit: %q", got)
	}
	if b := p.balance(); b != 3000 {
		t.Errorf("balance %d after a refused deposit, want 3000", b)
	}
	shot(t, ctx, "desktop-16-limit-reached")

	// The screen's read of the limits held a second: what the player types meanwhile is not
	// overwritten when it comes, since the form waits for it.
	eval[bool](t, ctx, `(() => { const f = window.fetch; window.fetch = (u, o) => {
		window.fetch = f; return new Promise(r => setTimeout(r, 1000)).then(() => f(u, o)); }; return true; })()`)
	step(t, ctx, "my limits", chromedp.Click("#limits-open"))
	if !eval[bool](t, ctx, `document.querySelector('#limit-stake').disabled && document.querySelector('#limits-save').disabled`) {
		t.Error("the limits' form can be changed before the screen has read them")
	}
	waitFor(t, ctx, `document.querySelector('#limits').open && document.querySelector('#lim-deposited').textContent.trim() !== ''`)
	for sel, want := range map[string]string{"#lim-deposit": "50 €", "#lim-deposited": "30 €", "#lim-deposit-left": "20 €", "#lim-stake": "20 €", "#lim-staked": "0 €", "#lim-stake-left": "20 €"} {
		if got := text(t, ctx, sel); got != want {
			t.Errorf("limits screen %s: %q, want %q", sel, got, want)
		}
	}
	if !eval[bool](t, ctx, `document.querySelector('#limits-why').hidden`) {
		t.Error("the limits screen opened by the player says it was required")
	}

	// A raise of the stake limit waits 48 hours: the screen says so and when.
	got = submitLimits(t, ctx, "50", "40")
	l := p.limits()
	if len(l.Pending) != 1 || l.Pending[0].Limit != "stake_weekly" || l.Pending[0].Amount != 4000 || *l.StakeWeekly != 2000 || *l.DepositWeekly != 5000 {
		t.Fatalf("the server's limits after a raise: %+v", l)
	}
	date := frenchDate(t, l.Pending[0].EffectiveAt)
	if !strings.Contains(got, "Hausse de la limite de mises à 40 € enregistrée : elle s'appliquera le "+date) {
		t.Errorf("after a raise, the screen says %q, want the raise pending until %s", got, date)
	}
	if got := text(t, ctx, "#limits-pending"); got != "Hausse de votre limite de mises à 40 € en attente : elle s'appliquera le "+date+"." {
		t.Errorf("pending: %q", got)
	}
	if got := text(t, ctx, "#lim-stake"); got != "20 €" {
		t.Errorf("the stake limit in force during a raise: %q, want 20 €", got)
	}
	shot(t, ctx, "desktop-17-raise-pending")

	// A lowering holds at once (cents typed with a comma); the pending raise stays.
	got = submitLimits(t, ctx, "40,50", "20")
	if !strings.Contains(got, "Limite de dépôts : 40,50 €, appliquée tout de suite.") {
		t.Errorf("after lowering the deposit limit: %q", got)
	}
	if l := p.limits(); *l.DepositWeekly != 4050 || len(l.Pending) != 1 {
		t.Errorf("the server's limits after a lowering: %+v", l)
	}
	if got := text(t, ctx, "#lim-deposit") + "|" + text(t, ctx, "#lim-deposit-left"); got != "40,50 €|10,50 €" {
		t.Errorf("after lowering: limit|left %q, want 40,50 €|10,50 €", got)
	}
	step(t, ctx, "English", chromedp.Click("#limits [data-close]"), chromedp.Click("#lang"), chromedp.Click("#limits-open"))
	waitFor(t, ctx, `document.querySelector('#limits').open && document.querySelector('#lim-deposit').textContent.includes('40.50')`)
	if got := text(t, ctx, "#limits-pending"); !strings.HasPrefix(got, "Raise of your stakes limit to €40 pending: it applies on ") {
		t.Errorf("pending, in English: %q", got)
	}
	step(t, ctx, "French", chromedp.Click("#limits [data-close]"), chromedp.Click("#lang"))
}

// Item 6: the session's time shows by the balance; a reality check every 15 minutes of it shows
// the time played and the session's result, and asks whether to go on.
func testRealityCheck(t *testing.T, ctx context.Context) {
	s := newSite(t)
	signUp(t, ctx, s, "rita") // the session starts at this login
	deposit(t, ctx, 10)
	p := s.player(t, "rita", false)
	p.must(200, nil, "PUT", "/api/v1/me/limits", map[string]int{"reality_check_minutes": 15})
	// The page learns the interval set elsewhere at its next load. At speed 100 (open), 15
	// minutes of the session take 9 seconds.
	step(t, ctx, "reload", chromedp.Reload())
	waitFor(t, ctx, `document.body.dataset.state === 'idle'`)
	if !eval[bool](t, ctx, `(() => { const c = document.querySelector('#session-time'), b = document.querySelector('#balance');
		const r = c.getBoundingClientRect(), rb = b.getBoundingClientRect();
		return c.offsetParent !== null && r.width > 0 && r.bottom <= document.querySelector('header').getBoundingClientRect().bottom
			&& Math.abs(r.left - rb.right) < 200 && /^\d+ min$/.test(c.textContent); })()`) {
		t.Errorf("the session's time is not shown beside the balance: %q", text(t, ctx, ".account"))
	}
	if eval[bool](t, ctx, `document.querySelector('#reality-check').open`) {
		t.Fatal("the reality check is already open: this machine is too slow for the test's speed")
	}
	step(t, ctx, "Auto", chromedp.Click("#auto"))
	waitFor(t, ctx, `document.querySelector('#result').dataset.state === 'done' && document.body.dataset.state === 'idle'`)
	g := p.last()
	waitFor(t, ctx, `document.querySelector('#reality-check').open`)
	if net := eval[string](t, ctx, `document.querySelector('#reality-check').dataset.net`); net != strconv.FormatInt(g.Prize-100, 10) {
		t.Errorf("the session's result %s, want the prize %d less the stake 100", net, g.Prize)
	}
	want := "−1 €"
	if g.Prize > 100 {
		want = "+" + euros(g.Prize-100)
	} else if g.Prize == 100 {
		want = "0 €"
	}
	got := text(t, ctx, "#reality-text")
	m := regexp.MustCompile(`^Vous jouez depuis (\d+) min\. Résultat de la session : (.*) \(gains moins mises\)\. Voulez-vous continuer \?$`).FindStringSubmatch(got)
	if m == nil || m[2] != want {
		t.Errorf("the reality check says %q, want the time played and %s", got, want)
	} else if n, _ := strconv.Atoi(m[1]); n < 15 || n > 25 {
		t.Errorf("the reality check came after %d minutes, want 15", n)
	}
	if id := focused(t, ctx, "reality-continue"); id != "reality-continue" {
		t.Errorf("the focus is on %q when the reality check opens", id)
	}
	browsertest.Axe(t, ctx, "the reality check")
	shot(t, ctx, "desktop-18-reality-check")
	step(t, ctx, "Continuer", chromedp.Click("#reality-continue"))
	waitFor(t, ctx, `!document.querySelector('#reality-check').open`)
	if !eval[bool](t, ctx, `document.body.classList.contains('in')`) {
		t.Fatal("« Continuer » logged out")
	}
	// The next one, 15 minutes later: « Arrêter » ends the session.
	waitFor(t, ctx, `document.querySelector('#reality-check').open`)
	step(t, ctx, "Arrêter", chromedp.Click("#reality-stop"))
	waitFor(t, ctx, `document.body.dataset.state === 'auth' && !document.querySelector('#auth-msg').hidden`)
	if got := text(t, ctx, "#auth-msg"); !strings.HasPrefix(got, "Session terminée après ") || !strings.Contains(got, want) {
		t.Errorf("after « Arrêter »: %q", got)
	}
	if st := eval[int](t, ctx, `fetch('/api/v1/me').then(r => r.status)`); st != 401 {
		t.Errorf("after « Arrêter », /me answers %d, want 401: the session did not end", st)
	}
}

// Item 6: a self-exclusion and the closing of an account, each confirmed in plain words, end the
// session; a later login says why it is refused.
func testExclusionAndClosure(t *testing.T, ctx context.Context) {
	s := newSite(t)
	login := func(name string) string {
		t.Helper()
		step(t, ctx, "log in", chromedp.WaitVisible("#login-user"),
			chromedp.SetValue("#login-user", name), chromedp.SetValue("#login-pass", "secret-"+name),
			chromedp.Click("#login-form button[type=submit]"))
		waitFor(t, ctx, `document.querySelector('#login-form .err').textContent !== '' || document.body.classList.contains('in')`)
		return text(t, ctx, "#login-form .err")
	}

	// The closing first: once excluded, the identity every test player shares cannot sign up.
	signUp(t, ctx, s, "yvonne")
	deposit(t, ctx, 10)
	step(t, ctx, "my limits", chromedp.Click("#limits-open"))
	waitFor(t, ctx, `document.querySelector('#limits').open`)
	step(t, ctx, "close my account", chromedp.Click("#closure-open"))
	waitFor(t, ctx, `document.querySelector('#closure').open`)
	if got := text(t, ctx, "#closure-text"); got != "Votre solde de 10 € vous sera versé, puis votre compte sera fermé définitivement : vous ne pourrez plus vous y connecter." {
		t.Errorf("the closure's confirmation says %q", got)
	}
	step(t, ctx, "cancel", chromedp.Click("#closure [data-close]"))
	waitFor(t, ctx, `!document.querySelector('#closure').open`)
	if id := focused(t, ctx, "limits-open"); id != "limits-open" {
		t.Errorf("after cancelling, the focus is on %q, not back on « Mes limites »", id)
	}
	step(t, ctx, "my limits", chromedp.Click("#limits-open"), chromedp.Click("#closure-open"))
	waitFor(t, ctx, `document.querySelector('#closure').open`)
	step(t, ctx, "confirm", chromedp.Click("#closure-confirm"))
	waitFor(t, ctx, `document.body.dataset.state === 'auth' && !document.querySelector('#auth-msg').hidden`)
	if got := text(t, ctx, "#auth-msg"); !strings.HasPrefix(got, "Votre compte est fermé") {
		t.Errorf("after closing the account the page says %q", got)
	}
	if got := login("yvonne"); got != "Ce compte a été fermé par son titulaire : on ne peut plus s'y connecter." {
		t.Errorf("a login to a closed account: %q", got)
	}

	signUp(t, ctx, s, "xavier")
	deposit(t, ctx, 10)
	step(t, ctx, "my limits", chromedp.Click("#limits-open"))
	waitFor(t, ctx, `document.querySelector('#limits').open`)
	step(t, ctx, "exclude myself", chromedp.Click("#exclusion-open"))
	waitFor(t, ctx, `document.querySelector('#exclusion').open && !document.querySelector('#limits').open`)
	if got := text(t, ctx, "#exclusion-text"); !strings.HasPrefix(got, "Pendant 7 jours, jusqu'au ") ||
		!strings.Contains(got, "votre solde vous sera versé, toutes vos sessions se terminent tout de suite") ||
		!strings.Contains(got, "vous ne pourrez ni vous connecter ni ouvrir un autre compte avant cette date") ||
		!strings.Contains(got, "ne peut pas être raccourcie") {
		t.Errorf("the exclusion's confirmation says %q", got)
	}
	browsertest.Axe(t, ctx, "the self-exclusion")
	shot(t, ctx, "desktop-19-exclusion")
	before := time.Now()
	step(t, ctx, "confirm", chromedp.Click("#exclusion-confirm"))
	waitFor(t, ctx, `document.body.dataset.state === 'auth' && !document.querySelector('#auth-msg').hidden`)
	until := eval[string](t, ctx, `document.querySelector('#auth-msg').dataset.until`)
	if at, err := time.Parse(time.RFC3339, until); err != nil || at.Before(before.Add(7*24*time.Hour-time.Minute)) || at.After(time.Now().Add(7*24*time.Hour+time.Minute)) {
		t.Errorf("excluded until %q, want 7 days from now", until)
	}
	date := frenchDate(t, until)
	if got := text(t, ctx, "#auth-msg"); got != "Vous êtes exclu du jeu jusqu'au "+date+". Votre solde de 10 € vous a été versé. Toutes vos sessions sont terminées." {
		t.Errorf("after the exclusion the page says %q", got)
	}
	shot(t, ctx, "desktop-20-excluded")
	if got := login("xavier"); got != "Vous vous êtes exclu du jeu jusqu'au "+date+" : impossible de vous connecter avant cette date." {
		t.Errorf("a login while excluded: %q", got)
	}
	// Another account for the excluded person, written otherwise: refused in French, saying
	// neither why nor until when (docs/spec/API.md 1.2).
	step(t, ctx, "sign up again", chromedp.SetValue("#signup-user", "xavier2"), chromedp.SetValue("#signup-pass", "secret-xavier2"),
		chromedp.SetValue("#signup-last", "MARTIN"), chromedp.SetValue("#signup-first", "Jeanne Marie"),
		chromedp.SetValue("#signup-birth", "1990-01-01"), chromedp.Click("#signup-form button[type=submit]"))
	waitFor(t, ctx, `document.querySelector('#signup-form .err').textContent !== ''`)
	if got := text(t, ctx, "#signup-form .err"); got != "Aucun compte ne peut être ouvert pour cette personne. Le service client de l'opérateur peut vous en dire plus." {
		t.Errorf("a sign-up of the excluded person: %q", got)
	}
}

// The header keeps the session's time and « Mes limites » in view on a phone, and the limits
// screen fits the phone's width.
func testProtectionOnAPhone(t *testing.T, ctx context.Context) {
	s := newSite(t)
	signUp(t, ctx, s, "zack")
	for _, sel := range []string{"#session-time", "#limits-open", "#balance"} {
		r := eval[[]float64](t, ctx, fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect(); return [r.left, r.right, r.width, innerWidth]; })()`, sel))
		if r[2] == 0 || r[0] < 0 || r[1] > r[3] {
			t.Errorf("%s is not in view on a phone: %v", sel, r)
		}
	}
	step(t, ctx, "my limits", chromedp.Click("#limits-open"))
	waitFor(t, ctx, `document.querySelector('#limits').open && document.querySelector('#lim-deposit').textContent !== ''`)
	if r := eval[[]float64](t, ctx, `(() => { const d = document.querySelector('#limits'); const r = d.getBoundingClientRect(); return [r.left, r.right, d.scrollWidth - d.clientWidth, innerWidth]; })()`); r[0] < 0 || r[1] > r[3] || r[2] > 0 {
		t.Errorf("the limits screen does not fit a phone: %v", r)
	}
	shot(t, ctx, "phone-7-limits")
}
