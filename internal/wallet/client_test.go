package wallet

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// The client stamps and signs its requests. It checks that each answer is signed for the request
// it answers and echoes its transaction_id. It tells a refusal (final) from an unknown outcome:
//
//   - a 5xx, a timeout, a broken connection;
//   - a signature missing, of another secret, of 1.0's kind, or of another request's answer;
//   - an echo of another transaction.
func TestClientOutcomes(t *testing.T) {
	key := NewKey([]byte("shared"))
	var mu sync.Mutex
	var captured struct {
		header http.Header
		body   string
	}
	answer := func(w http.ResponseWriter, r *http.Request, status int, body string, k *Key) {
		if k != nil {
			k.StampAnswer(w.Header(), r, []byte(body), time.Now())
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := key.CheckRequest(r, body, time.Now()); err != nil {
			answer(w, r, 401, `{"error":{"code":"bad_signature","message":"no"}}`, key)
			return
		}
		var d DebitRequest
		json.Unmarshal(body, &d)
		echo := `{"balance":900,"transaction_id":"` + d.TransactionID + `"}`
		switch d.Player {
		case "ok":
			answer(w, r, 200, echo, key)
			mu.Lock()
			captured.header, captured.body = w.Header().Clone(), echo
			mu.Unlock()
		case "poor":
			answer(w, r, 402, `{"error":{"code":"insufficient_funds","message":"poor"},"transaction_id":"`+d.TransactionID+`"}`, key)
		case "poor-other":
			answer(w, r, 402, `{"error":{"code":"insufficient_funds","message":"poor"},"transaction_id":"another"}`, key)
		case "down":
			answer(w, r, 503, `{"error":{"code":"unavailable","message":"down"}}`, key)
		case "unsigned":
			answer(w, r, 200, echo, nil)
		case "forged":
			answer(w, r, 200, echo, NewKey([]byte("other")))
		case "1.0":
			// The body alone signed, as docs/spec/WALLET.md 1.0 did.
			w.Header().Set(SignatureHeader, key.digestHex([]byte(echo)))
			w.WriteHeader(200)
			io.WriteString(w, echo)
		case "replayed":
			// The answer captured from an earlier debit, signed for that one.
			mu.Lock()
			for k, v := range captured.header {
				w.Header()[k] = v
			}
			b := captured.body
			mu.Unlock()
			w.WriteHeader(200)
			io.WriteString(w, b)
		case "wrong-echo":
			answer(w, r, 200, `{"balance":900,"transaction_id":"debit-other"}`, key)
		case "no-echo":
			answer(w, r, 200, `{"balance":900}`, key)
		case "twice":
			answer(w, r, 200, `{"balance":900,"balance":5,"transaction_id":"`+d.TransactionID+`"}`, key)
		case "slow":
			time.Sleep(300 * time.Millisecond)
			answer(w, r, 200, echo, key)
		case "hangup":
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Close()
		}
	}))
	defer srv.Close()
	c := NewClient(srv.URL+"/", key, 100*time.Millisecond)
	ctx := context.Background()
	debit := func(player string) (int64, error) {
		return c.Debit(ctx, DebitRequest{TransactionID: "debit-" + player, Player: player, Amount: 100})
	}
	if b, err := debit("ok"); err != nil || b != 900 {
		t.Fatalf("a debit: %d %v", b, err)
	}
	var refused *Refused
	if _, err := debit("poor"); !errors.As(err, &refused) || refused.Status != 402 || refused.Code != "insufficient_funds" {
		t.Errorf("a refusal: %v", err)
	}
	for _, p := range []string{"poor-other", "down", "unsigned", "forged", "1.0", "replayed", "wrong-echo", "no-echo", "twice", "slow", "hangup"} {
		if _, err := debit(p); !errors.Is(err, ErrUnknown) {
			t.Errorf("%s: %v, want an unknown outcome", p, err)
		}
	}
	if b, err := c.Balance(ctx, BalanceRequest{Player: "no-echo"}); err != nil || b != 900 {
		t.Errorf("a balance, which echoes no transaction: %d %v", b, err)
	}
	bad := NewClient(srv.URL, NewKey([]byte("wrong")), time.Second)
	if _, err := bad.Debit(ctx, DebitRequest{TransactionID: "d", Player: "ok"}); !errors.Is(err, ErrUnknown) {
		t.Errorf("a wrong secret: the wallet's 401 is signed with its own secret, so unknown here: %v", err)
	}
	// A client whose clock is more than 300 s from the wallet's: refused 401, signed. A minute
	// beyond, as the machine's clock may be stepped between stamp and check; TestVerifyRequest
	// holds the exact bound.
	late := NewClient(srv.URL, key, time.Second)
	late.Now = func() time.Time { return time.Now().Add(-Window - time.Minute) }
	if _, err := late.Debit(ctx, DebitRequest{TransactionID: "d", Player: "ok"}); !errors.As(err, &refused) || refused.Status != 401 {
		t.Errorf("a request 360 s old: %v, want 401", err)
	}
}

// digestHex is 1.0's signature: the body's alone.
func (k *Key) digestHex(body []byte) string { return toHex(k.digest(body)) }

// The wallet's URL is https://, or plain http:// on a loopback address only, unless the
// operator says otherwise (docs/spec/WALLET.md 1.1).
func TestCheckURL(t *testing.T) {
	for _, c := range []struct {
		url      string
		insecure bool
		ok       bool
	}{
		{"https://wallet.example/starcolor", false, true},
		{"HTTPS://wallet.example", false, true},
		{"http://127.0.0.1:9000", false, true},
		{"http://127.8.9.10/w", false, true},
		{"http://[::1]:9000", false, true},
		{"http://[::ffff:127.0.0.1]:9000", false, true},
		{"http://localhost:9000", false, true},
		{"http://LOCALHOST", false, true},
		{"http://example.com", false, false},
		{"http://example.com", true, true},
		{"http://10.0.0.5:9000", false, false},
		{"http://128.0.0.1", false, false},
		{"http://localhost.example.com", false, false},
		{"http://127.0.0.1.nip.io", false, false},
		{"http://[fe80::1%25eth0]", false, false},
		{"ftp://127.0.0.1", true, false},
		{"127.0.0.1:9000", false, false},
		{"/relative", false, false},
		{"", false, false},
	} {
		if err := CheckURL(c.url, c.insecure); (err == nil) != c.ok {
			t.Errorf("CheckURL(%q, %v): %v", c.url, c.insecure, err)
		}
	}
}
