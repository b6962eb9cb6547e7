package lottery

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
