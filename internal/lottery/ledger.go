package lottery

import "time"

// Every sum of money lives in an account, and money only moves by transfers between two
// accounts: the double-entry ledger. The bank is where play money comes from (its balance goes
// below zero as players deposit); the prize fund receives the stakes and pays the prizes; a
// player's account never goes below zero.
const (
	BankAccount      int64 = 1
	PrizeFundAccount int64 = 2
)

// The kinds of transfer.
const (
	Deposit    = "deposit"    // bank → player
	Withdrawal = "withdrawal" // player → bank
	Stake      = "stake"      // player → prize fund, a game's
	Prize      = "prize"      // prize fund → player, a game's
)

// Why the server paid a player's whole balance out to the bank (Transfer.Reason): a withdrawal
// of all of it made by a self-exclusion, by a closure of the account by its player, or by an
// import of the list of excluded persons that closed it. The ledger keeps it beside the kind, so
// that the back office tells these payouts from the withdrawals the player asked for, while every
// sum and check of withdrawals stays as it was.
const (
	PaidAtExclusion = "exclusion"
	PaidAtClosure   = "closure"
	PaidAtRegister  = "register"
)

// Transfer is one line of the ledger: amount cents from one account to another.
type Transfer struct {
	ID        int64
	From, To  int64 // accounts
	Amount    int64 // cents, > 0
	Kind      string
	GameID    int64  // 0 for none
	Reason    string // a withdrawal's PaidAt…, "" for any other transfer
	CreatedAt time.Time
}

// Payment is a deposit or a withdrawal of play money under an Idempotency-Key: one transfer
// between the bank and the player, and the answer kept under the key, written together.
type Payment struct {
	PlayerID, AccountID int64
	// Session is the hash of the player's session token: the payment is refused if it has ended
	// by the time it is written (nil: the server's own, not checked).
	Session []byte
	Kind    string // Deposit or Withdrawal
	Amount  int64  // cents, > 0

	Key         string // "" for none (the server's own payments)
	RequestHash []byte // kept under the key with its answer, PaidAnswer
}

// Transfer is the payment's transfer.
func (p *Payment) Transfer(now time.Time) Transfer {
	t := Transfer{From: BankAccount, To: p.AccountID, Amount: p.Amount, Kind: p.Kind, CreatedAt: now}
	if p.Kind == Withdrawal {
		t.From, t.To = p.AccountID, BankAccount
	}
	return t
}

// LedgerCheck is what `starcolor ledger check` proves of the books: the counts and sums it read,
// and every problem it found.
type LedgerCheck struct {
	Accounts, Transfers, Games int
	Bank, PrizeFund, Players   int64 // balances, cents
	Stakes, Prizes             int64
	Problems                   []string
}

// TableSize is what a table or an index holds on disk: its name, the table it belongs to (its own
// name for a table), and its bytes.
type TableSize struct {
	Name, Table string
	Bytes       int64
}
