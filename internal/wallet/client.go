package wallet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"starcolor/internal/strictjson"
)

// Client makes Star Color's calls to the operator's wallet: each request stamped and signed, each
// answer's signature checked against the request it answers (docs/spec/WALLET.md 1.1). An answer is either
// a balance, a refusal the wallet gave (*Refused: final), or an unknown outcome (ErrUnknown: 5xx,
// a timeout, a broken connection, an answer unsigned, signed for another request, or echoing
// another transaction_id), which the caller settles by sending the same call again, or a
// rollback.
type Client struct {
	base string // the wallet's URL, without a trailing slash
	key  *Key
	http *http.Client
	// Now is the clock the requests are stamped with (time.Now): the server's own, the one the
	// wallet's clock is to agree with within Window.
	Now func() time.Time
}

// NewClient is a client of the wallet at base (its calls are base + "/" + call), each call given
// at most timeout.
func NewClient(base string, key *Key, timeout time.Duration) *Client {
	return &Client{base: strings.TrimRight(base, "/"), key: key, Now: time.Now, http: &http.Client{Timeout: timeout,
		Transport: &http.Transport{MaxIdleConnsPerHost: 256, IdleConnTimeout: 90 * time.Second}}}
}

// ErrUnknown is a call whose outcome is unknown: the wallet may or may not have applied it.
var ErrUnknown = errors.New("the wallet's answer is unknown")

// Refused is a refusal the wallet gave, with its status and code (402 insufficient_funds, 403
// limit_reached or player_blocked, 409 duplicate_transaction, 401 bad_signature …).
type Refused struct {
	Status        int
	Code, Message string
}

func (r *Refused) Error() string {
	return fmt.Sprintf("the wallet refused: %d %s: %s", r.Status, r.Code, r.Message)
}

// maxAnswer bounds an answer's body.
const maxAnswer = 64 << 10

// Call sends one call with its body, and returns the balance the wallet answered. transactionID
// is the body's transaction_id, which the answer must echo ("" for a balance: none).
func (c *Client) Call(ctx context.Context, call, transactionID string, body any) (int64, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return 0, err
	}
	return c.CallRaw(ctx, call, transactionID, raw)
}

// CallRaw sends one call with a body as its exact bytes (a kept call is sent as it was kept,
// stamped and signed afresh at each sending).
func (c *Client) CallRaw(ctx context.Context, call, transactionID string, raw []byte) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/"+call, bytes.NewReader(raw))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	c.key.Stamp(req, raw, c.Now())
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %v", ErrUnknown, call, err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return 0, fmt.Errorf("%w: %s: reading the answer: %v", ErrUnknown, call, err)
	}
	if !c.key.CheckAnswer(req, resp.Header, answer) {
		return 0, fmt.Errorf("%w: %s: an answer %d whose signature is missing or not of this request", ErrUnknown, call, resp.StatusCode)
	}
	switch {
	case resp.StatusCode == http.StatusOK:
		// Strictly: the balance a sale stands on is read one way only (a field twice, or
		// another field, is no answer of the contract).
		var a struct {
			Balance       *int64 `json:"balance"`
			TransactionID string `json:"transaction_id"`
		}
		if err := strictjson.Decode(answer, &a); err != nil || a.Balance == nil {
			return 0, fmt.Errorf("%w: %s: an answer that is not a balance: %.200s", ErrUnknown, call, answer)
		}
		if a.TransactionID != transactionID {
			return 0, fmt.Errorf("%w: %s: an answer for transaction %q, not %q", ErrUnknown, call, a.TransactionID, transactionID)
		}
		return *a.Balance, nil
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		// Read leniently (the status is the refusal), but an echo, if there is one, must be
		// this call's.
		var e ErrorBody
		json.Unmarshal(answer, &e)
		if e.TransactionID != "" && e.TransactionID != transactionID {
			return 0, fmt.Errorf("%w: %s: a refusal %d for transaction %q, not %q", ErrUnknown, call, resp.StatusCode, e.TransactionID, transactionID)
		}
		return 0, &Refused{Status: resp.StatusCode, Code: e.Error.Code, Message: e.Error.Message}
	}
	return 0, fmt.Errorf("%w: %s: status %d", ErrUnknown, call, resp.StatusCode)
}

// Balance asks for a player's balance.
func (c *Client) Balance(ctx context.Context, r BalanceRequest) (int64, error) {
	return c.Call(ctx, CallBalance, "", r)
}

// Debit takes a stake.
func (c *Client) Debit(ctx context.Context, r DebitRequest) (int64, error) {
	return c.Call(ctx, CallDebit, r.TransactionID, r)
}

// Credit pays a round's prize.
func (c *Client) Credit(ctx context.Context, r CreditRequest) (int64, error) {
	return c.Call(ctx, CallCredit, r.TransactionID, r)
}

// Rollback undoes a debit.
func (c *Client) Rollback(ctx context.Context, r RollbackRequest) (int64, error) {
	return c.Call(ctx, CallRollback, r.TransactionID, r)
}
