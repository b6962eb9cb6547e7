package game

import (
	"context"
	"crypto/sha256"
	"fmt"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// Idempotency (docs/spec/API.md): a money-moving request binds its Idempotency-Key to its call
// and its body. Its first success is kept under the key with its effects, and a retry gets that
// answer back; the same key with another request is refused.

// GameAnswer is the answer to the sale of a game.
func GameAnswer(v *View) (lottery.Answer, error) {
	return lottery.Answer{Status: 201, Body: v.AppendJSON(make([]byte, 0, 4096))}, nil
}

// Request is a money-moving request as its Idempotency-Key binds it (docs/spec/API.md): the call it was
// made to, such as "POST /api/v1/deposits", and its body. A retry must repeat both.
type Request struct {
	Key  string
	Call string
	Body []byte
}

// requestHash checks an Idempotency-Key (docs/spec/API.md: 1 to 255 characters) and hashes what a retry
// under the same key must repeat: the call and the body. (The call is hashed ahead of the body,
// with a newline that no call holds, so that no other call and body hash the same.)
func requestHash(req Request) ([32]byte, error) {
	if len(req.Key) < 1 || len(req.Key) > 255 {
		return [32]byte{}, fault.Errorf(fault.Invalid, "an Idempotency-Key header of 1 to 255 characters is required")
	}
	h := sha256.New()
	h.Write([]byte(req.Call))
	h.Write([]byte{'\n'})
	h.Write(req.Body)
	var sum [32]byte
	h.Sum(sum[:0])
	return sum, nil
}

// storedAnswer answers a money-moving request that could not run (err) with the answer stored
// under its key, if there is one: the retry of a request that succeeded gets that answer back;
// the same key with another body is refused. Without a stored answer, err stands.
func (s *Service) storedAnswer(ctx context.Context, p Player, key string, hash []byte, err error) (lottery.Answer, error) {
	if fault.Is(err, fault.NotLoggedIn) {
		return lottery.Answer{}, s.ended(p, err) // the session ended: nothing is answered for it any more
	}
	stored, found, lookupErr := s.db.KeptAnswer(ctx, p.ID, key)
	if lookupErr != nil {
		return lottery.Answer{}, lookupErr
	}
	if !found {
		return lottery.Answer{}, err
	}
	return s.keptAnswer(ctx, p, stored, hash)
}

// keptAnswer is the answer kept under a key, given again to a request with the same hash.
func (s *Service) keptAnswer(ctx context.Context, p Player, stored lottery.KeptAnswer, hash []byte) (lottery.Answer, error) {
	if string(stored.RequestHash) != string(hash) {
		return lottery.Answer{}, fault.Errorf(fault.IdempotencyMismatch, "this Idempotency-Key was used for another request (another call, or another body)")
	}
	if id, ok, err := lottery.SoldGame(stored.Answer); ok {
		if err != nil {
			return lottery.Answer{}, fmt.Errorf("stored answer %q: %w", stored.Body, err)
		}
		v, err := s.saleView(ctx, p, id)
		if err != nil {
			return lottery.Answer{}, err
		}
		return GameAnswer(v)
	}
	return stored.Answer, nil
}
