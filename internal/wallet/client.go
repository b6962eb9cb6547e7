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
)

// Client makes Star Color's calls to the operator's wallet: each body signed, each answer's
// signature checked. An answer is either a balance, a refusal the wallet gave (*Refused: final),
// or an unknown outcome (ErrUnknown: 5xx, a timeout, a broken connection, an answer unsigned or
// badly signed), which the caller settles by sending the same call again, or a rollback.
type Client struct {
	base   string // the wallet's URL, without a trailing slash
	secret []byte
	http   *http.Client
}

// NewClient is a client of the wallet at base (its calls are base + "/" + call), each call given
// at most timeout.
func NewClient(base string, secret []byte, timeout time.Duration) *Client {
	return &Client{base: strings.TrimRight(base, "/"), secret: secret, http: &http.Client{Timeout: timeout,
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

// Call sends one call with its body, and returns the balance the wallet answered.
func (c *Client) Call(ctx context.Context, call string, body any) (int64, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return 0, err
	}
	return c.CallRaw(ctx, call, raw)
}

// CallRaw sends one call with a body as its exact bytes (a kept call is sent as it was kept).
func (c *Client) CallRaw(ctx context.Context, call string, raw []byte) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/"+call, bytes.NewReader(raw))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(SignatureHeader, Sign(c.secret, raw))
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %v", ErrUnknown, call, err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return 0, fmt.Errorf("%w: %s: reading the answer: %v", ErrUnknown, call, err)
	}
	if !Verify(c.secret, answer, resp.Header.Get(SignatureHeader)) {
		return 0, fmt.Errorf("%w: %s: an answer %d without a valid signature", ErrUnknown, call, resp.StatusCode)
	}
	switch {
	case resp.StatusCode == http.StatusOK:
		var a Answer
		if err := json.Unmarshal(answer, &a); err != nil {
			return 0, fmt.Errorf("%w: %s: an answer that is not a balance: %v", ErrUnknown, call, err)
		}
		return a.Balance, nil
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		var e ErrorBody
		json.Unmarshal(answer, &e)
		return 0, &Refused{Status: resp.StatusCode, Code: e.Error.Code, Message: e.Error.Message}
	}
	return 0, fmt.Errorf("%w: %s: status %d", ErrUnknown, call, resp.StatusCode)
}

// Balance asks for a player's balance.
func (c *Client) Balance(ctx context.Context, r BalanceRequest) (int64, error) {
	return c.Call(ctx, CallBalance, r)
}

// Debit takes a stake.
func (c *Client) Debit(ctx context.Context, r DebitRequest) (int64, error) {
	return c.Call(ctx, CallDebit, r)
}

// Credit pays a round's prize.
func (c *Client) Credit(ctx context.Context, r CreditRequest) (int64, error) {
	return c.Call(ctx, CallCredit, r)
}

// Rollback undoes a debit.
func (c *Client) Rollback(ctx context.Context, r RollbackRequest) (int64, error) {
	return c.Call(ctx, CallRollback, r)
}
