// Package lottery is Star Color's domain, apart from any store or protocol. It holds the players
// and the operators, their sessions, the ledger's accounts and transfers, the games sold, the
// answers kept for retried requests, and what the sales add up to. It holds the sale itself
// (docs/spec/RULES.md §7, sale.go): a decision over the state a store reads, giving the rows a
// store writes.
//
// The stores (internal/sqlite, internal/postgres) read and write these types and nothing else
// crosses their boundary: their own errors are turned into faults (internal/fault) inside them.
// What a store does is declared once, in internal/store, as small roles that the game server
// (internal/game), the API (internal/httpapi) and the back office (internal/admin) compose.
package lottery

import (
	"errors"
	"time"

	"starcolor/internal/fault"
)

// ErrKeyTaken is an idempotency key that already has an answer: the request it came with has had
// its effect, and is answered from what was kept (docs/spec/API.md).
var ErrKeyTaken = errors.New("idempotency key already used")

// ErrMoved is a game that has moved since it was read. A move computed from what was read is not
// written, and is computed again from the game as it is now.
var ErrMoved = errors.New("the game has moved since it was read")

// ErrExists is an emission id already taken.
var ErrExists = errors.New("already exists")

// ErrSoldOut refuses a sale at a stake with no unit left to sell.
var ErrSoldOut = fault.Errorf(fault.SoldOut, "no ticket on sale at this stake now: its emissions are sold out or suspended")

// ErrDebitRolledBack refuses a sale in wallet mode whose debit's rollback was released before the
// sale's turn came: the sweep of held calls took it for one a crash left. The stake goes back.
var ErrDebitRolledBack = fault.Retry(fault.WalletUnavailable, time.Second, "the sale took too long and its debit is being rolled back: nothing was sold; try again")

// ErrSessionEnded refuses a write whose session has ended (a logout) since its request was let in:
// every write made for a player checks its session in its own transaction.
var ErrSessionEnded = fault.Errorf(fault.NotLoggedIn, "not logged in, or the session has ended: log in again")
