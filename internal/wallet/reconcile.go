package wallet

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"

	"starcolor/internal/lottery"
)

// Reconciliation (issue 13, item 4): what Star Color holds of each round, compared with what the
// wallet holds, from a listing of its transactions. The listing is an addition to docs/spec/WALLET.md that
// the wallet offers if it can (docs/WALLET_MODE.md):
//
//	GET {wallet URL}/transactions?after=SEQ&limit=N, signed as every call (its body empty: docs/spec/WALLET.md
//	1.1, the path with its query), answers (signed, as the answer to that request)
//	{"transactions": [{"seq", "transaction_id", "kind": "debit"|"credit"|"rollback", "player",
//	"round_id", "amount", "status", "rolled_back"}…], "next": SEQ}: the transactions after SEQ in
//	the order they came; the next page is ?after=next, the same SEQ when there is no more.

// Listed is a transaction in the wallet's listing.
type Listed struct {
	Seq           int64  `json:"seq"`
	TransactionID string `json:"transaction_id"`
	Kind          string `json:"kind"`
	Player        string `json:"player"`
	RoundID       string `json:"round_id"`
	Amount        int64  `json:"amount"`
	Status        int    `json:"status"`
	RolledBack    bool   `json:"rolled_back"`
}

// Transactions reads the wallet's whole listing, page by page.
func (c *Client) Transactions(ctx context.Context) ([]Listed, error) {
	var all []Listed
	after := int64(0)
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/transactions?limit=10000&after="+strconv.FormatInt(after, 10), nil)
		if err != nil {
			return nil, err
		}
		c.key.Stamp(req, nil, c.Now())
		resp, err := c.http.Do(req)
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		if !c.key.CheckAnswer(req, resp.Header, body) || resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("the wallet's listing: status %d, or an answer whose signature is missing or not of this request: %.200s", resp.StatusCode, body)
		}
		var page struct {
			Transactions []Listed `json:"transactions"`
			Next         int64    `json:"next"`
		}
		// Leniently: a wallet may list more of each transaction than reconciling reads.
		if err := json.Unmarshal(body, &page); err != nil {
			return nil, fmt.Errorf("the wallet's listing: %v", err)
		}
		all = append(all, page.Transactions...)
		if len(page.Transactions) == 0 || page.Next == after {
			return all, nil
		}
		after = page.Next
	}
}

// Reconcile compares, round by round, what Star Color holds and what the wallet lists: each
// game's debit must stand at the wallet with its stake, and its acknowledged credit with its
// prize; no debit may stand, nor credit be, for a round Star Color has no game of. It returns the
// differences, each a sentence, in the order of the rounds.
func Reconcile(ours []lottery.Round, listed []Listed) []string {
	type held struct{ debits, credits int64 }
	theirs := map[string]*held{}
	for _, t := range listed {
		h := theirs[t.RoundID]
		if h == nil {
			h = &held{}
			theirs[t.RoundID] = h
		}
		switch {
		case t.Kind == CallDebit && t.Status == http.StatusOK && !t.RolledBack:
			h.debits += t.Amount
		case t.Kind == CallCredit:
			h.credits += t.Amount
		}
	}
	var diffs []string
	for _, r := range ours {
		h := theirs[r.ID]
		delete(theirs, r.ID)
		if h == nil {
			h = &held{}
		}
		if h.debits != r.Stake {
			diffs = append(diffs, fmt.Sprintf("round %s (%s): the game's stake is %d cents, the wallet's debits standing %d", r.ID, r.Player, r.Stake, h.debits))
		}
		switch {
		case r.Credited && h.credits != r.Prize:
			diffs = append(diffs, fmt.Sprintf("round %s (%s): the prize is %d cents, the wallet's credits %d", r.ID, r.Player, r.Prize, h.credits))
		case !r.Credited:
			diffs = append(diffs, fmt.Sprintf("round %s (%s): the credit of %d cents is not acknowledged yet (the wallet holds %d)", r.ID, r.Player, r.Prize, h.credits))
		}
	}
	rest := make([]string, 0, len(theirs))
	for id := range theirs {
		rest = append(rest, id)
	}
	sort.Strings(rest)
	for _, id := range rest {
		if h := theirs[id]; h.debits != 0 || h.credits != 0 {
			diffs = append(diffs, fmt.Sprintf("round %s: the wallet holds debits of %d cents and credits of %d, and Star Color no game", id, h.debits, h.credits))
		}
	}
	return diffs
}
