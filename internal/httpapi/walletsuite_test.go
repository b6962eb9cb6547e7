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
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"starcolor/internal/app/apptest"
	"starcolor/internal/fakewallet"
	"starcolor/internal/lottery"
	"starcolor/internal/wallet"
)

// The API suite in seamless wallet mode (docs/spec/WALLET.md). TestMain runs the whole suite again
// with STARCOLOR_TEST_WALLET=1, on SQLite and, when a database is given, on PostgreSQL. In these
// runs:
//   - Every test server (newTestServerWith) is in wallet mode, in front of the reference wallet
//     (internal/fakewallet, a SQLite file of its own, on an httptest server).
//   - A player's sign-up is the operator's launch, with the player's money put at the wallet.
//   - A player's balance is the wallet's.
//   - The tests whose subject does not exist in wallet mode skip, saying why.
//   - Every test of the games runs. At the end of each server's life, the wallet's books are
//     checked against the games, round by round, to the cent.

// walletSuiteEnv names the wallet-mode run of the suite.
const walletSuiteEnv = "STARCOLOR_TEST_WALLET"

// walletSuite tells whether this run of the suite is in wallet mode.
var walletSuite = os.Getenv(walletSuiteEnv) != ""

// Why a test skips in wallet mode.
const (
	// Accounts, passwords and logins: the operator's; a player comes through its launch.
	noAccounts = "accounts, passwords and logins are the operator's; its players come through the launch (docs/spec/WALLET.md)"
	// Deposits and withdrawals: 403 wallet_mode; the money is at the operator's wallet.
	noMoney = "deposits and withdrawals are the operator's (403 wallet_mode); the money is at its wallet (docs/spec/WALLET.md)"
	// Limits, self-exclusion, closure, identity: the operator's player protection.
	noProtection = "player protection (identity, limits, exclusion, closure) is the operator's; these calls are 403 wallet_mode (docs/spec/WALLET.md)"
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
// does not sync each movement answers faster, and a test's machine does not crash). Its clock,
// which it holds Star Color's timestamps to (docs/spec/WALLET.md 1.1), is now (nil: time.Now): the
// server's, when a test moves the server's clock, as two machines whose clocks agree.
func startRefWallet(t testing.TB, faults fakewallet.Faults, durable bool, now func() time.Time) *refWallet {
	t.Helper()
	fw, err := fakewallet.OpenWith(context.Background(), filepath.Join(t.TempDir(), "wallet.db"), durable)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fw.Close() })
	if now != nil {
		fw.Now = now
	}
	proxy := &walletProxy{next: fakewallet.NewServer(fw, walletSecret, faults), key: wallet.NewKey(walletSecret)}
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

// A tampering is what the proxy does to a signature on its way:
//   - nothing;
//   - take it away;
//   - put one made with another secret;
//   - put one of another body, valid otherwise: of the right secret, for the right call, time and
//     request;
//   - write it in upper case, which the receivers accept (docs/spec/WALLET.md).
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

// forged is a body a signature may be made for instead of the one it goes with.
var forged = []byte(`{"balance":999999}`)

// request is the signature header's value for a request r of body, tampered with ("": none).
func (m tampering) request(key *wallet.Key, r *http.Request, body []byte) string {
	ts, sig := r.Header.Get(wallet.TimestampHeader), r.Header.Get(wallet.SignatureHeader)
	switch m {
	case unsigned:
		return ""
	case otherSecret:
		return wallet.NewKey([]byte("another secret")).RequestSignature(r.Method, r.RequestURI, ts, body)
	case otherBody:
		return key.RequestSignature(r.Method, r.RequestURI, ts, forged)
	case upperCase:
		return strings.ToUpper(sig)
	}
	return sig
}

// answer is the signature header's value for an answer h, body, to the request r as its client
// sent it, tampered with ("": none).
func (m tampering) answer(key *wallet.Key, r *http.Request, h http.Header, body []byte) string {
	ts, sig, asked := h.Get(wallet.TimestampHeader), h.Get(wallet.SignatureHeader), r.Header.Get(wallet.SignatureHeader)
	switch m {
	case unsigned:
		return ""
	case otherSecret:
		return wallet.NewKey([]byte("another secret")).AnswerSignature(r.Method, r.RequestURI, asked, ts, body)
	case otherBody:
		return key.AnswerSignature(r.Method, r.RequestURI, asked, ts, forged)
	case upperCase:
		return strings.ToUpper(sig)
	}
	return sig
}

// walletProxy stands between Star Color and the reference wallet. It passes every call through,
// unless told to:
//   - tamper with the signature of Star Color's requests or of the wallet's answers;
//   - be down (503, unsigned: the outcome unknown, the call not applied);
//   - answer every debit with an answer it captured from an earlier one (replayDebits: the
//     audit's attack);
//   - answer with another transaction_id echoed, signed properly (echoing).
//
// While it tampers, it remembers the statuses the wallet answered. It always remembers the
// requests it passed (sent).
type walletProxy struct {
	next http.Handler
	key  *wallet.Key

	mu       sync.Mutex
	requests tampering
	answers  tampering
	down     bool
	replay   bool
	captured *passed // the debit's answer replayed
	echo     string  // the transaction_id echoed instead of the call's ("": the call's)
	statuses []int
	passed   []passed
}

// passed is a request as it came, with its headers, or an answer as it went.
type passed struct {
	path   string
	header http.Header
	body   []byte
}

// set says what the proxy does from now on.
func (p *walletProxy) set(requests, answers tampering, down bool) {
	p.mu.Lock()
	p.requests, p.answers, p.down, p.statuses, p.replay, p.captured, p.echo = requests, answers, down, nil, false, nil, ""
	p.mu.Unlock()
}

// replayDebits makes the proxy capture the answer of the next debit that passes, validly signed
// for that debit. It then answers every later debit with it, without passing them on.
func (p *walletProxy) replayDebits() {
	p.mu.Lock()
	p.replay, p.captured = true, nil
	p.mu.Unlock()
}

// echoing makes the proxy answer every call with id as its transaction_id echoed, signed
// properly as the answer to its request: only the echo is wrong.
func (p *walletProxy) echoing(id string) {
	p.mu.Lock()
	p.echo = id
	p.mu.Unlock()
}

// answered are the statuses the wallet answered since the last set.
func (p *walletProxy) answered() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]int(nil), p.statuses...)
}

// sent are the requests of a call (its path, "/debit"…) that came to the proxy, in order.
func (p *walletProxy) sent(path string) []passed {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []passed
	for _, r := range p.passed {
		if r.path == path {
			out = append(out, r)
		}
	}
	return out
}

func (p *walletProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body bytes.Buffer
	body.ReadFrom(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body.Bytes()))
	p.mu.Lock()
	requests, answers, down, replay, captured, echo := p.requests, p.answers, p.down, p.replay, p.captured, p.echo
	p.passed = append(p.passed, passed{r.URL.Path, r.Header.Clone(), body.Bytes()})
	p.mu.Unlock()
	if down {
		http.Error(w, "the wallet is down", http.StatusServiceUnavailable)
		return
	}
	if replay && captured != nil && r.URL.Path == "/"+wallet.CallDebit {
		for k, v := range captured.header {
			w.Header()[k] = v
		}
		w.WriteHeader(http.StatusOK)
		w.Write(captured.body)
		return
	}
	if requests == intact && answers == intact && !replay && echo == "" {
		p.next.ServeHTTP(w, r) // as it is: the wallet's faults, a dropped connection too
		return
	}
	asked := r.Header.Get(wallet.SignatureHeader) // as Star Color sent it
	if requests != intact && r.Method == http.MethodPost {
		if sig := requests.request(p.key, r, body.Bytes()); sig == "" {
			r.Header.Del(wallet.SignatureHeader)
		} else {
			r.Header.Set(wallet.SignatureHeader, sig)
		}
	}
	rec := httptest.NewRecorder()
	p.next.ServeHTTP(rec, r)
	p.mu.Lock()
	p.statuses = append(p.statuses, rec.Code)
	p.mu.Unlock()
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	answer := rec.Body.Bytes()
	r.Header.Set(wallet.SignatureHeader, asked)
	if requests == upperCase || echo != "" {
		// The answer binds the request's signature as the wallet got it. A proxy that changed it
		// signs the answer again for the one Star Color sent, or Star Color would refuse it.
		if echo != "" {
			var a wallet.Answer
			json.Unmarshal(answer, &a)
			a.TransactionID = echo
			answer, _ = json.Marshal(a)
		}
		p.key.StampAnswer(w.Header(), r, answer, time.Now())
	}
	if answers != intact {
		if sig := answers.answer(p.key, r, w.Header(), answer); sig == "" {
			w.Header().Del(wallet.SignatureHeader)
		} else {
			w.Header().Set(wallet.SignatureHeader, sig)
		}
	}
	if replay && r.URL.Path == "/"+wallet.CallDebit && rec.Code == http.StatusOK {
		p.mu.Lock()
		p.captured = &passed{r.URL.Path, w.Header().Clone(), answer}
		p.mu.Unlock()
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(answer)))
	w.WriteHeader(rec.Code)
	w.Write(answer)
}

// launchInto is the operator's signed launch of a player, stamped at now() (the server's clock).
// Its link is opened in hc's cookies, so hc is then that player's browser. Its calls to the
// wallet carry the operator's session "sess-"+who.
func launchInto(t testing.TB, base string, secret []byte, who string, hc *http.Client, now func() time.Time) {
	t.Helper()
	openLaunch(t, base, secret, who, "sess-"+who, hc, now)
}

// openLaunch is launchInto with the launch's operator's session.
func openLaunch(t testing.TB, base string, secret []byte, who, operatorSession string, hc *http.Client, now func() time.Time) {
	t.Helper()
	link, err := wallet.Launch(context.Background(), http.DefaultClient, base, wallet.NewKey(secret), who, operatorSession, now())
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
	link, err := s.svc.Launch(ctx, who, "sess-"+who, wallet.NewNonce())
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
	if s.clock == nil {
		apptest.DrainOutbox(t, s.db, time.Now, nil)
		return
	}
	apptest.DrainOutbox(t, s.db, s.clock.Now, s.clock.Advance)
}

// checkWalletBooks checks, once the outbox has drained, that the wallet and the games agree to
// the cent, round by round. By docs/spec/WALLET.md, when every call is acknowledged, the stakes
// debited minus rollbacks, and the credits, are equal on both sides. It checks that:
//   - Each game's debit stands at the wallet with its stake.
//   - Each game's credit, once acknowledged, stands with its prize. A game not finished has its
//     credit held, and nothing credited yet.
//   - No debit stands and no credit is for a round without a game.
//   - In total, the wallet's books say the same, every credit matched by its debit.
//   - Nothing is disputed.
//   - The players' accounts here stay at zero, and the books here balance.
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
