// Package game is the game server's logic: accounts and sessions, the wallet's movements, the
// sale of units (RULES §7), the reveal replayed on the rules engine, the history and the proofs.
// It speaks in domain terms and faults; the HTTP layer only translates.
package game

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"strconv"
	"strings"
	"sync"
	"time"

	"starcolor/internal/audit"
	"starcolor/internal/emission"
	"starcolor/internal/fault"
	"starcolor/internal/login"
	"starcolor/internal/passhash"
	"starcolor/internal/rules"
	"starcolor/internal/sqlite"
	"starcolor/internal/throttle"
)

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
	// AuthRates limits the logins and sign-ups of each client address (nil: no limit).
	AuthRates *throttle.Rates
}

// DefaultConfig is the server's default policy.
var DefaultConfig = Config{
	SessionIdle:     30 * time.Minute,
	SessionLifetime: 12 * time.Hour,
	AbandonAfter:    24 * time.Hour,
	MaxDeposit:      100_000_00,
	Argon2:          passhash.Default,
}

// Service is the game server's logic over one database.
type Service struct {
	db     *sqlite.DB
	cfg    Config
	guard  *login.Guard
	now    func() time.Time
	log    *slog.Logger
	integ  integrity
	mu     sync.Mutex
	reader map[string]*emission.Reader

	sessMu   sync.Mutex
	sessions map[[32]byte]*session
	// sessionsGone counts the sessions deleted from memory (Logout): an Authenticate that read a
	// session's row while it changed reads it again.
	sessionsGone uint64
}

// New makes a service; now is the clock (injected so that tests control time).
func New(db *sqlite.DB, cfg Config, now func() time.Time, log *slog.Logger) *Service {
	if cfg.Hashes == nil {
		cfg.Hashes = passhash.DefaultGate()
	}
	return &Service{db: db, cfg: cfg, now: now, log: log, reader: map[string]*emission.Reader{},
		sessions: map[[32]byte]*session{},
		guard:    &login.Guard{DB: db, Cost: cfg.Argon2, Hashes: cfg.Hashes, Rates: cfg.AuthRates, Now: now}}
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

// Answer is the answer to a money-moving request, as stored for its retries.
type Answer struct {
	Status int
	Body   []byte
}

// gameRef prefixes the answer stored for a sale: a reference ("game:ID") rendered again from
// the game, which is much smaller to write at every sale than the answer itself, and renders to
// the same bytes.
const gameRef = "game:"

// GameAnswer is the answer to the sale of a game.
func GameAnswer(v *View) (Answer, error) {
	return Answer{Status: 201, Body: v.AppendJSON(make([]byte, 0, 4096))}, nil
}

// Request is a money-moving request as its Idempotency-Key binds it (API.md): the call it was
// made to, such as "POST /api/v1/deposits", and its body. A retry must repeat both.
type Request struct {
	Key  string
	Call string
	Body []byte
}

// Idempotent runs a money-moving request once per key (API.md): the first success is stored
// with its effects, in the same transaction, and a retry with the same key, call and body gets it
// back without moving money again; the same key with another call or body is refused. A
// rejected request stores nothing, so that it may be retried once the player can afford it.
func (s *Service) Idempotent(ctx context.Context, p Player, req Request, run func(tx *sqlite.Tx) (Answer, error)) (Answer, error) {
	hash, err := requestHash(req)
	if err != nil {
		return Answer{}, err
	}
	if err := s.damagedStore(); err != nil {
		return s.storedAnswer(ctx, p, req.Key, hash[:], err)
	}
	var ans Answer
	// The common case, a new key, costs one insert: the request runs, and its answer is stored
	// under the key; if the key is already taken, the insert fails and the savepoint undoes the
	// request. Only then, or when the request fails, is the stored answer looked up.
	err = s.db.Update(ctx, func(tx *sqlite.Tx) error {
		if err := tx.RequireSession(p.session); err != nil {
			return err
		}
		var err error
		if ans, err = run(tx); err != nil {
			return err
		}
		return tx.RememberIdempotency(p.ID, req.Key, sqlite.Idempotent{RequestHash: hash[:], Status: ans.Status, Response: ans.Body}, s.now())
	})
	if err == nil {
		return ans, nil
	}
	return s.storedAnswer(ctx, p, req.Key, hash[:], err)
}

// requestHash checks an Idempotency-Key (API.md: 1 to 255 characters) and hashes what a retry
// under the same key must repeat: the call and the body. (The call is hashed ahead of the body,
// with a newline that no call holds, so that no other call and body hash the same.)
func requestHash(req Request) ([32]byte, error) {
	if len(req.Key) < 1 || len(req.Key) > 255 {
		return [32]byte{}, fault.Errorf(fault.Invalid, "an Idempotency-Key header of 1 to 255 characters is required")
	}
	h := sha256.New()
	h.Write([]byte(req.Call))
	h.Write([]byte{'\n'})
	h.Write(req.Body)
	var sum [32]byte
	h.Sum(sum[:0])
	return sum, nil
}

// storedAnswer answers a money-moving request that could not run (err) with the answer stored
// under its key, if there is one: the retry of a request that succeeded gets that answer back;
// the same key with another body is refused. Without a stored answer, err stands.
func (s *Service) storedAnswer(ctx context.Context, p Player, key string, hash []byte, err error) (Answer, error) {
	if fault.Is(err, fault.NotLoggedIn) {
		return Answer{}, err // the session ended: nothing is answered for it any more
	}
	stored, found, lookupErr := s.db.IdempotencyAnswer(ctx, p.ID, key)
	if lookupErr != nil {
		return Answer{}, lookupErr
	}
	if !found {
		return Answer{}, err
	}
	if string(stored.RequestHash) != string(hash) {
		return Answer{}, fault.Errorf(fault.IdempotencyMismatch, "this Idempotency-Key was used for another request (another call, or another body)")
	}
	if ref, ok := strings.CutPrefix(string(stored.Response), gameRef); ok {
		id, err := strconv.ParseInt(ref, 10, 64)
		if err != nil {
			return Answer{}, fmt.Errorf("stored answer %q: %w", stored.Response, err)
		}
		v, err := s.saleView(ctx, p, id)
		if err != nil {
			return Answer{}, err
		}
		return GameAnswer(v)
	}
	return Answer{Status: stored.Status, Body: stored.Response}, nil
}

// saleView is a game as its sale answered it: « Auto » finished, « Jouer » waiting for its
// colour, whatever has been played since.
func (s *Service) saleView(ctx context.Context, p Player, id int64) (*View, error) {
	g, err := s.db.Game(ctx, p.ID, id)
	if err != nil {
		return nil, err
	}
	g.Clicks = nil
	if g.Mode == "auto" {
		g.Status = "finished"
	} else {
		g.Status, g.Color = "choose_color", -1
	}
	play, err := s.replay(ctx, &g)
	if err != nil {
		return nil, err
	}
	return view(&g, play), nil
}

// Deposit moves play money from the bank to the player, within an Idempotent run.
func (s *Service) Deposit(tx *sqlite.Tx, p Player, amount int64) (int64, error) {
	if amount <= 0 || amount > s.cfg.MaxDeposit {
		return 0, fault.Errorf(fault.Invalid, "a deposit is 1 cent to %d cents", s.cfg.MaxDeposit)
	}
	if err := tx.Transfer(sqlite.BankAccount, p.AccountID, amount, "deposit", 0, s.now()); err != nil {
		return 0, err
	}
	return tx.Balance(p.AccountID)
}

// Withdraw moves money from the player back to the bank, within an Idempotent run.
func (s *Service) Withdraw(tx *sqlite.Tx, p Player, amount int64) (int64, error) {
	if amount <= 0 {
		return 0, fault.Errorf(fault.Invalid, "a withdrawal is a positive number of cents")
	}
	if err := tx.Transfer(p.AccountID, sqlite.BankAccount, amount, "withdrawal", 0, s.now()); err != nil {
		return 0, err
	}
	return tx.Balance(p.AccountID)
}

// Play sells a unit to the player (RULES §7) under an Idempotency-Key, like Idempotent: « Auto »
// comes back finished with a colour drawn at random; « Jouer » waits for the colour. The sale is
// the writer's batched kind (sqlite.Sell): its answer under the key is a reference to the game,
// rendered again for a retry.
func (s *Service) Play(ctx context.Context, p Player, r Request, stake int64, mode string) (Answer, *sqlite.Game, error) {
	hash, err := requestHash(r)
	if err != nil {
		return Answer{}, nil, err
	}
	if mode != "manual" && mode != "auto" {
		ans, err := s.storedAnswer(ctx, p, r.Key, hash[:], fault.Errorf(fault.Invalid, `mode must be "manual" or "auto"`))
		return ans, nil, err
	}
	if stake != 100 && stake != 200 && stake != 300 {
		ans, err := s.storedAnswer(ctx, p, r.Key, hash[:], fault.Errorf(fault.Invalid, "the stake is 100, 200 or 300 cents (1, 2 or 3 €)"))
		return ans, nil, err
	}
	if err := s.damagedStore(); err != nil {
		ans, err := s.storedAnswer(ctx, p, r.Key, hash[:], err)
		return ans, nil, err
	}
	req := sqlite.SaleRequest{
		PlayerID: p.ID, AccountID: p.AccountID, Session: p.session, Price: stake, Mode: mode, Color: -1, Status: "choose_color",
		Key: r.Key, RequestHash: hash[:],
		Answer: func(g *sqlite.Game) sqlite.Idempotent {
			return sqlite.Idempotent{Status: 201, Response: fmt.Appendf(nil, "%s%d", gameRef, g.ID)}
		},
		PrizeOf: func(ctx context.Context, e string, block, unit int) (int64, error) {
			rec, err := s.unit(ctx, e, block, unit)
			return rec.Prize, err
		},
	}
	if mode == "auto" {
		req.Color, req.Status = randomColor(), "finished" // drawn before the writer's turn: it costs a system call
	}
	g, err := s.db.Sell(ctx, req, s.now())
	if err != nil {
		ans, err := s.storedAnswer(ctx, p, r.Key, hash[:], err)
		return ans, nil, err
	}
	// The reveal and the answer's JSON are made once the sale is committed, outside the writer:
	// only what must be atomic is done in its turn.
	ans, err := s.soldAnswer(ctx, &g)
	return ans, &g, err
}

// soldAnswer is the answer to a sale once it is committed. If it cannot be made, the error says
// that the game was bought all the same, and how to get it: the stake is taken, and a retry under
// the same key answers it.
func (s *Service) soldAnswer(ctx context.Context, g *sqlite.Game) (Answer, error) {
	body, err := s.render(ctx, g)
	if err != nil {
		return Answer{}, &fault.Error{Code: fault.Internal, Cause: err, Message: fmt.Sprintf(
			"the game was bought (game %d, in your history) but its answer could not be made: ask for it again with the same Idempotency-Key, or GET /api/v1/games/%d", g.ID, g.ID)}
	}
	return Answer{Status: 201, Body: body}, nil
}

// render replays a game and writes its answer.
func (s *Service) render(ctx context.Context, g *sqlite.Game) ([]byte, error) {
	play, err := s.replay(ctx, g)
	if err != nil {
		return nil, err
	}
	return view(g, play).AppendJSON(make([]byte, 0, 4096)), nil
}

func randomColor() int {
	n, _ := rand.Int(rand.Reader, big.NewInt(rules.NumColors))
	return int(n.Int64())
}

// unit reads a unit of an emission, checked against its commitment; a unit that fails its
// check is a 503, never a prize.
func (s *Service) unit(ctx context.Context, id string, block, index int) (audit.Record, error) {
	r, err := s.readerOf(ctx, id)
	if err != nil {
		return audit.Record{}, err
	}
	rec, err := r.Unit(ctx, block, index)
	if errors.Is(err, emission.ErrCorrupt) {
		return rec, corruptUnits(err)
	}
	return rec, err
}

// readerOf is the reader of an emission's units: one per emission for the server's life, its
// checked pages cached (64: sales read a page once for its 256 units, replays find recent ones).
func (s *Service) readerOf(ctx context.Context, id string) (*emission.Reader, error) {
	s.mu.Lock()
	r := s.reader[id]
	s.mu.Unlock()
	if r != nil {
		return r, nil
	}
	e, err := s.db.Emission(ctx, id)
	if err != nil {
		return nil, err
	}
	if r, err = emission.NewReaderWith(e, s.db, emission.ReaderConfig{CachePages: 64, OnCorrupt: s.onCorrupt}); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if first := s.reader[id]; first != nil {
		return first, nil // another request made it meanwhile
	}
	s.reader[id] = r
	return r, nil
}

// replay rebuilds a game's reveal from its unit and its stored moves.
func (s *Service) replay(ctx context.Context, g *sqlite.Game) (*rules.Play, error) {
	rec, err := s.unit(ctx, g.Emission, g.Block, g.Unit)
	if err != nil {
		return nil, err
	}
	p := rules.NewPlay(rec.Unit)
	if g.Color >= 0 {
		if err := p.ChooseColor(rules.Color(g.Color)); err != nil {
			return nil, fmt.Errorf("game %d: stored colour: %w", g.ID, err)
		}
	}
	for _, c := range g.Clicks {
		if _, err := p.Click(int(c)); err != nil {
			return nil, fmt.Errorf("game %d: stored click: %w", g.ID, err)
		}
	}
	if g.Status == "finished" && p.Stage() != rules.Finished {
		if _, err := p.Finish(); err != nil {
			return nil, fmt.Errorf("game %d: %w", g.ID, err)
		}
	}
	return p, nil
}

// Game is one of the player's games.
func (s *Service) Game(ctx context.Context, p Player, id int64) (*View, error) {
	g, err := s.db.Game(ctx, p.ID, id)
	if err != nil {
		return nil, err
	}
	play, err := s.replay(ctx, &g)
	if err != nil {
		return nil, err
	}
	return view(&g, play), nil
}

// Games lists the player's games, newest first.
func (s *Service) Games(ctx context.Context, p Player, limit int, before int64) ([]*View, error) {
	gs, err := s.db.Games(ctx, p.ID, limit, before)
	if err != nil {
		return nil, err
	}
	out := make([]*View, 0, len(gs))
	for i := range gs {
		play, err := s.replay(ctx, &gs[i])
		if err != nil {
			return nil, err
		}
		out = append(out, view(&gs[i], play))
	}
	return out, nil
}

// Move is a step of a manual game.
type Move struct {
	Color  *int // choose this colour
	Cell   *int // reveal this star
	Finish bool // play the rest as « Auto »
}

// Move plays one step of a game and stores it.
func (s *Service) Move(ctx context.Context, p Player, id int64, m Move) (*View, error) {
	var v *View
	err := s.db.Update(ctx, func(tx *sqlite.Tx) error {
		if err := tx.RequireSession(p.session); err != nil {
			return err
		}
		g, err := tx.Game(p.ID, id)
		if err != nil {
			return err
		}
		v, err = s.move(tx.Context(), tx, &g, m)
		return err
	})
	return v, err
}

func (s *Service) move(ctx context.Context, tx *sqlite.Tx, g *sqlite.Game, m Move) (*View, error) {
	play, err := s.replay(ctx, g)
	if err != nil {
		return nil, err
	}
	if g.Status == "finished" {
		return nil, fault.Errorf(fault.InvalidMove, "the game is finished")
	}
	switch {
	case m.Color != nil:
		if *m.Color < 0 || *m.Color >= rules.NumColors {
			return nil, fault.Errorf(fault.Invalid, "the colour is 0 to 5")
		}
		err = play.ChooseColor(rules.Color(*m.Color))
		g.Color = *m.Color
	case m.Cell != nil:
		if *m.Cell < 0 || *m.Cell >= rules.Cells {
			return nil, fault.Errorf(fault.Invalid, "the cell is 0 to 41")
		}
		if _, err = play.Click(*m.Cell); err == nil {
			g.Clicks = append(g.Clicks, byte(*m.Cell))
		}
	case m.Finish:
		if play.Stage() == rules.ChooseColor {
			g.Color = randomColor()
			if err := play.ChooseColor(rules.Color(g.Color)); err != nil {
				return nil, err
			}
		}
		_, err = play.Finish()
	}
	if err != nil {
		return nil, moveFault(err)
	}
	g.Status = play.Stage().String()
	if err := tx.SaveMoves(g, s.now()); err != nil {
		return nil, err
	}
	return view(g, play), nil
}

func moveFault(err error) error {
	switch {
	case errors.Is(err, rules.ErrInvalid):
		return fault.Errorf(fault.Invalid, "%v", err)
	case errors.Is(err, rules.ErrIllegalMove):
		return fault.Errorf(fault.InvalidMove, "%v", err)
	}
	return err
}

// KeepKeys is how long the answer to an Idempotency-Key is kept: API.md asks for 24 hours at least.
const KeepKeys = 48 * time.Hour

// The sweep of old keys reads this many keys at a time, and deletes at most forgetBatch of them
// in one write (see sqlite.OldKeys).
const (
	sweepRead   = 5000
	forgetBatch = 512
)

// ForgetOldKeys drops the answers kept for idempotency keys older than KeepKeys, and returns how
// many it dropped. It sweeps the whole key table without holding the writer for long.
func (s *Service) ForgetOldKeys(ctx context.Context) (int64, error) {
	cutoff := s.now().Add(-KeepKeys)
	var after sqlite.KeyRef
	var forgotten int64
	for {
		old, last, done, err := s.db.OldKeys(ctx, after, sweepRead, cutoff)
		if err != nil {
			return forgotten, err
		}
		for len(old) > 0 {
			n := min(len(old), forgetBatch)
			var deleted int64
			err := s.db.Update(ctx, func(tx *sqlite.Tx) error {
				var err error
				deleted, err = tx.ForgetKeys(old[:n])
				return err
			})
			if err != nil {
				return forgotten, err
			}
			forgotten += deleted
			old = old[n:]
		}
		if done {
			return forgotten, nil
		}
		after = last
	}
}

// FinishAbandoned finishes, as « Auto » would, the games left unfinished longer than the
// configured time (RULES §7: an abandoned reveal is completed by the system). It returns how many.
// The list is read beside the writer; each game is read again in the writer's turn, and left
// alone if a move has landed since (it is then neither abandoned nor as listed).
func (s *Service) FinishAbandoned(ctx context.Context) (int, error) {
	cutoff := s.now().Add(-s.cfg.AbandonAfter)
	gs, err := s.db.Abandoned(ctx, cutoff, 500)
	if err != nil {
		return 0, err
	}
	done := 0
	for _, listed := range gs {
		finished := false
		err := s.db.Update(ctx, func(tx *sqlite.Tx) error {
			g, err := tx.Game(listed.PlayerID, listed.ID)
			if err != nil || g.Status == "finished" || g.UpdatedAt >= cutoff.Unix() {
				return err
			}
			_, err = s.move(tx.Context(), tx, &g, Move{Finish: true})
			finished = err == nil
			return err
		})
		if err != nil {
			return done, err
		}
		if finished {
			done++
		}
	}
	return done, nil
}

// Proof is a finished game's unit line and its RFC 6962 inclusion proof (API.md).
type Proof struct {
	Emission string   `json:"emission"`
	Block    int      `json:"block"`
	Index    int      `json:"index"`
	Line     string   `json:"line"`
	Root     string   `json:"root"`
	Path     []string `json:"path"`
}

// Prove returns the proof of a finished game's unit.
func (s *Service) Prove(ctx context.Context, p Player, id int64) (*Proof, error) {
	g, err := s.db.Game(ctx, p.ID, id)
	if err != nil {
		return nil, err
	}
	if g.Status != "finished" {
		return nil, fault.Errorf(fault.InvalidMove, "the proof is given once the game is finished")
	}
	r, err := s.readerOf(ctx, g.Emission)
	if err != nil {
		return nil, err
	}
	pr, err := r.Prove(ctx, g.Block, g.Unit)
	if errors.Is(err, emission.ErrCorrupt) {
		return nil, corruptUnits(err)
	}
	if err != nil {
		return nil, err
	}
	out := &Proof{Emission: g.Emission, Block: g.Block, Index: g.Unit, Line: string(pr.Line), Root: fmt.Sprintf("%x", pr.Root), Path: []string{}}
	for _, h := range pr.Path {
		out.Path = append(out.Path, fmt.Sprintf("%x", h))
	}
	return out, nil
}
