package game

import (
	"reflect"
	"testing"
	"time"

	"starcolor/internal/lottery"
)

// fakeOutbox claims only while it "runs", as wallet.Sender does.
type fakeOutbox struct{ running bool }

func (f *fakeOutbox) Wake() {}
func (f *fakeOutbox) Claim(c *lottery.WalletCall, now time.Time) {
	if f.running {
		c.Attempts, c.NextAt = 1, now.Add(20*time.Second)
	}
}
func (f *fakeOutbox) Hand(lottery.WalletCall) bool { return f.running }

// The credit a sale hands to the sender is the one its write kept, claimed: made again by a
// write tried again, it is the last one made; one not claimed (no sender running) or held (a
// game in play) is not handed.
func TestCreditKeptIsTheOneHanded(t *testing.T) {
	out := &fakeOutbox{running: true}
	c := &credit{who: "op-1", round: "42", suffix: "0193abc", outbox: out}
	at := time.Date(2026, 12, 6, 8, 0, 0, 0, time.UTC)
	g := &lottery.Game{ID: 42, Prize: 500, Status: lottery.Finished, CreatedAt: at}
	call := c.CreditOf(g)
	if call.TransactionID != "credit-0193abc" || call.Amount != 500 || call.Attempts != 1 || !call.NextAt.Equal(at.Add(20*time.Second)) {
		t.Fatalf("a finished game's credit: %+v", call)
	}
	if c.kept == nil || !reflect.DeepEqual(*c.kept, call) {
		t.Fatalf("kept %+v, want the call made %+v", c.kept, call)
	}
	out.running = false // the write tried again, the sender stopped meanwhile
	if call := c.CreditOf(g); call.Attempts != 0 || !call.NextAt.IsZero() || c.kept != nil {
		t.Fatalf("a credit not claimed: %+v, kept %+v", call, c.kept)
	}
	out.running = true
	inPlay := &lottery.Game{ID: 42, Status: lottery.Playing, CreatedAt: at}
	if call := c.CreditOf(inPlay); call.Status != lottery.CallHeld || call.Attempts != 0 || c.kept != nil {
		t.Fatalf("a game in play's credit: %+v, kept %+v", call, c.kept)
	}
}
