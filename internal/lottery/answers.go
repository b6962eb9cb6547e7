package lottery

import (
	"fmt"
	"strconv"
	"strings"
)

// Answer is the answer to a money-moving request, as kept under its Idempotency-Key for its
// retries (docs/spec/API.md): its HTTP status and body.
type Answer struct {
	Status int
	Body   []byte
}

// KeptAnswer is an answer as kept: the hash of the request it answers (its call and its body),
// so that the same key sent with another request is refused.
type KeptAnswer struct {
	RequestHash []byte
	Answer
}

// KeyRef names an idempotency key: its player and the key.
type KeyRef struct {
	PlayerID int64
	Key      string
}

// PaidAnswer is the answer a payment keeps under its key: 201 and the player's balance after it
// (docs/spec/API.md).
func PaidAnswer(balance int64) Answer {
	return Answer{Status: 201, Body: fmt.Appendf(nil, `{"balance":%d}`, balance)}
}

// soldPrefix starts the answer a sale keeps under its key: a reference to its game ("game:ID"),
// rendered again from the game for a retry (internal/game). It is much smaller to write at every
// sale than the answer itself, and renders to the same bytes.
const soldPrefix = "game:"

// SoldAnswer is the answer a sale keeps under its key: 201 and a reference to its game.
func SoldAnswer(gameID int64) Answer {
	b := make([]byte, 0, len(soldPrefix)+20)
	return Answer{Status: 201, Body: strconv.AppendInt(append(b, soldPrefix...), gameID, 10)}
}

// SoldGame is the game that a kept answer refers to, if it is a sale's (SoldAnswer); an error
// says that it starts as a sale's but names no game.
func SoldGame(a Answer) (id int64, ok bool, err error) {
	ref, ok := strings.CutPrefix(string(a.Body), soldPrefix)
	if !ok {
		return 0, false, nil
	}
	id, err = strconv.ParseInt(ref, 10, 64)
	return id, true, err
}
