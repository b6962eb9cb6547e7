package wallet

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"starcolor/internal/strictjson"
)

// LaunchPath is the path of the launch call on Star Color.
const LaunchPath = "/api/v1/launch"

// LaunchRequest is the body of the launch call (docs/spec/WALLET.md 1.1): the operator's player, the
// operator's session the calls of the session it opens carry, the currency, and a nonce used
// once.
type LaunchRequest struct {
	Player          string `json:"player"`
	OperatorSession string `json:"operator_session"`
	Currency        string `json:"currency"`
	Nonce           string `json:"nonce"`
}

// The bounds of a launch's nonce (docs/spec/WALLET.md 1.1: 16 to 64 characters of [A-Za-z0-9_-]).
const (
	MinNonce = 16
	MaxNonce = 64
)

// ValidNonce tells whether a launch's nonce is 16 to 64 characters of [A-Za-z0-9_-].
func ValidNonce(s string) bool {
	if len(s) < MinNonce || len(s) > MaxNonce {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// NewNonce is a fresh nonce for a launch: 128 random bits in base64url, 22 characters.
func NewNonce() string {
	var b [16]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// Launch is the operator's side of the launch call (docs/spec/WALLET.md 1.1): POST {base}/api/v1/launch,
// stamped at now and signed, with a fresh nonce, opens the game for one of its players; it
// returns the link to open in the player's browser (good once, for a minute). The answer's
// signature is checked against the request, as the operator would. The load test and the tests
// launch their players with it.
func Launch(ctx context.Context, hc *http.Client, base string, key *Key, player, operatorSession string, now time.Time) (string, error) {
	body, err := json.Marshal(LaunchRequest{Player: player, OperatorSession: operatorSession, Currency: Currency, Nonce: NewNonce()})
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(base, "/")+LaunchPath, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	key.Stamp(req, body, now)
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return "", err
	}
	if !key.CheckAnswer(req, resp.Header, answer) {
		return "", fmt.Errorf("launch of %s: an answer %d whose signature is missing or not of this request: %.200s", player, resp.StatusCode, answer)
	}
	var link struct {
		URL string `json:"url"`
	}
	if err := strictjson.Decode(answer, &link); resp.StatusCode != http.StatusCreated || err != nil || link.URL == "" {
		return "", fmt.Errorf("launch of %s: %d %.200s", player, resp.StatusCode, answer)
	}
	return link.URL, nil
}
