package wallet_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"starcolor/internal/app/apptest"
	"starcolor/internal/lottery"
	"starcolor/internal/sqlite"
	"starcolor/internal/storetest"
	"starcolor/internal/wallet"
)

func TestBackoff(t *testing.T) {
	for _, c := range []struct {
		attempt int
		jitter  float64
		want    time.Duration
	}{
		{1, 0, 500 * time.Millisecond}, {1, 0.999999, time.Second - time.Microsecond},
		{2, 0, time.Second}, {3, 0, 2 * time.Second}, {6, 0, 16 * time.Second}, {7, 0, 30 * time.Second},
		{8, 0, 30 * time.Second}, {8, 0.999999, time.Minute - 30*time.Microsecond}, {100, 0.5, 45 * time.Second},
	} {
		if got := wallet.Backoff(c.attempt, time.Second, time.Minute, c.jitter); got.Round(time.Millisecond) != c.want.Round(time.Millisecond) {
			t.Errorf("attempt %d, jitter %v: %s, want %s", c.attempt, c.jitter, got, c.want)
		}
	}
}

// The sender, over a real SQLite outbox and a wallet that fails half its answers (503, a
// hang-up, or an answer applied and lost), sends every call until it is acknowledged:
//
//   - Each sending carries the call's kept body, stamped and signed afresh (docs/spec/WALLET.md
//     1.1: each sending has its own timestamp and signature). The wallet checks them, on a
//     clock that moves a second a sending.
//   - A call the wallet refuses with a 409 is disputed, not sent again.
//   - One refused with 401 is sent again.
func TestSenderDrainsAFlakyWallet(t *testing.T) {
	key := wallet.NewKey([]byte("outbox"))
	var mu sync.Mutex
	applied := map[string]string{} // transaction id → body
	sends := map[string]int{}
	signatures := map[string]bool{}
	rng := rand.New(rand.NewPCG(5, 6))
	var ticks atomic.Int64 // the client's clock: a second later at each sending
	start := time.Now()
	clock := func() time.Time { return start.Add(time.Duration(ticks.Add(1)) * time.Second) }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := key.CheckRequest(r, body, start.Add(time.Duration(ticks.Load())*time.Second)); err != nil {
			t.Errorf("a sending refused: %v", err)
		}
		mu.Lock()
		roll := rng.IntN(6)
		var id struct {
			TransactionID string `json:"transaction_id"`
		}
		jsonUnmarshal(body, &id)
		sends[id.TransactionID]++
		sent := sends[id.TransactionID]
		if first, ok := applied[id.TransactionID]; ok && first != string(body) {
			t.Errorf("%s sent with another body: %s, then %s", id.TransactionID, first, body)
		}
		if sig := r.Header.Get(wallet.SignatureHeader); signatures[sig] {
			t.Errorf("%s sent again with the signature of an earlier sending", id.TransactionID)
		} else {
			signatures[sig] = true
		}
		mu.Unlock()
		answer := func(status int, b string) {
			key.StampAnswer(w.Header(), r, []byte(b), time.Now())
			w.WriteHeader(status)
			io.WriteString(w, b)
		}
		switch {
		case id.TransactionID == "c-disputed":
			answer(409, `{"error":{"code":"duplicate_transaction","message":"another body"}}`)
			return
		case id.TransactionID == "c-unsigned" && sent < 3:
			answer(401, `{"error":{"code":"bad_signature","message":"fix the secret"}}`)
			return
		case roll == 0:
			answer(503, `{}`)
			return
		case roll == 1:
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Close()
			return
		}
		mu.Lock()
		applied[id.TransactionID] = string(body)
		mu.Unlock()
		if roll == 2 { // applied, the answer lost
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Close()
			return
		}
		answer(200, `{"balance":1,"transaction_id":"`+id.TransactionID+`"}`)
	}))
	defer srv.Close()
	store, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "outbox.db"), storetest.AccountKey)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var calls []lottery.WalletCall
	for i := range 100 {
		id := fmt.Sprintf("c-%d", i)
		switch i {
		case 98:
			id = "c-disputed"
		case 99:
			id = "c-unsigned"
		}
		calls = append(calls, lottery.WalletCall{Call: wallet.CallCredit, TransactionID: id, Player: "p", RoundID: fmt.Sprint(i), Amount: int64(i),
			Body: fmt.Appendf(nil, `{"transaction_id":%q,"player":"p","round_id":"%d","amount":%d,"currency":"EUR","debit_transaction_id":"d-%d"}`, id, i, i, i)})
	}
	if err := store.AddWalletCalls(context.Background(), calls, time.Now()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := wallet.NewClient(srv.URL, key, time.Second)
	client.Now = clock
	s := &wallet.Sender{Store: store, Client: client, Base: 5 * time.Millisecond, Cap: 40 * time.Millisecond,
		Lease: 2 * time.Second, Batch: 16, Poll: 10 * time.Millisecond}
	var toldMu sync.Mutex
	told := map[string]int64{} // the balances answered to the calls acknowledged
	s.Answered = func(c lottery.WalletCall, balance int64) {
		toldMu.Lock()
		told[c.TransactionID] = balance
		toldMu.Unlock()
	}
	go s.Run(ctx)
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := store.OutboxState(context.Background(), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if st.Pending == 0 {
			if st.Disputed != 1 {
				t.Fatalf("%d disputed, want 1", st.Disputed)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the outbox did not drain: %+v", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
	toldMu.Lock()
	if _, ok := told["c-disputed"]; ok || len(told) != 99 || told["c-unsigned"] != 1 {
		t.Errorf("the balances answered were told for %d calls (want the 99 acknowledged), the disputed one's too: %v", len(told), ok)
	}
	toldMu.Unlock()
	mu.Lock()
	defer mu.Unlock()
	if len(applied) != 99 || sends["c-disputed"] != 1 || sends["c-unsigned"] < 3 {
		t.Fatalf("%d calls applied (want 99), the disputed one sent %d times, the unsigned one %d", len(applied), sends["c-disputed"], sends["c-unsigned"])
	}
	retried := 0
	for _, n := range sends {
		if n > 1 {
			retried++
		}
	}
	if retried < 20 {
		t.Fatalf("only %d calls sent more than once: the wallet's faults were not exercised", retried)
	}
}

func jsonUnmarshal(b []byte, v any) { _ = jsonDecode(b, v) }

func jsonDecode(b []byte, v any) error { return json.Unmarshal(b, v) }

// A credit kept claimed by its sale's write (Claim) and handed to the running sender (Hand) is
// sent at once, with the body made from its fields, and settled by its transaction id. The lease
// here is an hour: no claim can have sent it. A sender not running takes nothing.
func TestSenderSendsHandedCalls(t *testing.T) {
	key := wallet.NewKey([]byte("outbox"))
	var mu sync.Mutex
	bodies := map[string]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var id struct {
			TransactionID string `json:"transaction_id"`
		}
		jsonUnmarshal(body, &id)
		mu.Lock()
		bodies[id.TransactionID] = string(body)
		mu.Unlock()
		b := `{"balance":5,"transaction_id":"` + id.TransactionID + `"}`
		key.StampAnswer(w.Header(), r, []byte(b), time.Now())
		io.WriteString(w, b)
	}))
	defer srv.Close()
	store, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "outbox.db"), storetest.AccountKey)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	s := &wallet.Sender{Store: store, Client: wallet.NewClient(srv.URL, key, time.Second), Lease: time.Hour, Poll: 10 * time.Millisecond}
	now := time.Now()
	idle := wallet.CreditCall("idle", "op-1", "99", 1)
	if s.Claim(&idle, now); idle.Attempts != 0 || !idle.NextAt.IsZero() || s.Hand(idle) {
		t.Fatalf("a sender not running claimed or took a call: %+v", idle)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Run(ctx)
	deadline := time.Now().Add(10 * time.Second)
	var calls []lottery.WalletCall
	for i := range 40 {
		c := wallet.CreditCall(fmt.Sprintf("s%02d", i), "op-1", fmt.Sprint(100+i), int64(i))
		for s.Claim(&c, now); c.Attempts == 0; s.Claim(&c, now) {
			if time.Now().After(deadline) {
				t.Fatal("the sender does not run")
			}
			time.Sleep(time.Millisecond)
		}
		if c.Attempts != 1 || !c.NextAt.Equal(now.Add(time.Hour)) {
			t.Fatalf("claimed: %+v", c)
		}
		calls = append(calls, c)
	}
	if err := store.AddWalletCalls(context.Background(), calls, now); err != nil {
		t.Fatal(err)
	}
	if got, _ := store.ClaimWalletCalls(context.Background(), now.Add(59*time.Minute), time.Minute, 100); len(got) != 0 {
		t.Fatalf("%d calls kept claimed were claimed within their lease", len(got))
	}
	for _, c := range calls {
		if !s.Hand(c) {
			t.Fatalf("%s not taken", c.TransactionID)
		}
	}
	apptest.DrainOutbox(t, store, time.Now, nil)
	mu.Lock()
	defer mu.Unlock()
	for _, c := range calls {
		want, _ := json.Marshal(wallet.CreditRequest{TransactionID: c.TransactionID, Player: "op-1", RoundID: c.RoundID, Amount: c.Amount,
			Currency: wallet.Currency, DebitTransactionID: "debit-" + c.TransactionID[len("credit-"):]})
		if bodies[c.TransactionID] != string(want) {
			t.Errorf("%s sent as %s, want %s", c.TransactionID, bodies[c.TransactionID], want)
		}
	}
	acked, err := store.WalletCalls(context.Background(), lottery.CallAcked, 100)
	if err != nil || len(acked) != len(calls) {
		t.Fatalf("%d calls acknowledged, want %d: %v", len(acked), len(calls), err)
	}
	for _, c := range acked {
		if c.Attempts != 1 {
			t.Errorf("%s sent %d times", c.TransactionID, c.Attempts)
		}
	}
}
