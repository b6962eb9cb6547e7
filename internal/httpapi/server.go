// Package httpapi serves the player API of docs/spec/API.md over the standard library's
// ServeMux, one small handler per call, JSON in and out. An error is
// {"error": {"code", "message"}}, with the status of its fault code. The session is in an
// HttpOnly cookie.
package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/game"
	"starcolor/internal/store"
	"starcolor/internal/strictjson"
	"starcolor/internal/wallet"
)

// Store is what the API reads of a store itself (its emissions, and whether it can write, for
// /healthz); the rest goes through the game service.
type Store interface {
	store.Emissions
	store.Health
}

// CookieName is the session cookie.
const CookieName = "starcolor_session"

// maxBody bounds a request body; the API's bodies are a few dozen bytes.
const maxBody = 16 << 10

// Server is the HTTP face of a game service.
type Server struct {
	svc     *game.Service
	db      Store
	log     *slog.Logger
	metrics *Metrics
	mux     *http.ServeMux
	routes  []string

	// Wallet mode's launch call (launch.go): its key, its public address and its clock.
	launchKey *wallet.Key
	publicURL string
	launchNow func() time.Time

	// The journal's calls (journal.go): the journal and its verifier key.
	journal    Journal
	journalKey string

	// The operator API (operator.go), nil until enabled.
	ops *OperatorConfig
}

// New builds the server's routes.
func New(svc *game.Service, db Store, log *slog.Logger, metrics *Metrics) *Server {
	s := &Server{svc: svc, db: db, log: log, metrics: metrics, mux: http.NewServeMux()}
	s.handle("GET /healthz", s.healthz)
	s.handle("GET /api/openapi.json", s.openAPI)
	s.handle("GET /api/v1/emissions", s.emissions)
	s.handle("POST /api/v1/players", s.register)
	s.handle("POST /api/v1/session", s.login)
	s.handle("DELETE /api/v1/session", s.logout)
	s.handle("POST /api/v1/demo", s.startDemo)
	// With a demo session (demo.go), the calls of play answer as they do a player. Its plays and
	// moves check the session in their own write (demoWriteOr). The calls of real money or of an
	// account are refused: demoOr(h, nil).
	s.handle("GET /api/v1/me", s.demoOr(s.auth(s.me), s.demoMe))
	s.handle("GET /api/v1/me/limits", s.demoOr(s.auth(s.limits), nil))
	s.handle("PUT /api/v1/me/limits", s.demoOr(s.authWrite(s.setLimits), nil))
	s.handle("POST /api/v1/me/reality-check", s.demoOr(s.auth(s.answerRealityCheck), nil))
	s.handle("POST /api/v1/me/exclusion", s.demoOr(s.authWrite(s.exclude), nil))
	s.handle("DELETE /api/v1/me", s.demoOr(s.authWrite(s.closeAccount), nil))
	s.handle("PUT /api/v1/me/password", s.demoOr(s.authWrite(s.changePassword), nil))
	s.handle("POST /api/v1/deposits", s.demoOr(s.authWrite(s.deposit), nil))
	s.handle("POST /api/v1/withdrawals", s.demoOr(s.authWrite(s.withdraw), nil))
	s.handle("POST /api/v1/games", s.demoWriteOr(s.authWrite(s.play), s.demoPlay))
	s.handle("GET /api/v1/games", s.demoOr(s.auth(s.games), s.demoGames))
	s.handle("GET /api/v1/games/{id}", s.demoOr(s.auth(s.game), s.demoGame))
	s.handle("POST /api/v1/games/{id}/color", s.demoWriteOr(s.authWrite(s.color), s.demoMoveOf(colorMove)))
	s.handle("POST /api/v1/games/{id}/reveal", s.demoWriteOr(s.authWrite(s.reveal), s.demoMoveOf(revealMove)))
	s.handle("POST /api/v1/games/{id}/finish", s.demoWriteOr(s.authWrite(s.finish), s.demoMoveOf(finishMove)))
	s.handle("GET /api/v1/games/{id}/proof", s.demoOr(s.auth(s.proof), nil))
	if metrics != nil {
		metrics.watch(svc)
	}
	return s
}

// Metrics serves the Prometheus metrics (nil when the server has none). They are not among the
// player API's routes. On the public port, sparse sales would give each sale's prize and the
// wallet's disputes to anyone. So serve puts them on a listener of their own
// (--metrics-addr, loopback by default).
func (s *Server) Metrics() http.Handler {
	if s.metrics == nil {
		return nil
	}
	return s.metrics.Handler()
}

// Routes lists the patterns the server answers, for the OpenAPI consistency test.
func (s *Server) Routes() []string { return s.routes }

// Handler is the server with its protections: cross-origin state-changing browser requests
// refused (http.CrossOriginProtection), bodies bounded, answers never sniffed for another type.
func (s *Server) Handler() http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, fault.Errorf(fault.Forbidden, "cross-origin requests that change state are refused"))
	}))
	return cop.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		s.serve(w, r)
	}))
}

// serve answers unknown paths and methods in JSON too, like every other error of the API.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if _, pattern := s.mux.Handler(r); pattern == "" {
		rec := &statusWriter{ResponseWriter: discard{w.Header()}}
		s.mux.ServeHTTP(rec, r) // tells 404 from 405, and sets Allow
		if rec.status == http.StatusMethodNotAllowed {
			writeJSON(w, http.StatusMethodNotAllowed, map[string]any{"error": map[string]string{
				"code": "method_not_allowed", "message": r.Method + " is not allowed here; allowed: " + w.Header().Get("Allow")}})
			return
		}
		writeError(w, fault.Errorf(fault.NotFound, "no such resource: %s", r.URL.Path))
		return
	}
	s.mux.ServeHTTP(w, r)
}

// discard is a ResponseWriter that keeps headers and drops the body.
type discard struct{ h http.Header }

func (d discard) Header() http.Header         { return d.h }
func (d discard) Write(b []byte) (int, error) { return len(b), nil }
func (d discard) WriteHeader(int)             {}

type handlerFunc func(w http.ResponseWriter, r *http.Request) error

func (s *Server) handle(pattern string, h handlerFunc) { s.handleSized(pattern, maxBody, h) }

// handleSized is handle for a call whose body may be larger than maxBody, up to limit bytes.
func (s *Server) handleSized(pattern string, limit int64, h handlerFunc) {
	s.routes = append(s.routes, pattern)
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		rw := &statusWriter{ResponseWriter: w}
		err := unambiguous(r)
		if err == nil {
			err = h(rw, r)
		}
		if err != nil {
			switch cause := errors.Unwrap(err); {
			case r.Context().Err() != nil:
				// The client hung up: what could not be done for it is not the server's failure.
				s.log.Debug("request abandoned by its client", "method", r.Method, "path", r.URL.Path, "err", err)
			case fault.CodeOf(err) == fault.Internal:
				s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
			case fault.CodeOf(err) == fault.Unavailable && cause != nil:
				s.log.Error("request failed: the store", "method", r.Method, "path", r.URL.Path, "err", err, "cause", cause)
			}
			writeError(rw, err)
		}
		if s.metrics != nil {
			s.metrics.observe(pattern, rw.status, time.Since(start))
		}
	})
}

// oneValued are the headers a request may carry once at most. A proxy that reads the last of two,
// and the server, which reads the first, would not agree on what was asked.
var oneValued = []string{"Content-Type", "Idempotency-Key"}

// unambiguous refuses a request that two readers could read differently, as strict JSON does for
// its body: a header of oneValued given twice, or a query parameter given twice.
func unambiguous(r *http.Request) error {
	for _, h := range oneValued {
		if len(r.Header.Values(h)) > 1 {
			return fault.Errorf(fault.InvalidRequest, "the header %s is given more than once", h)
		}
	}
	if r.URL.RawQuery == "" {
		return nil
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return fault.Errorf(fault.InvalidRequest, "the query string cannot be read: %v", err)
	}
	for name, vs := range q {
		if len(vs) > 1 {
			return fault.Errorf(fault.InvalidRequest, "the query parameter %q is given more than once", name)
		}
	}
	return nil
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// statusOf maps fault codes to HTTP statuses: the one table of docs/spec/API.md's error conventions.
var statusOf = map[fault.Code]int{
	fault.Invalid:              http.StatusBadRequest,
	fault.InvalidRequest:       http.StatusBadRequest,
	fault.InvalidUsername:      http.StatusBadRequest,
	fault.InvalidIdentity:      http.StatusBadRequest,
	fault.WeakPassword:         http.StatusBadRequest,
	fault.NotLoggedIn:          http.StatusUnauthorized,
	fault.InsufficientFunds:    http.StatusPaymentRequired,
	fault.Forbidden:            http.StatusForbidden,
	fault.SameOperator:         http.StatusForbidden,
	fault.WrongPassword:        http.StatusForbidden,
	fault.Underage:             http.StatusForbidden,
	fault.Excluded:             http.StatusForbidden,
	fault.RegistrationRefused:  http.StatusForbidden,
	fault.LimitsRequired:       http.StatusForbidden,
	fault.LimitReached:         http.StatusForbidden,
	fault.PlayerBlocked:        http.StatusForbidden,
	fault.WalletMode:           http.StatusForbidden,
	fault.DemoMode:             http.StatusForbidden,
	fault.WalletUnavailable:    http.StatusServiceUnavailable,
	fault.AccountClosed:        http.StatusForbidden,
	fault.NotFound:             http.StatusNotFound,
	fault.InvalidMove:          http.StatusConflict,
	fault.UsernameTaken:        http.StatusConflict,
	fault.InFlight:             http.StatusConflict,
	fault.InvalidState:         http.StatusConflict,
	fault.DuplicateLaunch:      http.StatusConflict,
	fault.TooLarge:             http.StatusRequestEntityTooLarge,
	fault.UnsupportedMediaType: http.StatusUnsupportedMediaType,
	fault.IdempotencyMismatch:  http.StatusUnprocessableEntity,
	fault.TooManyAttempts:      http.StatusTooManyRequests,
	fault.SoldOut:              http.StatusServiceUnavailable,
	fault.Unavailable:          http.StatusServiceUnavailable,
	fault.Internal:             http.StatusInternalServerError,
}

func writeError(w http.ResponseWriter, err error) {
	status, body := errorOf(w.Header(), err)
	writeBody(w, status, body)
}

// errorOf is the answer to an error: its status and its body, {"error": {"code", "message"}}.
// The cause of an internal error is never told. When to try again is set in h (Retry-After).
func errorOf(h http.Header, err error) (int, []byte) {
	code := fault.CodeOf(err)
	msg := err.Error()
	var f *fault.Error
	switch {
	case errors.As(err, &f):
		msg = f.Message // said on purpose, even of an internal error (what a committed sale could not say)
	case code == fault.Internal:
		msg = "something went wrong on our side; nothing was changed"
	}
	if wait := fault.RetryAfter(err); wait > 0 {
		h.Set("Retry-After", strconv.Itoa(int((wait+time.Second-1)/time.Second)))
	}
	return statusOf[code], errorBody(string(code), msg)
}

func writeJSON(w http.ResponseWriter, status int, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	writeBody(w, status, body)
	return nil
}

func writeBody(w http.ResponseWriter, status int, body []byte) {
	writeAnswer(w, status, "application/json", "no-store", body)
}

// writeAnswer writes an answer of a type, cached as cache says (a Cache-Control value).
func writeAnswer(w http.ResponseWriter, status int, contentType, cache string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Cache-Control", cache)
	// Said outright, the length spares the server chunking a larger answer, and the client
	// reading its chunks.
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

// readJSON decodes a request body into v: exactly one JSON object, strictly (strictjson: no
// duplicate, inexact or unknown names), sent as application/json.
func readJSON(r *http.Request, v any) ([]byte, error) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return nil, fault.Errorf(fault.UnsupportedMediaType, "the body must be JSON, sent with Content-Type: application/json")
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, fault.Errorf(fault.TooLarge, "the body is larger than %d bytes", maxBody)
		}
		return nil, fault.Errorf(fault.Invalid, "the body could not be read")
	}
	if err := strictjson.Decode(body, v); err != nil {
		return nil, fault.Errorf(fault.InvalidRequest, "%v", err)
	}
	return body, nil
}

func pathID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, fault.Errorf(fault.NotFound, "no such game")
	}
	return id, nil
}

// healthz answers 200 while the server can serve, else 503 with what is wrong. It can serve
// while:
//   - its store can write: a probe write through the writer, and no write failed for the
//     store's sake of late;
//   - nothing has been found damaged in it (game.Service.Problems): units that do not match their
//     commitment, a damaged file.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	var problems []string
	if err := s.db.CheckWrite(ctx); err != nil {
		s.log.Error("health: the store cannot write", "err", err, "cause", errors.Unwrap(err))
		problems = append(problems, "the store cannot write: "+err.Error())
	}
	problems = append(problems, s.svc.Problems()...)
	if len(problems) > 0 {
		return fault.Retry(fault.Unavailable, 5*time.Second, "%s", strings.Join(problems, "; "))
	}
	return writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}
