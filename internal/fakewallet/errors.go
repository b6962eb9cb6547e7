package fakewallet

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"

	"starcolor/internal/wallet"
)

// Codes of answers beside the refusals of docs/spec/WALLET.md (docs/spec/API.md's codes).
const (
	CodeInvalid     = "invalid_input"  // 400: a body that is not a call of docs/spec/WALLET.md
	CodeUnavailable = "unavailable"    // 503: --fail, or the database cannot serve now
	CodeInternal    = "internal_error" // 500
)

// statuses maps every code the wallet answers with to its HTTP status: one table for the whole
// wallet.
var statuses = map[string]int{
	CodeInvalid:                     http.StatusBadRequest,
	wallet.CodeBadSignature:         http.StatusUnauthorized,
	wallet.CodeInsufficientFunds:    http.StatusPaymentRequired,
	wallet.CodeLimitReached:         http.StatusForbidden,
	wallet.CodePlayerBlocked:        http.StatusForbidden,
	wallet.CodeDuplicateTransaction: http.StatusConflict,
	CodeInternal:                    http.StatusInternalServerError,
	CodeUnavailable:                 http.StatusServiceUnavailable,
}

// Error is an answer that is not a transaction's outcome, so not kept: a body that is not a call,
// an id already used with another body, a debit whose id was rolled back. The same call again
// gets the same error again from the state it depends on, which never changes back.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Message }

func errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// CodeOf is the code of an error: an *Error's own, internal_error for any other.
func CodeOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// StatusOf is the HTTP status of a code.
func StatusOf(code string) int {
	if s, ok := statuses[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// Answer is what the wallet answered a call: its status and its exact body. A movement's answer
// is kept with its transaction, so that the same call again gets the same bytes again.
type Answer struct {
	Status int
	Body   []byte
}

// balanceAnswer is the answer 200 of every call: the player's balance after it and, for a debit,
// a credit or a rollback, its transaction_id echoed (id; "" for a balance: none). The bytes
// json.Marshal makes of a wallet.Answer (but for the escapes of <, >, &, U+2028 and U+2029, which
// it alone adds), without its reflection.
func balanceAnswer(balance int64, id string) Answer {
	b := make([]byte, 0, len(`{"balance":,"transaction_id":""}`)+20+len(id))
	b = append(b, `{"balance":`...)
	b = strconv.AppendInt(b, balance, 10)
	if id != "" {
		b = append(b, `,"transaction_id":`...)
		b, _ = jsontext.AppendQuote(b, id) // valid UTF-8: the body it came in was read strictly
	}
	return Answer{Status: http.StatusOK, Body: append(b, '}')}
}

// errorAnswer is an answer of an error, with the error body of docs/spec/API.md.
func errorAnswer(code, message string) Answer { return refusal("", code, message) }

// refusal is the answer of a refusal of the call whose transaction_id is id, echoed ("": none).
func refusal(id, code, message string) Answer {
	var b wallet.ErrorBody
	b.Error.Code, b.Error.Message = code, message
	b.TransactionID = id
	return jsonAnswer(StatusOf(code), b)
}

func jsonAnswer(status int, v any) Answer {
	body, err := json.Marshal(v)
	if err != nil {
		panic(err) // the wallet's own types always marshal
	}
	return Answer{Status: status, Body: body}
}
