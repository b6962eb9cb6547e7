package wallet

import (
	"encoding/json"
	"fmt"
	"strings"

	"starcolor/internal/lottery"
)

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

// The outbox keeps the calls Star Color makes without their bodies (an empty Body): a call's
// body is made from its fields each time it is sent (BodyOf), the same bytes every time. A body
// is two fifths of a kept call's bytes. Without it, a sale's outbox rows share their pages, and a
// commit writes a few pages of the outbox rather than one for each call it touches. The debit a
// call answers for is named after it: "credit-S" and "rollback-S" undo or settle "debit-S".

// CreditCall is the outbox's credit of a round's prize, debited by "debit-"+suffix.
func CreditCall(suffix, player, round string, amount int64) lottery.WalletCall {
	return lottery.WalletCall{Call: CallCredit, TransactionID: "credit-" + suffix, Player: player, RoundID: round, Amount: amount}
}

// RollbackCall is the outbox's rollback of the debit "debit-"+suffix, of amount. The amount is
// not sent (docs/spec/WALLET.md): the outbox keeps it for its own listing.
func RollbackCall(suffix, player, round string, amount int64) lottery.WalletCall {
	return lottery.WalletCall{Call: CallRollback, TransactionID: "rollback-" + suffix, Player: player, RoundID: round, Amount: amount,
		Status: lottery.CallHeld}
}

// BodyOf is the body a kept call is sent with: its own if it was kept with one, else made from
// its fields. A call kept without a body whose id is not named after its debit has none to send.
func BodyOf(c lottery.WalletCall) ([]byte, error) {
	if len(c.Body) > 0 {
		return c.Body, nil
	}
	suffix, ok := strings.CutPrefix(c.TransactionID, c.Call+"-")
	if !ok || suffix == "" {
		return nil, fmt.Errorf("wallet call %s: kept without a body, and not named after its debit", c.TransactionID)
	}
	switch c.Call {
	case CallCredit:
		return json.Marshal(CreditRequest{TransactionID: c.TransactionID, Player: c.Player, RoundID: c.RoundID, Amount: c.Amount,
			Currency: Currency, DebitTransactionID: "debit-" + suffix})
	case CallRollback:
		return json.Marshal(RollbackRequest{TransactionID: c.TransactionID, Player: c.Player, RoundID: c.RoundID,
			RolledBackTransactionID: "debit-" + suffix})
	}
	return nil, fmt.Errorf("wallet call %s: kept without a body, of an unknown kind %q", c.TransactionID, c.Call)
}
