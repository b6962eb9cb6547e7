package lottery

import (
	"time"

	"starcolor/internal/fault"
)

// Demo play (API.md 1.2): a visitor tries the game with play money, without an account. Its
// sessions and games are kept in tables of their own, which no query of players, games,
// transfers, emissions or reports reads: a demo game is never a unit of an emission, and moves no
// money of the ledger.

// DemoSession is a demo session, known by the SHA-256 of its token as a player's session is.
type DemoSession struct {
	Hash      []byte
	Balance   int64 // play money, in cents
	Games     int   // the demo games played in it so far
	CreatedAt int64 // unix seconds
	LastSeen  int64 // unix seconds: its last game or move
}

// DemoGame is a demo game as stored: a game's own fields (PlayerID, Emission, Block, Unit and
// StakeTransfer unused: there is no player, no emission and no transfer), and the unit it is
// played on, drawn for it alone and kept as its audit line (RULES §8), from which it is replayed
// as a real game is from its emission's unit.
type DemoGame struct {
	Game
	Line []byte
	// The Idempotency-Key it was sold under, and the hash of its request, as a real game's key
	// keeps them: a retry gets the same game.
	Key         string
	RequestHash []byte
}

// DemoSale is a demo game to sell to a session: its stake taken from the session's play money
// and its prize, drawn already, added, in one write; refused if the session has ended
// (ErrSessionEnded), cannot pay the stake (fault.InsufficientFunds) or has played MaxGames
// already (fault.TooManyAttempts). A key the session has sold under already sells nothing: the
// store returns the game sold under it.
type DemoSale struct {
	Session     []byte
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

// NewDemoGame decides a demo sale (DemoSale) on the session's balance and count of games as the
// store holds them, in the write that sells it: the game to write, its balance after the stake
// and the prize, or the refusal. Both stores decide by it.
func NewDemoGame(s DemoSale, balance int64, games int, now time.Time) (DemoGame, error) {
	if games >= s.MaxGames {
		return DemoGame{}, fault.Errorf(fault.TooManyAttempts,
			"this demo has played its %d games: open an account, or start a new demo", s.MaxGames)
	}
	if balance < s.Stake {
		return DemoGame{}, fault.Errorf(fault.InsufficientFunds, "not enough play money left for a stake of %d cents", s.Stake)
	}
	return DemoGame{
		Game: Game{Stake: s.Stake, Mode: s.Mode, Prize: s.Prize, Color: s.Color, Status: s.Status,
			BalanceAfter: balance - s.Stake + s.Prize, CreatedAt: time.Unix(now.Unix(), 0).UTC(), UpdatedAt: now.Unix()},
		Line: s.Line, Key: s.Key, RequestHash: s.RequestHash,
	}, nil
}
