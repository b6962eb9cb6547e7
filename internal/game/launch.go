package game

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
	"starcolor/internal/session"
	"starcolor/internal/wallet"
)

// The operator's launches of its players (seamless wallet mode, docs/spec/WALLET.md 1.1): a
// launch gives a link good once, and the link opens a session here. They exist where the money is
// the operator's (money.launches); elsewhere they are not found.

// Launch opens the game for one of the operator's players: their account here (made the first
// time), and a token good once for LaunchLifetime that opens a session, whose calls to the
// wallet carry operatorSession. nonce is the launch's, used once (docs/spec/WALLET.md 1.1): used already,
// the launch is fault.DuplicateLaunch and changes nothing.
func (s *Service) Launch(ctx context.Context, walletPlayer, operatorSession, nonce string) (string, error) {
	launches, err := s.money.launches()
	if err != nil {
		return "", err
	}
	if walletPlayer == "" || len(walletPlayer) > 256 || len(operatorSession) > 1024 {
		return "", fault.Errorf(fault.Invalid, "player (1 to 256 bytes) and operator_session (up to 1024) are required")
	}
	if !wallet.ValidNonce(nonce) {
		return "", fault.Errorf(fault.Invalid, "nonce is required: %d to %d characters of A-Z, a-z, 0-9, _ and -, new at each launch", wallet.MinNonce, wallet.MaxNonce)
	}
	token := randomToken()
	h := sha256.Sum256([]byte(token))
	now := s.now()
	l := lottery.Launch{WalletPlayer: walletPlayer, OperatorSession: operatorSession, Nonce: nonce, TokenHash: h[:], Expires: now.Add(lottery.LaunchLifetime)}
	if _, err := launches.LaunchPlayer(ctx, l, now); err != nil {
		return "", err
	}
	return token, nil
}

// OpenLaunch spends a launch token and opens a session for its player: the session's token. The
// store notes the session with its launch before it is opened, so that the session is never
// without its launch's operator's session.
func (s *Service) OpenLaunch(ctx context.Context, token string) (string, error) {
	launches, err := s.money.launches()
	if err != nil {
		return "", err
	}
	h := sha256.Sum256([]byte(token))
	open := session.NewToken()
	sh := session.Hash(open)
	id, err := launches.UseLaunch(ctx, h[:], sh[:], s.now())
	if err != nil {
		return "", err
	}
	if err := s.sessions.OpenToken(ctx, id, open); err != nil {
		return "", err
	}
	return open, nil
}

// randomToken is a launch's token: 192 random bits, in hex.
func randomToken() string {
	b := make([]byte, 24)
	rand.Read(b)
	return hex.EncodeToString(b)
}
