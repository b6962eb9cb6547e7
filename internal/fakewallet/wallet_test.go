package fakewallet

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"starcolor/internal/wallet"
)

// Every request is signed as docs/spec/WALLET.md 1.1 says, or refused. A refusal is 401
// bad_signature, signed as the answer to it, and changes nothing. A signature is refused when it
// is:
//
//   - missing, wrong, or not hex;
//   - of another body, or under another secret;
//   - of 1.0's kind (the body alone);
//   - made for another path or method;
//   - with a timestamp 301 s old or ahead of the wallet's clock, or none.
//
// In upper case, or 300 s off, it is good.
//
// The wallet's clock is pinned, so that the bounds are exact: the machine's wall clock can be
// stepped between a stamp and its check.
func TestSignatures(t *testing.T) {
	s := newStore(t)
	now := time.Now()
	s.Now = func() time.Time { return now }
	w := serveStore(t, s, Faults{})
	body := []byte(`{"transaction_id":"d1","player":"p1","operator_session":"s","round_id":"1","amount":500,"currency":"EUR"}`)
	other := []byte(`{"transaction_id":"d1","player":"p1","operator_session":"s","round_id":"1","amount":5,"currency":"EUR"}`)
	stamp := func(req *http.Request, at time.Time, sig func(method, path, ts string) string) {
		ts := strconv.FormatInt(at.Unix(), 10)
		req.Header.Set(wallet.TimestampHeader, ts)
		req.Header.Set(wallet.SignatureHeader, sig(req.Method, req.URL.RequestURI(), ts))
	}
	own := func(b []byte) func(method, path, ts string) string {
		return func(method, path, ts string) string { return key.RequestSignature(method, path, ts, b) }
	}
	for name, sign := range map[string]func(req *http.Request, b []byte){
		"missing": func(req *http.Request, _ []byte) {
			stamp(req, now, func(string, string, string) string { return "" })
		},
		"wrong": func(req *http.Request, _ []byte) {
			stamp(req, now, func(string, string, string) string { return strings.Repeat("0", 64) })
		},
		"not hex": func(req *http.Request, _ []byte) {
			stamp(req, now, func(string, string, string) string { return "not a signature" })
		},
		"of another body": func(req *http.Request, b []byte) { stamp(req, now, own(other)) },
		"under another secret": func(req *http.Request, b []byte) {
			stamp(req, now, func(method, path, ts string) string {
				return wallet.NewKey([]byte("another secret")).RequestSignature(method, path, ts, b)
			})
		},
		"of the body alone (1.0)": func(req *http.Request, b []byte) {
			m := hmac.New(sha256.New, secret)
			m.Write(b)
			req.Header.Set(wallet.SignatureHeader, hex.EncodeToString(m.Sum(nil)))
		},
		"made for another call": func(req *http.Request, b []byte) {
			stamp(req, now, func(method, _, ts string) string { return key.RequestSignature(method, "/credit?x", ts, b) })
		},
		"made for another method": func(req *http.Request, b []byte) {
			stamp(req, now, func(_, path, ts string) string { return key.RequestSignature("PUT", path, ts, b) })
		},
		"301 s old":   func(req *http.Request, b []byte) { stamp(req, now.Add(-301*time.Second), own(b)) },
		"301 s ahead": func(req *http.Request, b []byte) { stamp(req, now.Add(301*time.Second), own(b)) },
		"without a time": func(req *http.Request, b []byte) {
			req.Header.Set(wallet.SignatureHeader, key.RequestSignature(req.Method, req.URL.RequestURI(), "", b))
		},
	} {
		for _, path := range []string{"/debit", "/credit", "/rollback", "/balance", "/players"} {
			r := w.signed("POST", path, body, func(req *http.Request) { sign(req, body) })
			if r.err != nil || r.status != http.StatusUnauthorized || r.code() != wallet.CodeBadSignature || !r.signed {
				t.Errorf("%s signature on %s: %d %s (signed %v, %v), want a signed 401 bad_signature", name, path, r.status, r.body, r.signed, r.err)
			}
		}
		for _, path := range []string{"/books", "/transactions?after=0"} {
			if r := w.signed("GET", path, nil, func(req *http.Request) { sign(req, nil) }); r.status != http.StatusUnauthorized || !r.signed {
				t.Errorf("%s signature on GET %s: %d %s", name, path, r.status, r.body)
			}
		}
	}
	// Nothing changed: no player, no transaction.
	if b := w.books(); len(b.Players) != 0 {
		t.Fatalf("refused requests made players: %+v", b.Players)
	}
	// The signature in upper case is good, and so is a timestamp 300 s off; the answers are
	// signed for their requests, and echo their transaction_id.
	r := w.signed("POST", "/debit", body, func(req *http.Request) {
		stamp(req, now, func(method, path, ts string) string {
			return strings.ToUpper(key.RequestSignature(method, path, ts, body))
		})
	})
	if r.status != 200 || !r.signed || string(r.body) != fmt.Sprintf(`{"balance":%d,"transaction_id":"d1"}`, DefaultInitialBalance-500) {
		t.Fatalf("a debit signed in upper case: %d %s (signed %v)", r.status, r.body, r.signed)
	}
	for _, off := range []time.Duration{-300 * time.Second, 300 * time.Second} {
		b := fmt.Appendf(nil, `{"transaction_id":"c%d","player":"p1","round_id":"1","amount":0,"currency":"EUR","debit_transaction_id":"d1"}`, off/time.Second)
		if r := w.signed("POST", "/credit", b, func(req *http.Request) { stamp(req, now.Add(off), own(b)) }); r.status != 200 || !r.signed {
			t.Errorf("a credit stamped %s off: %d %s (signed %v)", off, r.status, r.body, r.signed)
		}
	}
}

// The wallet's clock is its store's (Store.Now): a request stamped on it is good however far it
// is from the machine's, and one stamped on the machine's is then refused.
func TestSignaturesOnTheStoresClock(t *testing.T) {
	s := newStore(t)
	later := time.Now().Add(25 * time.Hour)
	s.Now = func() time.Time { return later }
	w := serveStore(t, s, Faults{})
	body, _ := json.Marshal(wallet.BalanceRequest{Player: "p1"})
	if r := w.signed("POST", "/balance", body, func(req *http.Request) { key.Stamp(req, body, later) }); r.status != 200 || !r.signed {
		t.Fatalf("a balance stamped on the wallet's clock: %d %s", r.status, r.body)
	}
	if r := w.post("balance", wallet.BalanceRequest{Player: "p1"}); r.status != http.StatusUnauthorized || !r.signed {
		t.Fatalf("a balance stamped 25 hours from the wallet's clock: %d %s", r.status, r.body)
	}
}

// Bodies are read strictly: a field unknown, twice or in another case is 400, nothing kept.
func TestStrictBodies(t *testing.T) {
	w := newWallet(t, Faults{})
	for _, c := range []struct{ path, body string }{
		{"/debit", `{"transaction_id":"x","player":"p1","operator_session":"s","round_id":"1","amount":5,"currency":"EUR","extra":1}`},
		{"/debit", `{"transaction_id":"x","player":"p1","operator_session":"s","round_id":"1","amount":5,"amount":1,"currency":"EUR"}`},
		{"/debit", `{"Transaction_ID":"x","player":"p1","operator_session":"s","round_id":"1","amount":5,"currency":"EUR"}`},
		{"/credit", `{"transaction_id":"x","player":"p1","round_id":"1","amount":5,"currency":"EUR","debit_transaction_id":"d","url":"x"}`},
		{"/rollback", `{"transaction_id":"x","player":"p1","round_id":"1","rolled_back_transaction_id":"d","amount":5}`},
		{"/balance", `{"player":"p1","operator_session":"s","nonce":"abc"}`},
		{"/players", `{"player":"p1","balance":5,"balance":6}`},
	} {
		if r := w.raw("POST", c.path, []byte(c.body), "sign"); r.status != http.StatusBadRequest || r.code() != CodeInvalid || !r.signed {
			t.Errorf("%s %s: %d %s", c.path, c.body, r.status, r.body)
		}
	}
	if b := w.books(); len(b.Players) != 0 {
		t.Fatalf("refused bodies made players: %+v", b.Players)
	}
}

func TestIdempotency(t *testing.T) {
	w := newWallet(t, Faults{})
	first := w.raw("POST", "/debit", []byte(`{"transaction_id":"d1","player":"p1","operator_session":"s","round_id":"7","amount":300,"currency":"EUR"}`), "sign")
	if first.status != 200 || first.balance() != DefaultInitialBalance-300 {
		t.Fatalf("first debit: %d %s", first.status, first.body)
	}
	w.credit(t, "c1", "p1", 1000, "d1") // the balance moves on after the first answer
	// The same body, its fields in another order and spacing: the first answer again, byte for byte.
	again := w.raw("POST", "/debit", []byte(`{ "currency": "EUR", "amount": 300, "round_id": "7",
		"operator_session": "s", "player": "p1", "transaction_id": "d1" }`), "sign")
	if again.status != first.status || !bytes.Equal(again.body, first.body) || !again.signed {
		t.Fatalf("the same debit again: %d %s, want %d %s", again.status, again.body, first.status, first.body)
	}
	if got := w.balanceOf("p1"); got != DefaultInitialBalance-300+1000 {
		t.Fatalf("balance %d: the debit moved twice", got)
	}
	// Another body under a known id, at the same call or another: 409, nothing moves.
	for _, c := range []struct {
		call string
		v    any
	}{
		{"debit", debit("d1", "p1", 301)},
		{"debit", debit("d1", "p2", 300)},
		{"credit", credit("d1", "p1", 300, "d1")},
		{"rollback", rollback("d1", "p1", "d1")},
		{"debit", debit("c1", "p1", 1000)},
		{"credit", credit("c1", "p1", 1001, "d1")},
	} {
		if r := w.must(http.StatusConflict, c.call, c.v); r.code() != wallet.CodeDuplicateTransaction {
			t.Errorf("%s %+v: code %s", c.call, c.v, r.code())
		}
	}
	// A credit sent again with the same body: its first answer, once.
	if r := w.must(200, "credit", credit("c1", "p1", 1000, "d1")); r.balance() != DefaultInitialBalance-300+1000 {
		t.Errorf("the same credit again answered %s", r.body)
	}
	if got := w.balanceOf("p1"); got != DefaultInitialBalance-300+1000 {
		t.Fatalf("balance %d after the duplicates", got)
	}
	b := w.checkBooks()
	if len(b.Players) != 1 || b.Total.Debits != (Sum{1, 300}) || b.Total.Credits != (Sum{1, 1000}) {
		t.Fatalf("books %+v", b)
	}
}

func (w *testWallet) credit(t *testing.T, id, player string, amount int64, debitID string) reply {
	t.Helper()
	return w.must(200, "credit", credit(id, player, amount, debitID))
}

func TestDebit(t *testing.T) {
	w := newWallet(t, Faults{})
	w.setBalance("p1", 1000)
	if r := w.must(200, "debit", debit("d1", "p1", 400)); r.balance() != 600 {
		t.Fatalf("debit answered %s", r.body)
	}
	// Too much: 402, the balance unchanged, and final: the same debit after a deposit is 402 again.
	r := w.must(http.StatusPaymentRequired, "debit", debit("d2", "p1", 601))
	var echo wallet.ErrorBody
	json.Unmarshal(r.body, &echo)
	if r.code() != wallet.CodeInsufficientFunds || echo.TransactionID != "d2" || w.balanceOf("p1") != 600 {
		t.Fatalf("a debit past the balance: %s, balance %d", r.body, w.balanceOf("p1"))
	}
	w.setBalance("p1", 5000)
	if again := w.must(http.StatusPaymentRequired, "debit", debit("d2", "p1", 601)); !bytes.Equal(again.body, r.body) {
		t.Fatalf("a refused debit again: %s, want %s", again.body, r.body)
	}
	// The whole balance may go.
	if r := w.must(200, "debit", debit("d3", "p1", 5000)); r.balance() != 0 {
		t.Fatalf("debit of the whole balance: %s", r.body)
	}
	// A blocked player: 403 player_blocked, nothing moves; credits are still accepted.
	w.must(200, "players", map[string]any{"player": "p1", "blocked": true})
	if r := w.must(http.StatusForbidden, "debit", debit("d4", "p1", 1)); r.code() != wallet.CodePlayerBlocked {
		t.Fatalf("debit of a blocked player: %s", r.body)
	}
	if r := w.credit(t, "c3", "p1", 250, "d3"); r.balance() != 250 {
		t.Fatalf("credit to a blocked player: %s", r.body)
	}
	w.must(200, "players", map[string]any{"player": "p1", "blocked": false})
	w.must(200, "debit", debit("d5", "p1", 250))
	// A new player starts with the initial balance.
	if got := w.balanceOf("newcomer"); got != DefaultInitialBalance {
		t.Fatalf("a new player's balance %d", got)
	}
	// Bodies that are not debits: 400, nothing kept.
	for _, body := range []string{
		`{"transaction_id":"x","player":"p1","round_id":"1","amount":0,"currency":"EUR"}`,
		`{"transaction_id":"x","player":"p1","round_id":"1","amount":-5,"currency":"EUR"}`,
		`{"transaction_id":"x","player":"p1","round_id":"1","amount":5,"currency":"USD"}`,
		`{"transaction_id":"x","player":"p1","round_id":"1","amount":"5","currency":"EUR"}`,
		`{"transaction_id":"x","player":"p1","round_id":"1","amount":5.5,"currency":"EUR"}`,
		`{"player":"p1","round_id":"1","amount":5,"currency":"EUR"}`,
		`not json`,
	} {
		if r := w.raw("POST", "/debit", []byte(body), "sign"); r.status != http.StatusBadRequest || r.code() != CodeInvalid || !r.signed {
			t.Errorf("%s: %d %s", body, r.status, r.body)
		}
	}
	b := w.checkBooks()
	p1 := b.Players[1]
	if p1.Player != "p1" || p1.Debits != (Sum{3, 5650}) || p1.Refused != 2 || p1.Balance != 0 {
		t.Fatalf("books of p1: %+v", p1)
	}
}

func TestRollback(t *testing.T) {
	w := newWallet(t, Faults{})
	w.setBalance("p1", 1000)
	w.must(200, "debit", debit("d1", "p1", 400))
	first := w.must(200, "rollback", rollback("r1", "p1", "d1"))
	if first.balance() != 1000 {
		t.Fatalf("rollback answered %s", first.body)
	}
	w.must(200, "debit", debit("d2", "p1", 100)) // the balance moves on
	// The same rollback, or another rollback of the same debit: the first answer, echoing its own
	// id, nothing given back.
	for _, rb := range []wallet.RollbackRequest{rollback("r1", "p1", "d1"), rollback("r2", "p1", "d1")} {
		want := fmt.Sprintf(`{"balance":1000,"transaction_id":%q}`, rb.TransactionID)
		if r := w.must(200, "rollback", rb); string(r.body) != want {
			t.Fatalf("rollback %+v again: %s, want %s", rb, r.body, want)
		}
	}
	// The debit rolled back, sent again: 409.
	if r := w.must(http.StatusConflict, "debit", debit("d1", "p1", 400)); r.code() != wallet.CodeDuplicateTransaction {
		t.Fatalf("a debit rolled back, again: %s", r.body)
	}
	if got := w.balanceOf("p1"); got != 900 {
		t.Fatalf("balance %d, want 900", got)
	}

	// A rollback that comes before its debit: acknowledged, remembered, and the debit is refused.
	if r := w.must(200, "rollback", rollback("r3", "p1", "d3")); r.balance() != 900 {
		t.Fatalf("rollback of an unknown debit: %s", r.body)
	}
	if r := w.must(http.StatusConflict, "debit", debit("d3", "p1", 50)); r.code() != wallet.CodeDuplicateTransaction {
		t.Fatalf("the debit after its rollback: %s", r.body)
	}
	w.must(200, "rollback", rollback("r4", "p1", "d3"))
	w.must(http.StatusConflict, "debit", debit("d3", "p1", 50))
	if got := w.balanceOf("p1"); got != 900 {
		t.Fatalf("balance %d, want 900", got)
	}
	// A rollback of an unknown player's unknown debit makes the player.
	if r := w.must(200, "rollback", rollback("r5", "ghost", "d5")); r.balance() != DefaultInitialBalance {
		t.Fatalf("rollback for an unknown player: %s", r.body)
	}

	// A rollback of a refused debit gives nothing back, and the debit is then refused with 409.
	w.must(http.StatusPaymentRequired, "debit", debit("d6", "p1", 100_000))
	if r := w.must(200, "rollback", rollback("r6", "p1", "d6")); r.balance() != 900 {
		t.Fatalf("rollback of a refused debit: %s", r.body)
	}
	w.must(http.StatusConflict, "debit", debit("d6", "p1", 100_000))

	// A rollback of a credit, or of another player's debit: 400, nothing kept.
	w.credit(t, "c1", "p1", 0, "d2")
	w.must(http.StatusBadRequest, "rollback", rollback("r7", "p1", "c1"))
	w.must(http.StatusBadRequest, "rollback", rollback("r7", "p2", "d2"))
	if got := w.balanceOf("p1"); got != 900 {
		t.Fatalf("balance %d, want 900", got)
	}
	b := w.checkBooks()
	p1 := b.Players[1]
	if p1.Debits != (Sum{2, 500}) || p1.Rollbacks != (Sum{5, 400}) || p1.Staked != (Sum{1, 100}) || p1.Balance != 900 {
		t.Fatalf("books of p1: %+v", p1)
	}
}

func TestCredit(t *testing.T) {
	w := newWallet(t, Faults{})
	w.setBalance("p1", 1000)
	w.must(200, "debit", debit("d1", "p1", 100))
	if r := w.credit(t, "c1", "p1", 0, "d1"); r.balance() != 900 {
		t.Fatalf("a prize of 0: %s", r.body)
	}
	// Accepted, but not matched: a debit unknown, rolled back, refused.
	w.must(200, "debit", debit("d2", "p1", 100))
	w.must(200, "rollback", rollback("r2", "p1", "d2"))
	w.must(http.StatusPaymentRequired, "debit", debit("d3", "p1", 5000))
	w.credit(t, "c2", "p1", 10, "unknown")
	w.credit(t, "c3", "p1", 20, "d2")
	if r := w.credit(t, "c4", "p1", 30, "d3"); r.balance() != 960 {
		t.Fatalf("credits: %s", r.body)
	}
	// A player never seen before is made, and credited.
	if r := w.credit(t, "c5", "newcomer", 5, "elsewhere"); r.balance() != DefaultInitialBalance+5 {
		t.Fatalf("credit to a new player: %s", r.body)
	}
	w.must(http.StatusBadRequest, "credit", credit("c6", "p1", -1, "d1"))
	if b := w.checkBooks(); b.Unmatched != 4 || b.Total.Credits != (Sum{5, 65}) {
		t.Fatalf("books: %+v", b)
	}
}

func TestConcurrentDebits(t *testing.T) {
	w := newWallet(t, Faults{})
	w.setBalance("p1", 20*250)
	var wg sync.WaitGroup
	statuses := make(chan int, 50)
	for i := range 50 {
		wg.Go(func() {
			r := w.post("debit", debit(fmt.Sprintf("d%d", i), "p1", 250))
			if r.err != nil || !r.signed {
				t.Errorf("debit %d: %v (signed %v)", i, r.err, r.signed)
			}
			statuses <- r.status
		})
	}
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for s := range statuses {
		count[s]++
	}
	if count[200] != 20 || count[402] != 30 || w.balanceOf("p1") != 0 {
		t.Fatalf("statuses %v, balance %d: want 20 debits and 30 refusals", count, w.balanceOf("p1"))
	}

	// The same debit sent 20 times at once: one movement, the same answer to all.
	w.setBalance("p2", 1000)
	bodies := make(chan string, 20)
	for range 20 {
		wg.Go(func() {
			r := w.post("debit", debit("same", "p2", 300))
			if r.status != 200 {
				t.Errorf("the same debit: %d %s", r.status, r.body)
			}
			bodies <- string(r.body)
		})
	}
	wg.Wait()
	close(bodies)
	for b := range bodies {
		if b != `{"balance":700,"transaction_id":"same"}` {
			t.Errorf("the same debit answered %s", b)
		}
	}
	if got := w.balanceOf("p2"); got != 700 {
		t.Fatalf("balance %d after 20 sends of one debit, want 700", got)
	}
	w.checkBooks()
}

func TestFaultDrop(t *testing.T) {
	s := newStore(t)
	w := serveStore(t, s, Faults{Drop: 1})
	clean := serveStore(t, s, Faults{})
	r := w.post("debit", debit("d1", "p1", 100))
	if r.err == nil {
		t.Fatalf("--drop 1 answered %d %s", r.status, r.body)
	}
	// Applied all the same: the same debit, once the wallet answers, gets the first answer.
	if got := clean.balanceOf("p1"); got != DefaultInitialBalance-100 {
		t.Fatalf("balance %d: the dropped debit was not applied", got)
	}
	if r := clean.must(200, "debit", debit("d1", "p1", 100)); r.balance() != DefaultInitialBalance-100 {
		t.Fatalf("the dropped debit sent again: %s", r.body)
	}
	// A rollback of it, its answer dropped too, gives the amount back once.
	if r := w.post("rollback", rollback("r1", "p1", "d1")); r.err == nil {
		t.Fatalf("--drop 1 answered a rollback: %d", r.status)
	}
	clean.must(200, "rollback", rollback("r1", "p1", "d1"))
	if got := clean.balanceOf("p1"); got != DefaultInitialBalance {
		t.Fatalf("balance %d after the rollback", got)
	}
	clean.checkBooks()
}

func TestFaultFail(t *testing.T) {
	s := newStore(t)
	w := serveStore(t, s, Faults{Fail: 1})
	clean := serveStore(t, s, Faults{})
	for _, c := range []struct {
		call string
		v    any
	}{{"debit", debit("d1", "p1", 100)}, {"credit", credit("c1", "p1", 100, "d1")}, {"rollback", rollback("r1", "p1", "d1")}} {
		r := w.post(c.call, c.v)
		if r.err != nil || r.status < 500 || !r.signed {
			t.Fatalf("--fail 1, %s: %d %s (signed %v, %v)", c.call, r.status, r.body, r.signed, r.err)
		}
	}
	if b := clean.books(); len(b.Players) != 0 {
		t.Fatalf("--fail applied calls: %+v", b)
	}
	// Nothing was kept: the debit is new to the wallet.
	clean.must(200, "debit", debit("d1", "p1", 100))
}

func TestFaultRefuse(t *testing.T) {
	s := newStore(t)
	w := serveStore(t, s, Faults{Refuse: 1, Seed: 7})
	clean := serveStore(t, s, Faults{})
	codes := map[string]int{}
	for i := range 20 {
		r := w.post("debit", debit(fmt.Sprintf("d%d", i), "p1", 100))
		if r.status != 402 && r.status != 403 {
			t.Fatalf("--refuse 1: %d %s", r.status, r.body)
		}
		codes[r.code()]++
		// Final: the same debit without the fault is refused the same way.
		if again := clean.post("debit", debit(fmt.Sprintf("d%d", i), "p1", 100)); again.status != r.status || !bytes.Equal(again.body, r.body) {
			t.Fatalf("a refused debit again: %d %s, want %d %s", again.status, again.body, r.status, r.body)
		}
	}
	if codes[wallet.CodeInsufficientFunds] == 0 || codes[wallet.CodeLimitReached] == 0 || len(codes) != 2 {
		t.Fatalf("refusals %v: want both codes", codes)
	}
	if got := clean.balanceOf("p1"); got != DefaultInitialBalance {
		t.Fatalf("refused debits moved the balance to %d", got)
	}
	// Credits and rollbacks are never refused.
	w.must(200, "credit", credit("c1", "p1", 5, "d0"))
	w.must(200, "rollback", rollback("r1", "p1", "d1"))
}

// A debit held by --slow past the caller's patience: the caller rolls it back, the rollback
// overtakes it, and the debit, applied at last, is refused (409): nothing moves.
func TestFaultSlowRollbackOvertakes(t *testing.T) {
	s := newStore(t)
	slow := serveStore(t, s, Faults{Slow: 1, SlowDelay: 400 * time.Millisecond})
	slow.client.Timeout = 50 * time.Millisecond
	clean := serveStore(t, s, Faults{})
	start := time.Now()
	if r := slow.post("debit", debit("d1", "p1", 100)); r.err == nil {
		t.Fatalf("the slow debit answered in time: %d %s", r.status, r.body)
	}
	clean.must(200, "rollback", rollback("r1", "p1", "d1"))
	time.Sleep(400*time.Millisecond - time.Since(start) + 200*time.Millisecond)
	if got := clean.balanceOf("p1"); got != DefaultInitialBalance {
		t.Fatalf("balance %d: the debit that came after its rollback moved money", got)
	}
	list, err := s.Transactions(context.Background(), 0, 0)
	if err != nil || len(list) != 1 || list[0].Kind != KindRollback {
		t.Fatalf("transactions %+v, %v: want the rollback only", list, err)
	}
	// The slow wallet answers, late.
	slow.client.Timeout = 5 * time.Second
	if r := slow.post("balance", wallet.BalanceRequest{Player: "p1"}); r.status != 200 || time.Since(start) < 400*time.Millisecond {
		t.Fatalf("slow balance: %d %s", r.status, r.body)
	}
}

func TestTransactions(t *testing.T) {
	w := newWallet(t, Faults{})
	w.must(200, "debit", debit("d1", "p1", 100))
	w.must(200, "debit", debit("d2", "p2", 200))
	w.must(200, "rollback", rollback("r1", "p1", "d1"))
	w.must(402, "debit", debit("d3", "p2", 1_000_000))
	w.credit(t, "c2", "p2", 50, "d2")
	var all []Transaction
	after := int64(0)
	for {
		r := w.raw("GET", fmt.Sprintf("/transactions?after=%d&limit=2", after), nil, "sign")
		if r.status != 200 || !r.signed {
			t.Fatalf("transactions: %d %s", r.status, r.body)
		}
		var page TransactionsPage
		if err := json.Unmarshal(r.body, &page); err != nil {
			t.Fatal(err)
		}
		if len(page.Transactions) == 0 {
			if page.Next != after {
				t.Fatalf("an empty page's next %d, want %d", page.Next, after)
			}
			break
		}
		all = append(all, page.Transactions...)
		after = page.Next
	}
	type line struct {
		id, kind, player string
		amount           int64
		status           int
		rolledBack       bool
	}
	want := []line{{"d1", "debit", "p1", 100, 200, true}, {"d2", "debit", "p2", 200, 200, false},
		{"r1", "rollback", "p1", 100, 200, false}, {"d3", "debit", "p2", 1_000_000, 402, false}, {"c2", "credit", "p2", 50, 200, false}}
	if len(all) != len(want) {
		t.Fatalf("%d transactions, want %d: %+v", len(all), len(want), all)
	}
	for i, tr := range all {
		got := line{tr.TransactionID, tr.Kind, tr.Player, tr.Amount, tr.Status, tr.RolledBack}
		if got != want[i] || tr.Seq != int64(i+1) || tr.At.IsZero() {
			t.Errorf("transaction %d: %+v, want %+v", i, tr, want[i])
		}
	}
	if all[0].RolledBackBy != "r1" || all[2].Ref != "d1" || all[3].Code != wallet.CodeInsufficientFunds || all[4].Ref != "d2" {
		t.Errorf("details: %+v", all)
	}
	for _, q := range []string{"after=-1", "after=x", "limit=0"} {
		if r := w.raw("GET", "/transactions?"+q, nil, "sign"); r.status != 400 {
			t.Errorf("?%s: %d", q, r.status)
		}
	}
}

// A mix of every call, some repeated, some refused, under concurrency: the books balance.
func TestBooksBalance(t *testing.T) {
	w := newWallet(t, Faults{})
	players := []string{"ann", "bob", "cyd"}
	w.setBalance("bob", 700)
	var wg sync.WaitGroup
	for i := range 60 {
		wg.Go(func() {
			p := players[i%3]
			d := fmt.Sprintf("d%d", i)
			w.post("debit", debit(d, p, int64(100+i)))
			switch i % 4 {
			case 0:
				w.post("credit", credit("c"+d, p, int64(3*i), d))
			case 1:
				w.post("rollback", rollback("r"+d, p, d))
				w.post("rollback", rollback("r"+d, p, d))
			case 2:
				w.post("rollback", rollback("early"+d, p, "later"+d))
				w.post("debit", debit("later"+d, p, 10))
			case 3:
				w.post("debit", debit(d, p, int64(100+i)))
				w.post("credit", credit("c"+d, p, 0, d))
			}
		})
	}
	wg.Wait()
	b := w.checkBooks()
	if len(b.Players) != 3 || b.Total.Debits.Count == 0 || b.Total.Rollbacks.Amount == 0 || b.Total.Credits.Count != 30 {
		t.Fatalf("books %+v", b)
	}
	for _, p := range b.Players {
		if got := w.balanceOf(p.Player); got != p.Balance {
			t.Errorf("%s: balance %d, books %d", p.Player, got, p.Balance)
		}
	}
}

// A wallet whose database fails answers 503, signed, its cause hidden: an outcome unknown.
func TestDatabaseFailure(t *testing.T) {
	w := newWallet(t, Faults{})
	w.store.Close()
	r := w.post("debit", debit("d1", "p1", 100))
	if r.status != http.StatusServiceUnavailable || r.code() != CodeUnavailable || !r.signed || bytes.Contains(r.body, []byte("sql")) {
		t.Fatalf("debit on a closed database: %d %s (signed %v)", r.status, r.body, r.signed)
	}
	if r := w.raw("GET", "/books", nil, "sign"); r.status != http.StatusServiceUnavailable {
		t.Fatalf("books on a closed database: %d %s", r.status, r.body)
	}
}
