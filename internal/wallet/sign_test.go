package wallet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A known answer: HMAC-SHA256 of the body under the secret (RFC 4231 test case 2).
func TestSignKnownAnswer(t *testing.T) {
	got := Sign([]byte("Jefe"), []byte("what do ya want for nothing?"))
	if want := "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"; got != want {
		t.Fatalf("%s, want %s", got, want)
	}
	body := []byte(`{"player":"p1"}`)
	sig := Sign([]byte("s"), body)
	for _, c := range []struct {
		sig  string
		body []byte
		ok   bool
	}{
		{sig, body, true},
		{strings.ToUpper(sig), body, true},
		{"", body, false},
		{sig[:62], body, false},
		{"zz" + sig[2:], body, false},
		{sig, []byte(`{"player":"p2"}`), false},
		{Sign([]byte("other"), body), body, false},
	} {
		if got := Verify([]byte("s"), c.body, c.sig); got != c.ok {
			t.Errorf("Verify(%q, %s) = %v", c.sig, c.body, got)
		}
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
