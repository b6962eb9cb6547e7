package wallet

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"starcolor/internal/strictjson"
)

// The operator's launch call: stamped and signed for its path, with the body docs/spec/WALLET.md 1.1 gives
// and a fresh nonce each time; the link is taken only from an answer 201 signed for that request.
func TestLaunch(t *testing.T) {
	key := NewKey([]byte("launch secret"))
	now := time.Unix(1_767_225_600, 0)
	answer, status, sign := `{"url":"http://game/?launch=abc"}`, 201, key
	nonces := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var b LaunchRequest
		if err := key.CheckRequest(r, body, now); r.URL.Path != LaunchPath || err != nil || strictjson.Decode(body, &b) != nil ||
			b.Player != "p-1" || b.OperatorSession != "s-1" || b.Currency != "EUR" || !ValidNonce(b.Nonce) || nonces[b.Nonce] {
			t.Errorf("the launch call: %s %s %v", r.URL.Path, body, err)
		}
		nonces[b.Nonce] = true
		sign.StampAnswer(w.Header(), r, []byte(answer), now)
		w.WriteHeader(status)
		io.WriteString(w, answer)
	}))
	defer srv.Close()
	launch := func() (string, error) {
		return Launch(context.Background(), srv.Client(), srv.URL+"/", key, "p-1", "s-1", now)
	}
	if link, err := launch(); err != nil || link != "http://game/?launch=abc" {
		t.Fatalf("launch: %q %v", link, err)
	}
	sign = NewKey([]byte("another secret"))
	if _, err := launch(); err == nil || !strings.Contains(err.Error(), "signature") {
		t.Errorf("an answer signed with another secret: %v", err)
	}
	sign, answer, status = key, `{"error":{"code":"invalid","message":"no"}}`, 400
	if _, err := launch(); err == nil || !strings.Contains(err.Error(), "400") {
		t.Errorf("a refusal: %v", err)
	}
	if len(nonces) != 3 {
		t.Errorf("%d nonces for 3 launches", len(nonces))
	}
}

func TestValidNonce(t *testing.T) {
	for _, c := range []struct {
		nonce string
		ok    bool
	}{
		{NewNonce(), true},
		{strings.Repeat("a", 16), true},
		{strings.Repeat("Z9_-", 16), true},
		{strings.Repeat("a", 15), false},
		{strings.Repeat("a", 65), false},
		{strings.Repeat("a", 15) + "=", false},
		{strings.Repeat("a", 15) + "é", false},
		{strings.Repeat("a", 15) + " ", false},
		{"", false},
	} {
		if ValidNonce(c.nonce) != c.ok {
			t.Errorf("ValidNonce(%q) = %v", c.nonce, !c.ok)
		}
	}
}
