package lottery

import "time"

// The wallet's outbox (seamless wallet mode, docs/spec/WALLET.md): the credits and rollbacks Star Color
// owes the operator's wallet are kept in the database until the wallet acknowledges them, and
// sent again, with backoff, across restarts and crashes, by whichever server finds them due. A
// call is never changed once kept: the same transaction id, the same body, until it is answered.

// The states of a call.
const (
	CallHeld     = "held"     // not to send yet: a credit until its game finishes, a rollback until its debit's sale fails
	CallPending  = "pending"  // not yet acknowledged
	CallAcked    = "acked"    // answered 200
	CallDisputed = "disputed" // refused with a 4xx other than 401: to settle by hand
)

// Round is what Star Color holds of a round of seamless wallet mode: its game's stake and prize,
// and whether the credit of the prize is acknowledged yet (wallet.Reconcile compares it with what
// the wallet lists).
type Round struct {
	ID       string
	Player   string
	Stake    int64
	Prize    int64
	Credited bool // the wallet acknowledged the credit
}

// WalletCall is a call kept in the outbox.
type WalletCall struct {
	ID            int64
	Call          string // "credit" or "rollback" (wallet.CallCredit, wallet.CallRollback)
	TransactionID string
	Player        string // the operator's player id
	RoundID       string // the game's id, in decimal
	Amount        int64  // cents: the prize credited, or the debit rolled back
	Body          []byte // the exact body sent, each time
	Status        string
	Attempts      int
	// NextAt is when it is due again (while pending). A held rollback is released by the sweep
	// of calls a crash left held long after its NextAt: for one held ahead of its sale, the
	// time after which that sale no longer starts (zero when kept: the time it is kept).
	NextAt    time.Time
	LastError string
	CreatedAt time.Time
	AckedAt   time.Time
}

// CallOutcome is what became of one sending of a call: acknowledged, disputed, or to be sent
// again at a time.
type CallOutcome struct {
	Acked, Disputed bool
	Retry           time.Time
	Error           string
}

// OutboxState is what the back office and the metrics show of the outbox: the calls not yet
// acknowledged, how old the oldest is, and the disputed ones.
type OutboxState struct {
	// Pending are the calls owed and not yet acknowledged: due or being sent, and the rollbacks
	// held for debits in flight (a debit whose server died is rolled back once the sweep finds
	// it), not those held ahead of a sale that may still come (before their NextAt). None
	// pending means the two sides' books agree, but for the open rounds.
	Pending  int
	Oldest   time.Time // zero: none pending
	Disputed int
	// Open are the rounds of games in play: debited, their credit held until the game finishes.
	Open int
}

// OutboxCall is a call as the back office lists it (WalletCalls): the call, and who and what it
// is for on this side.
type OutboxCall struct {
	WalletCall
	PlayerID int64 // the operator's player's account here (0: none known)
	GameID   int64 // the round's game (0: the round was never sold, as a rollback's)
}
