package session

import (
	"crypto/sha256"
	"strconv"
	"strings"
	"testing"
)

// A token made reads back as its id and the hash of its secret; its secret is not its hash.
func TestAPITokenRoundTrip(t *testing.T) {
	secret, hash := NewAPISecret()
	other, _ := NewAPISecret()
	if secret == other || len(secret) != 43 || hash != sha256.Sum256([]byte(secret)) {
		t.Fatalf("secrets %q and %q", secret, other)
	}
	token := FormatAPIToken(42, secret)
	id, got, ok := ParseAPIToken(token)
	if !ok || id != 42 || got != hash || !APISecretMatches(hash, got) {
		t.Fatalf("%s read as %d %x %v", token, id, got, ok)
	}
	for _, bad := range []string{"", "sco_", "sco_42", "sco_42_", "sco_x_" + secret, "sco_042_" + secret, "sco_-1_" + secret, "sco_0_" + secret,
		"SCO_42_" + secret, "sco_42_" + secret[:42], "sco_42_" + secret + "A", "sco_42_" + strings.Repeat("*", 43), " " + token, token + "\n",
		"sco_99999999999999999999_" + secret} {
		if _, _, ok := ParseAPIToken(bad); ok {
			t.Errorf("%q read as a token", bad)
		}
	}
	if APISecretMatches(hash, sha256.Sum256([]byte(other))) {
		t.Error("another secret matches")
	}
}

// FuzzParseAPIToken: whatever is sent, ParseAPIToken does not panic, and what it reads as a
// token is one form only: the token written again from what was read.
func FuzzParseAPIToken(f *testing.F) {
	secret, _ := NewAPISecret()
	f.Add(FormatAPIToken(1, secret))
	f.Add("sco_12_" + strings.Repeat("A", 43))
	f.Add("sco_1_")
	f.Fuzz(func(t *testing.T, s string) {
		id, hash, ok := ParseAPIToken(s)
		if !ok {
			return
		}
		rest := strings.TrimPrefix(s, apiTokenPrefix+strconv.FormatInt(id, 10)+"_")
		if FormatAPIToken(id, rest) != s || hash != sha256.Sum256([]byte(rest)) {
			t.Fatalf("%q read as %d and a secret hashed %x", s, id, hash)
		}
	})
}
