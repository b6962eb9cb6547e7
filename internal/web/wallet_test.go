package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"starcolor/internal/app"
	"starcolor/internal/app/apptest"
	"starcolor/internal/browsertest"
	"starcolor/internal/fakewallet"
	"starcolor/internal/wallet"
)

// walletSite is the real server in seamless wallet mode (docs/spec/WALLET.md), in front of the reference
// wallet on a server of its own.
type walletSite struct {
	*site
	secret []byte
	fw     *fakewallet.Store
	env    *apptest.Env
}

func newWalletSite(t *testing.T) *walletSite {
	t.Helper()
	secret := []byte("shared-secret")
	fw, err := fakewallet.Open(context.Background(), filepath.Join(t.TempDir(), "wallet.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fw.Close() })
	wsrv := httptest.NewServer(fakewallet.NewServer(fw, secret, fakewallet.Faults{}))
	t.Cleanup(wsrv.Close)
	a := apptest.Start(t, apptest.Options{Seed: 7, Wallet: &app.WalletConfig{URL: wsrv.URL, Secret: secret}})
	return &walletSite{site: &site{url: a.URL, db: a.Store, e: a.Emission}, secret: secret, fw: fw, env: a}
}

// launch is the operator's signed launch call for one of its players: the link it answers.
func (s *walletSite) launch(t *testing.T, who string) string {
	t.Helper()
	link, err := wallet.Launch(context.Background(), http.DefaultClient, s.url, wallet.NewKey(s.secret), who, "sess-"+who, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return link
}

// apiPlayer launches the player again for a client on the Go side, to read the server's state.
func (s *walletSite) apiPlayer(t *testing.T, who string) *player {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	p := &player{t: t, base: s.url, http: &http.Client{Jar: jar, Timeout: 20 * time.Second}}
	resp, err := p.http.Get(s.launch(t, who))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return p
}

// walletBalance is the player's balance at the wallet, set first if set is not nil.
func (s *walletSite) walletBalance(t *testing.T, who string, set *int64) int64 {
	t.Helper()
	p, err := s.fw.SetPlayer(context.Background(), who, set, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p.Balance
}

// drained waits until the wallet acknowledged every call owed to it.
func (s *walletSite) drained(t *testing.T) {
	t.Helper()
	apptest.DrainOutbox(t, s.env.Store, time.Now, nil)
}

func shownBalance(t *testing.T, ctx context.Context) int64 {
	t.Helper()
	n, err := strconv.ParseInt(eval[string](t, ctx, `document.querySelector('#balance').dataset.cents`), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// In seamless wallet mode the page plays for a player the operator launched. The test walks it
// through:
//  1. A page opened without a session says to open the game from the operator's site. It has no
//     sign-up, login, deposit or limits.
//  2. The launch link opens the game with the wallet's balance.
//  3. An « Auto » game and a « Jouer » game, played to their end, leave the balance the wallet
//     holds once their credits are acknowledged.
//  4. A deposit at the operator shows when the player comes back to the page.
//  5. A debit the wallet refuses, for the balance or for a blocked player, is told in the
//     player's words.
//  6. Ending the session says how to come back.
//
// Each screen passes axe-core.
func TestWalletModePage(t *testing.T) {
	browser := browsertest.New(t, browsertest.Options{})
	ctx := tab(t, browser, false)
	s := newWalletSite(t)
	const who = "op-page"

	// Without a session: where to open the game from, and nothing of the operator's.
	open(t, ctx, s.site, "")
	if st := eval[string](t, ctx, `document.body.dataset.state`); st != "auth" {
		t.Fatalf("the page without a session is in state %q", st)
	}
	if got := text(t, ctx, "#wallet-launch"); !strings.Contains(got, "Ouvrez le jeu depuis le site de votre opérateur") {
		t.Errorf("the page without a session says %q", got)
	}
	absent := `['#login-form', '#signup-form', '#deposit-form', '#withdraw-form', '#limits-open', '#limits', '#exclusion', '#closure', '#password', '#password-open'].filter(s => document.querySelector(s))`
	if got := eval[[]string](t, ctx, absent); len(got) > 0 {
		t.Errorf("the operator's forms are on the page: %v", got)
	}
	if got := eval[string](t, ctx, `document.body.innerText`); strings.Contains(got, "Argent fictif") {
		t.Error("the page in wallet mode says the money is play money")
	}
	// Both languages say the same things: the same message keys, the wallet's too.
	if diff := eval[[]string](t, ctx, `(() => {
		const T = window.starcolor.T, out = [];
		const cmp = (a, b, at) => { for (const k of Object.keys(a)) { if (!(k in b)) out.push(at + k); else if (typeof a[k] === 'object') cmp(a[k], b[k], at + k + '.'); } };
		cmp(T.fr, T.en, 'en lacks '); cmp(T.en, T.fr, 'fr lacks ');
		return out; })()`); len(diff) > 0 {
		t.Errorf("the French and English messages differ: %v", diff)
	}
	browsertest.Axe(t, ctx, "the page without a session, in wallet mode")
	shot(t, ctx, "wallet-1-no-session")

	// The launch link: the game, with the wallet's balance.
	start := s.walletBalance(t, who, nil)
	step(t, ctx, "open the launch link", chromedp.Navigate(s.launch(t, who)), chromedp.WaitReady("body"))
	waitFor(t, ctx, `document.body.dataset.state === 'idle'`)
	if got := shownBalance(t, ctx); got != start {
		t.Fatalf("the balance shown %d, the wallet's %d", got, start)
	}
	open(t, ctx, s.site, "") // the same session, the animations faster
	waitFor(t, ctx, `document.body.dataset.state === 'idle'`)
	if got := eval[[]string](t, ctx, absent); len(got) > 0 {
		t.Errorf("the operator's forms are on the player's page: %v", got)
	}
	if got := text(t, ctx, "#wallet-info"); !strings.Contains(got, "chez votre opérateur") {
		t.Errorf("the page does not say where the money is: %q", got)
	}
	if got := text(t, ctx, "#logout"); got != "Terminer la session" {
		t.Errorf("the logout button says %q", got)
	}
	if got := eval[string](t, ctx, `document.querySelector('#user').textContent`); got != "" {
		t.Errorf("the player's name here shows: %q", got)
	}
	browsertest.Axe(t, ctx, "the game, idle, in wallet mode")
	p := s.apiPlayer(t, who)

	// An « Auto » game to its end: the balance is the wallet's once its credit is acknowledged.
	step(t, ctx, "Auto", chromedp.Click("#auto"))
	waitFor(t, ctx, `document.querySelector('#result').dataset.state === 'done' && document.body.dataset.busy === 'no'`)
	g := p.last()
	if g.Mode != "auto" || g.Status != "finished" {
		t.Fatalf("the game sold: %+v", g)
	}
	s.drained(t)
	if got, want := shownBalance(t, ctx), s.walletBalance(t, who, nil); got != want || want != start-100+g.Prize {
		t.Errorf("after an « Auto » game (prize %d): the balance shown %d, the wallet's %d, from %d", g.Prize, got, want, start)
	}

	// A « Jouer » game to its end, its credit sent at the last reveal.
	step(t, ctx, "Jouer", chromedp.Click("#play"), chromedp.WaitVisible("#colors .swatch"))
	step(t, ctx, "choose a colour", chromedp.Click(`#colors .swatch[data-color="2"]`))
	clickToEnd(t, ctx)
	g2 := p.last()
	if g2.ID == g.ID || g2.Mode != "manual" || g2.Status != "finished" {
		t.Fatalf("the second game: %+v", g2)
	}
	s.drained(t)
	if got, want := shownBalance(t, ctx), s.walletBalance(t, who, nil); got != want || want != start-200+g.Prize+g2.Prize {
		t.Errorf("after a « Jouer » game (prizes %d and %d): the balance shown %d, the wallet's %d, from %d", g.Prize, g2.Prize, got, want, start)
	}
	browsertest.Axe(t, ctx, "the end of a game, in wallet mode")
	shot(t, ctx, "wallet-2-game-ended")

	// The player deposits at the operator: back on the page (the wallet's balance a second old
	// at most), the balance follows; so does a reload.
	deposited := s.walletBalance(t, who, nil) + 2000
	s.walletBalance(t, who, &deposited)
	time.Sleep(1100 * time.Millisecond)
	eval[bool](t, ctx, `document.dispatchEvent(new Event('visibilitychange')), true`)
	waitFor(t, ctx, fmt.Sprintf(`document.querySelector('#balance').dataset.cents === '%d'`, deposited))
	open(t, ctx, s.site, "")
	waitFor(t, ctx, `document.body.dataset.state === 'idle'`)
	if got := shownBalance(t, ctx); got != deposited {
		t.Errorf("after a reload the balance shown is %d, the wallet's %d", got, deposited)
	}

	// The wallet refuses the debit (the player spent their money elsewhere): the sale is refused,
	// in the player's words, and the page reads the wallet's balance again.
	low := int64(50)
	s.walletBalance(t, who, &low)
	time.Sleep(1100 * time.Millisecond)
	step(t, ctx, "Auto, short of money", chromedp.Click("#auto"))
	waitFor(t, ctx, `document.querySelector('#play-err').textContent !== '' && document.body.dataset.state === 'idle'`)
	if got := text(t, ctx, "#play-err"); got != "Solde insuffisant chez votre opérateur : créditez votre compte sur son site." {
		t.Errorf("a debit refused for the balance: %q", got)
	}
	waitFor(t, ctx, `document.querySelector('#balance').dataset.cents === '50'`)
	if g3 := p.last(); g3.ID != g2.ID {
		t.Errorf("a game was sold on a refused debit: %+v", g3)
	}
	blocked := true
	if _, err := s.fw.SetPlayer(context.Background(), who, nil, &blocked); err != nil {
		t.Fatal(err)
	}
	step(t, ctx, "Auto, blocked", chromedp.Click("#auto"))
	waitFor(t, ctx, `document.querySelector('#play-err').textContent.startsWith('Votre opérateur refuse vos mises')`)
	shot(t, ctx, "wallet-3-refused")

	// Ending the session says how to come back.
	step(t, ctx, "end the session", chromedp.Click("#logout"))
	waitFor(t, ctx, `document.body.dataset.state === 'auth' && !document.querySelector('#auth-msg').hidden`)
	if got := text(t, ctx, "#auth-msg"); !strings.Contains(got, "ouvrez à nouveau le jeu depuis le site de votre opérateur") {
		t.Errorf("after the session's end the page says %q", got)
	}
	step(t, ctx, "English", chromedp.Click("#lang"))
	if got := text(t, ctx, "#auth-msg"); !strings.Contains(got, "open the game again from your operator's site") {
		t.Errorf("after the session's end the page says, in English, %q", got)
	}
	browsertest.Axe(t, ctx, "the session ended, in wallet mode")
}
