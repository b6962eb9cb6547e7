package fakewallet

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"

	"starcolor/internal/strictjson"
	"starcolor/internal/wallet"
)

// Faults are the faults the wallet injects into the four calls of docs/spec/WALLET.md, each a probability
// from 0 (never, the default) to 1 (always), drawn for each request whose signature is good. The
// calls of the tests and the operator (/players, /books, /transactions) get none.
type Faults struct {
	// Fail answers 503 unavailable without applying the call: an outcome unknown to the caller,
	// who tries again.
	Fail float64
	// Slow holds a request for SlowDelay before applying it, and applies it even if the caller
	// has left meanwhile: a caller that gives up rolls the debit back, and the rollback may
	// overtake it (the debit then comes to an id rolled back: 409).
	Slow      float64
	SlowDelay time.Duration
	// Drop applies the call, then closes the connection without an answer: the movement is made
	// but the caller cannot know it.
	Drop float64
	// Refuse refuses a new debit, 402 insufficient_funds or 403 limit_reached (one or the other
	// at random), without moving anything. The refusal is kept, final, as a real one.
	Refuse float64
	// Seed makes the draws repeatable in one goroutine; 0 draws the seed from crypto/rand.
	Seed uint64
}

// Server is the wallet over HTTP, an http.Handler:
//
//	POST /balance, /debit, /credit, /rollback  the calls of docs/spec/WALLET.md, with its bodies (internal/wallet)
//	POST /players       {"player", "balance"?, "blocked"?}: sets a player's balance (cents) or
//	                    blocks them (debits then 403 player_blocked); answers {"player", "balance", "blocked"}
//	GET  /books         the books (type Books)
//	GET  /transactions?after=SEQ&limit=N
//	                    {"transactions": [Transaction…], "next": SEQ}: the transactions after the
//	                    one numbered SEQ (0: from the first), at most N (at most 10,000), in the
//	                    order they came; the next page is ?after=next, and next is SEQ again when
//	                    there is nothing more yet
//
// Every request is signed as docs/spec/WALLET.md 1.1 says (wallet.Key): X-Timestamp and X-Signature over
// its method, its path as sent (with its query), its timestamp and its exact body (empty for a
// GET); a signature missing or not of the request, or a timestamp more than 300 s from the
// store's clock (Store.Now), is 401 bad_signature and changes nothing. Every answer, errors too,
// is signed as the answer to its request; a debit's, a credit's and a rollback's echo its
// transaction_id. Bodies are read strictly (internal/strictjson): a field unknown, given twice or
// in another case is 400.
type Server struct {
	store  *Store
	key    *wallet.Key
	faults Faults
	mux    *http.ServeMux
	// Log, if not nil, gets a line for each call.
	Log *slog.Logger

	mu  sync.Mutex
	rnd *rand.Rand
}

// NewServer serves a store, with a secret shared with Star Color and faults to inject.
func NewServer(store *Store, secret []byte, faults Faults) *Server {
	seed := make([]byte, 32)
	if faults.Seed == 0 {
		crand.Read(seed)
	} else {
		binary.LittleEndian.PutUint64(seed, faults.Seed)
	}
	s := &Server{store: store, key: wallet.NewKey(secret), faults: faults, mux: http.NewServeMux(), rnd: rand.New(rand.NewChaCha8([32]byte(seed)))}
	s.mux.Handle("POST /"+wallet.CallBalance, serveCall(s, wallet.CallBalance, func(ctx context.Context, req wallet.BalanceRequest, _ []byte) (Answer, error) {
		return store.Balance(ctx, req)
	}, func(wallet.BalanceRequest) string { return "" }))
	s.mux.Handle("POST /"+wallet.CallDebit, serveCall(s, wallet.CallDebit, func(ctx context.Context, req wallet.DebitRequest, body []byte) (Answer, error) {
		refuse := ""
		if s.draw(s.faults.Refuse) {
			refuse = wallet.CodeInsufficientFunds
			if s.draw(0.5) {
				refuse = wallet.CodeLimitReached
			}
		}
		return store.Debit(ctx, req, body, refuse)
	}, func(r wallet.DebitRequest) string { return r.TransactionID }))
	s.mux.Handle("POST /"+wallet.CallCredit, serveCall(s, wallet.CallCredit, store.Credit, func(r wallet.CreditRequest) string { return r.TransactionID }))
	s.mux.Handle("POST /"+wallet.CallRollback, serveCall(s, wallet.CallRollback, store.Rollback, func(r wallet.RollbackRequest) string { return r.TransactionID }))
	s.mux.HandleFunc("POST /players", s.players)
	s.mux.HandleFunc("GET /books", s.books)
	s.mux.HandleFunc("GET /transactions", s.transactions)
	return s
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// maxBody bounds a request's body: the calls are a few hundred bytes.
const maxBody = 64 << 10

// serveCall serves one of docs/spec/WALLET.md's calls: the signature checked, the body decoded, the faults
// drawn, the call applied and answered. id is the call's transaction_id, which its refusals
// echo as its answers 200 do ("" for a balance).
func serveCall[T any](s *Server, name string, apply func(context.Context, T, []byte) (Answer, error), id func(T) string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := s.readSigned(w, r)
		if !ok {
			return
		}
		var req T
		if err := strictjson.Decode(body, &req); err != nil {
			s.writeError(w, r, errorf(CodeInvalid, "the body is not a %s call: %v", name, err))
			return
		}
		if s.draw(s.faults.Fail) {
			s.logCall(name, req, http.StatusServiceUnavailable, "fail")
			s.write(w, r, errorAnswer(CodeUnavailable, "the wallet failed (a fault injected: --fail); nothing was applied"))
			return
		}
		ctx := r.Context()
		if s.draw(s.faults.Slow) {
			// Applied even if the caller has left meanwhile, as a request late in the network.
			time.Sleep(s.faults.SlowDelay)
			ctx = context.WithoutCancel(ctx)
		}
		a, err := apply(ctx, req, body)
		if err != nil {
			a = s.errorAnswer(err, id(req))
		}
		if s.draw(s.faults.Drop) {
			s.logCall(name, req, a.Status, "drop: applied, the answer dropped")
			if hj, ok := w.(http.Hijacker); ok {
				if conn, _, err := hj.Hijack(); err == nil {
					conn.Close()
					return
				}
			}
			// No connection to close (HTTP/2): an answer that is no answer of the contract.
			s.write(w, r, errorAnswer(CodeInternal, "the answer was dropped (a fault injected: --drop)"))
			return
		}
		s.logCall(name, req, a.Status, "")
		s.write(w, r, a)
	})
}

// readSigned reads a request's body and checks its signature and timestamp on the store's
// clock, answering 401 if they do not stand.
func (s *Server) readSigned(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		s.writeError(w, r, errorf(CodeInvalid, "the body cannot be read: %v", err))
		return nil, false
	}
	if err := s.key.CheckRequest(r, body, s.store.Now()); err != nil {
		s.writeError(w, r, errorf(wallet.CodeBadSignature, "%v", err))
		return nil, false
	}
	return body, true
}

// draw tells whether a fault of probability p happens now.
func (s *Server) draw(p float64) bool {
	switch {
	case p <= 0:
		return false
	case p >= 1:
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rnd.Float64() < p
}

// logCall logs a call, its ids taken from its request decoded (not decoded again).
func (s *Server) logCall(name string, req any, status int, fault string) {
	if s.Log == nil {
		return
	}
	var (
		id, player string
		amount     int64
	)
	switch r := req.(type) {
	case wallet.DebitRequest:
		id, player, amount = r.TransactionID, r.Player, r.Amount
	case wallet.CreditRequest:
		id, player, amount = r.TransactionID, r.Player, r.Amount
	case wallet.RollbackRequest:
		id, player = r.TransactionID, r.Player
	case wallet.BalanceRequest:
		player = r.Player
	}
	attrs := []slog.Attr{slog.String("call", name), slog.String("transaction_id", id), slog.String("player", player),
		slog.Int64("amount", amount), slog.Int("status", status)}
	if fault != "" {
		attrs = append(attrs, slog.String("fault", fault))
	}
	s.Log.LogAttrs(context.Background(), slog.LevelInfo, "call", attrs...)
}

// write sends an answer, signed as the answer to r.
func (s *Server) write(w http.ResponseWriter, r *http.Request, a Answer) {
	w.Header().Set("Content-Type", "application/json")
	s.key.StampAnswer(w.Header(), r, a.Body, s.store.Now())
	w.WriteHeader(a.Status)
	w.Write(a.Body)
}

func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	s.write(w, r, s.errorAnswer(err, ""))
}

// errorAnswer answers an error: with its message if it is the caller's, echoing the call's
// transaction_id (id, "" for none); logged, and with a sentence that hides its cause, if it is
// the wallet's own (5xx).
func (s *Server) errorAnswer(err error, id string) Answer {
	code := CodeOf(err)
	if StatusOf(code) < 500 {
		return refusal(id, code, err.Error())
	}
	if s.Log != nil {
		s.Log.Error("the wallet failed", "err", err)
	}
	return errorAnswer(code, "the wallet failed: the outcome is unknown")
}

func (s *Server) players(w http.ResponseWriter, r *http.Request) {
	body, ok := s.readSigned(w, r)
	if !ok {
		return
	}
	var req struct {
		Player  string `json:"player"`
		Balance *int64 `json:"balance"`
		Blocked *bool  `json:"blocked"`
	}
	if err := strictjson.Decode(body, &req); err != nil {
		s.writeError(w, r, errorf(CodeInvalid, "want {\"player\", \"balance\", \"blocked\"}: %v", err))
		return
	}
	p, err := s.store.SetPlayer(r.Context(), req.Player, req.Balance, req.Blocked)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.write(w, r, jsonAnswer(http.StatusOK, p))
}

func (s *Server) books(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.readSigned(w, r); !ok {
		return
	}
	b, err := s.store.Books(r.Context())
	if err != nil {
		s.writeError(w, r, unavailable(err))
		return
	}
	s.write(w, r, jsonAnswer(http.StatusOK, b))
}

// TransactionsPage is the answer of GET /transactions.
type TransactionsPage struct {
	Transactions []Transaction `json:"transactions"`
	Next         int64         `json:"next"` // ?after= of the next page
}

func (s *Server) transactions(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.readSigned(w, r); !ok {
		return
	}
	q := r.URL.Query()
	after, limit := int64(0), MaxPage
	var err error
	if v := q.Get("after"); v != "" {
		if after, err = strconv.ParseInt(v, 10, 64); err != nil || after < 0 {
			s.writeError(w, r, errorf(CodeInvalid, "after is a transaction's seq, 0 or more"))
			return
		}
	}
	if v := q.Get("limit"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit < 1 {
			s.writeError(w, r, errorf(CodeInvalid, "limit is 1 or more"))
			return
		}
	}
	list, err := s.store.Transactions(r.Context(), after, limit)
	if err != nil {
		s.writeError(w, r, unavailable(err))
		return
	}
	page := TransactionsPage{Transactions: list, Next: after}
	if len(list) > 0 {
		page.Next = list[len(list)-1].Seq
	}
	s.write(w, r, jsonAnswer(http.StatusOK, page))
}
