package fakewallet

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"starcolor/internal/wallet"
)

var secret = []byte("a secret shared with Star Color")

// key signs the tests' requests and checks the wallet's answers, as Star Color does.
var key = wallet.NewKey(secret)

// testWallet is a wallet on a SQLite file of the test's, served over real HTTP.
type testWallet struct {
	t      *testing.T
	store  *Store
	srv    *httptest.Server
	client *http.Client
}

func newStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "wallet.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func newWallet(t *testing.T, f Faults) *testWallet {
	t.Helper()
	return serveStore(t, newStore(t), f)
}

// serveStore serves a store, with faults: two servers over one store are one wallet whose
// requests meet different faults.
func serveStore(t *testing.T, s *Store, f Faults) *testWallet {
	t.Helper()
	srv := httptest.NewServer(NewServer(s, secret, f))
	t.Cleanup(srv.Close)
	return &testWallet{t: t, store: s, srv: srv, client: &http.Client{Timeout: 10 * time.Second}}
}

// reply is an answer as the client got it.
type reply struct {
	status int
	body   []byte
	signed bool // its signature is good
	err    error
}

func (r reply) code() string {
	var e wallet.ErrorBody
	json.Unmarshal(r.body, &e)
	return e.Error.Code
}

func (r reply) balance() int64 {
	var a wallet.Answer
	json.Unmarshal(r.body, &a)
	return a.Balance
}

// raw sends a body as it is, stamped now, with a signature (the request's own if sig is
// "sign"; none if "").
func (w *testWallet) raw(method, path string, body []byte, sig string) reply {
	w.t.Helper()
	return w.signed(method, path, body, func(req *http.Request) {
		if sig == "sign" {
			key.Stamp(req, body, time.Now())
			return
		}
		req.Header.Set(wallet.TimestampHeader, strconv.FormatInt(time.Now().Unix(), 10))
		if sig != "" {
			req.Header.Set(wallet.SignatureHeader, sig)
		}
	})
}

// signed sends a body as it is, its headers set by sign; the reply is signed if its signature
// is that of the answer to this request.
func (w *testWallet) signed(method, path string, body []byte, sign func(*http.Request)) reply {
	w.t.Helper()
	req, err := http.NewRequest(method, w.srv.URL+path, bytes.NewReader(body))
	if err != nil {
		w.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	sign(req)
	res, err := w.client.Do(req)
	if err != nil {
		return reply{err: err}
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return reply{status: res.StatusCode, body: b, signed: key.CheckAnswer(req, res.Header, b), err: err}
}

// post sends a call, signed.
func (w *testWallet) post(call string, v any) reply {
	w.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		w.t.Fatal(err)
	}
	return w.raw("POST", "/"+call, b, "sign")
}

// must sends a call that must be answered with status, signed.
func (w *testWallet) must(status int, call string, v any) reply {
	w.t.Helper()
	r := w.post(call, v)
	if r.err != nil || r.status != status || !r.signed {
		w.t.Fatalf("%s %+v: %d %s (signed %v, %v), want %d", call, v, r.status, r.body, r.signed, r.err, status)
	}
	return r
}

func (w *testWallet) balanceOf(player string) int64 {
	w.t.Helper()
	return w.must(200, wallet.CallBalance, wallet.BalanceRequest{Player: player, OperatorSession: "s"}).balance()
}

func (w *testWallet) setBalance(player string, balance int64) {
	w.t.Helper()
	w.must(200, "players", map[string]any{"player": player, "balance": balance})
}

func (w *testWallet) books() Books {
	w.t.Helper()
	r := w.raw("GET", "/books", nil, "sign")
	if r.err != nil || r.status != 200 || !r.signed {
		w.t.Fatalf("books: %d %s (signed %v, %v)", r.status, r.body, r.signed, r.err)
	}
	var b Books
	if err := json.Unmarshal(r.body, &b); err != nil {
		w.t.Fatal(err)
	}
	return b
}

// checkBooks checks that every player's books balance, and returns them.
func (w *testWallet) checkBooks() Books {
	w.t.Helper()
	b := w.books()
	for _, p := range append(b.Players, b.Total) {
		if !p.Balanced || p.Balance != p.Initial+p.Adjusted+p.Credits.Amount+p.Rollbacks.Amount-p.Debits.Amount ||
			p.Staked.Amount != p.Debits.Amount-p.Rollbacks.Amount {
			w.t.Errorf("books of %q do not balance: %+v", p.Player, p)
		}
	}
	return b
}

func debit(id, player string, amount int64) wallet.DebitRequest {
	return wallet.DebitRequest{TransactionID: id, Player: player, OperatorSession: "session", RoundID: "r-" + id, Amount: amount, Currency: wallet.Currency}
}

func credit(id, player string, amount int64, debitID string) wallet.CreditRequest {
	return wallet.CreditRequest{TransactionID: id, Player: player, RoundID: "r-" + debitID, Amount: amount, Currency: wallet.Currency, DebitTransactionID: debitID}
}

func rollback(id, player, debitID string) wallet.RollbackRequest {
	return wallet.RollbackRequest{TransactionID: id, Player: player, RoundID: "r-" + debitID, RolledBackTransactionID: debitID}
}
