// Package game is the game server's logic: accounts and sessions, payments, the sale of units
// (docs/spec/RULES.md §7), the reveal replayed on the rules engine, the history and the proofs.
// It speaks in domain terms and faults; the HTTP layer only translates.
//
// Where the players' money lives, in their accounts here or at the operator's wallet, is chosen
// once at start (money.go); every call that differs between the two asks it. Each flow has its
// file: the sale (sale.go), the answers kept under keys (idempotency.go), moves and replays
// (moves.go), the unit cache (units.go), proofs, sweeps, payments, accounts and limits.
package game

import (
	"fmt"
	"log/slog"
	"sync"
	"time"

	"starcolor/internal/gamedef"
	"starcolor/internal/login"
	"starcolor/internal/lottery"
	"starcolor/internal/passhash"
	"starcolor/internal/session"
	"starcolor/internal/store"
	"starcolor/internal/throttle"
)

// Store is what the game server needs of a store: the roles of internal/store it uses. Every
// method is one transaction of its own; the store turns its own errors into faults.
type Store interface {
	store.Players
	store.Sessions
	store.Logins
	store.Sales
	store.Games
	store.Emissions
	store.Limits
	store.Health
}

// Config holds the server's policies.
type Config struct {
	SessionIdle     time.Duration // a session unused this long ends
	SessionLifetime time.Duration // a session ends this long after login, whatever happens
	AbandonAfter    time.Duration // an unfinished game untouched this long is finished by the server
	MaxDeposit      int64         // cents, per deposit
	Argon2          passhash.Argon2
	// Hashes bounds the password hashes at once (nil: passhash.DefaultGate); share one with
	// everything else of the process that hashes, the back office's logins.
	Hashes *passhash.Gate
	// AuthRate limits the logins and sign-ups of each client address (the zero Rate: no limit).
	AuthRate throttle.Rate
	// Demo is the policy of demo play (docs/spec/API.md 1.2), on once EnableDemo is called.
	Demo DemoConfig
	// Definition is the game on sale: a stake is one of the prices of its tables (nil:
	// gamedef.Default, the regulation's three).
	Definition *gamedef.Definition
}

// DefaultConfig is the server's default policy.
var DefaultConfig = Config{
	SessionIdle:     30 * time.Minute,
	SessionLifetime: 12 * time.Hour,
	AbandonAfter:    24 * time.Hour,
	MaxDeposit:      100_000_00,
	Argon2:          passhash.Default,
	Demo:            DefaultDemo,
}

// Service is the game server's logic over one store.
type Service struct {
	db       Store
	cfg      Config
	guard    *login.Guard
	sessions *session.Manager
	now      func() time.Time
	log      *slog.Logger
	integ    integrity
	units    *units // the unit cache (units.go)
	stakes   stakes // the stakes on sale (sale.go)

	// players keeps who each player is (their name, their account), which never changes: a
	// request knows its player from its session without reading the store again.
	playersMu sync.Mutex
	players   map[int64]Player

	money   money       // where the players' money lives: a ledger, unless WithWallet (money.go)
	demo    *demo       // nil: no demo play (demo.go)
	journal SaleJournal // the sales' proofs in the journal (nil: none; proofs.go)
}

// New makes a service; now is the clock (injected so that tests control time).
func New(db Store, cfg Config, now func() time.Time, log *slog.Logger) *Service {
	if cfg.Hashes == nil {
		cfg.Hashes = passhash.DefaultGate()
	}
	if cfg.Definition == nil {
		def, err := gamedef.Lookup(gamedef.Default)
		if err != nil {
			// It is embedded in the binary, and gamedef's tests check it: a build without it is broken.
			panic(fmt.Sprintf("game: the default game definition: %v", err))
		}
		cfg.Definition = def
	}
	s := &Service{db: db, cfg: cfg, now: now, log: log, players: map[int64]Player{},
		sessions: session.New(db, lottery.PlayerSession, session.Config{Idle: cfg.SessionIdle, Lifetime: cfg.SessionLifetime, Now: now, Cache: db.OneServer()}),
		guard:    &login.Guard{Store: db, Cost: cfg.Argon2, Hashes: cfg.Hashes, Rate: cfg.AuthRate, Now: now}}
	s.units = newUnits(db, s.onCorrupt)
	s.stakes = stakesOf(cfg.Definition)
	s.money = ledger{s}
	return s
}

// Config is the service's policy.
func (s *Service) Config() Config { return s.cfg }

// Player is a logged-in player.
type Player struct {
	ID        int64  `json:"-"`
	Username  string `json:"username"`
	Balance   int64  `json:"balance"`
	AccountID int64  `json:"-"`
	// session is the hash of the token the player was authenticated with: every write made for
	// them checks, in its own transaction, that the session is still there (a logout may have
	// committed since the request was let in). Nil for the server's own actions.
	session []byte
}
