// Package admin is the operators' back office, served under /admin: their own accounts and
// sessions, the emissions (listed, created with progress, exported, reported on), the sales
// against the prize tables, the liability of the open blocks, the players, and the log of every
// operator action. Pages are rendered on the server from html/template files embedded in the
// binary; the only script polls an emission's creation. It reads and writes through a store (its
// Store says what of one), and takes the game definition new emissions are made with as a
// dependency. Everything it keeps is in the store, so that any server of the game serves any
// operator: their sessions, the failed logins, the log, the emissions being created.
package admin

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"starcolor/internal/emission"
	"starcolor/internal/gamedef"
	"starcolor/internal/login"
	"starcolor/internal/lottery"
	"starcolor/internal/passhash"
	"starcolor/internal/session"
	"starcolor/internal/store"
	"starcolor/internal/throttle"
)

// Store is what the back office needs of a store: the roles of internal/store it uses. Every
// method is one transaction of its own; the store turns its own errors into faults.
type Store interface {
	store.Players
	store.Sessions
	store.Logins
	store.Games
	store.Emissions
	store.Operators
	store.Proposals
	store.PlayerActions
	store.Jobs
	store.Reports
	store.Register
	store.Limits
	store.WalletBooks
	store.Health
}

// CookieName is the operators' session cookie, apart from the players' (Path=/admin).
const CookieName = "starcolor_admin"

// Config holds the back office's dependencies and policies; zero fields take the defaults.
type Config struct {
	Definition      *gamedef.Definition // new emissions are made with it (required)
	Argon2          passhash.Argon2     // the cost of new password hashes
	Hashes          *passhash.Gate      // bounds the hashes at once; share the game server's (passhash.DefaultGate)
	AuthRate        throttle.Rate       // limits the logins of each address, with the game server's (none)
	SessionIdle     time.Duration       // a session unused this long ends (30 min)
	SessionLifetime time.Duration       // a session ends this long after login (12 h)
	Now             func() time.Time    // the clock (time.Now)
	Log             *slog.Logger        // (discarded)
	// Holder names this server in the store's leases and jobs (a random name).
	Holder string
	// SessionsEnded tells the game server that every session of these players has ended in the
	// store (an import of the list of excluded persons closed their accounts).
	SessionsEnded func(playerIDs ...int64)
	// Replay plays a game again for a dispute (game.Service.Replay); nil: no replays.
	Replay Replayer
	// Problems are what the game server has found wrong with its store (damaged pages or
	// file), for the first page's alerts; nil for none known.
	Problems func() []string
}

// Server is the back office over one store.
type Server struct {
	ctx      context.Context // the server's life: creations in the background stop with it
	db       Store
	def      *gamedef.Definition
	cfg      Config
	now      func() time.Time
	log      *slog.Logger
	mux      *http.ServeMux
	pages    *pages
	guard    *login.Guard
	sessions *session.Manager

	reportsMu sync.Mutex
	reports   map[string]*reportEntry
}

// New makes the back office. Emissions it creates in the background are cancelled (and leave
// nothing behind) when ctx ends.
func New(ctx context.Context, db Store, cfg Config) *Server {
	if cfg.Definition == nil {
		panic("admin: no game definition")
	}
	if cfg.Argon2 == (passhash.Argon2{}) {
		cfg.Argon2 = passhash.Default
	}
	if cfg.SessionIdle == 0 {
		cfg.SessionIdle = 30 * time.Minute
	}
	if cfg.SessionLifetime == 0 {
		cfg.SessionLifetime = 12 * time.Hour
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Hashes == nil {
		cfg.Hashes = passhash.DefaultGate()
	}
	if cfg.Holder == "" {
		cfg.Holder = newHolder()
	}
	s := &Server{ctx: ctx, db: db, def: cfg.Definition, cfg: cfg, now: cfg.Now, log: cfg.Log, mux: http.NewServeMux(),
		pages: mustPages(), reports: map[string]*reportEntry{},
		guard: &login.Guard{Store: db, Cost: cfg.Argon2, Hashes: cfg.Hashes, Rate: cfg.AuthRate, Now: cfg.Now},
		sessions: session.New(db, lottery.OperatorSession, session.Config{Idle: cfg.SessionIdle, Lifetime: cfg.SessionLifetime,
			Now: cfg.Now, Cache: db.OneServer()})}
	s.mux.Handle("GET /admin/static/{name}", static)
	s.mux.HandleFunc("GET /admin/login", s.loginPage)
	s.mux.HandleFunc("POST /admin/login", s.login)
	s.mux.HandleFunc("POST /admin/logout", s.auth(anyRole, s.logout))
	s.mux.HandleFunc("GET /admin/{$}", s.auth(reads|finance, s.salesPage))
	s.mux.HandleFunc("GET /admin/sales.svg", s.auth(reads|finance, s.salesChart))
	s.mux.HandleFunc("GET /admin/sales.csv", s.auth(reads|finance, s.salesCSV))
	s.mux.HandleFunc("GET /admin/emissions", s.auth(reads|emissions, s.emissionsPage))
	s.mux.HandleFunc("POST /admin/emissions", s.auth(emissions, s.proposeCreation))
	s.mux.HandleFunc("GET /admin/emissions/{id}", s.auth(reads|emissions, s.emissionPage))
	s.mux.HandleFunc("POST /admin/emissions/{id}/suspend", s.auth(emissions, s.changeStatus(lottery.Suspended)))
	s.mux.HandleFunc("POST /admin/emissions/{id}/resume", s.auth(emissions, s.changeStatus(lottery.OnSale)))
	s.mux.HandleFunc("POST /admin/emissions/{id}/withdraw", s.auth(emissions, s.proposeWithdrawal))
	s.mux.HandleFunc("GET /admin/proposals", s.auth(reads|approver|emissions, s.proposalsPage))
	s.mux.HandleFunc("POST /admin/proposals/{id}/approve", s.auth(approver, s.decide(true)))
	s.mux.HandleFunc("POST /admin/proposals/{id}/reject", s.auth(approver, s.decide(false)))
	s.mux.HandleFunc("GET /admin/emissions/{id}/blocks/{block}/audit.jsonl", s.auth(reads|emissions, s.export))
	s.mux.HandleFunc("GET /admin/emissions/{id}/blocks/{block}/audit.jsonl.gz", s.auth(reads|emissions, s.export))
	s.mux.HandleFunc("GET /admin/emissions/{id}/report", s.auth(reads|emissions, s.reportPage))
	s.mux.HandleFunc("GET /admin/emissions/{id}/report.svg", s.auth(reads|emissions, s.reportChart))
	s.mux.HandleFunc("GET /admin/jobs/{job}", s.auth(reads|emissions, s.jobPage))
	s.mux.HandleFunc("GET /admin/jobs/{job}/status", s.auth(reads|emissions, s.jobStatus))
	s.mux.HandleFunc("GET /admin/players", s.auth(reads|finance|compliance, s.playersPage))
	s.mux.HandleFunc("GET /admin/players/{id}", s.auth(reads|finance|compliance, s.playerPage))
	s.mux.HandleFunc("POST /admin/players/{id}/block", s.auth(compliance, s.playerAction(actBlock)))
	s.mux.HandleFunc("POST /admin/players/{id}/unblock", s.auth(compliance, s.playerAction(actUnblock)))
	s.mux.HandleFunc("POST /admin/players/{id}/close", s.auth(compliance, s.playerAction(actClose)))
	s.mux.HandleFunc("POST /admin/players/{id}/payout", s.auth(finance, s.playerAction(actPayout)))
	s.mux.HandleFunc("POST /admin/players/{id}/note", s.auth(finance|compliance, s.playerAction(actNote)))
	s.mux.HandleFunc("GET /admin/games/{id}/replay", s.auth(reads|finance|compliance, s.replayPage))
	s.mux.HandleFunc("GET /admin/games", s.auth(reads|finance|compliance, s.findGame))
	s.mux.HandleFunc("GET /admin/operators", s.auth(reads|adminRole, s.operatorsPage))
	s.mux.HandleFunc("POST /admin/operators/{id}/roles", s.auth(adminRole, s.proposeRoles))
	s.mux.HandleFunc("POST /admin/operators/{id}/disable", s.auth(adminRole, s.changeOperator(lottery.OperatorDisable)))
	s.mux.HandleFunc("POST /admin/operators/{id}/enable", s.auth(adminRole, s.changeOperator(lottery.OperatorEnable)))
	s.mux.HandleFunc("POST /admin/operators/{id}/password", s.auth(adminRole, s.changeOperator(lottery.OperatorNewPassword)))
	s.mux.HandleFunc("POST /admin/operators/{id}/sessions", s.auth(adminRole, s.changeOperator(lottery.OperatorEndSessions)))
	s.mux.HandleFunc("POST /admin/lang", s.setLang)
	s.mux.HandleFunc("GET /admin/log", s.auth(reads, s.logPage))
	s.mux.HandleFunc("GET /admin/exclusions", s.auth(reads|compliance, s.registerPage))
	s.mux.HandleFunc("POST /admin/exclusions", s.auth(compliance, s.importRegister))
	return s
}

// Handler is the back office with its protections: state-changing requests from other origins
// refused (http.CrossOriginProtection), and headers that keep the pages out of frames and caches.
func (s *Server) Handler() http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "Cross-origin requests that change state are refused.", http.StatusForbidden)
	}))
	return cop.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin")
		s.mux.ServeHTTP(w, r)
	}))
}

// readerOf reads an emission's units from the database.
func (s *Server) readerOf(ctx context.Context, id string) (*emission.Emission, *emission.Reader, error) {
	e, err := s.db.Emission(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	r, err := emission.NewReader(e, s.db)
	return e, r, err
}

// Sweep deletes the operators' sessions that have ended.
func (s *Server) Sweep(ctx context.Context) error { return s.sessions.Sweep(ctx) }
