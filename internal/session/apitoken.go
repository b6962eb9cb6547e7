package session

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"strconv"
	"strings"
)

// An operator's API token (docs/spec/OPERATOR.md) reads "sco_ID_SECRET":
//   - ID is the token's row, found by it without comparing anything secret;
//   - SECRET is 32 random bytes in unpadded base64url, kept only as its SHA-256, compared
//     with the row's in constant time (APISecretMatches).
//
// A token is told from a session's by its prefix, and its ID names it in the operators' log
// and in `starcolor admin token --revoke ID`.
const apiTokenPrefix = "sco_"

// secretLen is the length of a token's SECRET: 32 bytes in base64url without padding.
var secretLen = base64.RawURLEncoding.EncodedLen(32)

// NewAPISecret draws a new token's secret from crypto/rand: the secret, to be shown once, and
// its SHA-256, to be kept.
func NewAPISecret() (string, [32]byte) {
	var b [32]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	secret := base64.RawURLEncoding.EncodeToString(b[:])
	return secret, sha256.Sum256([]byte(secret))
}

// FormatAPIToken is the token a caller sends: its id and secret.
func FormatAPIToken(id int64, secret string) string {
	return apiTokenPrefix + strconv.FormatInt(id, 10) + "_" + secret
}

// ParseAPIToken reads a token sent: its id and the SHA-256 of its secret. ok is false for
// anything that is not a token's form, which no token can match.
func ParseAPIToken(token string) (id int64, secretHash [32]byte, ok bool) {
	rest, found := strings.CutPrefix(token, apiTokenPrefix)
	if !found {
		return 0, secretHash, false
	}
	idText, secret, found := strings.Cut(rest, "_")
	if !found || len(secret) != secretLen || idText == "" || idText[0] == '0' || len(idText) > 18 {
		return 0, secretHash, false
	}
	// Digits only: ParseInt would read "+1" as 1, another spelling of the same token.
	for _, c := range []byte(idText) {
		if c < '0' || c > '9' {
			return 0, secretHash, false
		}
	}
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil || id <= 0 {
		return 0, secretHash, false
	}
	if _, err := base64.RawURLEncoding.Strict().DecodeString(secret); err != nil {
		return 0, secretHash, false
	}
	return id, sha256.Sum256([]byte(secret)), true
}

// APISecretMatches compares a secret's hash with the one kept, in constant time: how long it
// takes says nothing of how much of it matched.
func APISecretMatches(kept, sent [32]byte) bool {
	return subtle.ConstantTimeCompare(kept[:], sent[:]) == 1
}
