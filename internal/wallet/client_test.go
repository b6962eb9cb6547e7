package wallet

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// The client signs its requests, checks the answers' signatures, and tells a refusal (final)
// from an unknown outcome (5xx, a timeout, a bad or missing signature, a broken connection).
func TestClientOutcomes(t *testing.T) {
	secret := []byte("shared")
	answer := func(w http.ResponseWriter, status int, body string, sign []byte) {
		if sign != nil {
			w.Header().Set(SignatureHeader, Sign(sign, []byte(body)))
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !Verify(secret, body, r.Header.Get(SignatureHeader)) {
			answer(w, 401, `{"error":{"code":"bad_signature","message":"no"}}`, secret)
			return
		}
		var d DebitRequest
		_ = jsonUnmarshal(body, &d)
		switch d.Player {
		case "ok":
			answer(w, 200, `{"balance":900}`, secret)
		case "poor":
			answer(w, 402, `{"error":{"code":"insufficient_funds","message":"poor"}}`, secret)
		case "down":
			answer(w, 503, `{"error":{"code":"unavailable","message":"down"}}`, secret)
		case "unsigned":
			answer(w, 200, `{"balance":900}`, nil)
		case "forged":
			answer(w, 200, `{"balance":900}`, []byte("other"))
		case "slow":
			time.Sleep(300 * time.Millisecond)
			answer(w, 200, `{"balance":900}`, secret)
		case "hangup":
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Close()
		}
	}))
	defer srv.Close()
	c := NewClient(srv.URL+"/", secret, 100*time.Millisecond)
	ctx := context.Background()
	if b, err := c.Debit(ctx, DebitRequest{Player: "ok", Amount: 100}); err != nil || b != 900 {
		t.Fatalf("a debit: %d %v", b, err)
	}
	var refused *Refused
	if _, err := c.Debit(ctx, DebitRequest{Player: "poor"}); !errors.As(err, &refused) || refused.Status != 402 || refused.Code != "insufficient_funds" {
		t.Errorf("a refusal: %v", err)
	}
	for _, p := range []string{"down", "unsigned", "forged", "slow", "hangup"} {
		if _, err := c.Debit(ctx, DebitRequest{Player: p}); !errors.Is(err, ErrUnknown) {
			t.Errorf("%s: %v, want an unknown outcome", p, err)
		}
	}
	bad := NewClient(srv.URL, []byte("wrong"), time.Second)
	if _, err := bad.Debit(ctx, DebitRequest{Player: "ok"}); !errors.Is(err, ErrUnknown) {
		t.Errorf("a wrong secret: the wallet's 401 is signed with its own secret, so unknown here: %v", err)
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
