package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"starcolor/internal/app"
	"starcolor/internal/fakewallet"
	"starcolor/internal/wallet"
)

// The findings of issue 19's audit against WALLET.md 1.0, each refused by 1.1's binding: a
// signature covers the call, the time and, for an answer, the request it answers.

// drainedBooks are the wallet's books in total, once the outbox has drained.
func (e *walletEnv) drainedBooks(t *testing.T) fakewallet.PlayerBooks {
	t.Helper()
	e.drained(t)
	b, err := e.fw.Books(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return b.Total
}

// games counts the games in the player's history.
func (c *client) games() int {
	c.t.Helper()
	var list struct{ Games []any }
	c.must(200, &list, "GET", "/api/v1/games", nil, "")
	return len(list.Games)
}

// Star Color's own signed calls to the wallet, posted to its launch call with their headers as
// they were sent, open no session: a debit's and a credit's signatures are for their own paths
// (401 bad_signature).
func TestWalletCallsAreNoLaunch(t *testing.T) {
	e := newWalletEnv(t, fakewallet.Faults{})
	p := e.player(t, "op-victim")
	p.must(200, nil, "GET", "/api/v1/me", nil, "")
	p.must(201, nil, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, p.key())
	e.drained(t)
	for _, call := range []string{wallet.CallDebit, wallet.CallCredit, wallet.CallBalance} {
		sent := e.proxy.sent("/" + call)
		if len(sent) == 0 {
			t.Fatalf("no %s was sent", call)
		}
		r := sent[0]
		st, answer := e.post(t, e.url, wallet.LaunchPath, string(r.body), func(req *http.Request) {
			for _, h := range []string{wallet.TimestampHeader, wallet.SignatureHeader} {
				req.Header.Set(h, r.header.Get(h))
			}
		})
		if st != http.StatusUnauthorized || !strings.Contains(answer, `"code":"bad_signature"`) || strings.Contains(answer, "launch=") {
			t.Errorf("Star Color's %s %s posted to the launch call: %d %s, want 401 bad_signature", call, r.body, st, answer)
		}
	}
}

// The audit's attack: a wallet (or anyone on its path) that answers debits with a captured,
// validly signed answer of an earlier debit. That answer is not signed for these requests: each
// is an unknown outcome, the sale is refused 503 wallet_unavailable, nothing is sold, and the
// debit is rolled back. Thirty such debits sell nothing (under 1.0 they sold thirty games whose
// stakes were never debited, and credited their prizes).
func TestReplayedAnswerSellsNothing(t *testing.T) {
	e := newWalletEnvWith(t, fakewallet.Faults{}, app.WalletConfig{Timeout: 300 * time.Millisecond, DebitWait: 100 * time.Millisecond, RetryBase: 50 * time.Millisecond})
	ctx := context.Background()
	p := e.player(t, "op-replayed")
	sale := map[string]any{"stake": 100, "mode": "auto"}
	e.proxy.replayDebits()
	p.must(201, nil, "POST", "/api/v1/games", sale, p.key()) // the debit whose answer is captured
	for i := range 30 {
		p.refused(503, "wallet_unavailable", "POST", "/api/v1/games", sale, p.key())
		if i == 0 {
			if st, _ := e.env.Store.OutboxState(ctx, e.now()); st.Pending == 0 {
				t.Errorf("a sale refused on a replayed answer left no rollback to send: %+v", st)
			}
		}
	}
	if n := p.games(); n != 1 {
		t.Fatalf("%d games sold, want the first only", n)
	}
	e.proxy.set(intact, intact, false)
	if b := e.drainedBooks(t); b.Debits.Count != 1 || b.Staked.Amount != 100 || b.Rollbacks.Count != 30 || b.Credits.Count != 1 {
		t.Fatalf("the wallet's books: %+v; want the first debit standing, a rollback for each of the 30 refused, one credit", b)
	}
	(&testServer{db: e.env.Store, wallet: &refWallet{fw: e.fw}}).checkWalletBooks(t)
}

// An answer signed for its request but echoing another transaction_id is an unknown outcome
// too: the sale is refused, and the debit (applied at the wallet) rolled back.
func TestAnswerEchoingAnotherTransaction(t *testing.T) {
	e := newWalletEnvWith(t, fakewallet.Faults{}, app.WalletConfig{Timeout: 300 * time.Millisecond, DebitWait: 100 * time.Millisecond, RetryBase: 50 * time.Millisecond})
	p := e.player(t, "op-echo")
	var me struct{ Balance int64 }
	p.must(200, &me, "GET", "/api/v1/me", nil, "")
	e.proxy.echoing("debit-someone-else")
	p.refused(503, "wallet_unavailable", "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, p.key())
	e.proxy.set(intact, intact, false)
	if b := e.drainedBooks(t); b.Debits.Count != 1 || b.Staked.Amount != 0 || b.Rollbacks.Amount != 100 || b.Balance != me.Balance {
		t.Fatalf("the wallet's books: %+v; want the debit rolled back", b)
	}
	if n := p.games(); n != 0 {
		t.Fatalf("%d games sold on an answer for another transaction", n)
	}
}
