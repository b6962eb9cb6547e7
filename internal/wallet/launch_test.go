package wallet

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The operator's launch call: signed, with the body WALLET.md gives; the link is taken only from
// an answer 201 signed with the same secret.
func TestLaunch(t *testing.T) {
	secret := []byte("launch secret")
	answer, status, sign := `{"url":"http://game/?launch=abc"}`, 201, secret
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/api/v1/launch" || !Verify(secret, body, r.Header.Get(SignatureHeader)) ||
			!SameJSON(body, []byte(`{"player":"p-1","operator_session":"s-1","currency":"EUR"}`)) {
			t.Errorf("the launch call: %s %s", r.URL.Path, body)
		}
		w.Header().Set(SignatureHeader, Sign(sign, []byte(answer)))
		w.WriteHeader(status)
		io.WriteString(w, answer)
	}))
	defer srv.Close()
	launch := func() (string, error) {
		return Launch(context.Background(), srv.Client(), srv.URL+"/", secret, "p-1", "s-1")
	}
	if link, err := launch(); err != nil || link != "http://game/?launch=abc" {
		t.Fatalf("launch: %q %v", link, err)
	}
	sign = []byte("another secret")
	if _, err := launch(); err == nil || !strings.Contains(err.Error(), "signature") {
		t.Errorf("an answer signed with another secret: %v", err)
	}
	sign, answer, status = secret, `{"error":{"code":"invalid","message":"no"}}`, 400
	if _, err := launch(); err == nil || !strings.Contains(err.Error(), "400") {
		t.Errorf("a refusal: %v", err)
	}
}
