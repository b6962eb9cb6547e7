package lottery

import (
	"bytes"
	"time"
)

// The modes of a game (docs/spec/RULES.md §7, article 4.1): « Jouer » (manual) and « Auto ».
const (
	Manual = "manual"
	Auto   = "auto"
)

// The statuses of a game.
const (
	ChooseColor = "choose_color"
	Playing     = "playing"
	Finished    = "finished"
)

// Game is a game as stored: the unit sold, its stake and prize, and the player's moves. The
// reveal itself is not stored: it is replayed from the unit, the colour and the clicks.
type Game struct {
	ID          int64
	PlayerID    int64
	Emission    string
	Block, Unit int
	// BlockNumber is the block's number in the store (Cursor.Number), which the game's row names
	// it by; the stores write it and read Emission and Block back through it.
	BlockNumber  int64
	Stake        int64
	Mode         string // Manual or Auto
	Prize        int64
	Color        int // -1 until chosen
	Clicks       []byte
	Status       string // ChooseColor, Playing or Finished
	BalanceAfter int64
	CreatedAt    time.Time
	UpdatedAt    int64 // unix seconds
	// StakeTransfer is the id of the game's stake transfer; its prize transfer, when it won, is
	// the next id. The back office finds a player's transfers through them.
	StakeTransfer int64
}

// Moves are what the player has played of a game: what a move changes, and what a store checks
// is still there when it writes the next (ErrMoved otherwise).
type Moves struct {
	Color  int
	Clicks []byte
	Status string
}

// Moves are the game's moves so far.
func (g *Game) Moves() Moves { return Moves{Color: g.Color, Clicks: g.Clicks, Status: g.Status} }

// Same tells whether two states of a game's moves are the same.
func (m Moves) Same(o Moves) bool {
	return m.Color == o.Color && m.Status == o.Status && bytes.Equal(m.Clicks, o.Clicks)
}

// MoveUpdate is a game's new moves, to be written only if the game still stands as it was read.
type MoveUpdate struct {
	PlayerID, GameID int64
	// Session is checked as a payment's is (nil: the server's own move, not checked).
	Session []byte
	Was     Moves // as read
	Now     Moves // as played
	// Before, when set, is a time (unix seconds) the game must not have moved since: the sweep
	// of abandoned games leaves alone a game played meanwhile.
	Before int64
}
