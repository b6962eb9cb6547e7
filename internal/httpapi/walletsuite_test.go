package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"starcolor/internal/app/apptest"
	"starcolor/internal/fakewallet"
	"starcolor/internal/lottery"
	"starcolor/internal/wallet"
)

// The API suite in seamless wallet mode (WALLET.md): TestMain runs the whole suite a third time
// with STARCOLOR_TEST_WALLET=1, in which every test server (newTestServerWith) is in wallet mode in
// front of the reference wallet (internal/fakewallet, a SQLite file of its own, on an httptest
// server), a player's sign-up is the operator's launch, with the player's money put at the
// wallet, and a player's balance is the wallet's. The tests whose subject does not exist in
// wallet mode skip, saying why; every test of the games runs, and at the end of each server's
// life the wallet's books are checked against the games, round by round, to the cent.

// walletSuiteEnv names the wallet-mode run of the suite.
const walletSuiteEnv = "STARCOLOR_TEST_WALLET"

// walletSuite tells whether this run of the suite is in wallet mode.
var walletSuite = os.Getenv(walletSuiteEnv) != ""

// Why a test skips in wallet mode.
const (
	// Accounts, passwords and logins: the operator's; a player comes through its launch.
	noAccounts = "accounts, passwords and logins are the operator's; its players come through the launch (WALLET.md)"
	// Deposits and withdrawals: 403 wallet_mode; the money is at the operator's wallet.
	noMoney = "deposits and withdrawals are the operator's (403 wallet_mode); the money is at its wallet (WALLET.md)"
	// Limits, self-exclusion, closure, identity: the operator's player protection.
	noProtection = "player protection (identity, limits, exclusion, closure) is the operator's; these calls are 403 wallet_mode (WALLET.md)"
	// The wallet's own tests build their wallet-mode servers: they ran in the suite's other runs.
	ranAlready = "a test of wallet mode with servers of its own, run in the suite's other runs already"
)

// skipInWalletMode skips a test in the wallet-mode run of the suite, saying why.
func skipInWalletMode(t *testing.T, why string) {
	t.Helper()
	if walletSuite {
		t.Skip("wallet mode: " + why)
	}
}

// walletSecret is the secret Star Color and the reference wallet share in the tests.
var walletSecret = []byte("shared-secret")

// refWallet is the reference wallet on an httptest server, behind a proxy that a test may make
// tamper with the signatures or fail (walletProxy).
type refWallet struct {
	fw    *fakewallet.Store
	url   string // the proxy's: Star Color's wallet URL
	proxy *walletProxy
}

// startRefWallet starts the reference wallet on a new SQLite file; durable or not (a wallet that
// does not sync each movement answers faster, and a test's machine does not crash).
func startRefWallet(t testing.TB, faults fakewallet.Faults, durable bool) *refWallet {
	t.Helper()
	fw, err := fakewallet.OpenWith(context.Background(), filepath.Join(t.TempDir(), "wallet.db"), durable)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fw.Close() })
	proxy := &walletProxy{next: fakewallet.NewServer(fw, walletSecret, faults), secret: walletSecret}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return &refWallet{fw: fw, url: srv.URL, proxy: proxy}
}

// balanceOf is a player's balance at the wallet, read from its books.
func (w *refWallet) balanceOf(t testing.TB, player string) int64 {
	t.Helper()
	a, err := w.fw.Balance(context.Background(), wallet.BalanceRequest{Player: player})
	if err != nil {
		t.Fatal(err)
	}
	var b wallet.Answer
	if err := json.Unmarshal(a.Body, &b); err != nil {
		t.Fatal(err)
	}
	return b.Balance
}

// fund sets a player's balance at the wallet (the operator's hand on its accounts), creating the
// player if needed.
func (w *refWallet) fund(t testing.TB, player string, cents int64) {
	t.Helper()
	if _, err := w.fw.SetPlayer(context.Background(), player, &cents, nil); err != nil {
		t.Fatal(err)
	}
}

// A tampering is what the proxy does to a signature on its way: nothing, take it away, put one
// made with another secret, or one of another body, a valid signature of the right secret; or
// write it in upper case, which the receivers accept (WALLET.md).
type tampering int

const (
	intact tampering = iota
	unsigned
	otherSecret
	otherBody
	upperCase
)

func (m tampering) String() string {
	return [...]string{"intact", "missing", "made with another secret", "of another body", "in upper case"}[m]
}

// apply is the signature header's value for body, tampered with.
func (m tampering) apply(secret, body []byte) string {
	switch m {
	case unsigned:
		return ""
	case otherSecret:
		return wallet.Sign([]byte("another secret"), body)
	case otherBody:
		return wallet.Sign(secret, []byte(`{"balance":999999}`))
	case upperCase:
		return strings.ToUpper(wallet.Sign(secret, body))
	}
	return wallet.Sign(secret, body)
}

// walletProxy stands between Star Color and the reference wallet: it passes every call through,
// unless told to tamper with the signature of Star Color's requests or of the wallet's answers,
// or to be down (503, unsigned: the outcome unknown, the call not applied). While it tampers, it
// remembers the statuses the wallet answered.
type walletProxy struct {
	next   http.Handler
	secret []byte

	mu       sync.Mutex
	requests tampering
	answers  tampering
	down     bool
	statuses []int
}

// set says what the proxy does from now on.
func (p *walletProxy) set(requests, answers tampering, down bool) {
	p.mu.Lock()
	p.requests, p.answers, p.down, p.statuses = requests, answers, down, nil
	p.mu.Unlock()
}

// answered are the statuses the wallet answered since the last set.
func (p *walletProxy) answered() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]int(nil), p.statuses...)
}

func (p *walletProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	requests, answers, down := p.requests, p.answers, p.down
	p.mu.Unlock()
	if down {
		http.Error(w, "the wallet is down", http.StatusServiceUnavailable)
		return
	}
	if requests == intact && answers == intact {
		p.next.ServeHTTP(w, r) // as it is: the wallet's faults, a dropped connection too
		return
	}
	var body bytes.Buffer
	body.ReadFrom(r.Body)
	if requests != intact && r.Method == http.MethodPost {
		if sig := requests.apply(p.secret, body.Bytes()); sig == "" {
			r.Header.Del(wallet.SignatureHeader)
		} else {
			r.Header.Set(wallet.SignatureHeader, sig)
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(body.Bytes()))
	rec := httptest.NewRecorder()
	p.next.ServeHTTP(rec, r)
	p.mu.Lock()
	p.statuses = append(p.statuses, rec.Code)
	p.mu.Unlock()
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	if answers != intact {
		if sig := answers.apply(p.secret, rec.Body.Bytes()); sig == "" {
			w.Header().Del(wallet.SignatureHeader)
		} else {
			w.Header().Set(wallet.SignatureHeader, sig)
		}
	}
	w.WriteHeader(rec.Code)
	w.Write(rec.Body.Bytes())
}

// launchInto is the operator's signed launch of a player, its link opened in hc's cookies: hc is
// then that player's browser.
func launchInto(t testing.TB, base string, secret []byte, who string, hc *http.Client) {
	t.Helper()
	link, err := wallet.Launch(context.Background(), http.DefaultClient, base, secret, who, "sess-"+who)
	if err != nil || !strings.HasPrefix(link, base+"/?launch=") {
		t.Fatalf("launch of %s: %q %v", who, link, err)
	}
	open := &http.Client{Jar: hc.Jar, Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := open.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("opening the launch link: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, err = http.Get(link); err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 401 || !strings.Contains(string(raw), `"code":"not_logged_in"`) {
		t.Errorf("a launch link opened twice: %d %s", resp.StatusCode, raw)
	}
	// In a browser, the same status and a page that says what to do.
	req, _ := http.NewRequest("GET", link, nil)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	raw, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 401 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(raw), "déjà servi") ||
		!strings.Contains(string(raw), "site de votre opérateur") {
		t.Errorf("a launch link opened twice in a browser: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), raw)
	}
}

// launchSession is the operator's launch of a player, opened as the service does it: the session
// token (what login is in wallet mode).
func (s *testServer) launchSession(t testing.TB, who string) string {
	t.Helper()
	ctx := context.Background()
	link, err := s.svc.Launch(ctx, who, "sess-"+who)
	if err != nil {
		t.Fatal(err)
	}
	token, err := s.svc.OpenLaunch(ctx, link)
	if err != nil {
		t.Fatal(err)
	}
	return token
}

// drained waits until the test server's outbox is empty (wallet mode).
func (s *testServer) drained(t testing.TB) {
	t.Helper()
	now := time.Now
	if s.clock != nil {
		now = s.clock.Now
	}
	apptest.DrainOutbox(t, s.db, now)
}

// checkWalletBooks checks, once the outbox has drained, that the wallet and the games agree to
// the cent (WALLET.md: when every call is acknowledged, the stakes debited minus rollbacks, and
// the credits, equal on both sides), round by round: each game's debit stands at the wallet with
// its stake, its credit, once acknowledged, with its prize (a game not finished has its credit
// held, and nothing credited yet); no debit stands and no credit is for a round without a game;
// in total, the wallet's books say the same, every credit matched by its debit. Nothing is
// disputed; the players' accounts here stay at zero, and the books here balance.
func (s *testServer) checkWalletBooks(t *testing.T) {
	if t.Failed() || t.Skipped() {
		return // the failure said it already
	}
	t.Helper()
	ctx := context.Background()
	s.drained(t)
	rounds, err := s.db.WalletRounds(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var txs []fakewallet.Transaction
	for after := int64(0); ; {
		page, err := s.wallet.fw.Transactions(ctx, after, fakewallet.MaxPage)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		txs, after = append(txs, page...), page[len(page)-1].Seq
	}
	standing, credited := map[string]int64{}, map[string]int64{}
	for _, x := range txs {
		switch {
		case x.Kind == fakewallet.KindDebit && x.Status == 200 && !x.RolledBack:
			standing[x.RoundID] += x.Amount
		case x.Kind == fakewallet.KindCredit:
			credited[x.RoundID] += x.Amount
		}
	}
	var stakes, prizes int64
	players := map[string]bool{}
	for _, r := range rounds {
		players[r.Player] = true
		stakes += r.Stake
		want := int64(0) // a game not finished: its credit held
		if r.Credited {
			want = r.Prize
			prizes += r.Prize
		}
		if standing[r.ID] != r.Stake || credited[r.ID] != want {
			t.Errorf("round %s (%s): the game's stake %d and prize %d (credited %v); the wallet's debit standing %d, credits %d",
				r.ID, r.Player, r.Stake, r.Prize, r.Credited, standing[r.ID], credited[r.ID])
		}
		delete(standing, r.ID)
		delete(credited, r.ID)
	}
	for id, amount := range standing {
		if amount != 0 {
			t.Errorf("round %s: a debit of %d stands at the wallet without a game", id, amount)
		}
	}
	for id, amount := range credited {
		t.Errorf("round %s: a credit of %d at the wallet without a game", id, amount)
	}
	books, err := s.wallet.fw.Books(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if b := books.Total; b.Staked.Amount != stakes || b.Credits.Amount != prizes || !b.Balanced || books.Unmatched != 0 {
		t.Errorf("the wallet's books: staked %d, credited %d (balanced %v, %d credits unmatched); the games: stakes %d, prizes credited %d",
			b.Staked.Amount, b.Credits.Amount, b.Balanced, books.Unmatched, stakes, prizes)
	}
	if st, err := s.db.OutboxState(ctx, time.Now()); err != nil || st.Disputed != 0 {
		t.Errorf("the outbox: %+v %v", st, err)
	}
	for who := range players {
		p, err := s.db.PlayerByName(ctx, lottery.WalletUsername(who))
		if err != nil || p.Balance != 0 {
			t.Errorf("the account here of the wallet's player %s: balance %d, %v; want 0 (the money is the wallet's)", who, p.Balance, err)
		}
	}
	if c, err := s.db.CheckLedger(ctx); err != nil || len(c.Problems) != 0 {
		t.Errorf("ledger: %+v %v", c, err)
	}
	t.Logf("wallet mode: %d rounds, stakes %d, prizes credited %d; the wallet agrees", len(rounds), stakes, prizes)
}
