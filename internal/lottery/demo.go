package lottery

import (
	"errors"
	"time"

	"starcolor/internal/fault"
)

// Demo play (docs/spec/API.md 1.2): a visitor tries the game with play money, without an
// account. Its sessions and games are kept in tables of their own. No query of players, games,
// transfers, emissions or reports reads them: a demo game is never a unit of an emission, and
// moves no money of the ledger.

// DemoSession is a demo session, known by the SHA-256 of its token as a player's session is.
type DemoSession struct {
	Hash      []byte
	Balance   int64 // play money, in cents
	Games     int   // the demo games played in it so far
	CreatedAt int64 // unix seconds
	LastSeen  int64 // unix seconds: its last game or move
}

// DemoGame is a demo game as stored. It has a game's own fields, with PlayerID, Emission, Block,
// Unit and StakeTransfer unused: there is no player, no emission and no transfer. It has the
// unit it is played on, drawn for it alone and kept as its audit line (docs/spec/RULES.md §8).
// It is replayed from that line as a real game is from its emission's unit.
type DemoGame struct {
	Game
	Line []byte
	// The Idempotency-Key it was sold under, and the hash of its request, as a real game's key
	// keeps them: a retry gets the same game.
	Key         string
	RequestHash []byte
}

// DemoAlive says when a demo session has ended: last seen before IdleBefore, or started before
// CreatedBefore (unix seconds). A write for a demo session checks it in its own transaction,
// so that the write needs no read of the session before it.
type DemoAlive struct {
	IdleBefore, CreatedBefore int64
}

// DemoSale is a demo game to sell to a session. In one write, its stake is taken from the
// session's play money and its prize, drawn already, added. It is refused if the session:
//
//   - has ended (ErrSessionEnded);
//   - cannot pay the stake (fault.InsufficientFunds);
//   - has played MaxGames already (fault.TooManyAttempts).
//
// A key the session has sold under already sells nothing: the store returns the game sold under
// it.
type DemoSale struct {
	Session     []byte
	Alive       DemoAlive
	Key         string
	RequestHash []byte
	Stake       int64
	Mode        string
	Prize       int64
	Color       int    // -1 until chosen (an « Auto » game has it drawn)
	Status      string // ChooseColor, or Finished for « Auto »
	Line        []byte
	MaxGames    int
}

// ErrDemoFull refuses a new demo session while as many are open as the server keeps.
var ErrDemoFull = fault.Retry(fault.Unavailable, time.Minute, "too many demo games are open right now: try again in a minute")

// Game is the demo game a sale writes, once the session has paid its stake: balanceAfter is the
// play money after the stake and the prize.
func (s DemoSale) Game(balanceAfter int64, now time.Time) DemoGame {
	return DemoGame{
		Game: Game{Stake: s.Stake, Mode: s.Mode, Prize: s.Prize, Color: s.Color, Status: s.Status,
			BalanceAfter: balanceAfter, CreatedAt: time.Unix(now.Unix(), 0).UTC(), UpdatedAt: now.Unix()},
		Line: s.Line, Key: s.Key, RequestHash: s.RequestHash,
	}
}

// Refusal says why a session as read (found: false when there is none) cannot pay a demo sale,
// once the store's write found it could not. Both stores decide by it.
func (s DemoSale) Refusal(d DemoSession, found bool) error {
	switch {
	case !found || d.LastSeen < s.Alive.IdleBefore || d.CreatedAt < s.Alive.CreatedBefore:
		return ErrSessionEnded
	case d.Games >= s.MaxGames:
		return fault.Errorf(fault.TooManyAttempts, "this demo has played its %d games: open an account, or start a new demo", s.MaxGames)
	case d.Balance < s.Stake:
		return fault.Errorf(fault.InsufficientFunds, "not enough play money left for a stake of %d cents", s.Stake)
	}
	// The write and the read disagree: a sale of the session committed between them.
	return fault.Retry(fault.Unavailable, time.Second, "the demo session changed meanwhile: nothing was sold; try again")
}

// ErrDemoKept is what a store's write of a demo sale returns to undo it when the sale's key has
// a game already (its answer is that game). It never leaves the store.
var ErrDemoKept = errors.New("the demo sale's key has its game already")
