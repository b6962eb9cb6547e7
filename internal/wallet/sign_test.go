package wallet

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Known answers of docs/spec/WALLET.md 1.1's signing strings, for an integrator to check their own
// implementation against. Each was computed apart from this code, with OpenSSL:
//
//	printf 'POST\n/debit\n1767225600\n%s' "$body" | openssl dgst -sha256 -hmac 'known-answer secret'
//	printf 'answer\nPOST\n/debit\n%s\n1767225601\n%s' "$request_signature" "$answer" | openssl dgst …
//	printf 'GET\n/transactions?limit=10000&after=0\n1767225600\n' | openssl dgst …
func TestSignKnownAnswers(t *testing.T) {
	k := NewKey([]byte("known-answer secret"))
	body := []byte(`{"transaction_id":"debit-1","player":"p-1","operator_session":"s-1","round_id":"7","amount":100,"currency":"EUR"}`)
	request := k.RequestSignature("POST", "/debit", "1767225600", body)
	if want := "22dec4f3a991398c37de90f0b105e483c36067a7019aabfac1953543c84bf2db"; request != want {
		t.Errorf("the request's signature %s, want %s", request, want)
	}
	answer := k.AnswerSignature("POST", "/debit", request, "1767225601", []byte(`{"balance":9900,"transaction_id":"debit-1"}`))
	if want := "f36c9acdfc09259b0487be331570f9c25c291e122036fe1bc3f7af7cbef1d8cf"; answer != want {
		t.Errorf("the answer's signature %s, want %s", answer, want)
	}
	listing := k.RequestSignature("GET", "/transactions?limit=10000&after=0", "1767225600", nil)
	if want := "869c35b51c528e7546f9929616293bca52bb06e5a35f1e1471188800c606f589"; listing != want {
		t.Errorf("the listing's signature %s, want %s", listing, want)
	}
	// HMAC-SHA256 itself (RFC 4231, test case 2), through the same code with no text before the
	// body.
	if got := NewKey([]byte("Jefe")).digest([]byte("what do ya want for nothing?")); toHex(got) != "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843" {
		t.Errorf("HMAC-SHA256: %s", toHex(got))
	}
}

// A request verifies only with its own method, path, timestamp, body and secret, hex in either
// case, and within 300 seconds of the receiver's clock, either way.
func TestVerifyRequest(t *testing.T) {
	k := NewKey([]byte("s"))
	now := time.Unix(1_767_225_600, 0)
	ts := "1767225600"
	body := []byte(`{"player":"p1"}`)
	sig := k.RequestSignature("POST", "/debit", ts, body)
	for _, c := range []struct {
		name             string
		method, path, ts string
		body             []byte
		sig              string
		now              time.Time
		ok               bool
	}{
		{"itself", "POST", "/debit", ts, body, sig, now, true},
		{"in upper case", "POST", "/debit", ts, body, strings.ToUpper(sig), now, true},
		{"300 s late", "POST", "/debit", ts, body, sig, now.Add(300 * time.Second), true},
		{"300 s early", "POST", "/debit", ts, body, sig, now.Add(-300 * time.Second), true},
		{"301 s late", "POST", "/debit", ts, body, sig, now.Add(301 * time.Second), false},
		{"301 s early", "POST", "/debit", ts, body, sig, now.Add(-301 * time.Second), false},
		{"at another path", "POST", "/api/v1/launch", ts, body, sig, now, false},
		{"with a query added", "POST", "/debit?x=1", ts, body, sig, now, false},
		{"of another method", "GET", "/debit", ts, body, sig, now, false},
		{"at another time", "POST", "/debit", "1767225601", body, sig, now, false},
		{"of another body", "POST", "/debit", ts, []byte(`{"player":"p2"}`), sig, now, false},
		{"without a timestamp", "POST", "/debit", "", body, sig, now, false},
		{"with a signed timestamp", "POST", "/debit", "+1767225600", body, k.RequestSignature("POST", "/debit", "+1767225600", body), now, false},
		{"without a signature", "POST", "/debit", ts, body, "", now, false},
		{"cut short", "POST", "/debit", ts, body, sig[:62], now, false},
		{"not hex", "POST", "/debit", ts, body, "zz" + sig[2:], now, false},
		{"under another secret", "POST", "/debit", ts, body, NewKey([]byte("other")).RequestSignature("POST", "/debit", ts, body), now, false},
		{"as an answer", "POST", "/debit", ts, body, k.AnswerSignature("POST", "/debit", "", ts, body), now, false},
	} {
		err := k.VerifyRequest(c.method, c.path, c.ts, c.body, c.sig, c.now)
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrBadSignature)) {
			t.Errorf("a request %s: %v", c.name, err)
		}
	}
}

// Over HTTP: a request stamped by Stamp checks on the receiver with the path as sent (its query
// too); the answer, stamped by StampAnswer, checks against that request only.
func TestStampOverHTTP(t *testing.T) {
	k := NewKey([]byte("wire"))
	now := time.Now()
	var got error
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = k.CheckRequest(r, nil, now)
		k.StampAnswer(w.Header(), r, []byte("{}"), now)
		w.Write([]byte("{}"))
	}))
	defer srv.Close()
	send := func(url string) (*http.Request, *http.Response) {
		req, _ := http.NewRequest("GET", url, nil)
		k.Stamp(req, nil, now)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return req, resp
	}
	first, answer := send(srv.URL + "/transactions?after=3&limit=10")
	if got != nil {
		t.Fatalf("a stamped request refused: %v", got)
	}
	if !k.CheckAnswer(first, answer.Header, []byte("{}")) {
		t.Fatal("its answer refused")
	}
	if k.CheckAnswer(first, answer.Header, []byte(`{"balance":1}`)) {
		t.Error("an answer of another body taken")
	}
	other, _ := send(srv.URL + "/transactions?after=4&limit=10")
	if k.CheckAnswer(other, answer.Header, []byte("{}")) {
		t.Error("the answer of one request taken for another's")
	}
}

func TestReadSecret(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "secret")
	os.WriteFile(p, []byte("s3cret\n"), 0o600)
	if s, err := ReadSecret(p); err != nil || string(s) != "s3cret" {
		t.Fatalf("%q %v", s, err)
	}
	os.WriteFile(p, []byte("\n"), 0o600)
	if _, err := ReadSecret(p); err == nil {
		t.Fatal("an empty secret read")
	}
}

func TestSameJSON(t *testing.T) {
	if !SameJSON([]byte(`{"a":1,"b":"x"}`), []byte(" { \"b\" : \"x\", \"a\" : 1 }")) {
		t.Error("the same value in another order and spacing")
	}
	for _, b := range []string{`{"a":1}`, `{"a":1,"b":"y"}`, `{"a":"1","b":"x"}`, `not json`} {
		if SameJSON([]byte(`{"a":1,"b":"x"}`), []byte(b)) {
			t.Errorf("%s taken for the same", b)
		}
	}
}
