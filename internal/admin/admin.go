// Package admin is the operators' back office, served under /admin: their own accounts and
// sessions, the emissions (listed, created with progress, exported, reported on), the sales
// against the prize tables, the liability of the open blocks, the players, and the log of every
// operator action. Pages are rendered on the server from html/template files embedded in the
// binary; the only script polls an emission's creation. It reads and writes through the SQLite
// store, and takes the game definition new emissions are made with as a dependency.
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
	"starcolor/internal/passhash"
	"starcolor/internal/sqlite"
	"starcolor/internal/throttle"
)

// CookieName is the operators' session cookie, apart from the players' (Path=/admin).
const CookieName = "starcolor_admin"

// Config holds the back office's dependencies and policies; zero fields take the defaults.
type Config struct {
	Definition      *gamedef.Definition // new emissions are made with it (required)
	Argon2          passhash.Argon2     // the cost of new password hashes
	Hashes          *passhash.Gate      // bounds the hashes at once; share the game server's (passhash.DefaultGate)
	AuthRates       *throttle.Rates     // limits the logins of each address; share the game server's (none)
	SessionIdle     time.Duration       // a session unused this long ends (30 min)
	SessionLifetime time.Duration       // a session ends this long after login (12 h)
	Now             func() time.Time    // the clock (time.Now)
	Log             *slog.Logger        // (discarded)
}

// Server is the back office over one database.
type Server struct {
	ctx   context.Context // the server's life: creations in the background stop with it
	db    *sqlite.DB
	def   *gamedef.Definition
	cfg   Config
	now   func() time.Time
	log   *slog.Logger
	mux   *http.ServeMux
	pages *pages
	guard *login.Guard

	jobsMu sync.Mutex
	jobs   []*job

	reportsMu sync.Mutex
	reports   map[string]*reportEntry
}

// New makes the back office. Emissions it creates in the background are cancelled (and leave
// nothing behind) when ctx ends.
func New(ctx context.Context, db *sqlite.DB, cfg Config) *Server {
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
	s := &Server{ctx: ctx, db: db, def: cfg.Definition, cfg: cfg, now: cfg.Now, log: cfg.Log, mux: http.NewServeMux(),
		pages: mustPages(), reports: map[string]*reportEntry{},
		guard: &login.Guard{DB: db, Cost: cfg.Argon2, Hashes: cfg.Hashes, Rates: cfg.AuthRates, Now: cfg.Now}}
	s.mux.HandleFunc("GET /admin/static/{hash}/{name}", serveStatic)
	s.mux.HandleFunc("GET /admin/login", s.loginPage)
	s.mux.HandleFunc("POST /admin/login", s.login)
	s.mux.HandleFunc("POST /admin/logout", s.auth(s.logout))
	s.mux.HandleFunc("GET /admin/{$}", s.auth(s.salesPage))
	s.mux.HandleFunc("GET /admin/sales.svg", s.auth(s.salesChart))
	s.mux.HandleFunc("GET /admin/sales.csv", s.auth(s.salesCSV))
	s.mux.HandleFunc("GET /admin/emissions", s.auth(s.emissionsPage))
	s.mux.HandleFunc("POST /admin/emissions", s.auth(s.createEmission))
	s.mux.HandleFunc("GET /admin/emissions/{id}", s.auth(s.emissionPage))
	s.mux.HandleFunc("GET /admin/emissions/{id}/blocks/{block}/audit.jsonl", s.auth(s.export))
	s.mux.HandleFunc("GET /admin/emissions/{id}/blocks/{block}/audit.jsonl.gz", s.auth(s.export))
	s.mux.HandleFunc("GET /admin/emissions/{id}/report", s.auth(s.reportPage))
	s.mux.HandleFunc("GET /admin/emissions/{id}/report.svg", s.auth(s.reportChart))
	s.mux.HandleFunc("GET /admin/jobs/{job}", s.auth(s.jobPage))
	s.mux.HandleFunc("GET /admin/jobs/{job}/status", s.auth(s.jobStatus))
	s.mux.HandleFunc("GET /admin/players", s.auth(s.playersPage))
	s.mux.HandleFunc("GET /admin/players/{id}", s.auth(s.playerPage))
	s.mux.HandleFunc("GET /admin/games", s.auth(s.findGame))
	s.mux.HandleFunc("POST /admin/lang", s.setLang)
	s.mux.HandleFunc("GET /admin/log", s.auth(s.logPage))
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
