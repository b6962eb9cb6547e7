package lottery

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// LaunchLifetime is how long a launch token is good for (WALLET.md: once, for 60 seconds).
const LaunchLifetime = 60 * time.Second

// WalletPlayer is a player the operator launched: who they are at the operator, and the
// operator's session of their latest launch (the wallet's debits name it).
type WalletPlayer struct {
	Player          Player
	WalletPlayer    string
	OperatorSession string
}

// WalletUsername is the username of the operator's player: "~" (no sign-up can use it) and a
// digest of their id at the operator (any string, of any length).
func WalletUsername(walletPlayer string) string {
	h := sha256.Sum256([]byte(walletPlayer))
	return "~" + hex.EncodeToString(h[:12])
}
