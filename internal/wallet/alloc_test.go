//go:build !race

// The race detector empties sync.Pools at random, so allocations are counted without it only.

package wallet

import (
	"testing"
	"time"
)

// Signing and checking a call cost its two hashes and the text of the signature: no allocation
// per message beyond the signature's string.
func TestSignAllocations(t *testing.T) {
	k := NewKey([]byte("alloc"))
	body := []byte(`{"transaction_id":"debit-1","player":"p-1","operator_session":"s-1","round_id":"7","amount":100,"currency":"EUR"}`)
	now := time.Unix(1_767_225_600, 0)
	sig := k.RequestSignature("POST", "/debit", "1767225600", body)
	if n := testing.AllocsPerRun(100, func() { k.RequestSignature("POST", "/debit", "1767225600", body) }); n > 1 {
		t.Errorf("%v allocations to sign a request, want 1 (its signature)", n)
	}
	if n := testing.AllocsPerRun(100, func() { k.VerifyRequest("POST", "/debit", "1767225600", body, sig, now) }); n > 0 {
		t.Errorf("%v allocations to check a request, want none", n)
	}
}
