// Package game is the game server's logic: accounts and sessions, the wallet's movements, the
// sale of units (docs/spec/RULES.md §7), the reveal replayed on the rules engine, the history and the proofs.
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
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"starcolor/internal/audit"
	"starcolor/internal/emission"
	"starcolor/internal/fault"
	"starcolor/internal/login"
	"starcolor/internal/lottery"
	"starcolor/internal/passhash"
	"starcolor/internal/rules"
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
	mu       sync.Mutex
	reader   map[string]*emission.Reader

	// players keeps who each player is (their name, their account), which never changes: a
	// request knows its player from its session without reading the store again.
	playersMu sync.Mutex
	players   map[int64]Player

	wallet *Wallet // nil: the players' money is their accounts' here (wallet.go)
	demo   *demo   // nil: no demo play (demo.go)
}

// New makes a service; now is the clock (injected so that tests control time).
func New(db Store, cfg Config, now func() time.Time, log *slog.Logger) *Service {
	if cfg.Hashes == nil {
		cfg.Hashes = passhash.DefaultGate()
	}
	return &Service{db: db, cfg: cfg, now: now, log: log, reader: map[string]*emission.Reader{}, players: map[int64]Player{},
		sessions: session.New(db, lottery.PlayerSession, session.Config{Idle: cfg.SessionIdle, Lifetime: cfg.SessionLifetime, Now: now, Cache: db.OneServer()}),
		guard:    &login.Guard{Store: db, Cost: cfg.Argon2, Hashes: cfg.Hashes, Rate: cfg.AuthRate, Now: now}}
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

// gameRef prefixes the answer stored for a sale: a reference ("game:ID") rendered again from
// the game, which is much smaller to write at every sale than the answer itself, and renders to
// the same bytes.
const gameRef = "game:"

// GameAnswer is the answer to the sale of a game.
func GameAnswer(v *View) (lottery.Answer, error) {
	return lottery.Answer{Status: 201, Body: v.AppendJSON(make([]byte, 0, 4096))}, nil
}

// Request is a money-moving request as its Idempotency-Key binds it (docs/spec/API.md): the call it was
// made to, such as "POST /api/v1/deposits", and its body. A retry must repeat both.
type Request struct {
	Key  string
	Call string
	Body []byte
}

// pay runs a payment once per key (docs/spec/API.md): the first success is kept with its effects, in the
// same transaction, and a retry with the same key, call and body gets its answer back without
// moving money again; the same key with another call or body is refused. A refused payment keeps
// nothing, so that it may be tried again once the player can afford it.
func (s *Service) pay(ctx context.Context, p Player, req Request, kind string, amount int64) (lottery.Answer, error) {
	hash, err := requestHash(req)
	if err != nil {
		return lottery.Answer{}, err
	}
	if err := s.damagedStore(); err != nil {
		return s.storedAnswer(ctx, p, req.Key, hash[:], err)
	}
	// The common case, a new key, costs one insert: the payment runs, and its answer is kept
	// under the key; if the key is taken already, the store undoes the payment. Only then, or
	// when the payment fails, is the kept answer looked up.
	ans, err := s.db.Pay(ctx, lottery.Payment{PlayerID: p.ID, AccountID: p.AccountID, Session: p.session, Kind: kind, Amount: amount,
		Key: req.Key, RequestHash: hash[:], Answer: balanceAnswer}, s.now())
	if err == nil {
		return ans, nil
	}
	return s.storedAnswer(ctx, p, req.Key, hash[:], err)
}

// balanceAnswer is the answer to a payment: the player's balance after it.
func balanceAnswer(balance int64) (lottery.Answer, error) {
	return lottery.Answer{Status: 201, Body: fmt.Appendf(nil, `{"balance":%d}`, balance)}, nil
}

// requestHash checks an Idempotency-Key (docs/spec/API.md: 1 to 255 characters) and hashes what a retry
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
func (s *Service) storedAnswer(ctx context.Context, p Player, key string, hash []byte, err error) (lottery.Answer, error) {
	if fault.Is(err, fault.NotLoggedIn) {
		return lottery.Answer{}, s.ended(p, err) // the session ended: nothing is answered for it any more
	}
	stored, found, lookupErr := s.db.KeptAnswer(ctx, p.ID, key)
	if lookupErr != nil {
		return lottery.Answer{}, lookupErr
	}
	if !found {
		return lottery.Answer{}, err
	}
	return s.keptAnswer(ctx, p, stored, hash)
}

// keptAnswer is the answer kept under a key, given again to a request with the same hash.
func (s *Service) keptAnswer(ctx context.Context, p Player, stored lottery.KeptAnswer, hash []byte) (lottery.Answer, error) {
	if string(stored.RequestHash) != string(hash) {
		return lottery.Answer{}, fault.Errorf(fault.IdempotencyMismatch, "this Idempotency-Key was used for another request (another call, or another body)")
	}
	if ref, ok := strings.CutPrefix(string(stored.Body), gameRef); ok {
		id, err := strconv.ParseInt(ref, 10, 64)
		if err != nil {
			return lottery.Answer{}, fmt.Errorf("stored answer %q: %w", stored.Body, err)
		}
		v, err := s.saleView(ctx, p, id)
		if err != nil {
			return lottery.Answer{}, err
		}
		return GameAnswer(v)
	}
	return stored.Answer, nil
}

// saleView is a game as its sale answered it: « Auto » finished, « Jouer » waiting for its
// colour, whatever has been played since.
func (s *Service) saleView(ctx context.Context, p Player, id int64) (*View, error) {
	g, err := s.db.Game(ctx, p.ID, id)
	if err != nil {
		return nil, err
	}
	g.Clicks = nil
	if g.Mode == lottery.Auto {
		g.Status = lottery.Finished
	} else {
		g.Status, g.Color = lottery.ChooseColor, -1
	}
	play, err := s.replay(ctx, &g)
	if err != nil {
		return nil, err
	}
	return view(&g, play), nil
}

// Deposit moves play money from the bank to the player, once per Idempotency-Key.
func (s *Service) Deposit(ctx context.Context, p Player, req Request, amount int64) (lottery.Answer, error) {
	if s.wallet != nil {
		return lottery.Answer{}, errWalletMode
	}
	if amount <= 0 || amount > s.cfg.MaxDeposit {
		hash, err := requestHash(req)
		if err != nil {
			return lottery.Answer{}, err
		}
		return s.storedAnswer(ctx, p, req.Key, hash[:], fault.Errorf(fault.Invalid, "a deposit is 1 cent to %d cents", s.cfg.MaxDeposit))
	}
	return s.pay(ctx, p, req, lottery.Deposit, amount)
}

// Withdraw moves money from the player back to the bank, once per Idempotency-Key.
func (s *Service) Withdraw(ctx context.Context, p Player, req Request, amount int64) (lottery.Answer, error) {
	if s.wallet != nil {
		return lottery.Answer{}, errWalletMode
	}
	if amount <= 0 {
		hash, err := requestHash(req)
		if err != nil {
			return lottery.Answer{}, err
		}
		return s.storedAnswer(ctx, p, req.Key, hash[:], fault.Errorf(fault.Invalid, "a withdrawal is a positive number of cents"))
	}
	return s.pay(ctx, p, req, lottery.Withdrawal, amount)
}

// Play sells a unit to the player (docs/spec/RULES.md §7) under an Idempotency-Key, like Idempotent: « Auto »
// comes back finished with a colour drawn at random; « Jouer » waits for the colour. The sale is
// the store's batched kind (Store.Sell): its answer under the key is a reference to the game,
// rendered again for a retry.
func (s *Service) Play(ctx context.Context, p Player, r Request, stake int64, mode string) (lottery.Answer, *lottery.Game, error) {
	hash, err := requestHash(r)
	if err != nil {
		return lottery.Answer{}, nil, err
	}
	if mode != lottery.Manual && mode != lottery.Auto {
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
	req := lottery.SaleRequest{
		PlayerID: p.ID, AccountID: p.AccountID, Session: p.session, Price: stake, Mode: mode, Color: -1, Status: lottery.ChooseColor,
		Key: r.Key, RequestHash: hash[:],
		Answer: func(g *lottery.Game) lottery.Answer {
			return lottery.Answer{Status: 201, Body: fmt.Appendf(nil, "%s%d", gameRef, g.ID)}
		},
		PrizeOf: func(ctx context.Context, e string, block, unit int) (int64, error) {
			rec, err := s.unit(ctx, e, block, unit)
			return rec.Prize, err
		},
	}
	if mode == lottery.Auto {
		req.Color, req.Status = randomColor(), lottery.Finished // drawn before the store's turn: it costs a system call
	}
	var walletDone func(sold bool)
	if s.wallet != nil {
		// A sale refused is not kept under its key (docs/spec/WALLET.md): a retry is a new attempt.
		// A key answered already answers the same: checked before the debit, or with the sale
		// when the player's rollback was held ahead (the debit of a copy of an older sale is
		// then rolled back). The same key sent twice at once waits here for its first sale
		// (saleKeys), and then answers the same; sent to two servers at once, both debit, and
		// the second sale, refused for its key, rolls its debit back.
		unlock, err := s.wallet.keys.lock(ctx, p.ID, r.Key)
		if err != nil {
			return lottery.Answer{}, nil, err
		}
		defer unlock()
		kept, done, err := s.walletSale(ctx, p, &req)
		walletDone = done
		if err == nil && kept != nil {
			ans, err := s.keptAnswer(ctx, p, *kept, hash[:])
			return ans, nil, err
		}
		if err != nil {
			// The debit refused, or its outcome unknown: the answer of a copy of the request
			// sold meanwhile on another server, if there is one, else the refusal.
			ans, err := s.storedAnswer(ctx, p, r.Key, hash[:], err)
			return ans, nil, err
		}
	}
	g, err := s.db.Sell(ctx, req, s.now())
	if err != nil && req.Wallet != nil {
		s.rollBack(ctx, req.Wallet.Rollback) // the debit stands, the sale does not: rolled back
		s.noteSale(stake, err)
	}
	if walletDone != nil {
		walletDone(err == nil)
	}
	if err != nil {
		ans, err := s.storedAnswer(ctx, p, r.Key, hash[:], err)
		return ans, nil, err
	}
	if req.Wallet != nil {
		s.wallet.Wake() // the credit of an « Auto » game is due
	}
	// The reveal and the answer's JSON are made once the sale is committed, outside the writer:
	// only what must be atomic is done in its turn.
	ans, err := s.soldAnswer(ctx, &g)
	return ans, &g, err
}

// soldAnswer is the answer to a sale once it is committed. If it cannot be made, the error says
// that the game was bought all the same, and how to get it: the stake is taken, and a retry under
// the same key answers it.
func (s *Service) soldAnswer(ctx context.Context, g *lottery.Game) (lottery.Answer, error) {
	body, err := s.render(ctx, g)
	if err != nil {
		return lottery.Answer{}, &fault.Error{Code: fault.Internal, Cause: err, Message: fmt.Sprintf(
			"the game was bought (game %d, in your history) but its answer could not be made: ask for it again with the same Idempotency-Key, or GET /api/v1/games/%d", g.ID, g.ID)}
	}
	return lottery.Answer{Status: 201, Body: body}, nil
}

// render replays a game and writes its answer.
func (s *Service) render(ctx context.Context, g *lottery.Game) ([]byte, error) {
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
func (s *Service) replay(ctx context.Context, g *lottery.Game) (*rules.Play, error) {
	rec, err := s.unit(ctx, g.Emission, g.Block, g.Unit)
	if err != nil {
		return nil, err
	}
	return replayOn(g, rec.Unit)
}

// replayOn plays a game's stored moves on its unit: a real game's, read from its emission, or a
// demo game's, kept with it.
func replayOn(g *lottery.Game, u rules.Unit) (*rules.Play, error) {
	p := rules.NewPlay(u)
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
	if g.Status == lottery.Finished && p.Stage() != rules.Finished {
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

// Move plays one step of a game and stores it. The game is read and the move played on its
// replay outside the store's turn; the store then writes the new moves only if the game still
// stands as it was read, and otherwise the move is played again on the game as it is now (a
// move sent twice at once, from two tabs or two servers, is played once).
func (s *Service) Move(ctx context.Context, p Player, id int64, m Move) (*View, error) {
	for {
		g, err := s.db.Game(ctx, p.ID, id)
		if err != nil {
			return nil, err
		}
		u := lottery.MoveUpdate{PlayerID: p.ID, GameID: id, Session: p.session, Was: g.Moves()}
		v, err := s.move(ctx, &g, m)
		if err != nil {
			return nil, err
		}
		u.Now = g.Moves()
		if err := s.db.SaveMoves(ctx, u, s.now()); !errors.Is(err, lottery.ErrMoved) {
			if err != nil {
				return nil, s.ended(p, err)
			}
			s.creditFinished(ctx, &g)
			return v, nil
		}
	}
}

// move plays a move on a game as read, and returns its view; g holds its new moves.
func (s *Service) move(ctx context.Context, g *lottery.Game, m Move) (*View, error) {
	play, err := s.replay(ctx, g)
	if err != nil {
		return nil, err
	}
	return s.playMove(g, play, m)
}

// playMove plays a move on the replay of a game, and returns its view; g holds its new moves.
func (s *Service) playMove(g *lottery.Game, play *rules.Play, m Move) (*View, error) {
	var err error
	if g.Status == lottery.Finished {
		return nil, fault.Errorf(fault.InvalidMove, "the game is finished")
	}
	// The moves are changed on copies: g's slices are the ones read.
	g.Clicks = slices.Clip(g.Clicks)
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
	g.UpdatedAt = s.now().Unix()
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

// KeepKeys is how long the answer to an Idempotency-Key is kept: docs/spec/API.md asks for 24 hours at least.
const KeepKeys = 48 * time.Hour

// The sweep of old keys reads this many keys at a time, and deletes at most forgetBatch of them
// in one write (see sqlite.DB.OldKeys).
const (
	sweepRead   = 5000
	forgetBatch = 512
)

// ForgetOldKeys drops the answers kept for idempotency keys older than KeepKeys, and returns how
// many it dropped. It sweeps the whole key table without holding the writer for long.
func (s *Service) ForgetOldKeys(ctx context.Context) (int64, error) {
	cutoff := s.now().Add(-KeepKeys)
	var after lottery.KeyRef
	var forgotten int64
	for {
		old, last, done, err := s.db.OldKeys(ctx, after, sweepRead, cutoff)
		if err != nil {
			return forgotten, err
		}
		for len(old) > 0 {
			n := min(len(old), forgetBatch)
			deleted, err := s.db.ForgetKeys(ctx, old[:n])
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
// configured time (docs/spec/RULES.md §7: an abandoned reveal is completed by the system). It returns how many.
// Each is finished only if it still stands as listed and untouched since the cutoff: a game played
// meanwhile, or finished by another server's sweep, is left alone.
func (s *Service) FinishAbandoned(ctx context.Context) (int, error) {
	cutoff := s.now().Add(-s.cfg.AbandonAfter)
	gs, err := s.db.Abandoned(ctx, cutoff, 500)
	if err != nil {
		return 0, err
	}
	done := 0
	for i := range gs {
		g := &gs[i]
		u := lottery.MoveUpdate{PlayerID: g.PlayerID, GameID: g.ID, Was: g.Moves(), Before: cutoff.Unix()}
		if _, err := s.move(ctx, g, Move{Finish: true}); err != nil {
			return done, err
		}
		u.Now = g.Moves()
		switch err := s.db.SaveMoves(ctx, u, s.now()); {
		case errors.Is(err, lottery.ErrMoved):
		case err != nil:
			return done, err
		default:
			s.creditFinished(ctx, g)
			done++
		}
	}
	return done, nil
}

// Proof is a finished game's unit line and its RFC 6962 inclusion proof (docs/spec/API.md).
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
	if g.Status != lottery.Finished {
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
