// Package fault is the small vocabulary of errors that the player can be told about: each a code
// (insufficient_funds, sold_out, invalid_move …) and a sentence. Every layer returns them; the
// HTTP layer maps each code to its status in one table. Anything else is an internal error.
package fault

import (
	"errors"
	"fmt"
	"time"
)

// Code names a kind of failure, as the API's error.code.
type Code string

// The codes, by the HTTP status they map to (docs/spec/API.md).
const (
	Invalid              Code = "invalid_input"          // 400
	InvalidRequest       Code = "invalid_request"        // 400: a body that is not strict JSON of the call's fields (docs/spec/API.md 1.2)
	InvalidUsername      Code = "invalid_username"       // 400: a new username that does not qualify
	InvalidIdentity      Code = "invalid_identity"       // 400: a name missing or a birth date impossible at registration
	WeakPassword         Code = "weak_password"          // 400: a new password too short, too common, or the name
	TooLarge             Code = "body_too_large"         // 413
	UnsupportedMediaType Code = "unsupported_media_type" // 415
	NotLoggedIn          Code = "not_logged_in"          // 401
	InsufficientFunds    Code = "insufficient_funds"     // 402
	Forbidden            Code = "forbidden"              // 403: a player's call refused, or an operator's outside their roles (docs/spec/OPERATOR.md)
	SameOperator         Code = "same_operator"          // 403: a proposal approved by the operator who made it (OPERATOR.md, four eyes)
	WrongPassword        Code = "wrong_password"         // 403: the current password, asked to change it, is wrong
	Underage             Code = "underage"               // 403: under 18 on the server's date
	AccountClosed        Code = "account_closed"         // 403: the account was closed by its player
	Excluded             Code = "excluded"               // 403: at login, self-excluded (until when, said), or closed for the list of excluded persons
	RegistrationRefused  Code = "registration_refused"   // 403: a sign-up refused for who the person is (excluded, listed, or alike), one message, no date
	LimitsRequired       Code = "limits_required"        // 403: a deposit or a stake before its weekly limit is set
	LimitReached         Code = "limit_reached"          // 403: a deposit or a stake past its weekly limit
	PlayerBlocked        Code = "player_blocked"         // 403: the operator's wallet refused the player (wallet mode)
	WalletMode           Code = "wallet_mode"            // 403: the money and the player's protection are the operator's (wallet mode)
	DemoMode             Code = "demo_mode"              // 403: a call of real money or of an account, made with a demo session (docs/spec/API.md 1.2)
	NotFound             Code = "not_found"              // 404
	InvalidMove          Code = "invalid_move"           // 409
	UsernameTaken        Code = "username_taken"         // 409
	InFlight             Code = "request_in_flight"      // 409
	InvalidState         Code = "invalid_state"          // 409: a change an emission's life, a proposal's or a token's does not allow (OPERATOR.md)
	DuplicateLaunch      Code = "duplicate_launch"       // 409: a launch's nonce used already (wallet mode, docs/spec/WALLET.md 1.1)
	IdempotencyMismatch  Code = "idempotency_key_reused" // 422
	TooManyAttempts      Code = "too_many_attempts"      // 429
	SoldOut              Code = "sold_out"               // 503
	Unavailable          Code = "unavailable"            // 503: busy, or the store cannot serve now; try again
	WalletUnavailable    Code = "wallet_unavailable"     // 503: the operator's wallet did not answer the debit; nothing was sold
	Internal             Code = "internal_error"         // 500
)

// Error is a failure with a code and a message for a person.
type Error struct {
	Code    Code
	Message string
	// RetryAfter, when set, is how long the client should wait before trying again (a 429, a
	// 503): said in the Retry-After header.
	RetryAfter time.Duration
	// Cause is the error behind it, for the logs: never shown to the client.
	Cause error
}

func (e *Error) Error() string { return e.Message }

func (e *Error) Unwrap() error { return e.Cause }

// Errorf makes an Error.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Retry makes an Error that tells the client when to try again.
func Retry(code Code, after time.Duration, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), RetryAfter: after}
}

// RetryAfter is how long err asks the client to wait, or 0.
func RetryAfter(err error) time.Duration {
	var e *Error
	if errors.As(err, &e) {
		return e.RetryAfter
	}
	return 0
}

// CodeOf is the code of err, or Internal when err carries none.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// Is reports whether err carries the code.
func Is(err error, code Code) bool { return err != nil && CodeOf(err) == code }

// Message is what err says to whom it is told: its fault's message, or err's own words.
func Message(err error) string {
	var f *Error
	if errors.As(err, &f) {
		return f.Message
	}
	return err.Error()
}
