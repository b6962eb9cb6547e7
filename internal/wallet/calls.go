package wallet

// The calls Star Color makes to the wallet (docs/spec/WALLET.md): POST {wallet URL}/{call}, JSON, signed.
// Amounts are integer cents; ids are JSON strings (round_id is the game id in decimal).

// The calls' names, the last element of their path.
const (
	CallBalance  = "balance"
	CallDebit    = "debit"
	CallCredit   = "credit"
	CallRollback = "rollback"
)

// BalanceRequest asks for a player's balance.
type BalanceRequest struct {
	Player          string `json:"player"`
	OperatorSession string `json:"operator_session"`
}

// DebitRequest takes a stake from the player's balance.
type DebitRequest struct {
	TransactionID   string `json:"transaction_id"`
	Player          string `json:"player"`
	OperatorSession string `json:"operator_session"`
	RoundID         string `json:"round_id"`
	Amount          int64  `json:"amount"`
	Currency        string `json:"currency"`
}

// CreditRequest pays a round's prize (0 too: it closes the round).
type CreditRequest struct {
	TransactionID      string `json:"transaction_id"`
	Player             string `json:"player"`
	RoundID            string `json:"round_id"`
	Amount             int64  `json:"amount"`
	Currency           string `json:"currency"`
	DebitTransactionID string `json:"debit_transaction_id"`
}

// RollbackRequest undoes a debit whose outcome was unknown.
type RollbackRequest struct {
	TransactionID           string `json:"transaction_id"`
	Player                  string `json:"player"`
	RoundID                 string `json:"round_id"`
	RolledBackTransactionID string `json:"rolled_back_transaction_id"`
}

// Answer is every call's answer 200: the player's balance after it; for a debit, a credit and a
// rollback, the transaction_id of the call it answers, echoed (docs/spec/WALLET.md 1.1).
type Answer struct {
	Balance       int64  `json:"balance"`
	TransactionID string `json:"transaction_id,omitempty"`
}

// ErrorBody is a refusal's body, as docs/spec/API.md's errors; a refusal of a debit, a credit or a rollback
// may echo its transaction_id too, and Star Color then checks it.
type ErrorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	TransactionID string `json:"transaction_id,omitempty"`
}

// The refusals' codes.
const (
	CodeInsufficientFunds    = "insufficient_funds"    // 402
	CodeLimitReached         = "limit_reached"         // 403
	CodePlayerBlocked        = "player_blocked"        // 403
	CodeDuplicateTransaction = "duplicate_transaction" // 409
	CodeBadSignature         = "bad_signature"         // 401
)

// Currency is the only currency of the game.
const Currency = "EUR"
