// Package wallet is Star Color's side of the operator's wallet (seamless wallet mode,
// docs/spec/WALLET.md): the signatures both sides put on every message, and the calls Star
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
	"hash"
	"net/http"
	"os"
	"reflect"
	"strconv"
	"sync"
	"time"
)

// The headers of a signed message, a request's or an answer's, both ways (docs/spec/WALLET.md 1.1,
// « Binding »).
const (
	SignatureHeader = "X-Signature"
	TimestampHeader = "X-Timestamp"
)

// Window is how far a request's timestamp may be from its receiver's clock (docs/spec/WALLET.md 1.1: 300
// seconds, either way).
const Window = 300 * time.Second

// ErrBadSignature is a request whose signature does not verify, or whose timestamp is outside
// the Window: refused with 401 bad_signature.
var ErrBadSignature = errors.New("bad signature")

// Key is the secret both sides share, ready to sign messages and to check them (docs/spec/WALLET.md 1.1):
//
//	a request: HMAC-SHA256(METHOD "\n" PATH "\n" TIMESTAMP "\n" BODY)
//	an answer: HMAC-SHA256("answer\n" METHOD "\n" PATH "\n" REQUEST_SIGNATURE "\n" TIMESTAMP "\n" BODY)
//
// in lowercase hex, PATH as sent (with its query), TIMESTAMP the X-Timestamp header's exact text
// (Unix seconds), REQUEST_SIGNATURE the request's X-Signature as sent. A signature so covers the
// call, the time and, for an answer, the request it answers: a body signed for one call is no
// good for another, nor later, nor an answer for another request.
//
// Star Color and the reference wallet both sign and check with it. It is safe for concurrent
// use; its HMACs are kept in a pool, so that a message costs its hash and the text of its
// signature, nothing more.
type Key struct {
	secret []byte
	macs   sync.Pool // of *mac
}

// mac is an HMAC under the key, and room for the text it hashes before the body.
type mac struct {
	h    hash.Hash
	head []byte
	sum  [sha256.Size]byte
}

// NewKey is the key of a shared secret.
func NewKey(secret []byte) *Key {
	k := &Key{secret: bytes.Clone(secret)}
	k.macs.New = func() any { return &mac{h: hmac.New(sha256.New, k.secret)} }
	return k
}

// digest is the HMAC of head's parts, each followed by "\n", then of body.
func (k *Key) digest(body []byte, parts ...string) [sha256.Size]byte {
	m := k.macs.Get().(*mac)
	m.h.Reset()
	head := m.head[:0]
	for _, p := range parts {
		head = append(append(head, p...), '\n')
	}
	m.h.Write(head)
	m.h.Write(body)
	m.h.Sum(m.sum[:0])
	sum := m.sum
	m.head = head
	k.macs.Put(m)
	return sum
}

// answerTag begins the text an answer's signature covers, so that no answer signs a request.
const answerTag = "answer"

// RequestSignature is the signature of a request: its method (upper case), its path as sent
// (with its query, without scheme or host), its X-Timestamp's text and its exact body.
func (k *Key) RequestSignature(method, path, timestamp string, body []byte) string {
	return toHex(k.digest(body, method, path, timestamp))
}

// AnswerSignature is the signature of an answer to the request of method, path and signature
// requestSignature (its X-Signature as sent), stamped timestamp, of body.
func (k *Key) AnswerSignature(method, path, requestSignature, timestamp string, body []byte) string {
	return toHex(k.digest(body, answerTag, method, path, requestSignature, timestamp))
}

// VerifyRequest tells why a request's signature does not stand (nil: it does): its timestamp
// missing or not Unix seconds, its signature not of this request (hex in either case), or its
// timestamp more than Window from now. The errors wrap ErrBadSignature.
func (k *Key) VerifyRequest(method, path, timestamp string, body []byte, signature string, now time.Time) error {
	at, ok := unixSeconds(timestamp)
	switch {
	case !ok:
		return fmt.Errorf("%w: the %s header is missing or is not Unix seconds", ErrBadSignature, TimestampHeader)
	case !matches(k.digest(body, method, path, timestamp), signature):
		return fmt.Errorf("%w: the %s header is missing or does not sign this request (its method, path, %s and body)",
			ErrBadSignature, SignatureHeader, TimestampHeader)
	}
	if d := now.Unix() - at; d > windowSeconds || d < -windowSeconds {
		return fmt.Errorf("%w: the request's %s is %d s from this clock, more than %d", ErrBadSignature, TimestampHeader, d, windowSeconds)
	}
	return nil
}

const windowSeconds = int64(Window / time.Second)

// VerifyAnswer tells whether signature signs body as the answer, stamped timestamp, to the
// request of method, path and requestSignature. The answer's timestamp is not held to the
// Window: the request's signature it covers is fresh already, and names this request only.
func (k *Key) VerifyAnswer(method, path, requestSignature, timestamp string, body []byte, signature string) bool {
	_, ok := unixSeconds(timestamp)
	return ok && matches(k.digest(body, answerTag, method, path, requestSignature, timestamp), signature)
}

// Stamp signs an outgoing request whose body is body, at now: its X-Timestamp and X-Signature.
func (k *Key) Stamp(req *http.Request, body []byte, now time.Time) {
	ts := strconv.FormatInt(now.Unix(), 10)
	req.Header.Set(TimestampHeader, ts)
	req.Header.Set(SignatureHeader, k.RequestSignature(req.Method, req.URL.RequestURI(), ts, body))
}

// CheckRequest checks the signature of a request received with body, on the receiver's clock
// now (VerifyRequest).
func (k *Key) CheckRequest(r *http.Request, body []byte, now time.Time) error {
	return k.VerifyRequest(r.Method, pathSent(r), r.Header.Get(TimestampHeader), body, r.Header.Get(SignatureHeader), now)
}

// StampAnswer signs, into h, body as the answer to r, at now.
func (k *Key) StampAnswer(h http.Header, r *http.Request, body []byte, now time.Time) {
	ts := strconv.FormatInt(now.Unix(), 10)
	h.Set(TimestampHeader, ts)
	h.Set(SignatureHeader, k.AnswerSignature(r.Method, pathSent(r), r.Header.Get(SignatureHeader), ts, body))
}

// CheckAnswer tells whether the headers h of an answer sign body as the answer to req, a request
// signed by Stamp.
func (k *Key) CheckAnswer(req *http.Request, h http.Header, body []byte) bool {
	return k.VerifyAnswer(req.Method, req.URL.RequestURI(), req.Header.Get(SignatureHeader), h.Get(TimestampHeader), body, h.Get(SignatureHeader))
}

// pathSent is a received request's path as its client sent it, with its query: the request
// line's own text, or, in the absolute form a proxy is sent, its path.
func pathSent(r *http.Request) string {
	if u := r.RequestURI; u != "" && u[0] == '/' {
		return u
	}
	return r.URL.RequestURI()
}

// unixSeconds reads a timestamp header: decimal digits only, at most 18 of them.
func unixSeconds(s string) (int64, bool) {
	if len(s) == 0 || len(s) > 18 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

func toHex(sum [sha256.Size]byte) string {
	var b [2 * sha256.Size]byte
	hex.Encode(b[:], sum[:])
	return string(b[:])
}

// matches tells whether a signature header's value is sum, in hex of either case, compared in
// constant time. A missing or malformed one is not.
func matches(sum [sha256.Size]byte, signature string) bool {
	if len(signature) != 2*sha256.Size {
		return false
	}
	var got [sha256.Size]byte
	for i := range got {
		hi, ok1 := fromHex(signature[2*i])
		lo, ok2 := fromHex(signature[2*i+1])
		if !ok1 || !ok2 {
			return false
		}
		got[i] = hi<<4 | lo
	}
	return hmac.Equal(got[:], sum[:])
}

func fromHex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
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
// in any order and spacing (docs/spec/WALLET.md: "the same body").
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
