package game

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"

	"starcolor/internal/audit"
	"starcolor/internal/fault"
	"starcolor/internal/gamedef"
	"starcolor/internal/lottery"
	"starcolor/internal/rules"
	"starcolor/internal/scenario"
	"starcolor/internal/session"
	"starcolor/internal/store"
	"starcolor/internal/throttle"
)

// Demo play (docs/spec/API.md 1.2 « Demo play »): a visitor plays with play money, without an account.
//
// The design is for several stateless servers on one database. A demo session and its games are
// rows of their own tables (lottery.DemoSession, lottery.DemoGame). Every server reads and writes
// them, and nothing else of the store reads them, so that no emission, report, ledger or total
// can count them.
//
// A demo game's unit is drawn for it alone, and kept with it as its audit line:
//   - its prize tier at the odds of the game definition's table at that stake;
//   - its boards by the generator emissions use (internal/scenario).
//
// It is then played on the rules (internal/rules) exactly as a real game is replayed from its
// emission's unit: the same moves, the same events, the same JSON.
//
// What a visitor can make the server hold is bounded:
//   - a few new demo sessions a minute per address (DemoConfig.Rate, counted by the store for
//     every server);
//   - DemoConfig.MaxSessions at once;
//   - DemoConfig.MaxGames games each (about 300 bytes a game);
//   - each session gone DemoConfig.Idle after its last move, or DemoConfig.Lifetime after its
//     start;
//   - a rate of plays and moves per address on each server (DemoConfig.MoveRate).

// DemoStore is what demo play needs of a store (lottery.DemoSale and its kin).
type DemoStore interface {
	store.Demo
}

// DemoConfig is the policy of demo play.
type DemoConfig struct {
	Balance     int64         // the play money a demo session starts with, in cents
	Idle        time.Duration // a demo session without a game or a move this long is forgotten
	Lifetime    time.Duration // a demo session is forgotten this long after its start, whatever happens
	MaxGames    int           // games a demo session may play
	MaxSessions int           // demo sessions open at once, on all the servers
	// Rate bounds the new demo sessions of each client address, on all the servers together;
	// MoveRate bounds the demo plays and moves of each address on each server. (The zero Rate:
	// no limit.)
	Rate, MoveRate throttle.Rate
	// Unit, when set, gives the unit of every demo game instead of the draw: for tests, which
	// must know what a game will reveal. Its prize must be a tier of the stake's table.
	Unit func(stake int64) (audit.Record, error)
}

// DefaultDemo is the default policy of demo play: 50 € of play money, for 30 minutes after the
// last move and 4 hours at most; 200 games; 20,000 sessions at once (about 1.2 GB at most in the
// store, if every one of them played all its games); 6 new sessions a minute and 240 moves a
// minute per address (a hand plays a game in 10 to 20 moves, and « Auto » in one).
var DefaultDemo = DemoConfig{
	Balance: 50_00, Idle: 30 * time.Minute, Lifetime: 4 * time.Hour, MaxGames: 200, MaxSessions: 20_000,
	Rate: throttle.PerMinute(6), MoveRate: throttle.PerMinute(240),
}

// DemoTokenPrefix starts the token of every demo session. So a request is known for a demo one
// without a read of the store, and the player's calls of real money refuse it (fault.DemoMode).
const DemoTokenPrefix = "demo."

// IsDemoToken tells whether a session token is a demo session's.
func IsDemoToken(token string) bool { return strings.HasPrefix(token, DemoTokenPrefix) }

// ErrDemoMode refuses a call of real money or of an account made with a demo session.
var ErrDemoMode = fault.Errorf(fault.DemoMode, "this is a demo with play money: open an account to deposit, withdraw, set limits or see proofs")

// demo is demo play as a service runs it.
type demo struct {
	db     DemoStore
	cfg    DemoConfig
	tables map[int64]*demoTable
	prices string // the stakes, for messages
	moves  *throttle.Local
}

// demoTable draws the units of one stake: the tiers of its table at the odds of a block, and the
// generator of their boards.
type demoTable struct {
	table *gamedef.Table
	gen   *scenario.Generator
	cum   []int // cumulative counts of the tiers
}

// EnableDemo turns demo play on, with the prize tables and presentation of a definition (the
// one new emissions are made with), over a store of demo sessions.
func (s *Service) EnableDemo(def *gamedef.Definition, db DemoStore) error {
	d := &demo{db: db, cfg: s.cfg.Demo, tables: map[int64]*demoTable{}, prices: def.PriceList(),
		moves: throttle.NewLocal(s.cfg.Demo.MoveRate, s.now)}
	for i := range def.Tables {
		t := &def.Tables[i]
		gen, err := scenario.New(def, t)
		if err != nil {
			return fmt.Errorf("demo play at %s: %w", gamedef.FormatEUR(t.Price), err)
		}
		dt := &demoTable{table: t, gen: gen}
		sum := 0
		for _, tier := range t.Tiers {
			sum += tier.Count
			dt.cum = append(dt.cum, sum)
		}
		d.tables[t.Price] = dt
	}
	s.demo = d
	return nil
}

// draw makes the unit of a demo game: a tier drawn at the table's odds, and boards that reveal
// it. Both come from a ChaCha8 stream seeded by the system's randomness, as a block's units come
// from theirs.
func (t *demoTable) draw() (audit.Record, error) {
	var seed [32]byte
	rand.Read(seed[:])
	rng := scenario.NewStream(seed)
	x := rng.IntN(t.cum[len(t.cum)-1])
	tier := 0
	for x >= t.cum[tier] {
		tier++
	}
	rec := audit.Record{Prize: t.table.Tiers[tier].Amount}
	if err := t.gen.Unit(&rec.Unit, rec.Prize, rng); err != nil {
		return rec, err
	}
	binary.LittleEndian.PutUint64(rec.Salt[:8], rng.Uint64())
	binary.LittleEndian.PutUint64(rec.Salt[8:], rng.Uint64())
	return rec, nil
}

// DemoPlayer is a demo session as the API shows it: play money, and its mark.
type DemoPlayer struct {
	Demo    bool  `json:"demo"`
	Balance int64 `json:"balance"`
	hash    []byte
}

// demoOff is the refusal of demo calls on a service without demo play.
func (s *Service) demoOff() error {
	if s.demo == nil {
		return fault.Errorf(fault.NotFound, "demo play is not offered here")
	}
	return nil
}

// StartDemo opens a demo session for a client address and returns its token. The demo session
// of the token the client had, if it had one, is forgotten first: a visitor holds one at a time.
func (s *Service) StartDemo(ctx context.Context, addr, previous string) (string, DemoPlayer, error) {
	if err := s.demoOff(); err != nil {
		return "", DemoPlayer{}, err
	}
	if r := s.demo.cfg.Rate; r.Limited() {
		wait, err := s.db.Throttle(ctx, "demo:"+addr, func(tat int64) (int64, time.Duration) { return r.Take(tat, s.now()) })
		if err != nil {
			return "", DemoPlayer{}, err
		}
		if wait > 0 {
			wait = (wait + time.Second - 1).Truncate(time.Second)
			return "", DemoPlayer{}, fault.Retry(fault.TooManyAttempts, wait, "too many demo games started from your address: try again in %s", wait)
		}
	}
	if IsDemoToken(previous) {
		if err := s.EndDemo(ctx, previous); err != nil {
			return "", DemoPlayer{}, err
		}
	}
	token := DemoTokenPrefix + session.NewToken()
	h := session.Hash(token)
	now := s.now().Unix()
	if err := s.demo.db.CreateDemoSession(ctx, lottery.DemoSession{Hash: h[:], Balance: s.demo.cfg.Balance, CreatedAt: now, LastSeen: now},
		s.demo.cfg.MaxSessions); err != nil {
		return "", DemoPlayer{}, err
	}
	return token, DemoPlayer{Demo: true, Balance: s.demo.cfg.Balance, hash: h[:]}, nil
}

// EndDemo forgets a demo session and its games (a logout).
func (s *Service) EndDemo(ctx context.Context, token string) error {
	if err := s.demoOff(); err != nil {
		return err
	}
	h := session.Hash(token)
	return s.demo.db.EndDemoSession(ctx, h[:])
}

// AuthenticateDemo finds the demo session of a token, with its balance; one idle or too old is
// forgotten there and then.
func (s *Service) AuthenticateDemo(ctx context.Context, token string) (DemoPlayer, error) {
	if err := s.demoOff(); err != nil {
		return DemoPlayer{}, err
	}
	h := session.Hash(token)
	ds, err := s.demo.db.DemoSession(ctx, h[:])
	if err != nil {
		return DemoPlayer{}, err
	}
	if alive := s.demoAlive(); ds.LastSeen < alive.IdleBefore || ds.CreatedAt < alive.CreatedBefore {
		return DemoPlayer{}, cmp(s.demo.db.EndDemoSession(ctx, h[:]), lottery.ErrSessionEnded)
	}
	return DemoPlayer{Demo: true, Balance: ds.Balance, hash: h[:]}, nil
}

// AuthenticateDemoWrite is AuthenticateDemo for a demo play or move, which checks its session,
// live, in its own write (lottery.DemoAlive): nothing is read before it, and the balance is not
// known.
func (s *Service) AuthenticateDemoWrite(ctx context.Context, token string) (DemoPlayer, error) {
	if err := s.demoOff(); err != nil {
		return DemoPlayer{}, err
	}
	h := session.Hash(token)
	return DemoPlayer{Demo: true, hash: h[:]}, nil
}

// demoAlive is when a demo session counts as ended, now: idle or too old.
func (s *Service) demoAlive() lottery.DemoAlive {
	now := s.now()
	return lottery.DemoAlive{IdleBefore: now.Add(-s.demo.cfg.Idle).Unix(), CreatedBefore: now.Add(-s.demo.cfg.Lifetime).Unix()}
}

// cmp is err, or else other.
func cmp(err, other error) error {
	if err != nil {
		return err
	}
	return other
}

// demoMove takes one demo play or move of an address's rate on this server.
func (s *Service) demoMove(addr string) error {
	if wait := s.demo.moves.Take(addr); wait > 0 {
		wait = (wait + time.Second - 1).Truncate(time.Second)
		return fault.Retry(fault.TooManyAttempts, wait, "too many demo moves from your address: try again in %s", wait)
	}
	return nil
}

// PlayDemo sells a demo game under an Idempotency-Key, as Play sells a real one: the same modes,
// answers and errors. It sells at the stakes of the definition's tables, with play money, on a
// unit drawn for it alone. addr is the client's address (throttle.Address).
func (s *Service) PlayDemo(ctx context.Context, p DemoPlayer, r Request, stake int64, mode, addr string) (lottery.Answer, error) {
	hash, err := requestHash(r)
	if err != nil {
		return lottery.Answer{}, err
	}
	if mode != lottery.Manual && mode != lottery.Auto {
		return lottery.Answer{}, fault.Errorf(fault.Invalid, `mode must be "manual" or "auto"`)
	}
	t := s.demo.tables[stake]
	if t == nil {
		return lottery.Answer{}, fault.Errorf(fault.Invalid, "the stake of a demo game is one of %s", s.demo.prices)
	}
	if err := s.demoMove(addr); err != nil {
		return lottery.Answer{}, err
	}
	var rec audit.Record
	if s.demo.cfg.Unit != nil {
		rec, err = s.demo.cfg.Unit(stake)
	} else {
		rec, err = t.draw()
	}
	if err != nil {
		return lottery.Answer{}, err
	}
	sale := lottery.DemoSale{Session: p.hash, Alive: s.demoAlive(), Key: r.Key, RequestHash: hash[:], Stake: stake, Mode: mode, Prize: rec.Prize,
		Color: -1, Status: lottery.ChooseColor, Line: audit.AppendLine(make([]byte, 0, 256), &rec), MaxGames: s.demo.cfg.MaxGames}
	if mode == lottery.Auto {
		sale.Color, sale.Status = randomColor(), lottery.Finished
	}
	g, kept, err := s.demo.db.SellDemo(ctx, sale, s.now())
	if err != nil {
		return lottery.Answer{}, err
	}
	if kept {
		if string(g.RequestHash) != string(hash[:]) {
			return lottery.Answer{}, fault.Errorf(fault.IdempotencyMismatch, "this Idempotency-Key was used for another request (another call, or another body)")
		}
		// The answer of the sale, as a real game's retry gets it (saleView).
		g.Clicks = nil
		if g.Mode == lottery.Auto {
			g.Status = lottery.Finished
		} else {
			g.Status, g.Color = lottery.ChooseColor, -1
		}
	}
	v, err := demoView(&g)
	if err != nil {
		return lottery.Answer{}, err
	}
	return lottery.Answer{Status: 201, Body: v.AppendJSON(make([]byte, 0, 4096))}, nil
}

// demoView replays a demo game on its kept unit and renders it as the API shows a game: "unit"
// null, "demo" true.
func demoView(g *lottery.DemoGame) (*View, error) {
	play, err := replayDemo(g)
	if err != nil {
		return nil, err
	}
	v := view(&g.Game, play)
	v.Unit, v.Demo = nil, true
	return v, nil
}

// replayDemo plays a demo game's stored moves on its kept unit.
func replayDemo(g *lottery.DemoGame) (*rules.Play, error) {
	rec, err := audit.ParseLine(g.Line)
	if err != nil {
		return nil, fmt.Errorf("demo game %d: its unit: %w", g.ID, err)
	}
	return replayOn(&g.Game, rec.Unit)
}

// DemoGame is one of a demo session's games.
func (s *Service) DemoGame(ctx context.Context, p DemoPlayer, id int64) (*View, error) {
	g, err := s.demo.db.DemoGame(ctx, p.hash, id)
	if err != nil {
		return nil, err
	}
	return demoView(&g)
}

// DemoGames lists a demo session's games, newest first.
func (s *Service) DemoGames(ctx context.Context, p DemoPlayer, limit int, before int64) ([]*View, error) {
	gs, err := s.demo.db.DemoGames(ctx, p.hash, limit, before)
	if err != nil {
		return nil, err
	}
	out := make([]*View, 0, len(gs))
	for i := range gs {
		v, err := demoView(&gs[i])
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// DemoMove plays one step of a demo game as Move plays one of a real game:
//  1. The game is read, and the move played on its replay.
//  2. The moves are written only if the game still stands as it was read.
//  3. Else the move is played again on the game as it is now.
//
// So a move sent twice at once, from two tabs or two servers, is played once.
func (s *Service) DemoMove(ctx context.Context, p DemoPlayer, id int64, m Move, addr string) (*View, error) {
	if err := s.demoMove(addr); err != nil {
		return nil, err
	}
	for {
		g, err := s.demo.db.DemoGame(ctx, p.hash, id)
		if err != nil {
			return nil, err
		}
		play, err := replayDemo(&g)
		if err != nil {
			return nil, err
		}
		u := lottery.MoveUpdate{GameID: id, Session: p.hash, Was: g.Moves()}
		v, err := s.playMove(&g.Game, play, m)
		if err != nil {
			return nil, err
		}
		v.Unit, v.Demo = nil, true
		u.Now = g.Moves()
		if err := s.demo.db.SaveDemoMoves(ctx, u, s.demoAlive(), s.now()); !errors.Is(err, lottery.ErrMoved) {
			if err != nil {
				return nil, err
			}
			return v, nil
		}
	}
}

// forgetDemos deletes the demo sessions that have ended, and their games.
func (s *Service) forgetDemos(ctx context.Context) error {
	if s.demo == nil {
		return nil
	}
	now := s.now()
	_, err := s.demo.db.ForgetDemoSessions(ctx, now.Add(-s.demo.cfg.Idle), now.Add(-s.demo.cfg.Lifetime))
	return err
}
