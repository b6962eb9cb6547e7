package lottery

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// LaunchLifetime is how long a launch token is good for (docs/spec/WALLET.md: once, for 60 seconds).
const LaunchLifetime = 60 * time.Second

// Launch is the operator's launch of one of its players (docs/spec/WALLET.md 1.1), as the store
// keeps it:
//
//   - who they are at the operator;
//   - the operator's session that the session it opens sends in its calls to the wallet (that
//     launch's own: a later launch never changes it);
//   - the nonce it was sent with (used once, forever);
//   - its token's hash, good once until Expires.
type Launch struct {
	WalletPlayer    string
	OperatorSession string
	Nonce           string
	TokenHash       []byte
	Expires         time.Time
}

// WalletUsername is the username of the operator's player: "~" (no sign-up can use it) and a
// digest of their id at the operator (any string, of any length).
func WalletUsername(walletPlayer string) string {
	h := sha256.Sum256([]byte(walletPlayer))
	return "~" + hex.EncodeToString(h[:12])
}
