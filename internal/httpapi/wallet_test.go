package httpapi_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"starcolor/internal/app"
	"starcolor/internal/app/apptest"
	"starcolor/internal/fakewallet"
	"starcolor/internal/fault"
	"starcolor/internal/lottery"
	"starcolor/internal/storetest"
	"starcolor/internal/wallet"
)

// walletEnv is a server in wallet mode, in front of the reference wallet.
type walletEnv struct {
	url    string
	fwURL  string
	secret []byte
	fw     *fakewallet.Store
	proxy  *walletProxy
	env    *apptest.Env
	now    func() time.Time // the server's clock
}

func newWalletEnv(t *testing.T, faults fakewallet.Faults) *walletEnv {
	return newWalletEnvWith(t, faults, app.WalletConfig{})
}

func newWalletEnvWith(t *testing.T, faults fakewallet.Faults, cfg app.WalletConfig) *walletEnv {
	t.Helper()
	return newWalletEnvAt(t, faults, cfg, nil)
}

// newWalletEnvAt is newWalletEnvWith on a clock (nil: time.Now), the reference wallet's too.
func newWalletEnvAt(t *testing.T, faults fakewallet.Faults, cfg app.WalletConfig, now func() time.Time) *walletEnv {
	t.Helper()
	skipInWalletMode(t, ranAlready)
	if now == nil {
		now = time.Now
	}
	w := startRefWallet(t, faults, true, now)
	cfg.URL, cfg.Secret = w.url, walletSecret
	env := apptest.Start(t, apptest.Options{Blocks: 1, Seed: 9, Wallet: &cfg, Now: now})
	return &walletEnv{url: env.URL, fwURL: w.url, secret: walletSecret, fw: w.fw, proxy: w.proxy, env: env, now: now}
}

// launch is the operator's launch call with body, stamped now by the server's clock and signed
// under sign (nil: unsigned): its status and body.
func (e *walletEnv) launch(t *testing.T, body string, sign []byte) (int, string) {
	t.Helper()
	return e.post(t, e.url, wallet.LaunchPath, body, func(req *http.Request) {
		if sign != nil {
			wallet.NewKey(sign).Stamp(req, []byte(body), e.now())
		}
	})
}

// post sends body to a server's path, its headers set by sign, and checks that the answer is
// signed as the answer to this request: its status and body.
func (e *walletEnv) post(t *testing.T, base, path, body string, sign func(*http.Request)) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	sign(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	if !wallet.NewKey(e.secret).CheckAnswer(req, resp.Header, b.Bytes()) {
		t.Errorf("the launch answer %d is not signed for its request", resp.StatusCode)
	}
	return resp.StatusCode, b.String()
}

// player launches a player and opens the link in a client of its own; the link opens once.
func (e *walletEnv) player(t *testing.T, who string) *client {
	t.Helper()
	return e.playerIn(t, who, "sess-"+who)
}

// playerIn is player with the launch's operator's session.
func (e *walletEnv) playerIn(t *testing.T, who, operatorSession string) *client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	openLaunch(t, e.url, e.secret, who, operatorSession, hc, e.now)
	return &client{t: t, base: e.url, http: hc, who: who}
}

// drained waits until the outbox holds nothing to send.
func (e *walletEnv) drained(t *testing.T) {
	t.Helper()
	apptest.DrainOutbox(t, e.env.Store, e.now, nil)
}

// Wallet mode through the API:
//   - the launch: once, the body checked (its signatures: TestSignatures);
//   - the balance from the wallet;
//   - money and protection refused with wallet_mode;
//   - sales debited first, with their credits sent (a manual game's when it finishes);
//   - a refused debit refusing the sale;
//   - the wallet's books and the games agreeing to the cent.
func TestWalletMode(t *testing.T) {
	e := newWalletEnv(t, fakewallet.Faults{})
	for _, c := range []struct {
		body string
		sign []byte
		want int
	}{
		{`{"player":"","operator_session":"s","currency":"EUR","nonce":"` + wallet.NewNonce() + `"}`, e.secret, 400},
		{`{"player":"op-1","operator_session":"s","currency":"USD","nonce":"` + wallet.NewNonce() + `"}`, e.secret, 400},
		{`{"player":"op-1","operator_session":"s","currency":"EUR"}`, e.secret, 400},
		{`{"player":"op-1","operator_session":"s","currency":"EUR","nonce":"too-short"}`, e.secret, 400},
	} {
		if st, body := e.launch(t, c.body, c.sign); st != c.want {
			t.Errorf("launch %s: %d %s, want %d", c.body, st, body, c.want)
		}
	}
	p := e.player(t, "op-42")
	var me struct{ Balance int64 }
	p.must(200, &me, "GET", "/api/v1/me", nil, "")
	if me.Balance != fakewallet.DefaultInitialBalance {
		t.Fatalf("the balance shown: %d, want the wallet's %d", me.Balance, fakewallet.DefaultInitialBalance)
	}
	p.refused(403, "wallet_mode", "POST", "/api/v1/deposits", map[string]int64{"amount": 100}, p.key())
	p.refused(403, "wallet_mode", "POST", "/api/v1/withdrawals", map[string]int64{"amount": 100}, p.key())
	p.refused(403, "wallet_mode", "GET", "/api/v1/me/limits", nil, "")
	p.refused(403, "wallet_mode", "POST", "/api/v1/me/exclusion", map[string]int{"days": 7}, "")
	// A launched player has no password here: the operator keeps its players' access.
	p.refused(403, "wallet_mode", "PUT", "/api/v1/me/password", map[string]string{"current": "", "new": "a long new password"}, "")
	var prizes, stakes int64
	for range 8 {
		var g struct{ Prize, Stake int64 }
		p.must(201, &g, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, p.key())
		prizes, stakes = prizes+g.Prize, stakes+g.Stake
	}
	var manual struct {
		ID    int64
		Prize *int64
	}
	p.must(201, &manual, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "manual"}, p.key())
	stakes += 100
	e.drained(t)
	books, err := e.fw.Books(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if b := books.Total; b.Staked.Amount != stakes || b.Credits.Count != 8 || b.Credits.Amount != prizes {
		t.Fatalf("the wallet's books before the manual game ends: staked %d (want %d), credits %d of %d (want 8 of %d)",
			b.Staked.Amount, stakes, b.Credits.Count, b.Credits.Amount, prizes)
	}
	var done struct{ Prize int64 }
	p.must(200, &done, "POST", fmt.Sprintf("/api/v1/games/%d/finish", manual.ID), nil, "")
	prizes += done.Prize
	e.drained(t)
	books, _ = e.fw.Books(context.Background())
	if b := books.Total; b.Credits.Count != 9 || b.Credits.Amount != prizes || b.Balance != fakewallet.DefaultInitialBalance-stakes+prizes || books.Unmatched != 0 {
		t.Fatalf("the wallet's books: %+v", books)
	}
	// The balance shown is the wallet's answer to the last credit (the outbox notes it).
	p.must(200, &me, "GET", "/api/v1/me", nil, "")
	if me.Balance != fakewallet.DefaultInitialBalance-stakes+prizes {
		t.Fatalf("the balance shown: %d", me.Balance)
	}
	// Round by round, both sides agree; a debit at the wallet for a round without a game is found.
	ours, err := e.env.Store.WalletRounds(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	listed, err := wallet.NewClient(e.fwURL, wallet.NewKey(e.secret), 5*time.Second).Transactions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if diffs := wallet.Reconcile(ours, listed); len(ours) != 9 || len(diffs) != 0 {
		t.Fatalf("reconciliation over %d rounds: %v", len(ours), diffs)
	}
	stray := wallet.DebitRequest{TransactionID: "stray", Player: "op-42", RoundID: "999999", Amount: 100, Currency: "EUR"}
	raw, _ := json.Marshal(stray)
	if _, err := e.fw.Debit(context.Background(), stray, raw, ""); err != nil {
		t.Fatal(err)
	}
	listed, _ = wallet.NewClient(e.fwURL, wallet.NewKey(e.secret), 5*time.Second).Transactions(context.Background())
	if diffs := wallet.Reconcile(ours, listed); len(diffs) != 1 || !strings.Contains(diffs[0], "round 999999") {
		t.Fatalf("a stray debit: %v", diffs)
	}
	// A debit the wallet refuses refuses the sale, with the same status, and sells nothing.
	zero := int64(0)
	if _, err := e.fw.SetPlayer(context.Background(), "op-42", &zero, nil); err != nil {
		t.Fatal(err)
	}
	p.refused(402, "insufficient_funds", "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, p.key())
	var list struct{ Games []any }
	p.must(200, &list, "GET", "/api/v1/games", nil, "")
	if len(list.Games) != 9 {
		t.Fatalf("%d games after a refused debit, want 9", len(list.Games))
	}
	if st, _ := e.env.Store.OutboxState(context.Background(), time.Now()); st.Pending != 0 {
		t.Fatalf("a refused debit left a call to send: %+v", st)
	}
	if c, err := e.env.Store.CheckLedger(context.Background()); err != nil || len(c.Problems) != 0 {
		t.Fatalf("ledger: %+v %v", c, err)
	}
}

// Players play at once under a wallet that fails and drops answers after applying, a tenth of the
// calls each. It also refuses a tenth of the debits, and answers one call in twenty slowly (a
// rollback may then overtake its debit). Once the outbox has drained, round by round:
//   - every game's debit stands at the wallet with its stake, and its credit with its prize;
//   - every debit without a game was refused or rolled back;
//   - the books agree.
func TestWalletModeUnderFaults(t *testing.T) {
	// The outbox sends a call again from 100 ms on, not the server's 1 s: a credit that fails
	// five times in a row (one in 600 here) would otherwise wait up to 31 s, past the drain's
	// 20 s. The outcomes are what is tested, not the waits.
	e := newWalletEnvWith(t, fakewallet.Faults{Fail: 0.1, Drop: 0.1, Slow: 0.05, SlowDelay: time.Second, Refuse: 0.1, Seed: 11},
		app.WalletConfig{RetryBase: 100 * time.Millisecond})
	players := make([]*client, 8)
	for i := range players {
		players[i] = e.player(t, fmt.Sprint("op-", i))
	}
	type sold struct{ stake, prize int64 }
	var mu sync.Mutex
	games := map[int64]sold{}
	codes := map[string]int{}
	var wg sync.WaitGroup
	for _, p := range players {
		wg.Go(func() {
			for range 20 {
				st, raw := p.call("POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, p.key())
				mu.Lock()
				switch st {
				case 201:
					var g struct{ ID, Stake, Prize int64 }
					json.Unmarshal(raw, &g)
					games[g.ID] = sold{g.Stake, g.Prize}
				default:
					var b struct{ Error struct{ Code string } }
					json.Unmarshal(raw, &b)
					codes[fmt.Sprint(st, " ", b.Error.Code)]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	for code := range codes {
		if code != "402 insufficient_funds" && code != "403 limit_reached" && code != "503 wallet_unavailable" {
			t.Errorf("a refusal %s", code)
		}
	}
	if len(games) < 80 || len(codes) == 0 {
		t.Fatalf("%d games sold, refusals %v: the faults were not exercised as meant", len(games), codes)
	}
	e.drained(t)
	time.Sleep(1500 * time.Millisecond) // a slow call still held at the wallet lands
	e.drained(t)
	txs, err := e.fw.Transactions(context.Background(), 0, 100_000)
	if err != nil {
		t.Fatal(err)
	}
	standing := map[string]int64{} // round → the stake of its debit standing at the wallet
	credited := map[string]int64{}
	for _, x := range txs {
		switch {
		case x.Kind == "debit" && x.Status == 200 && !x.RolledBack:
			standing[x.RoundID] += x.Amount
		case x.Kind == "credit":
			credited[x.RoundID] += x.Amount
		}
	}
	for id, g := range games {
		r := fmt.Sprint(id)
		if standing[r] != g.stake || credited[r] != g.prize {
			t.Errorf("game %d (stake %d, prize %d): the wallet holds a debit of %d and credits of %d", id, g.stake, g.prize, standing[r], credited[r])
		}
		delete(standing, r)
		delete(credited, r)
	}
	for r, amount := range standing {
		t.Errorf("round %s: a debit of %d stands at the wallet without a game", r, amount)
	}
	for r, amount := range credited {
		t.Errorf("round %s: a credit of %d without a game", r, amount)
	}
	if c, err := e.env.Store.CheckLedger(context.Background()); err != nil || len(c.Problems) != 0 {
		t.Fatalf("ledger: %+v %v", c, err)
	}
	t.Logf("%d games, refusals %v, %d wallet transactions", len(games), codes, len(txs))
}

// A player who plays again within seconds has the rollback of their next sale held with the
// sale's game (game/wallet_ahead.go). The next sale's round is the one held ahead, and the next
// rollback is held with it. A copy of the last sale (its key) debits nothing again. A rollback
// held ahead that no sale came for is forgotten, never sent; the gauge of calls owed does not
// count it while it waits.
func TestWalletRollbackHeldAhead(t *testing.T) {
	var mu sync.Mutex
	var skew time.Duration
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return time.Now().Add(skew) }
	e := newWalletEnvAt(t, fakewallet.Faults{}, app.WalletConfig{}, now)
	ctx := context.Background()
	p := e.player(t, "op-ahead")
	held := func() []lottery.OutboxCall {
		t.Helper()
		calls, err := e.env.Store.WalletCalls(ctx, lottery.CallHeld, 10)
		if err != nil {
			t.Fatal(err)
		}
		var out []lottery.OutboxCall
		for _, c := range calls {
			if c.Call == wallet.CallRollback {
				out = append(out, c)
			}
		}
		return out
	}
	type game struct{ ID, Prize int64 }
	play := func(key string) game {
		var g game
		p.must(201, &g, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, key)
		return g
	}
	play(p.key())
	if h := held(); len(h) != 0 {
		t.Fatalf("a first sale held a rollback ahead: %+v", h)
	}
	play(p.key())
	ahead := held()
	if len(ahead) != 1 || ahead[0].GameID != 0 {
		t.Fatalf("after a second sale within seconds, the rollbacks held: %+v (want one, of a round not sold)", ahead)
	}
	e.drained(t) // the credits sent: only the rollback held ahead is left
	if st, _ := e.env.Store.OutboxState(ctx, now()); st.Pending != 0 {
		t.Fatalf("a rollback held ahead counted as owed: %+v", st)
	}
	if st, _ := e.env.Store.OutboxState(ctx, now().Add(6*time.Second)); st.Pending != 1 {
		t.Fatalf("a rollback held ahead past its time not counted: %+v", st)
	}
	key := p.key()
	third := play(key)
	if round := fmt.Sprint(third.ID); round != ahead[0].RoundID {
		t.Fatalf("the third sale's round is %s, not the one held ahead (%s)", round, ahead[0].RoundID)
	}
	next := held()
	if len(next) != 1 || next[0].TransactionID == ahead[0].TransactionID {
		t.Fatalf("after the third sale, the rollbacks held: %+v", next)
	}
	if again := play(key); again != third {
		t.Fatalf("a copy of the third sale answered %+v, not %+v", again, third)
	}
	e.drained(t)
	books, err := e.fw.Books(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if b := books.Total; b.Debits.Count != 3 || b.Rollbacks.Count != 0 || b.Credits.Count != 3 {
		t.Fatalf("the wallet's books after three sales and a copy: %+v", b)
	}
	mu.Lock()
	skew = 6 * time.Second // past the time of the rollback held ahead
	mu.Unlock()
	for deadline := time.Now().Add(5 * time.Second); len(held()) != 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("a rollback held ahead of no sale is still held: %+v", held())
		}
	}
	if calls, _ := e.env.Store.WalletCalls(ctx, lottery.CallPending, 10); len(calls) != 0 {
		t.Fatalf("calls to send after the rollback held ahead was forgotten: %+v", calls)
	}
	ours, err := e.env.Store.WalletRounds(ctx)
	if err != nil {
		t.Fatal(err)
	}
	client := wallet.NewClient(e.fwURL, wallet.NewKey(e.secret), 5*time.Second)
	client.Now = now
	listed, err := client.Transactions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diffs := wallet.Reconcile(ours, listed); len(ours) != 3 || len(diffs) != 0 || len(listed) != 6 {
		t.Fatalf("reconciliation over %d rounds and %d transactions: %v", len(ours), len(listed), diffs)
	}
}

// A sale at a stake sold out debits the wallet, is refused by the store and rolls its debit back,
// once. The next sales at that stake are refused (503 sold_out) before any debit, until an
// emission puts the stake on sale again.
func TestWalletSoldOutNotDebited(t *testing.T) {
	e := newWalletEnv(t, fakewallet.Faults{})
	ctx := context.Background()
	debits := func() (int64, int64) {
		t.Helper()
		e.drained(t)
		b, err := e.fw.Books(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return b.Total.Debits.Count, b.Total.Rollbacks.Count
	}
	sale := map[string]any{"stake": 100, "mode": "auto"}
	// The emission's 1,000 units sold by 16 players at once, each until the first sold_out.
	units := int64(e.env.Emission.Blocks[0].Units)
	var wg sync.WaitGroup
	for i := range 16 {
		p := e.player(t, fmt.Sprint("op-buyer-", i))
		wg.Go(func() {
			for {
				st, raw := p.call("POST", "/api/v1/games", sale, p.key())
				if st == 503 && strings.Contains(string(raw), `"sold_out"`) {
					return
				}
				if st != 201 {
					t.Errorf("a sale: %d %s", st, raw)
					return
				}
			}
		})
	}
	wg.Wait()
	d0, r0 := debits()
	if d0-r0 != units || r0 < 1 || r0 > 16 {
		t.Fatalf("selling out: %d debits, %d rollbacks at the wallet, for %d units", d0, r0, units)
	}
	p := e.player(t, "op-late")
	for range 4 {
		p.refused(503, "sold_out", "POST", "/api/v1/games", sale, p.key())
	}
	if d, r := debits(); d != d0 || r != r0 {
		t.Fatalf("sales at a stake sold out: %d debits, %d rollbacks at the wallet, want still %d and %d", d, r, d0, r0)
	}
	storetest.CreateEmission(t, e.env.Store, e.env.Def, "MINI-2", 100, 1, 4)
	p.must(201, nil, "POST", "/api/v1/games", sale, p.key())
	if d, r := debits(); d != d0+1 || r != r0 {
		t.Fatalf("a sale once the stake is on sale again: %d debits, %d rollbacks", d, r)
	}
}

// A debit whose answer never comes while the player waits refuses the sale (503
// wallet_unavailable) and is rolled back. The debit, landing at the wallet after its rollback, is
// refused there: nothing stands, no unit was sold.
func TestWalletDebitUnknownRolledBack(t *testing.T) {
	e := newWalletEnvWith(t, fakewallet.Faults{Slow: 1, SlowDelay: 1500 * time.Millisecond, Seed: 3},
		app.WalletConfig{Timeout: 300 * time.Millisecond, DebitWait: 700 * time.Millisecond})
	p := e.player(t, "op-slow")
	p.refused(503, "wallet_unavailable", "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, p.key())
	time.Sleep(2 * time.Second) // every sending of the debit lands
	if b := e.drainedBooks(t); b.Staked.Amount != 0 || b.Rollbacks.Count == 0 || b.Balance != fakewallet.DefaultInitialBalance {
		t.Fatalf("the wallet's books: %+v", b)
	}
	if n := p.games(); n != 0 {
		t.Fatalf("%d games sold on an unknown debit", n)
	}
}

// Signatures, both ways. By docs/spec/WALLET.md 1.1:
//   - A request whose signature does not verify, or whose timestamp is more than 300 s from the
//     receiver's clock, is refused with 401 bad_signature and changes nothing.
//   - An answer that does not verify against its request is an unknown outcome.
//   - The hex is accepted in either case.
//
// (a) The operator's launch call to Star Color. It is refused 401 bad_signature (signed), with no
// link and no player made, when its signature is:
//   - missing;
//   - made with another secret;
//   - valid but of another body, or for another path;
//   - of 1.0's kind (the body alone);
//   - not hex;
//   - stamped 301 s before or after the server's clock (moved, as tests move it), or by the
//     machine's clock, 2 hours from it.
//
// The player and the link's token are made in one write, so a refused launch makes neither. A
// signature in upper case, or stamped 300 s off, is accepted.
//
// (b) Star Color's calls to the wallet, through a proxy that tampers with the signatures:
//   - The wallet's answers to a debit unsigned, signed with another secret or signed for another
//     body are unknown outcomes: the debit was applied at the wallet. The sale is refused 503
//     wallet_unavailable, and its debit is rolled back once the wallet answers properly again. A
//     retry under the same key is a new attempt, and sells.
//   - Star Color's requests signed so are refused by the wallet, 401, and move nothing. The sale
//     is refused 503 the same way.
//   - In upper case, both ways, a sale and its credit go through.
//
// At the end the wallet and the games agree, round by round, and the balance shown is the
// wallet's.
func TestSignatures(t *testing.T) {
	var mu sync.Mutex
	skew := 2 * time.Hour // the server's clock and the wallet's, away from the machine's
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return time.Now().Add(skew) }
	e := newWalletEnvAt(t, fakewallet.Faults{}, app.WalletConfig{Timeout: 300 * time.Millisecond, DebitWait: 250 * time.Millisecond, RetryBase: 50 * time.Millisecond}, now)
	ctx := t.Context()
	key := wallet.NewKey(e.secret)

	// (a) The launch.
	body := `{"player":"op-sig","operator_session":"s","currency":"EUR","nonce":"` + wallet.NewNonce() + `"}`
	at := func(d time.Duration, k *wallet.Key, signed string) func(*http.Request) {
		return func(req *http.Request) {
			ts := strconv.FormatInt(now().Add(d).Unix(), 10)
			req.Header.Set(wallet.TimestampHeader, ts)
			req.Header.Set(wallet.SignatureHeader, k.RequestSignature("POST", wallet.LaunchPath, ts, []byte(signed)))
		}
	}
	bodyAlone := hmac.New(sha256.New, e.secret)
	bodyAlone.Write([]byte(body))
	for _, c := range []struct {
		name string
		sign func(*http.Request)
	}{
		{"missing", func(req *http.Request) { req.Header.Set(wallet.TimestampHeader, strconv.FormatInt(now().Unix(), 10)) }},
		{"made with another secret", at(0, wallet.NewKey([]byte("another secret")), body)},
		{"of another body", at(0, key, `{"player":"op-other","operator_session":"s","currency":"EUR","nonce":"0123456789abcdef"}`)},
		{"of the body alone (1.0)", func(req *http.Request) {
			req.Header.Set(wallet.SignatureHeader, hex.EncodeToString(bodyAlone.Sum(nil)))
		}},
		{"for another path", func(req *http.Request) {
			ts := strconv.FormatInt(now().Unix(), 10)
			req.Header.Set(wallet.TimestampHeader, ts)
			req.Header.Set(wallet.SignatureHeader, key.RequestSignature("POST", "/debit", ts, []byte(body)))
		}},
		{"not hex", func(req *http.Request) {
			at(0, key, body)(req)
			req.Header.Set(wallet.SignatureHeader, "not a signature")
		}},
		{"stamped 301 s ago", at(-301*time.Second, key, body)},
		{"stamped 301 s ahead", at(301*time.Second, key, body)},
		{"stamped by the machine's clock, 2 hours from the server's", func(req *http.Request) { key.Stamp(req, []byte(body), time.Now()) }},
	} {
		if st, answer := e.post(t, e.url, wallet.LaunchPath, body, c.sign); st != 401 || !strings.Contains(answer, `"code":"bad_signature"`) || strings.Contains(answer, "launch=") {
			t.Errorf("a launch whose signature is %s: %d %s, want 401 bad_signature", c.name, st, answer)
		}
	}
	if _, err := e.env.Store.PlayerByName(ctx, lottery.WalletUsername("op-sig")); !fault.Is(err, fault.NotFound) {
		t.Fatalf("refused launches made the player: %v", err)
	}
	upper := func(req *http.Request) {
		at(0, key, body)(req)
		req.Header.Set(wallet.SignatureHeader, strings.ToUpper(req.Header.Get(wallet.SignatureHeader)))
	}
	if st, answer := e.post(t, e.url, wallet.LaunchPath, body, upper); st != 201 || !strings.Contains(answer, "/?launch=") {
		t.Fatalf("a launch signed in upper case: %d %s", st, answer)
	}
	for _, d := range []time.Duration{-300 * time.Second, 299 * time.Second} {
		b := `{"player":"op-sig","operator_session":"s","currency":"EUR","nonce":"` + wallet.NewNonce() + `"}`
		if st, answer := e.post(t, e.url, wallet.LaunchPath, b, at(d, key, b)); st != 201 {
			t.Errorf("a launch stamped %s off: %d %s", d, st, answer)
		}
	}

	// (b) Star Color's calls to the wallet.
	p := e.player(t, "op-sig")
	var me struct{ Balance int64 }
	p.must(200, &me, "GET", "/api/v1/me", nil, "") // the player's account at the wallet, opened
	sale := `{"stake":100,"mode":"auto"}`
	books := func() fakewallet.PlayerBooks {
		t.Helper()
		b, err := e.fw.Books(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return b.Total
	}
	for _, m := range []tampering{unsigned, otherSecret, otherBody} {
		// The wallet's answers tampered with: the debit is applied, its outcome unknown here.
		// The owed rollback may already have reached the wallet, its answer tampered with too, so
		// only the debits are compared: Staked is checked once the answers are honest again.
		before := books()
		e.proxy.set(intact, m, false)
		key := p.key()
		p.refused(503, "wallet_unavailable", "POST", "/api/v1/games", sale, key)
		if b := books(); b.Debits.Count != before.Debits.Count+1 || b.Debits.Amount != before.Debits.Amount+100 {
			t.Fatalf("answers %s: the wallet's books %+v, want the debit applied once (it answered %v)", m, b, e.proxy.answered())
		}
		e.proxy.set(intact, intact, false)
		e.drained(t)
		if b := books(); b.Staked != before.Staked || b.Balance != before.Balance || b.Rollbacks.Amount != before.Rollbacks.Amount+100 {
			t.Fatalf("answers %s: once the wallet answers properly, the debit is not rolled back: %+v", m, b)
		}
		p.must(201, nil, "POST", "/api/v1/games", sale, key) // a new attempt
	}
	for _, m := range []tampering{unsigned, otherSecret, otherBody} {
		// Star Color's requests tampered with: refused by the wallet, 401, nothing moved.
		before := books()
		e.proxy.set(m, intact, false)
		p.refused(503, "wallet_unavailable", "POST", "/api/v1/games", sale, p.key())
		answered := e.proxy.answered()
		if len(answered) == 0 {
			t.Fatalf("requests %s: the wallet was not called", m)
		}
		for _, st := range answered {
			if st != 401 {
				t.Fatalf("requests %s: the wallet answered %v, want 401 each time", m, answered)
			}
		}
		e.proxy.set(intact, intact, false)
		e.drained(t) // the rollback, of a debit the wallet never took
		if b := books(); b.Debits != before.Debits || b.Staked != before.Staked || b.Balance != before.Balance || b.Rollbacks.Amount != before.Rollbacks.Amount {
			t.Fatalf("requests %s: the wallet's books moved: %+v, were %+v", m, b, before)
		}
	}
	// In upper case, both ways: accepted.
	e.proxy.set(upperCase, upperCase, false)
	p.must(201, nil, "POST", "/api/v1/games", sale, p.key())
	e.drained(t) // its credit, signed in upper case, and its answer
	if answered := e.proxy.answered(); len(answered) != 2 || answered[0] != 200 || answered[1] != 200 {
		t.Fatalf("signatures in upper case: the wallet answered %v, want the debit and the credit (200, 200)", answered)
	}
	e.proxy.set(intact, intact, false)
	p.must(200, &me, "GET", "/api/v1/me", nil, "")
	if b := books(); me.Balance != b.Balance || b.Staked.Amount != 4*100 {
		t.Fatalf("the balance shown %d; the wallet's books %+v, want 4 stakes standing", me.Balance, b)
	}
	(&testServer{db: e.env.Store, clock: &clock{now: now()}, wallet: &refWallet{fw: e.fw}}).checkWalletBooks(t)
}
