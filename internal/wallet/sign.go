// Package wallet is Star Color's side of the operator's wallet (seamless wallet mode,
// ../shared/spec/WALLET.md): the signatures both sides put on every body, and the calls Star
// Color makes to the wallet.
package wallet

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
)

// SignatureHeader carries the signature of a request's or an answer's body, both ways.
const SignatureHeader = "X-Signature"

// Sign is the signature of a body under the shared secret: the lowercase hex HMAC-SHA256 of its
// exact bytes.
func Sign(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// Verify tells whether a signature header's value signs body under secret: hex in either case,
// compared in constant time. A missing or malformed signature does not.
func Verify(secret, body []byte, signature string) bool {
	got, err := hex.DecodeString(strings.TrimSpace(signature))
	if err != nil || len(got) != sha256.Size {
		return false
	}
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return hmac.Equal(got, m.Sum(nil))
}

// ErrNoSecret is a secret that is empty.
var ErrNoSecret = errors.New("the wallet's secret is empty")

// ReadSecret reads the shared secret from a file: its bytes, without a trailing newline.
func ReadSecret(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	b = bytes.TrimSuffix(b, []byte("\n"))
	b = bytes.TrimSuffix(b, []byte("\r"))
	if len(b) == 0 {
		return nil, fmt.Errorf("%s: %w", path, ErrNoSecret)
	}
	return b, nil
}

// SameJSON tells whether two bodies are the same JSON value: the same fields with the same values,
// in any order and spacing (WALLET.md: "the same body").
func SameJSON(a, b []byte) bool {
	var x, y any
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	if da.Decode(&x) != nil || db.Decode(&y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
